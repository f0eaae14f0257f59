//! Delegated summarisation: the [`SummaryRequest`] the summarising tiers build, the
//! [`Summariser`] they await (the binding implements it over the host's JS callback, tests
//! natively), and the acceptance rules that decide whether an answer may replace content.

use crate::policy::tier::Tier;
use serde::Serialize;
use std::future::Future;
use std::pin::Pin;

/// Spend the summariser reported for one call.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SummariserUsage {
    /// Input tokens of the summarisation call.
    pub input_tokens: u64,
    /// Output tokens of the summarisation call.
    pub output_tokens: u64,
    /// Cost in USD, when the host knows it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cost_usd: Option<f64>,
}

impl SummariserUsage {
    /// Adds another call's usage to this one.
    pub fn add(&mut self, other: SummariserUsage) {
        self.input_tokens += other.input_tokens;
        self.output_tokens += other.output_tokens;
        self.cost_usd = match (self.cost_usd, other.cost_usd) {
            (None, None) => None,
            (a, b) => Some(a.unwrap_or(0.0) + b.unwrap_or(0.0)),
        };
    }
}

/// A boxed future that need not be `Send` (wasm is single-threaded; JS promises are not `Send`).
pub type LocalBoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + 'a>>;

/// What the summariser is asked (`docs/design.md`, "Summaries").
#[derive(Debug, Clone, PartialEq)]
pub struct SummaryRequest {
    /// The tier asking (`auto` or `session_memory`).
    pub tier: Tier,
    /// The session being compacted.
    pub session_id: String,
    /// The compaction event's correlation id.
    pub correlation_id: String,
    /// The prompt: the default handoff-summary prompt, or the host's override.
    pub instructions: String,
    /// The part to summarise, rendered as readable text, media already stripped.
    pub transcript: String,
    /// The same part in the caller's format (messages, or a one-string array for flat text).
    pub messages: Vec<serde_json::Value>,
    /// How long the summary should be, in tokens.
    pub target_tokens: u64,
    /// Identifiers, file paths, URLs, error lines and the user's directives found in that part:
    /// the summary must carry them verbatim.
    pub must_keep: Vec<String>,
}

/// A summariser's answer.
#[derive(Debug, Clone, PartialEq)]
pub struct SummaryAnswer {
    /// The summary text.
    pub summary: String,
    /// The spend the summariser reports, if any.
    pub usage: Option<SummariserUsage>,
}

/// Why a summariser call produced no usable answer. The tier then falls back to the structural
/// digest, marks the result degraded and names the cause in a warning.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum SummariserFailure {
    /// The callback's promise rejected (the reason's message).
    Rejected(String),
    /// The callback threw synchronously (the error's message).
    Threw(String),
    /// No answer within the timeout (milliseconds).
    TimedOut(u64),
    /// The host's signal aborted the call (the abort reason).
    Aborted(String),
    /// The answer was neither a string nor `{ summary: string }` (what it was).
    NotAString(String),
}

impl std::fmt::Display for SummariserFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SummariserFailure::Rejected(reason) => write!(f, "summariser rejected: {reason}"),
            SummariserFailure::Threw(reason) => write!(f, "summariser threw: {reason}"),
            SummariserFailure::TimedOut(ms) => write!(f, "summariser timed out after {ms} ms"),
            SummariserFailure::Aborted(reason) => write!(f, "summariser aborted: {reason}"),
            SummariserFailure::NotAString(what) => {
                write!(
                    f,
                    "summariser returned {what}, not a string or {{ summary: string }}"
                )
            }
        }
    }
}

/// Something that summarises: the host's callback behind the binding, or a native test double.
pub trait Summariser {
    /// Summarises `request`. Timeouts and cancellation are the implementation's to enforce.
    fn summarise(
        &self,
        request: SummaryRequest,
    ) -> LocalBoxFuture<'_, Result<SummaryAnswer, SummariserFailure>>;
}

/// The default prompt: a handoff summary in sections, with the user's directives verbatim.
pub const DEFAULT_INSTRUCTIONS: &str = "Summarise the conversation excerpt below for another agent that will continue the work without seeing it. \
Write a handoff summary with these sections: Goal; Decisions made; Files, identifiers and URLs touched; \
Errors seen and how they were resolved; Open tasks; User directives (quote the user's explicit instructions verbatim). \
Keep every item listed under mustKeep verbatim. Be concise: stay within targetTokens tokens. \
Do not invent facts; if something is unknown, leave it out.";

/// The summary length to ask for: a share of what is replaced that shrinks as pressure grows
/// (at 70 % use, 15 %; at 95 %, 5 % — never under 64 or over 8,000 tokens).
pub fn target_tokens(replaced_tokens: u64, context_pct_used: f64) -> u64 {
    let share = (1.0 - context_pct_used).clamp(0.1, 1.0) * 0.5;
    ((replaced_tokens as f64 * share) as u64).clamp(64, 8_000)
}

/// A summary that passed acceptance, or the structural digest that replaced a refused one.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    /// The text to put in place of what is summarised (without the marker heading).
    pub text: String,
    /// The summariser was asked and its answer could not be used.
    pub degraded: bool,
    /// Why, when degraded.
    pub warning: Option<String>,
    /// The summariser's reported spend (also when its answer was refused: it was spent).
    pub usage: Option<SummariserUsage>,
}

impl Outcome {
    /// `text` used as it is, at the spend `usage`.
    fn used(text: String, usage: Option<SummariserUsage>) -> Self {
        Self {
            text,
            degraded: false,
            warning: None,
            usage,
        }
    }
}

/// Checks an answer: non-empty, and — with the `mustKeep` items it left out appended verbatim
/// under [`crate::transcript::markers::KEPT_VERBATIM`] and the index of the `directives` it carries
/// ([`crate::summary::directives::carry`]) — shorter than `replaced_tokens`. Returns the text to use, or
/// why the answer is refused.
pub fn accept(
    answer: &str,
    replaced_tokens: u64,
    must_keep: &[String],
    directives: &[String],
    counter: &dyn crate::tokens::TokenCounter,
) -> Result<String, String> {
    let answer = answer.trim();
    if answer.is_empty() {
        return Err("summariser returned an empty summary".into());
    }
    let missing: Vec<&String> = must_keep
        .iter()
        .filter(|item| !answer.contains(item.as_str()))
        .collect();
    let mut text = answer.to_string();
    crate::summary::directives::keep_verbatim(&mut text, &missing);
    // The next summary or digest that folds this one reads its directives back by the index.
    let text = crate::summary::directives::carry(text, directives);
    let tokens = counter.count(&text);
    if tokens >= replaced_tokens {
        return Err(format!(
            "summary ({tokens} tokens with kept items) is not shorter than what it replaces ({replaced_tokens} tokens)"
        ));
    }
    Ok(text)
}

/// Asks `summariser` (when there is one) and accepts its answer, or falls back to `digest`.
/// Never uses an error message as a summary. `directives` are those of the request's `mustKeep`
/// (the summary's directive index names them).
pub async fn summarise_or_digest(
    summariser: Option<&dyn Summariser>,
    request: SummaryRequest,
    directives: &[String],
    replaced_tokens: u64,
    counter: &dyn crate::tokens::TokenCounter,
    digest: &dyn Fn() -> String,
) -> Outcome {
    let Some(summariser) = summariser else {
        return Outcome::used(digest(), None);
    };
    let must_keep = request.must_keep.clone();
    let (refusal, usage) = match summariser.summarise(request).await {
        Ok(answer) => {
            match accept(
                &answer.summary,
                replaced_tokens,
                &must_keep,
                directives,
                counter,
            ) {
                Ok(text) => return Outcome::used(text, answer.usage),
                Err(refusal) => (refusal, answer.usage),
            }
        }
        Err(failure) => (failure.to_string(), None),
    };
    Outcome {
        text: digest(),
        degraded: true,
        warning: Some(format!("{refusal}; used the structural digest instead")),
        usage,
    }
}

//! Delegated summarisation: the [`SummaryRequest`] the summarising tiers build, the
//! [`Summariser`] they await (the binding implements it over the host's JS callback, tests
//! natively), and the acceptance rules that decide whether an answer may replace content.

use crate::result::SummariserUsage;
use crate::tier::Tier;
use std::future::Future;
use std::pin::Pin;

/// A boxed future that need not be `Send` (wasm is single-threaded; JS promises are not `Send`).
pub type LocalBoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + 'a>>;

/// What the summariser is asked (SPEC §6).
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

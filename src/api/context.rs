//! [`TierContext`] (what to compact) and [`CompactOptions`] (how), with their validation.

use crate::config::PolicyConfig;
use crate::error::{CompactionError, Result, describe_number};
use crate::formats::registry;
use crate::policy::pressure::BudgetPressure;
use crate::summary::summarise::Summariser;
use crate::tokens::{TokenCounter, TokenEstimator};
use crate::transcript::Format;

/// The seed's default price per 1,000 tokens, in USD.
pub const DEFAULT_COST_PER_1K_TOKENS: f64 = 0.003;

/// Which format structured messages are in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum FormatChoice {
    /// Detect from the messages (the default).
    #[default]
    Auto,
    /// The host names the format.
    Fixed(Format),
}

impl FormatChoice {
    /// Parses the `format` option: `"auto"` or a registered format's name
    /// ([`crate::formats::registry`]).
    pub fn parse(name: &str) -> Result<Self> {
        if name == "auto" {
            return Ok(FormatChoice::Auto);
        }
        registry::by_name(name)
            .map(FormatChoice::Fixed)
            .ok_or_else(|| {
                CompactionError::type_error(
                    "format",
                    format!(
                        "must be one of \"auto\", {}, got {name:?}",
                        registry::quoted_names()
                    ),
                )
            })
    }
}

/// The context to compact: exactly one of structured messages or flat text.
#[derive(Debug, Clone, PartialEq)]
pub enum ContextInput {
    /// Messages in the host's wire format.
    Messages {
        /// The messages, as JSON values.
        messages: Vec<serde_json::Value>,
        /// Their format.
        format: FormatChoice,
    },
    /// The seed's flat text.
    Text(String),
}

/// What to compact, for which session, under which pressure.
#[derive(Debug, Clone, PartialEq)]
pub struct TierContext {
    /// The session's id (part of correlation ids and summary requests).
    pub session_id: String,
    /// The session's budget pressure; `compact` selects a tier from it.
    pub pressure: BudgetPressure,
    /// Price per 1,000 tokens in USD (default 0.003).
    pub cost_per_1k_tokens: f64,
    /// The context.
    pub input: ContextInput,
    /// The messages continue a conversation the provider stores (a Responses request body with
    /// `previous_response_id` or `conversation`): a tool result whose call is not in the list
    /// answers a stored call, so it is neither an orphan to repair nor removed with a range.
    pub server_history: bool,
    /// Set by a binding whose `input` messages hold placeholders for values it keeps in the
    /// host: binary data and URLs (see [`crate::api::host_value`]).
    pub host_values: Option<crate::api::host_value::HostValueKey>,
    /// The previous call's `TierResult.state` (docs/design.md §11): a stateless host passes it back so
    /// this call repeats the decisions the history alone does not hold.
    pub state: Option<crate::plan::loop_state::LoopState>,
}

impl TierContext {
    /// A context with the default price.
    pub fn new(
        session_id: impl Into<String>,
        pressure: BudgetPressure,
        input: ContextInput,
    ) -> Self {
        Self {
            session_id: session_id.into(),
            pressure,
            cost_per_1k_tokens: DEFAULT_COST_PER_1K_TOKENS,
            input,
            server_history: false,
            host_values: None,
            state: None,
        }
    }

    /// Checks the fields that are not checked on construction.
    pub fn validate(&self) -> Result<()> {
        if !self.cost_per_1k_tokens.is_finite() || self.cost_per_1k_tokens < 0.0 {
            return Err(CompactionError::range_error(
                "costPer1kTokens",
                format!(
                    "must be a finite number >= 0, got {}",
                    describe_number(self.cost_per_1k_tokens)
                ),
            ));
        }
        Ok(())
    }
}

/// How to compact: thresholds, counter, summariser, ids. `Default` is the seed's behaviour.
#[derive(Default, Clone)]
pub struct CompactOptions<'a> {
    /// Thresholds (seed defaults).
    pub policy: PolicyConfig,
    /// Token counter; `None` is the built-in estimator named by `token_estimator`.
    pub counter: Option<&'a dyn TokenCounter>,
    /// The built-in estimator used without a `counter`: the seed's rule with
    /// `policy.chars_per_token` or the heuristic [`crate::tokens::Estimator`]; `None` is the
    /// input's own ([`Self::estimator_for`]).
    pub token_estimator: Option<TokenEstimator>,
    /// The summariser for `auto` and `session_memory`; without one they digest structurally.
    pub summariser: Option<&'a dyn Summariser>,
    /// The host's correlation id; derived from session, turn and content when absent.
    pub correlation_id: Option<String>,
    /// Overrides the default summarisation prompt.
    pub instructions: Option<String>,
}

impl CompactOptions<'_> {
    /// The built-in estimator that counts `input` without a `counter`: the one named, else the
    /// heuristic for structured messages and the seed's rule for flat text, whose numbers must
    /// reproduce the seed's (docs/design.md §8, "Counting").
    pub fn estimator_for(&self, input: &ContextInput) -> TokenEstimator {
        self.token_estimator.unwrap_or(match input {
            ContextInput::Messages { .. } => TokenEstimator::Heuristic,
            ContextInput::Text(_) => TokenEstimator::Seed,
        })
    }
}

impl std::fmt::Debug for CompactOptions<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CompactOptions")
            .field("policy", &self.policy)
            .field("token_estimator", &self.token_estimator)
            .field("summariser", &self.summariser.is_some())
            .field("correlation_id", &self.correlation_id)
            .field("instructions", &self.instructions)
            .finish()
    }
}

//! What the engine settles before it reads a context: that it is within the input limits, and
//! whether the tier may run on it elided (long strings known by their facts, see
//! [`crate::elision`]).

use crate::context::{CompactOptions, ContextInput};
use crate::error::Result;
use crate::limits::Limits;
use crate::tier::Tier;
use crate::tokens::TokenEstimator;

/// Checks a context against the limits: `text: 52428800 bytes exceeds maxInputBytes 33554432`,
/// `messages[4].content: nesting deeper than 64 levels (maxNestingDepth)`.
pub fn check_limits(limits: &Limits, input: &ContextInput) -> Result<()> {
    match input {
        ContextInput::Text(text) => limits.check_text("text", text),
        ContextInput::Messages { messages, .. } => limits.check_messages(messages),
    }
}

/// Whether `tier` may run on elided messages under `options`: only `none` counting by the
/// seed's rule (named: messages count by the heuristic by default, which reads every character)
/// reads long texts through their facts alone. micro and time_based write stubs that keep the
/// lines that matter and the paths of the whole body, so they read long texts whole (an elided
/// text's facts would need those lines too: see `docs/design.md`, "Long strings").
pub fn may_read_elided(tier: Tier, options: &CompactOptions<'_>) -> bool {
    tier == Tier::None
        && options.counter.is_none()
        && options.token_estimator == Some(TokenEstimator::Seed)
}

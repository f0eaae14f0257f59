//! The tiers, one module each, cheapest first. Every tier module has the same parts: `TIER`, its
//! trigger predicate (`trigger`, which the policy asks in priority order) and its `compact`,
//! which plans edits over the [`Working`] context and applies them. Its cost weight is
//! [`Tier::default_cost_weight`] (the five weights live together in `tier.rs`, so
//! `TIER_COST_WEIGHT` has one source; a call overrides them with `policy.costWeights`). Shared
//! parts: [`stub`] (what stands in for a removed body), [`tool_input`] (long strings inside a
//! call's input). No tier sees a wire format; `docs/design.md` describes each tier.

pub mod auto;
pub mod deferral;
pub mod frontier;
pub mod micro;
pub mod none;
pub mod session_memory;
pub mod stub;
pub mod time_based;
pub mod tool_input;

use crate::config::PolicyConfig;
use crate::plan::working::Working;
use crate::plan::{ArchiveKind, Edit};
use crate::policy::pressure::BudgetPressure;
use crate::policy::tier::Tier;
use crate::summary::summarise::{Summariser, SummaryRequest};
use crate::tokens::TokenCounter;
use crate::transcript::counting::message_tokens;
use crate::transcript::{Block, Transcript};
use std::ops::Range;

/// What a tier may use besides the context.
pub struct TierEnv<'a> {
    /// Thresholds.
    pub policy: &'a PolicyConfig,
    /// The token counter of this call.
    pub counter: &'a dyn TokenCounter,
    /// The host's summariser, if any.
    pub summariser: Option<&'a dyn Summariser>,
    /// The session's id.
    pub session_id: &'a str,
    /// The event's correlation id.
    pub correlation_id: &'a str,
    /// The host's override of the summarisation prompt.
    pub instructions: Option<&'a str>,
    /// The pressure of this call.
    pub pressure: &'a BudgetPressure,
    /// The prompt cache's facts and prices, when the pressure gave `cachedTokens`.
    pub cache: Option<crate::policy::cache::CacheModel>,
}

impl TierEnv<'_> {
    /// The request a summarising tier sends: this call's ids and prompt, the part to summarise
    /// (rendered and structured), a target length derived from what it replaces, and the
    /// `mustKeep` items that fit a summary of that length.
    pub fn summary_request(
        &self,
        tier: Tier,
        transcript: String,
        messages: Vec<serde_json::Value>,
        replaced_tokens: u64,
        must_keep: crate::summary::must_keep::MustKeep,
    ) -> SummaryRequest {
        let target_tokens = crate::summary::summarise::target_tokens(
            replaced_tokens,
            self.pressure.context_pct_used,
        );
        SummaryRequest {
            tier,
            session_id: self.session_id.to_string(),
            correlation_id: self.correlation_id.to_string(),
            instructions: self
                .instructions
                .unwrap_or(crate::summary::summarise::DEFAULT_INSTRUCTIONS)
                .to_string(),
            transcript,
            messages,
            target_tokens,
            must_keep: must_keep.fit(target_tokens, self.counter),
        }
    }
}

/// Runs `tier` on `working`.
pub async fn run(
    tier: Tier,
    working: &mut Working<'_>,
    env: &TierEnv<'_>,
) -> crate::error::Result<()> {
    match tier {
        Tier::None => none::compact(working),
        Tier::Micro => micro::compact(working, env),
        Tier::TimeBased => time_based::compact(working, env),
        Tier::Auto => auto::compact(working, env).await,
        Tier::SessionMemory => session_memory::compact(working, env).await,
    }
}

/// A tier's trigger predicate: the rule that fired, or `None`.
pub type Trigger = fn(&BudgetPressure, &PolicyConfig) -> Option<Rule>;

/// The rule a trigger fired on. Its words are written only when asked for
/// ([`crate::policy::explain_selection`]): `select_tier`, called every turn, never asks.
#[derive(Clone, Copy)]
pub struct Rule(pub fn(&BudgetPressure, &PolicyConfig) -> String);

/// The tiers whose triggers the policy asks, in the seed's priority order (first match wins).
pub const PRIORITY: [(Tier, Trigger); 4] = [
    (Tier::SessionMemory, session_memory::trigger),
    (Tier::Auto, auto::trigger),
    (Tier::TimeBased, time_based::trigger),
    (Tier::Micro, micro::trigger),
];

/// Tokens of messages `range`.
pub fn range_tokens(
    transcript: &Transcript,
    range: Range<usize>,
    counter: &dyn TokenCounter,
) -> u64 {
    transcript.messages[range]
        .iter()
        .map(|m| message_tokens(m, counter))
        .sum()
}

/// Tokens of the messages of `ranges`.
pub fn ranges_tokens(
    transcript: &Transcript,
    ranges: &[Range<usize>],
    counter: &dyn TokenCounter,
) -> u64 {
    ranges
        .iter()
        .map(|range| range_tokens(transcript, range.clone(), counter))
        .sum()
}

/// `range` cut before each index after its start where `starts` holds.
pub fn split_before(range: Range<usize>, starts: &dyn Fn(usize) -> bool) -> Vec<Range<usize>> {
    let mut pieces = Vec::new();
    let mut from = range.start;
    for index in (range.start + 1..range.end).filter(|&at| starts(at)) {
        pieces.push(from..index);
        from = index;
    }
    pieces.push(from..range.end);
    pieces
}

/// Keeps only the edits that make the context smaller: a replacement that is not shorter than
/// what it replaces is dropped (invariant 3, never grows, holds edit by edit). A repair's rewrite
/// is kept whatever it saves (`crate::repair`).
pub fn shrinking(
    transcript: &Transcript,
    edits: Vec<Edit>,
    counter: &dyn TokenCounter,
) -> Vec<Edit> {
    edits
        .into_iter()
        .filter(|edit| {
            matches!(edit, Edit::RewriteMessages { .. })
                || edit_saving(transcript, edit, counter) > 0
        })
        .collect()
}

/// Tokens `edit` saves: 0 when it does not shrink what it replaces (fewer code points and fewer
/// tokens), and for a repair's rewrite, which is not a saving.
pub fn edit_saving(transcript: &Transcript, edit: &Edit, counter: &dyn TokenCounter) -> u64 {
    match edit {
        Edit::ReplaceBlock {
            message,
            block,
            text,
            ..
        } => transcript.messages[*message]
            .blocks
            .get(*block)
            .and_then(|original| saving(text, original, counter))
            .unwrap_or(0),
        Edit::ReplaceMessages { range, text, .. } => {
            let replacement = text.as_deref().map_or(0, |t| counter.count(t));
            range_tokens(transcript, range.clone(), counter).saturating_sub(replacement)
        }
        Edit::RewriteMessages { .. } => 0,
    }
}

/// The edit that replaces `block` (block `index` of message `message`) by `text`, archived as
/// `kind`, when `text` has fewer code points and fewer tokens than the block's under the call's
/// counter: an edit that saves nothing is not made (invariant 3, never churns).
pub fn block_edit(
    block: &Block<'_>,
    (message, index): (usize, usize),
    text: String,
    kind: ArchiveKind,
    counter: &dyn TokenCounter,
) -> Option<Edit> {
    saving(&text, block, counter).map(|_| Edit::ReplaceBlock {
        message,
        block: index,
        text,
        kind,
    })
}

/// The tokens `replacement` saves over `original`'s text, if it shrinks it (see
/// [`block_edit`]). Each text's code points are counted once and handed to the
/// counter: counting a long body's code points again for its tokens was a tenth of a micro
/// call on a conversation with 200 KB outputs.
fn saving(replacement: &str, original: &Block<'_>, counter: &dyn TokenCounter) -> Option<u64> {
    let new_chars = crate::base::bytes::count_chars(replacement);
    let old_chars = original.chars();
    if new_chars >= old_chars {
        return None;
    }
    let before = original.tokens_with_chars(counter, old_chars);
    let after = counter.count_with_chars(replacement, new_chars);
    (after < before).then(|| before - after)
}

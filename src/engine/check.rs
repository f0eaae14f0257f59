//! The rules every tier's output keeps, checked after the tier runs (invariants 1 and 2): it never
//! grows, no tool call/result pair is split, no result is moved from its call, and nothing is
//! left that the repair would find. A result that breaks one is a defect of the tier; the engine
//! falls back to the input and says so ([`RULE_CHECK_FAILED`], [`RULE_CHECK_FALLBACKS`]).

use crate::base::hash::FastSet;
use crate::policy::tier::Tier;
use crate::transcript::Transcript;
use crate::transcript::pairing::{id_set, misplaced_results, paired_in_order, paired_set};
use std::borrow::Cow;

/// What the invariants need of the input: the paired tool ids and the results already out of
/// place (an input's misplaced result is the host's, not ours).
pub(super) struct Pairing<'a> {
    /// Borrowed from the input where its transcript borrows them.
    paired: Vec<Cow<'a, str>>,
    /// Of the paired ids, those used by more calls than results or the other way (a reused id:
    /// a pair and a call still waiting), and by how many.
    unbalanced: crate::base::hash::FastMap<String, usize>,
    misplaced: FastSet<String>,
    /// The list continues a conversation the provider stores ([`TierContext::server_history`]).
    server_history: bool,
}

impl<'a> Pairing<'a> {
    pub(super) fn of(transcript: &Transcript<'a>, server_history: bool) -> Self {
        let paired = paired_in_order(transcript);
        // One count of every id, not one pass over the blocks per paired id: that was quadratic
        // in the tool ids (a third of a `none` call on a 10 MB conversation).
        let balance = balances(transcript);
        let unbalanced = paired
            .iter()
            .filter_map(|id| {
                let (calls, results) = balance.get(&**id).copied().unwrap_or_default();
                let by = calls.abs_diff(results);
                (by > 0).then(|| (id.to_string(), by))
            })
            .collect();
        Self {
            paired,
            unbalanced,
            misplaced: misplaced_results(transcript).into_iter().collect(),
            server_history,
        }
    }
}

/// How many calls and results each tool id has in `transcript`.
fn balances<'t>(transcript: &'t Transcript) -> crate::base::hash::FastMap<&'t str, (usize, usize)> {
    let mut balance = crate::base::hash::FastMap::<&str, (usize, usize)>::default();
    for block in transcript.messages.iter().flat_map(|m| &m.blocks) {
        match &block.kind {
            crate::transcript::BlockKind::ToolCall { id, .. } => {
                balance.entry(id).or_default().0 += 1
            }
            crate::transcript::BlockKind::ToolResult { id: Some(id), .. } => {
                balance.entry(id).or_default().1 += 1
            }
            _ => {}
        }
    }
    balance
}

/// How many more calls than results `id` has in `transcript`, or results than calls.
fn imbalance(transcript: &Transcript, id: &str) -> usize {
    let (mut calls, mut results) = (0usize, 0usize);
    for block in transcript.messages.iter().flat_map(|m| &m.blocks) {
        match &block.kind {
            crate::transcript::BlockKind::ToolCall { id: call, .. } if &**call == id => calls += 1,
            crate::transcript::BlockKind::ToolResult {
                id: Some(result), ..
            } if &**result == id => results += 1,
            _ => {}
        }
    }
    calls.abs_diff(results)
}

/// How the reason begins when a tier's result broke a rule and the engine fell back to the
/// input: `rule check failed: the result would split …; input returned unchanged`.
pub const RULE_CHECK_FAILED: &str = "rule check failed";

/// How the warning that counts the engine's fallbacks begins: `rule check fallbacks: 1 (micro:
/// the result would split …)`. A fallback on valid input is a defect of the tier: property
/// tests and fuzz targets fail on it ([`TierResult::rule_check_fallbacks`]).
pub const RULE_CHECK_FALLBACKS: &str = "rule check fallbacks";

/// Why the engine does not use a tier's result.
pub(super) enum Refusal {
    /// It breaks a rule every output keeps (never grows, pairs kept, results after their calls,
    /// provider-valid): the tier has a defect.
    Broken(String),
    /// It saves less than `minReduction`: a summarising tier's change not worth making.
    NotWorthIt(String),
}

/// The invariants checked on every outcome, in one place: never grows, pairs kept, results still
/// follow their calls, and the summarising tiers' minimum reduction.
pub(super) fn check(
    tier: Tier,
    before: &Pairing<'_>,
    after: &Transcript,
    (before_tokens, after_tokens): (u64, u64),
    policy: &crate::config::PolicyConfig,
) -> std::result::Result<(), Refusal> {
    broken_rule(before, after, before_tokens, after_tokens).map_err(Refusal::Broken)?;
    let saved = before_tokens - after_tokens;
    let needed = (before_tokens as f64 * policy.min_reduction).ceil() as u64;
    if tier.summarises() && saved > 0 && saved < needed {
        return Err(Refusal::NotWorthIt(format!(
            "saves {saved} of {before_tokens} tokens, under the minimum reduction of {}%",
            crate::base::decimal::shortest(policy.min_reduction * 100.0)
        )));
    }
    Ok(())
}

/// The rules every output keeps: never grows, pairs kept, results still follow their calls,
/// nothing the repair would find.
fn broken_rule(
    before: &Pairing<'_>,
    after: &Transcript,
    before_tokens: u64,
    after_tokens: u64,
) -> std::result::Result<(), String> {
    if after_tokens > before_tokens {
        return Err(format!(
            "would grow the context ({before_tokens} -> {after_tokens} tokens)"
        ));
    }
    // Sets, not lists: a long agent session has thousands of tool ids.
    let paired_after = paired_set(after);
    let mut ids_after: FastSet<&str> = id_set(after);
    ids_after.extend(
        after
            .messages
            .iter()
            .flat_map(|m| &m.blocks)
            .filter_map(|b| b.tool_id()),
    );
    // A reused id's pair may go whole while its other call stays: no pair is split unless the
    // id is left more unbalanced than it was.
    let split = |id: &&str| {
        ids_after.contains(id)
            && !paired_after.contains(id)
            && imbalance(after, id) > before.unbalanced.get(*id).copied().unwrap_or(0)
    };
    if let Some(broken) = before.paired.iter().map(|id| -> &str { id }).find(split) {
        return Err(format!("would split the tool call/result pair {broken:?}"));
    }
    if let Some(id) = misplaced_results(after)
        .iter()
        .find(|id| !before.misplaced.contains(*id))
    {
        return Err(format!("would separate tool result {id:?} from its call"));
    }
    // The input was repaired before the tier ran: what the repair finds now, the tier made.
    if let Some(fault) = crate::repair::find_with(after, before.server_history)
        .faults
        .first()
    {
        return Err(format!(
            "would break the provider's rules ({}: {})",
            fault.subject(),
            fault.problem()
        ));
    }
    Ok(())
}

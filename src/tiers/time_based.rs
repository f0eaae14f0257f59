//! `time_based` (weight 0.10): on a live session idle past the threshold, the agent's blocks
//! (assistant text, tool calls with their results) older than the age cutoff become
//! `[stale block pruned]`, pairs pruned together. The user's own words stay. No model call.

use super::Rule;
use super::{TierEnv, shrinking};
use crate::base::decimal::shortest;
use crate::config::PolicyConfig;
use crate::markers;
use crate::plan::{ArchiveKind, Edit, Plan};
use crate::pressure::BudgetPressure;
use crate::tier::Tier;
use crate::transcript::pairing::closed_ranges;
use crate::transcript::protect::Protection;
use crate::transcript::{BlockKind, Message, Transcript, parse_age_tag};
use crate::working::Working;
use std::ops::Range;

/// This tier.
pub const TIER: Tier = Tier::TimeBased;

/// Fires on a live session idle for at least `idle_seconds`.
pub fn trigger(pressure: &BudgetPressure, policy: &PolicyConfig) -> Option<Rule> {
    (!pressure.session_complete && pressure.idle_seconds >= policy.idle_seconds)
        .then_some(Rule(rule))
}

fn rule(pressure: &BudgetPressure, policy: &PolicyConfig) -> String {
    format!(
        "idle {} s >= {} s on a live session",
        shortest(pressure.idle_seconds),
        shortest(policy.idle_seconds)
    )
}

/// Replaces each stale block of agent messages by the stale-block marker.
pub fn compact(working: &mut Working<'_>, env: &TierEnv<'_>) -> crate::error::Result<()> {
    let plan = plan(&working.transcript, env);
    working.apply(plan)
}

fn plan(transcript: &Transcript, env: &TierEnv<'_>) -> Plan {
    let cutoff = env.policy.max_block_age_turns;
    let protection = Protection::structural(transcript);
    let ages = transcript.ages();
    let candidates: Vec<bool> = transcript
        .messages
        .iter()
        .enumerate()
        .map(|(index, message)| {
            !protection.is_protected(index)
                && !message.has_user_words()
                && ages[index] > cutoff
                && !is_marker_only(std::slice::from_ref(message))
        })
        .collect();
    let edits: Vec<Edit> = closed_ranges(transcript, &candidates)
        .into_iter()
        .flat_map(|range| split_at_age_tags(transcript, range))
        .map(|range| Edit::ReplaceMessages {
            range,
            text: Some(markers::STALE_BLOCK.to_string()),
            kind: ArchiveKind::Turn,
            is_summary: false,
        })
        .collect();
    let edits = shrinking(transcript, edits, env.counter);
    let reason = if edits.is_empty() {
        format!("no agent block older than {cutoff} turns outside protected content")
    } else {
        format!(
            "pruned {} stale block(s) older than {cutoff} turns",
            edits.len()
        )
    };
    Plan {
        edits,
        reason,
        ..Plan::default()
    }
}

/// An explicit `[age:N]` tag starts a new block (the seed's convention), so ranges split there
/// and each tagged block gets its own marker.
fn split_at_age_tags(transcript: &Transcript, range: Range<usize>) -> Vec<Range<usize>> {
    let mut ranges = Vec::new();
    let mut start = range.start;
    for index in range.clone().skip(1) {
        if starts_with_age_tag(&transcript.messages[index]) {
            ranges.push(start..index);
            start = index;
        }
    }
    ranges.push(start..range.end);
    ranges
}

fn starts_with_age_tag(message: &Message) -> bool {
    message
        .blocks
        .first()
        .is_some_and(|b| b.kind == BlockKind::Text && parse_age_tag(&b.text).is_some())
}

/// Whether the messages are nothing but stale markers (and whitespace): pruning them again
/// would change nothing but the archive, so they are never candidates (idempotence).
fn is_marker_only(messages: &[Message]) -> bool {
    messages.iter().all(|m| {
        m.blocks.iter().all(|b| {
            b.text.trim().is_empty()
                || (b.kind == BlockKind::Text && b.text.trim() == markers::STALE_BLOCK)
        })
    })
}

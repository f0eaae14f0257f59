//! `time_based` (weight 0.10): on a live session idle past the threshold (the prompt cache has
//! gone cold, so pruning costs no cache rewrite), the steps older than `maxBlockAgeSteps` are
//! pruned: their tool results and long assistant texts become stubs that start with `[stale
//! block pruned` and keep the lines that matter, the paths and the recall id; their thinking goes
//! to the archive. The user's own words, the protected tail and `excludeTools` stay. Flat text
//! keeps the seed's `[age:N]` blocks and `[stale block pruned]`. No model call.

use super::stub::{Frame, stub};
use super::{Rule, TierEnv, block_edit, shrinking, split_before};
use crate::base::decimal::shortest;
use crate::config::PolicyConfig;
use crate::plan::working::Working;
use crate::plan::{ArchiveKind, Edit, Plan, block_id};
use crate::policy::pressure::BudgetPressure;
use crate::policy::tier::Tier;
use crate::transcript::markers;
use crate::transcript::pairing::{closed_ranges, tool_names};
use crate::transcript::protect::Protection;
use crate::transcript::{Block, BlockKind, Format, Message, Role, Transcript, parse_age_tag};

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

/// Prunes the steps older than the age cutoff.
pub fn compact(working: &mut Working<'_>, env: &TierEnv<'_>) -> crate::error::Result<()> {
    let plan = if working.transcript.format == Format::Text {
        flat_text_plan(&working.transcript, env)
    } else {
        plan(&working.transcript, env, Stale::ByAge)
    };
    let plan = super::deferral::whole(plan, working, env);
    working.apply(plan)?;
    // micro's plan only where a state's frontier asks for it (a cold call after a warm one).
    let kept = match working.loop_marks.micro_frontier {
        0 => crate::plan::Plan::default(),
        _ => super::deferral::kept(working, super::micro::plan(&working.transcript, env)),
    };
    working.apply(kept)
}

/// Which steps a structured plan prunes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stale {
    /// Those more than `maxBlockAgeSteps` steps old (or tagged older): the tier firing.
    ByAge,
    /// Those before this step: an earlier call's pruning made again (`crate::plan::loop_state`).
    Before(usize),
}

/// Structured context: in each step older than the cutoff and outside protected content, tool
/// results become stale stubs that keep their facts, long assistant texts likewise, and thinking
/// blocks go to the archive. Every message stays where it is, so pairing and role order are
/// untouched.
pub fn plan(transcript: &Transcript, env: &TierEnv<'_>, stale_by: Stale) -> Plan {
    let cutoff = env.policy.max_block_age_steps;
    let protection = Protection::structural(
        transcript,
        env.policy.keep_recent_steps,
        &env.policy.exclude_tools,
    );
    let names = tool_names(transcript);
    let mut edits = Vec::new();
    for (index, message) in transcript.messages.iter().enumerate() {
        let old = match stale_by {
            Stale::ByAge => {
                let age = message.explicit_age;
                age.unwrap_or_else(|| protection.steps.age(index)) > cutoff
            }
            Stale::Before(frontier) => {
                super::frontier::step_at(&protection.steps, index).is_some_and(|s| s < frontier)
            }
        };
        if protection.is_whole(index) || !old {
            continue;
        }
        // A message protected for the user's words keeps them; its tool results are pruned. A
        // summary or digest the library wrote is not stale prose: it stands for what it
        // replaced, directives included, and keeps its words too.
        let results_only = protection.is_protected(index)
            || message.has_user_words()
            || message.is_library_summary;
        for (at, block) in message.blocks.iter().enumerate() {
            let result = matches!(block.kind, BlockKind::ToolResult { .. });
            if block.is_nested()
                || markers::is_collapsed_body(&block.text)
                || results_only && !result
            {
                continue;
            }
            let tool = names[index][at];
            edits.extend(stale_edit(transcript, (index, at), message.role, tool, env));
        }
    }
    let reason = match edits.len() {
        0 => format!("nothing older than {cutoff} steps outside protected content"),
        count => format!("pruned {count} block(s) of steps older than {cutoff} steps"),
    };
    Plan::of(edits, reason)
}

/// The edit that prunes block `at` (message, block) of a stale step, of a message of `role`
/// (`tool`: the name of the call a result answers): a tool result or an assistant's text
/// becomes a stale stub, thinking goes to the archive, a call's long input values are stubbed.
fn stale_edit(
    transcript: &Transcript,
    at: (usize, usize),
    role: Role,
    tool: Option<&str>,
    env: &TierEnv<'_>,
) -> Option<Edit> {
    let block = &transcript.messages[at.0].blocks[at.1];
    let id = |kind| block_id(kind, transcript, at.0, at.1);
    let threshold = env.policy.micro_body_threshold_chars;
    let (text, kind) = match &block.kind {
        BlockKind::ToolResult { .. } => {
            let kind = ArchiveKind::ToolResult;
            (stale(block, tool, &id(kind), threshold)?, kind)
        }
        BlockKind::Text if role == Role::Assistant => {
            let kind = ArchiveKind::Turn;
            (stale(block, None, &id(kind), threshold)?, kind)
        }
        BlockKind::Thinking => {
            let kind = ArchiveKind::Thinking;
            (markers::thinking_archived(block.chars(), &id(kind)), kind)
        }
        BlockKind::ToolCall { .. } => return super::micro::input_edit(transcript, at, env),
        _ => return None,
    };
    block_edit(block, at, text, kind, env.counter)
}

/// The stale stub of a block over the threshold.
fn stale(block: &Block<'_>, tool: Option<&str>, id: &str, threshold: usize) -> Option<String> {
    let chars = block.chars();
    if chars <= threshold {
        return None;
    }
    stub(
        &block.text,
        chars,
        block.has_crlf(),
        &Frame::Stale { tool, recall: id },
    )
}

/// Flat text keeps the seed's rules: blocks (messages) older than the cutoff by their `[age:N]`
/// tags become `[stale block pruned]`, each tagged block on its own.
fn flat_text_plan(transcript: &Transcript, env: &TierEnv<'_>) -> Plan {
    let cutoff = env.policy.max_block_age_steps;
    let ages = transcript.ages();
    let candidates: Vec<bool> = transcript
        .messages
        .iter()
        .enumerate()
        .map(|(index, message)| {
            // Our summaries and digests stay, as in structured context.
            !message.has_user_words()
                && ages[index] > cutoff
                && !message.is_library_summary
                && !is_marker_only(message)
        })
        .collect();
    let edits: Vec<Edit> = closed_ranges(transcript, &candidates)
        .into_iter()
        .flat_map(|range| split_before(range, &|at| starts_with_age_tag(&transcript.messages[at])))
        .map(|range| Edit::ReplaceMessages {
            range,
            text: Some(markers::STALE_BLOCK.to_string()),
            kind: ArchiveKind::Turn,
            is_summary: false,
        })
        .collect();
    let edits = shrinking(transcript, edits, env.counter);
    let reason = match edits.len() {
        0 => format!("no block older than {cutoff} turns"),
        count => format!("pruned {count} stale block(s) older than {cutoff} turns"),
    };
    Plan::of(edits, reason)
}

/// Whether the first block of `message` starts with an explicit `[age:N]` tag, which starts a
/// new block (the seed's convention): ranges split there, each tagged block gets its own marker.
fn starts_with_age_tag(message: &Message) -> bool {
    message
        .blocks
        .first()
        .is_some_and(|b| b.kind == BlockKind::Text && parse_age_tag(&b.text).is_some())
}

/// Whether the message is nothing but stale markers (and whitespace): pruning it again would
/// change nothing but the archive, so it is never a candidate (idempotence).
fn is_marker_only(message: &Message) -> bool {
    message.blocks.iter().all(|b| {
        let text = b.text.trim();
        text.is_empty() || (b.kind == BlockKind::Text && text == markers::STALE_BLOCK)
    })
}

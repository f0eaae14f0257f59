//! `micro` (weight 0.05): on an active session with mild context use, collapse tool-result bodies
//! longer than the threshold into their first characters plus `[tool result body pruned: N chars]`.
//! Structural, no model call. The latest turn's tool results stay whole.

use super::Rule;
use super::TierEnv;
use crate::base::cut;
use crate::base::decimal::shortest;
use crate::config::PolicyConfig;
use crate::error::CompactionError;
use crate::markers;
use crate::plan::{ArchiveKind, Edit, Plan};
use crate::pressure::BudgetPressure;
use crate::tier::Tier;
use crate::transcript::protect::Protection;
use crate::transcript::{BlockKind, Transcript};
use crate::working::Working;

/// This tier.
pub const TIER: Tier = Tier::Micro;

/// Fires from turn `micro_min_turn` on when context use is above `micro_min_context_pct`.
pub fn trigger(pressure: &BudgetPressure, policy: &PolicyConfig) -> Option<Rule> {
    (pressure.turn_count >= policy.micro_min_turn
        && pressure.context_pct_used > policy.micro_min_context_pct)
        .then_some(Rule(rule))
}

fn rule(pressure: &BudgetPressure, policy: &PolicyConfig) -> String {
    format!(
        "turn {} >= {} with context use {} > {}",
        pressure.turn_count,
        policy.micro_min_turn,
        shortest(pressure.context_pct_used),
        shortest(policy.micro_min_context_pct)
    )
}

/// Collapses long tool-result bodies outside the latest turn.
pub fn compact(working: &mut Working<'_>, env: &TierEnv<'_>) -> crate::error::Result<()> {
    let plan = plan(&working.transcript, env)?;
    working.apply(plan)
}

fn plan(transcript: &Transcript, env: &TierEnv<'_>) -> crate::error::Result<Plan> {
    // System prompts, the task and the latest turn stay whole, tool results included (SPEC §4.4);
    // other user messages keep their words, and micro only ever edits tool results.
    let whole = Protection::summarising(transcript);
    let threshold = env.policy.micro_body_threshold_chars;
    let mut edits = Vec::new();
    for (index, message) in transcript.messages.iter().enumerate() {
        if whole.is_protected(index) {
            continue;
        }
        for (block_index, block) in message.blocks.iter().enumerate() {
            if !matches!(block.kind, BlockKind::ToolResult { .. }) || block.is_nested() {
                continue;
            }
            let chars = block.chars();
            let whole_end = block
                .elided
                .as_ref()
                .map_or(&*block.text, |facts| &facts.tail);
            if chars <= threshold || markers::is_collapsed_body(whole_end) {
                continue;
            }
            let keep = env.policy.micro_keep_head_chars;
            if block.elided.is_some() && block.text.chars().nth(keep).is_none() {
                // The head a binding passed is too short to cut as the whole text would be.
                return Err(CompactionError::type_error(
                    format!("messages[{index}]"),
                    "holds an elided text whose head is shorter than the kept characters",
                ));
            }
            let text = collapsed_with(&block.text, keep, chars, block.has_crlf());
            let new_chars = text.chars().count();
            if new_chars < chars
                && env.counter.count_with_chars(&text, new_chars) <= block.tokens(env.counter)
            {
                edits.push(Edit::ReplaceBlock {
                    message: index,
                    block: block_index,
                    text,
                    kind: ArchiveKind::ToolResult,
                });
            }
        }
    }
    let reason = if edits.is_empty() {
        format!("no tool-result body over {threshold} chars outside the latest turn")
    } else {
        format!(
            "collapsed {} tool-result bodies over {threshold} chars",
            edits.len()
        )
    };
    Ok(Plan {
        edits,
        reason,
        ..Plan::default()
    })
}

/// The first `keep` code points of `body`, cut back to a grapheme cluster boundary (an emoji,
/// flag or accented letter is kept whole or left out, never split) with trailing whitespace
/// trimmed, a line break in the body's own style, and the pruned-body marker with the body's
/// length in code points.
pub fn collapsed(body: &str, keep: usize) -> String {
    collapsed_with(
        body,
        keep,
        body.chars().count(),
        crate::transcript::has_crlf(body),
    )
}

/// [`collapsed`] of a body of `chars` code points with CRLF line ends or not, known by its
/// first characters (`head`: at least `keep` + 1 code points of it, or all of it).
fn collapsed_with(head: &str, keep: usize, chars: usize, crlf: bool) -> String {
    let head = cut::trim_end(cut::head(head, keep));
    let newline = if crlf { "\r\n" } else { "\n" };
    format!("{head}{newline}{}", markers::pruned_body(chars))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn collapsed_keeps_head_and_counts_code_points() {
        let body = "C".repeat(900);
        assert_eq!(
            collapsed(&body, 80),
            format!("{}\n[tool result body pruned: 900 chars]", "C".repeat(80))
        );
        let body = format!("{}   \r\nrest{}", "é".repeat(78), "x".repeat(300));
        let out = collapsed(&body, 80);
        assert!(out.starts_with(&"é".repeat(78)));
        assert!(
            out.contains("\r\n[tool result body pruned: 387 chars]"),
            "{out}"
        );
    }
}

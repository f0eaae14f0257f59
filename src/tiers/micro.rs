//! `micro` (weight 0.05): on an active session with mild context use, tool-result bodies longer
//! than the threshold outside the protected tail become stubs ([`super::stub`]): their first
//! characters, the lines that matter, the paths, and `[tool result body pruned: N chars; recall:
//! ID]`. Results of `excludeTools` stay whole. Structural, no model call.

use super::stub::{Frame, stub};
use super::{Rule, TierEnv, block_edit, tool_input};
use crate::base::cut;
use crate::base::decimal::shortest;
use crate::config::PolicyConfig;
use crate::plan::working::Working;
use crate::plan::{ArchiveKind, Edit, Plan, block_id};
use crate::policy::pressure::BudgetPressure;
use crate::policy::tier::Tier;
use crate::transcript::markers;
use crate::transcript::protect::Protection;
use crate::transcript::{BlockKind, Format, Transcript};

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

/// Turns long tool-result bodies outside the protected tail into stubs.
pub fn compact(working: &mut Working<'_>, env: &TierEnv<'_>) -> crate::error::Result<()> {
    let plan = plan(&working.transcript, env);
    let plan = super::deferral::batched(plan, working, env);
    working.apply(plan)
}

/// The stubs micro would write over `transcript` (auto starts from them too).
pub fn plan(transcript: &Transcript, env: &TierEnv<'_>) -> Plan {
    // micro only ever edits tool results, never the user's own text, so a user message is not
    // protected for the tool results it carries (Anthropic puts them in user messages).
    let protection = Protection::summarising(
        transcript,
        env.policy.keep_recent_steps,
        &env.policy.exclude_tools,
    );
    let structured = transcript.format != Format::Text;
    let mut edits = Vec::new();
    for (index, message) in transcript.messages.iter().enumerate() {
        // A message protected for the user's words keeps them; its tool results are stubbed.
        if protection.is_whole(index) {
            continue;
        }
        for (at, block) in message.blocks.iter().enumerate() {
            let edit = match block.kind {
                BlockKind::ToolCall { .. } if structured => {
                    input_edit(transcript, (index, at), env)
                }
                BlockKind::ToolResult { .. } if !block.is_nested() => {
                    result_edit(transcript, (index, at), env, structured)
                }
                _ => None,
            };
            edits.extend(edit);
        }
    }
    let reason = super::deferral::describe(&edits, env.policy.micro_body_threshold_chars);
    Plan::of(edits, reason)
}

/// The edit that stubs tool result `at` (message, block) when its body is over the threshold,
/// not a stub already, and its stub is smaller; the stub names its recall id where the format
/// has ids (`structured`).
fn result_edit(
    transcript: &Transcript,
    at: (usize, usize),
    env: &TierEnv<'_>,
    structured: bool,
) -> Option<Edit> {
    let block = &transcript.messages[at.0].blocks[at.1];
    let chars = block.chars();
    if chars <= env.policy.micro_body_threshold_chars || markers::is_collapsed_body(&block.text) {
        return None;
    }
    let id = block_id(ArchiveKind::ToolResult, transcript, at.0, at.1);
    let frame = Frame::Head {
        keep: env.policy.micro_keep_head_chars,
        recall: structured.then_some(id.as_str()),
    };
    let text = stub(&block.text, chars, block.has_crlf(), &frame)?;
    block_edit(block, at, text, ArchiveKind::ToolResult, env.counter)
}

/// The edit that stubs the long string values of tool call `at`'s input (message, block), if it
/// has any and the stubbed input is smaller (time_based uses it for stale calls too).
pub fn input_edit(transcript: &Transcript, at: (usize, usize), env: &TierEnv<'_>) -> Option<Edit> {
    let block = &transcript.messages[at.0].blocks[at.1];
    // No string inside an input can be longer than the whole input: short calls (nearly all)
    // are not parsed, and their archive id is not made.
    if block.chars() <= env.policy.micro_body_threshold_chars {
        return None;
    }
    let text = tool_input::stubbed(
        &block.text,
        env.policy.micro_body_threshold_chars,
        env.policy.micro_keep_head_chars,
        &block_id(ArchiveKind::ToolInput, transcript, at.0, at.1),
    )?;
    block_edit(block, at, text, ArchiveKind::ToolInput, env.counter)
}

/// micro's stub of `body` in flat text (no recall id): the first `keep` code points, cut back to
/// a grapheme cluster boundary (an emoji, flag or accented letter is kept whole or left out,
/// never split) with trailing whitespace trimmed, the lines that matter and the paths where the
/// body has some, and the pruned-body marker with the body's length in code points, each on a
/// line of its own in the body's line-end style.
pub fn collapsed(body: &str, keep: usize) -> String {
    let chars = body.chars().count();
    let crlf = crate::transcript::has_crlf(body);
    let frame = Frame::Head { keep, recall: None };
    stub(body, chars, crlf, &frame).unwrap_or_else(|| {
        let newline = if crlf { "\r\n" } else { "\n" };
        let head = cut::trim_end(cut::head(body, keep));
        format!("{head}{newline}{}", markers::pruned_body(chars))
    })
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

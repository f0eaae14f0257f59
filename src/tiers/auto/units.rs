//! What auto may replace past its cheap reductions, in the pieces it takes them by. Every piece
//! lies outside protected content (system prompts, the task, the newest user words, the tail,
//! excluded tools), is closed under tool pairing (no call leaves its result behind) and is not
//! the library's own text (a summary is folded only under the loop guard, never digested).
//!
//! - **Tool runs**: maximal stretches of agent messages between the user's words, trimmed to
//!   start and end at a tool call or result, cut where a step starts (an assistant message;
//!   flat text, which has no steps, anywhere).
//! - **Older conversation**: what is left — user and assistant text, and tool messages that could
//!   not form a run — cut before each message with user words, so a piece is an exchange that
//!   ends with the agent's answer (flat text: each section).

use crate::tiers::split_before;
use crate::transcript::pairing::{closed_ranges, pair_keys};
use crate::transcript::protect::Protection;
use crate::transcript::{Format, Message, Role, Transcript};
use std::ops::Range;

/// The pieces, oldest first within each kind.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Units {
    /// Pieces of older tool runs.
    pub runs: Vec<Range<usize>>,
    /// Pieces of older conversation.
    pub talk: Vec<Range<usize>>,
}

/// A message this library wrote in place of removed content (a summary, a digest, a marker)
/// and nothing else: a heading on a tool call's message does not make the call ours.
pub fn is_ours(message: &Message) -> bool {
    message.is_library_summary && !message.has_tool_blocks()
}

/// The pieces of `transcript` outside `protection`.
pub fn of(transcript: &Transcript, protection: &Protection) -> Units {
    let mut cuts = safe_cuts(transcript);
    // Nor between what the provider needs together (a Responses reasoning item and its follower,
    // the output items of one model call).
    for (at, cut) in cuts.iter_mut().enumerate().skip(1) {
        *cut = *cut && !protection.steps.joined(transcript, at - 1, at);
    }
    let flat = transcript.format == Format::Text;
    let free = |index: usize| {
        let message = &transcript.messages[index];
        !protection.is_protected(index) && !is_ours(message) && !is_blank(message)
    };
    let run_candidates: Vec<bool> = (0..transcript.messages.len())
        .map(|index| free(index) && !transcript.messages[index].has_user_words())
        .collect();
    let runs: Vec<Range<usize>> = closed_ranges(transcript, &run_candidates)
        .into_iter()
        .filter_map(|range| {
            let trimmed = trim_to_tools(transcript, range.clone())?;
            Some(protection.steps.widen(transcript, trimmed, range))
        })
        .collect();
    let mut in_run = vec![false; transcript.messages.len()];
    for index in runs.iter().flat_map(Clone::clone) {
        in_run[index] = true;
    }
    let talk_candidates: Vec<bool> = (0..transcript.messages.len())
        .map(|index| free(index) && !in_run[index])
        .collect();
    let talk = closed_ranges(transcript, &talk_candidates);
    let step_starts = |index: usize| flat || transcript.messages[index].role == Role::Assistant;
    let turn_starts = |index: usize| flat || transcript.messages[index].has_user_words();
    Units {
        runs: split(&runs, &cuts, step_starts),
        talk: split(&talk, &cuts, turn_starts),
    }
}

fn trim_to_tools(transcript: &Transcript, range: Range<usize>) -> Option<Range<usize>> {
    let is_tool = |i: &usize| transcript.messages[*i].has_tool_blocks();
    let start = range.clone().find(is_tool)?;
    let end = range.clone().rev().find(is_tool)? + 1;
    Some(start..end)
}

/// A message with nothing but whitespace (a flat-text separator) is no piece of its own.
fn is_blank(message: &Message) -> bool {
    !message.has_tool_blocks()
        && message
            .blocks
            .iter()
            .all(|block| block.text.trim().is_empty())
}

/// `ranges` cut before each index where `starts` holds and no tool pair spans the cut.
fn split(
    ranges: &[Range<usize>],
    cuts: &[bool],
    starts: impl Fn(usize) -> bool,
) -> Vec<Range<usize>> {
    let cut = |at: usize| cuts[at] && starts(at);
    ranges
        .iter()
        .flat_map(|range| split_before(range.clone(), &cut))
        .collect()
}

/// `cuts[i]`: no tool call and result pair lies on both sides of the point before message `i`.
fn safe_cuts(transcript: &Transcript) -> Vec<bool> {
    let len = transcript.messages.len();
    let mut span: crate::base::hash::FastMap<_, (usize, usize)> = Default::default();
    for (index, keys) in pair_keys(transcript).into_iter().enumerate() {
        for key in keys.into_iter().flatten() {
            span.entry(key)
                .and_modify(|(_, last)| *last = index)
                .or_insert((index, index));
        }
    }
    // +1 where a pair opens, -1 after it closes: a cut is safe where none is open.
    let mut open = vec![0i64; len + 1];
    for (first, last) in span.into_values() {
        open[first + 1] += 1;
        open[last + 1] -= 1;
    }
    let mut depth = 0;
    open.iter()
        .take(len)
        .map(|delta| {
            depth += delta;
            depth == 0
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transcript::BlockKind;
    use crate::transcript::test_builders::{call, message, result};

    #[test]
    fn runs_are_cut_at_steps_and_talk_at_user_words() {
        use BlockKind::Text;
        let messages = vec![
            message(Role::System, vec![Text]),
            message(Role::User, vec![Text]), // the task
            message(Role::Assistant, vec![call("a"), call("b")]),
            message(Role::Tool, vec![result("a")]),
            message(Role::Tool, vec![result("b")]),
            message(Role::Assistant, vec![call("c")]),
            message(Role::Tool, vec![result("c")]),
            message(Role::Assistant, vec![Text]),
            message(Role::User, vec![Text]),
            message(Role::Assistant, vec![Text]),
            message(Role::User, vec![Text]),
            message(Role::Assistant, vec![Text]), // the tail of one step from here
        ];
        let transcript = Transcript {
            format: Format::OpenAi,
            messages,
        };
        let protection = Protection::summarising(&transcript, 1, &[]);
        let units = of(&transcript, &protection);
        assert_eq!(units.runs, [2..5, 5..7]);
        assert_eq!(units.talk, [7..8, 8..10]);
    }

    #[test]
    fn a_pair_spanning_messages_is_never_cut() {
        let messages = vec![
            message(Role::Assistant, vec![call("a")]),
            message(Role::Assistant, vec![call("b")]),
            message(Role::Tool, vec![result("a")]),
            message(Role::Tool, vec![result("b")]),
        ];
        let transcript = Transcript {
            format: Format::OpenAi,
            messages,
        };
        assert_eq!(safe_cuts(&transcript), [true, false, false, false]);
    }
}

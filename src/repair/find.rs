//! What in a transcript breaks its provider's rules: a pure function of the transcript, in the
//! input's message and block indices. Removals are found until none is left to find (removing a
//! call before the first user message orphans its result, a message left empty goes whole);
//! then, where roles alternate, the runs of one role among what is left.

use super::fault::{Fault, FaultKind};
use super::findings::Findings;
use super::{order, pairs};
use crate::formats::registry;
use crate::transcript::{BlockKind, Format, Transcript};

/// What in `transcript` breaks its format's rules (flat text has no tool ids and no roles:
/// nothing in it is ever broken). With `server_history` the list continues a conversation the
/// provider stores (a Responses request with `previous_response_id` or `conversation`): a tool
/// result whose call is not in the list answers a stored call and is not an orphan.
pub fn find_with(transcript: &Transcript, server_history: bool) -> Findings {
    let mut findings = Findings::new(transcript);
    if transcript.format == Format::Text {
        return findings;
    }
    let unique_ids = registry::unique_tool_ids(transcript.format);
    let alternates = registry::alternates(transcript.format);
    loop {
        let found = findings.faults.len();
        pairs::find(transcript, unique_ids, server_history, &mut findings);
        remove_emptied(transcript, &mut findings);
        remove_left_behind(transcript, &mut findings);
        if alternates {
            order::remove_before_first_user(transcript, &mut findings);
        }
        if findings.faults.len() == found {
            break;
        }
    }
    if alternates {
        order::merge_runs(transcript, &mut findings);
    }
    // Warnings read in message order (a pass may find an earlier fault after a later one).
    findings.faults =
        crate::base::sort::sorted_by_key(findings.faults, &|fault: &Fault| fault.message);
    findings
}

/// Removes whole the messages that lost blocks and have no content left: no message is ever
/// left empty. Where blank text is all that is left, its removal is a fault of its own (the
/// blocks removed before are named by theirs).
fn remove_emptied(transcript: &Transcript, findings: &mut Findings) {
    for (index, message) in transcript.messages.iter().enumerate() {
        if findings.removed[index] || !findings.touches(index) {
            continue;
        }
        let left: Vec<_> = message
            .blocks
            .iter()
            .enumerate()
            .filter(|(block, b)| findings.kept(index, *block) && !b.is_nested())
            .collect();
        let has_content = left
            .iter()
            .any(|(_, b)| b.kind != BlockKind::Text || !b.text.trim().is_empty());
        if has_content {
            continue;
        }
        findings.remove_message(index);
        if !left.is_empty() {
            findings.fault(FaultKind::LeftEmpty, index);
        }
    }
}

/// Removes each message bound to the next one ([`crate::transcript::Message::bound_to_next`])
/// whose follower the repairs removed, unless what now follows it is another output item of the
/// model (an orphan the repairs took from between a reasoning item and its call): a Responses
/// `reasoning` item goes with the item it precedes.
fn remove_left_behind(transcript: &Transcript, findings: &mut Findings) {
    for (index, message) in transcript.messages.iter().enumerate().rev() {
        let follower_removed = findings.removed.get(index + 1).copied().unwrap_or(false);
        let next_output_item = (index + 1..transcript.messages.len())
            .find(|next| !findings.removed[*next])
            .and_then(|next| transcript.messages.get(next))
            .is_some_and(|next| next.output_item);
        if message.bound_to_next
            && follower_removed
            && !next_output_item
            && !findings.removed[index]
        {
            findings.remove_message(index);
            findings.fault(FaultKind::LeftBehind, index);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::read_messages;
    use serde_json::{Value, json};

    fn find(transcript: &Transcript) -> Findings {
        find_with(transcript, false)
    }

    fn list(value: Value) -> Vec<Value> {
        value.as_array().cloned().unwrap_or_default()
    }

    fn call(id: &str) -> Value {
        json!({"id": id, "type": "function", "function": {"name": "bash", "arguments": "{}"}})
    }

    /// `(kind, message, id)` of each fault.
    fn faults(findings: &Findings) -> Vec<(FaultKind, usize, Option<&str>)> {
        findings
            .faults
            .iter()
            .map(|f| (f.kind.clone(), f.message, f.id.as_deref()))
            .collect()
    }

    #[test]
    fn valid_input_has_nothing_to_repair_reused_ids_included() {
        let messages = list(json!([
            {"role": "user", "content": "go"},
            {"role": "assistant", "content": null, "tool_calls": [call("call_0")]},
            {"role": "tool", "tool_call_id": "call_0", "content": "one"},
            {"role": "assistant", "content": null, "tool_calls": [call("call_0")]},
            {"role": "tool", "tool_call_id": "call_0", "content": "two"},
            {"role": "user", "content": "and?"},
            {"role": "user", "content": "well?"},
            {"role": "assistant", "content": null, "tool_calls": [call("call_1")]}
        ]));
        let transcript = read_messages(&messages, Format::OpenAi).expect("reads");
        assert_eq!(find(&transcript), Findings::new(&transcript));
    }

    #[test]
    fn orphans_second_results_and_unanswered_calls() {
        let messages = list(json!([
            {"role": "user", "content": "go"},
            {"role": "tool", "tool_call_id": "ghost", "content": "orphan"},
            {"role": "assistant", "content": "two calls", "tool_calls": [call("a"), call("b")]},
            {"role": "tool", "tool_call_id": "a", "content": "A"},
            {"role": "tool", "tool_call_id": "a", "content": "A again"},
            {"role": "user", "content": "next"},
            {"role": "assistant", "content": null, "tool_calls": [call("c")]}
        ]));
        let transcript = read_messages(&messages, Format::OpenAi).expect("reads");
        let findings = find(&transcript);
        assert_eq!(
            faults(&findings),
            vec![
                (FaultKind::OrphanResult, 1, Some("ghost")),
                (FaultKind::UnansweredCall, 2, Some("b")),
                (FaultKind::SecondResult, 4, Some("a")),
            ]
        );
        assert_eq!(
            findings.removed,
            [false, true, false, false, true, false, false]
        );
        // The message keeps its text and its answered call; the last message's call stays.
        assert_eq!(findings.dropped(2), [false, false, true]);
        assert!(findings.merges.is_empty());
    }

    #[test]
    fn anthropic_duplicate_ids_leading_messages_and_runs_of_one_role() {
        let use_block =
            |id: &str| json!({"type": "tool_use", "id": id, "name": "bash", "input": {}});
        let result = |id: &str| json!({"type": "tool_result", "tool_use_id": id, "content": "ok"});
        let messages = list(json!([
            {"role": "assistant", "content": [use_block("t0")]},
            {"role": "user", "content": [result("t0"), {"type": "text", "text": "the task"}]},
            {"role": "assistant", "content": [use_block("t1")]},
            {"role": "user", "content": [result("t1")]},
            {"role": "assistant", "content": [{"type": "text", "text": "again"}, use_block("t1")]},
            {"role": "user", "content": [result("t1")]},
            {"role": "assistant", "content": "done"},
            {"role": "user", "content": "thanks"}
        ]));
        let transcript = read_messages(&messages, Format::Anthropic).expect("reads");
        let findings = find(&transcript);
        assert_eq!(
            faults(&findings),
            vec![
                (FaultKind::BeforeFirstUser { end: 1 }, 0, None),
                (FaultKind::OrphanResult, 1, Some("t0")),
                (FaultKind::DuplicateCall { first: 2 }, 4, Some("t1")),
                (
                    FaultKind::SameRole {
                        end: 7,
                        role: "assistant"
                    },
                    4,
                    None
                ),
                (FaultKind::DuplicateResult, 5, Some("t1")),
            ]
        );
        assert_eq!(
            findings.removed,
            [true, false, false, false, false, true, false, false]
        );
        assert_eq!(findings.dropped(4), [false, true]);
        assert_eq!(findings.merges, vec![4..7]);
    }

    #[test]
    fn no_leading_removal_without_user_words_to_start_from() {
        let messages = list(json!([
            {"role": "assistant", "content": [{"type": "tool_use", "id": "t", "name": "x", "input": {}}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t", "content": "ok"}]}
        ]));
        let transcript = read_messages(&messages, Format::Anthropic).expect("reads");
        assert!(find(&transcript).faults.is_empty());
    }

    #[test]
    fn ai_sdk_removes_one_part_of_a_tool_message() {
        let messages = list(json!([
            {"role": "user", "content": "go"},
            {"role": "assistant", "content": [{"type": "tool-call", "toolCallId": "a", "toolName": "x", "input": {}}]},
            {"role": "tool", "content": [
                {"type": "tool-result", "toolCallId": "a", "toolName": "x", "output": {"type": "text", "value": "ok"}},
                {"type": "tool-result", "toolCallId": "z", "toolName": "x", "output": {"type": "text", "value": "lost"}}
            ]},
            {"role": "assistant", "content": "done"}
        ]));
        let transcript = read_messages(&messages, Format::AiSdk).expect("reads");
        let findings = find(&transcript);
        assert_eq!(
            faults(&findings),
            vec![(FaultKind::OrphanResult, 2, Some("z"))]
        );
        assert_eq!(findings.dropped(2), [false, true]);
        assert!(!findings.removed[2]);
    }
}

//! Tool calls and results that break the pairing rules, by the pairing of
//! [`crate::transcript::pairing`]: a result answers the newest call of its id before it.
//! Broken are a result with no such call, a second result for a call, a call whose id an
//! earlier call used where ids must be unique (and its results), and a call left without a
//! result that later messages follow.

use super::fault::FaultKind;
use super::findings::Findings;
use crate::base::hash::FastMap;
use crate::transcript::pairing::id_table;
use crate::transcript::{BlockKind, Transcript};

/// A call still standing, as the pass meets it.
struct Call<'t> {
    message: usize,
    block: usize,
    id: &'t str,
    answered: bool,
    /// Removed as a duplicate: its results go with it.
    duplicate: bool,
}

/// Marks in `findings` the tool blocks of the messages still standing that break the pairing.
/// With `unique_ids`, an id an earlier call used makes a duplicate. With `server_history`, a
/// result whose id no call in the list has answers a call the provider stores, and stays.
pub(crate) fn find(
    transcript: &Transcript,
    unique_ids: bool,
    server_history: bool,
    findings: &mut Findings,
) {
    // Ids some call in the list has, for telling a stored call's result from an orphan.
    let called: crate::base::hash::FastSet<&str> = if server_history {
        transcript
            .messages
            .iter()
            .flat_map(|message| &message.blocks)
            .filter_map(|block| match &block.kind {
                BlockKind::ToolCall { id, .. } => Some(&**id),
                _ => None,
            })
            .collect()
    } else {
        Default::default()
    };
    let mut calls: Vec<Call> = Vec::new();
    let mut newest: FastMap<&str, usize> = id_table(transcript);
    let mut first_use: FastMap<&str, usize> = id_table(transcript);
    for (index, message) in transcript.messages.iter().enumerate() {
        if findings.removed[index] {
            continue;
        }
        for (block_index, block) in message.blocks.iter().enumerate() {
            if !findings.kept(index, block_index) || block.is_nested() {
                continue;
            }
            match &block.kind {
                BlockKind::ToolCall { id, .. } => {
                    let earlier = first_use.get(&**id).copied();
                    let duplicate = unique_ids && earlier.is_some();
                    if let (true, Some(first)) = (unique_ids, earlier) {
                        let fault = FaultKind::DuplicateCall { first };
                        findings.drop_block(index, block_index, id, fault);
                    }
                    first_use.entry(&**id).or_insert(index);
                    newest.insert(&**id, calls.len());
                    calls.push(Call {
                        message: index,
                        block: block_index,
                        id,
                        answered: false,
                        duplicate,
                    });
                }
                BlockKind::ToolResult { id: Some(id), .. } => {
                    let call = newest.get(&**id).and_then(|&at| calls.get_mut(at));
                    let fault = match call {
                        None if server_history && !called.contains(&**id) => None,
                        None => Some(FaultKind::OrphanResult),
                        Some(call) if call.duplicate => Some(FaultKind::DuplicateResult),
                        Some(call) if call.answered => Some(FaultKind::SecondResult),
                        Some(call) => {
                            call.answered = true;
                            None
                        }
                    };
                    if let Some(fault) = fault {
                        findings.drop_block(index, block_index, id, fault);
                    }
                }
                _ => {}
            }
        }
    }
    // A call in the last message is the host's next action: its result is still to come. Where
    // one model call is several items (Responses), that is every item of the last call.
    let last = last_call_start(transcript);
    for call in calls {
        if !call.answered && !call.duplicate && call.message < last {
            findings.drop_block(call.message, call.block, call.id, FaultKind::UnansweredCall);
        }
    }
}

/// The first message of the last model call: the last message, or the first of the output items
/// ([`crate::transcript::Message::output_item`]) that end the list together.
fn last_call_start(transcript: &Transcript) -> usize {
    let messages = &transcript.messages;
    let mut start = messages.len().saturating_sub(1);
    let item = |index: usize| {
        messages
            .get(index)
            .is_some_and(|m| m.output_item && m.role == crate::transcript::Role::Assistant)
    };
    while start > 0 && item(start) && item(start - 1) {
        start -= 1;
    }
    start
}

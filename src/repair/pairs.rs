//! Tool calls and results that break the pairing rules, by the pairing of
//! [`crate::transcript::pairing`]: a result answers the newest call of its id before it.
//! Broken are a result with no such call, a second result for a call, a call whose id an
//! earlier call used where ids must be unique (and its results), and a call left without a
//! result that later messages follow.

use super::fault::FaultKind;
use super::find::Findings;
use crate::base::hash::FastMap;
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
/// With `unique_ids`, an id an earlier call used makes a duplicate.
pub(crate) fn find(transcript: &Transcript, unique_ids: bool, findings: &mut Findings) {
    let mut calls: Vec<Call> = Vec::new();
    let mut newest: FastMap<&str, usize> = FastMap::default();
    let mut first_use: FastMap<&str, usize> = FastMap::default();
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
                    let earlier = first_use.get(id.as_str()).copied();
                    let duplicate = unique_ids && earlier.is_some();
                    if let (true, Some(first)) = (unique_ids, earlier) {
                        let fault = FaultKind::DuplicateCall { first };
                        findings.drop_block(index, block_index, id, fault);
                    }
                    first_use.entry(id.as_str()).or_insert(index);
                    newest.insert(id.as_str(), calls.len());
                    calls.push(Call {
                        message: index,
                        block: block_index,
                        id,
                        answered: false,
                        duplicate,
                    });
                }
                BlockKind::ToolResult { id: Some(id), .. } => {
                    let call = newest.get(id.as_str()).and_then(|&at| calls.get_mut(at));
                    let fault = match call {
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
    // A call in the last message is the host's next action: its result is still to come.
    let last = transcript.messages.len().saturating_sub(1);
    for call in calls {
        if !call.answered && !call.duplicate && call.message < last {
            findings.drop_block(call.message, call.block, call.id, FaultKind::UnansweredCall);
        }
    }
}

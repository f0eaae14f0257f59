//! Tool call / tool result pairing: which message ranges can be removed or replaced without
//! orphaning a call or a result, and the provider rule that results follow their call.

use super::{BlockKind, Message, Transcript};
use crate::base::hash::{FastMap, FastSet};
use std::ops::Range;

/// Message indices where each tool id occurs (as a call or as a result).
fn occurrences<'t>(transcript: &'t Transcript<'_>) -> FastMap<&'t str, Vec<usize>> {
    let mut map: FastMap<&str, Vec<usize>> = FastMap::default();
    for (index, message) in transcript.messages.iter().enumerate() {
        for block in &message.blocks {
            if let Some(id) = block.tool_id() {
                map.entry(id).or_default().push(index);
            }
        }
    }
    map
}

/// Maximal contiguous ranges of `candidates` that are closed under pairing: every tool id that
/// occurs inside a range occurs only inside it, so replacing the range never splits a pair.
pub fn closed_ranges(transcript: &Transcript, candidates: &[bool]) -> Vec<Range<usize>> {
    let map = occurrences(transcript);
    let mut good = candidates.to_vec();
    loop {
        let ranges = ranges_of(&good);
        let mut changed = false;
        for range in &ranges {
            for index in range.clone() {
                let escapes = transcript.messages[index].blocks.iter().any(|block| {
                    block.tool_id().is_some_and(|id| {
                        map.get(id)
                            .is_some_and(|at| at.iter().any(|i| !range.contains(i)))
                    })
                });
                if escapes {
                    good[index] = false;
                    changed = true;
                }
            }
        }
        if !changed {
            return ranges;
        }
    }
}

/// Contiguous runs of `true`.
pub fn ranges_of(flags: &[bool]) -> Vec<Range<usize>> {
    let mut ranges = Vec::new();
    let mut start = None;
    for (index, flag) in flags.iter().enumerate() {
        match (flag, start) {
            (true, None) => start = Some(index),
            (false, Some(s)) => {
                ranges.push(s..index);
                start = None;
            }
            _ => {}
        }
    }
    if let Some(s) = start {
        ranges.push(s..flags.len());
    }
    ranges
}

/// A message that holds only tool results (an OpenAI / AI SDK `tool` message, or an Anthropic
/// `user` message of `tool_result` blocks).
pub fn is_result_carrier(message: &Message) -> bool {
    !message.blocks.is_empty()
        && message
            .blocks
            .iter()
            .filter(|block| !block.is_nested())
            .all(|block| matches!(block.kind, BlockKind::ToolResult { .. }))
}

/// Tool ids with both a call and a result in the transcript, sorted.
pub fn paired_ids(transcript: &Transcript) -> Vec<String> {
    let ids: Vec<String> = paired_set(transcript)
        .into_iter()
        .map(str::to_string)
        .collect();
    crate::base::sort::sorted_by(ids, &|a: &String, b: &String| a < b)
}

/// Tool ids with both a call and a result in the transcript, in the order of their calls.
pub fn paired_in_order(transcript: &Transcript) -> Vec<String> {
    let mut paired = paired_set(transcript);
    let mut ordered = Vec::with_capacity(paired.len());
    for block in transcript.messages.iter().flat_map(|m| &m.blocks) {
        if let BlockKind::ToolCall { id, .. } = &block.kind {
            // Taken out of the set so that a repeated id is listed once.
            if paired.remove(id.as_str()) {
                ordered.push(id.clone());
            }
        }
    }
    ordered
}

/// Tool ids with both a call and a result in the transcript.
pub fn paired_set<'t>(transcript: &'t Transcript) -> FastSet<&'t str> {
    let mut calls = FastSet::default();
    let mut results = FastSet::default();
    for block in transcript.messages.iter().flat_map(|m| &m.blocks) {
        match &block.kind {
            BlockKind::ToolCall { id, .. } => {
                calls.insert(id.as_str());
            }
            BlockKind::ToolResult { id: Some(id), .. } => {
                results.insert(id.as_str());
            }
            _ => {}
        }
    }
    calls.retain(|id| results.contains(id));
    calls
}

/// Tool ids whose result does not directly follow its call: some message between the call and the
/// result is not a result carrier (Anthropic requires the very next message; OpenAI requires only
/// tool messages in between).
pub fn misplaced_results(transcript: &Transcript) -> Vec<String> {
    let mut call_at: FastMap<&str, usize> = FastMap::default();
    let mut misplaced = Vec::new();
    for (index, message) in transcript.messages.iter().enumerate() {
        for block in &message.blocks {
            match &block.kind {
                BlockKind::ToolCall { id, .. } => {
                    call_at.insert(id, index);
                }
                BlockKind::ToolResult { id: Some(id), .. } => {
                    if let Some(&call) = call_at.get(id.as_str()) {
                        let between_ok =
                            (call + 1..index).all(|i| is_result_carrier(&transcript.messages[i]));
                        if call >= index || !between_ok {
                            misplaced.push(id.clone());
                        }
                    }
                }
                _ => {}
            }
        }
    }
    misplaced
}

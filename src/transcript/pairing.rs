//! Tool call / tool result pairing: which message ranges can be removed or replaced without
//! orphaning a call or a result, and the provider rule that results follow their call.

use super::{Block, BlockKind, Message, Transcript};
use crate::base::hash::{FastMap, FastSet};
use std::borrow::Cow;
use std::ops::Range;

/// Which call a tool block belongs to: its id and, for an id used again by a later call, which
/// use (0 for the first call with that id). OpenAI and the AI SDK may reuse an id across steps
/// (`call_0` every time); a result then answers the newest call with its id before it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct PairKey<'t> {
    /// The tool id.
    pub id: &'t str,
    /// Which use of the id.
    pub use_index: u32,
}

/// An empty map with room for the tool ids of `transcript`: one per message (about as many as
/// a conversation has calls and results; counting them cost as much as the growth it saves).
/// Tables grown one insert at a time rehashed about a dozen times each on a 3,275-message
/// conversation (`reserve_rehash`, about 1.7 % of a body call).
pub(crate) fn id_table<K, V>(transcript: &Transcript) -> FastMap<K, V> {
    FastMap::with_capacity_and_hasher(transcript.messages.len(), Default::default())
}

/// An empty set with room for the tool ids of `transcript` (see [`id_table`]).
pub(crate) fn id_set<T>(transcript: &Transcript) -> FastSet<T> {
    FastSet::with_capacity_and_hasher(transcript.messages.len(), Default::default())
}

/// The pair key of every block (`None` for blocks without a tool id), message by message.
pub fn pair_keys<'t>(transcript: &'t Transcript<'_>) -> Vec<Vec<Option<PairKey<'t>>>> {
    let mut keyer = PairKeyer::new(transcript);
    transcript
        .messages
        .iter()
        .map(|message| {
            message
                .blocks
                .iter()
                .map(|block| keyer.key(block))
                .collect()
        })
        .collect()
}

/// [`pair_keys`] block by block, in transcript order, for a pass that needs each message's keys
/// only while it is at that message (a list per message was an allocation per message).
pub(crate) struct PairKeyer<'t> {
    /// Calls so far, per id. `usize` counts, not `u32`: the same map type as the other id maps,
    /// one copy of its code.
    uses: FastMap<&'t str, usize>,
}

impl<'t> PairKeyer<'t> {
    pub(crate) fn new(transcript: &Transcript<'_>) -> Self {
        Self {
            uses: id_table(transcript),
        }
    }

    /// The key of the next block (every block must be passed, in order).
    pub(crate) fn key(&mut self, block: &'t Block<'_>) -> Option<PairKey<'t>> {
        match &block.kind {
            BlockKind::ToolCall { id, .. } => {
                let count = self.uses.entry(&**id).or_insert(0);
                *count += 1;
                Some(PairKey {
                    id,
                    use_index: (*count - 1) as u32,
                })
            }
            BlockKind::ToolResult { id: Some(id), .. } => Some(PairKey {
                id,
                use_index: self.uses.get(&**id).map_or(0, |count| (count - 1) as u32),
            }),
            _ => None,
        }
    }
}

/// The tool each block calls or answers, by name: a call's own name, a result's name where its
/// format carries one, else its call's (most formats name the tool only on the call).
pub fn tool_names<'t>(transcript: &'t Transcript<'_>) -> Vec<Vec<Option<&'t str>>> {
    let keys = pair_keys(transcript);
    let pairs = pairs(transcript, &keys);
    transcript
        .messages
        .iter()
        .zip(&keys)
        .map(|(message, message_keys)| {
            message
                .blocks
                .iter()
                .zip(message_keys)
                .map(|(block, key)| match &block.kind {
                    BlockKind::ToolCall { name, .. } => Some(&**name),
                    BlockKind::ToolResult {
                        name: Some(name), ..
                    } => Some(name.as_str()),
                    BlockKind::ToolResult { .. } => key.and_then(|key| pairs.get(&key)?.name),
                    _ => None,
                })
                .collect()
        })
        .collect()
}

/// Maximal contiguous ranges of `candidates` that are closed under pairing: every tool id that
/// occurs inside a range occurs only inside it, so replacing the range never splits a pair. A
/// result whose call is not in the transcript (it answers a call the provider stores: a
/// Responses request with `previous_response_id`) never joins a range, and a range never parts
/// a message bound to the next one ([`super::Message::bound_to_next`]) from it.
pub fn closed_ranges(transcript: &Transcript, candidates: &[bool]) -> Vec<Range<usize>> {
    let keys = pair_keys(transcript);
    let pairs = pairs(transcript, &keys);
    let bound = |index: usize| {
        transcript
            .messages
            .get(index)
            .is_some_and(|message| message.bound_to_next)
    };
    let mut good = candidates.to_vec();
    loop {
        let ranges = ranges_of(&good);
        let mut changed = false;
        for range in &ranges {
            for index in range.clone() {
                let escapes = keys[index].iter().flatten().any(|key| {
                    pairs.get(key).is_none_or(|pair| {
                        pair.name.is_none() || pair.first < range.start || pair.last >= range.end
                    })
                });
                // The range's first message may not be the follower of a bound one outside it,
                // nor its last a bound one whose follower is outside.
                let parted = (index == range.start && index > 0 && bound(index - 1))
                    || (index + 1 == range.end && index + 1 < keys.len() && bound(index));
                if escapes || parted {
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

/// Where a pair key occurs: its first and last message, and the tool its call names (`None`
/// when no call has the key: a result answering a call the provider stores).
struct Pair<'t> {
    first: usize,
    last: usize,
    name: Option<&'t str>,
}

/// The [`Pair`] of every key of `keys`. One map serves every question (which keys are called, by
/// what name, where): a set of keys beside it was a second copy of the hash table's code in the
/// wasm.
fn pairs<'t>(
    transcript: &'t Transcript,
    keys: &[Vec<Option<PairKey<'t>>>],
) -> FastMap<PairKey<'t>, Pair<'t>> {
    let mut pairs: FastMap<PairKey, Pair> = id_table(transcript);
    for (index, (message, message_keys)) in transcript.messages.iter().zip(keys).enumerate() {
        for (block, key) in message.blocks.iter().zip(message_keys) {
            let Some(key) = key else { continue };
            let pair = pairs.entry(*key).or_insert(Pair {
                first: index,
                last: index,
                name: None,
            });
            pair.last = index;
            if let BlockKind::ToolCall { name, .. } = &block.kind {
                pair.name = Some(name);
            }
        }
    }
    pairs
}

/// Contiguous runs of `true`.
pub fn ranges_of(flags: &[bool]) -> Vec<Range<usize>> {
    let mut start = 0;
    flags
        .chunk_by(|a, b| a == b)
        .filter_map(|run| {
            let range = start..start + run.len();
            start = range.end;
            (run.first() == Some(&true)).then_some(range)
        })
        .collect()
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
    // The checks' (tests, fuzz): the standard sort is not in the wasm for it.
    let mut ids: Vec<String> = paired_set(transcript)
        .into_iter()
        .map(str::to_string)
        .collect();
    ids.sort_unstable();
    ids
}

/// Tool ids with both a call and a result in the transcript, in the order of their calls;
/// those the transcript borrows from its input stay borrowed from it (no copy of each).
pub fn paired_in_order<'a>(transcript: &Transcript<'a>) -> Vec<Cow<'a, str>> {
    let mut paired = paired_set(transcript);
    let mut ordered = Vec::with_capacity(paired.len());
    for block in transcript.messages.iter().flat_map(|m| &m.blocks) {
        if let BlockKind::ToolCall { id, .. } = &block.kind {
            // Taken out of the set so that a repeated id is listed once.
            if paired.remove(&**id) {
                ordered.push(id.clone());
            }
        }
    }
    ordered
}

/// Tool ids with both a call and a result in the transcript.
pub fn paired_set<'t>(transcript: &'t Transcript) -> FastSet<&'t str> {
    let mut calls = id_set(transcript);
    let mut results = id_set(transcript);
    for block in transcript.messages.iter().flat_map(|m| &m.blocks) {
        match &block.kind {
            BlockKind::ToolCall { id, .. } => {
                calls.insert(&**id);
            }
            BlockKind::ToolResult { id: Some(id), .. } => {
                results.insert(&**id);
            }
            _ => {}
        }
    }
    calls.retain(|id| results.contains(id));
    calls
}

/// Tool ids whose result does not directly follow its call: some message between the call and the
/// result is not a result carrier (Anthropic requires the very next message; OpenAI requires only
/// tool messages in between) nor an output item of a model call ([`super::Message::output_item`]:
/// a Responses `function_call_output` may follow the other items of its call).
pub fn misplaced_results(transcript: &Transcript) -> Vec<String> {
    let mut call_at: FastMap<&str, usize> = id_table(transcript);
    let mut misplaced = Vec::new();
    for (index, message) in transcript.messages.iter().enumerate() {
        for block in &message.blocks {
            match &block.kind {
                BlockKind::ToolCall { id, .. } => {
                    call_at.insert(id, index);
                }
                BlockKind::ToolResult { id: Some(id), .. } => {
                    if let Some(&call) = call_at.get(&**id) {
                        let between_ok = (call + 1..index).all(|i| {
                            let between = &transcript.messages[i];
                            is_result_carrier(between) || between.output_item
                        });
                        if call >= index || !between_ok {
                            misplaced.push(id.to_string());
                        }
                    }
                }
                _ => {}
            }
        }
    }
    misplaced
}

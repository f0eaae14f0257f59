//! A tier's output: a [`Plan`] of edits over a [`crate::transcript::Transcript`]. Tiers never
//! rewrite the input; adapters apply plans to their own format and record what each edit removed
//! in the archive. Keeping edits this small is what lets untouched messages pass through as is.

use crate::result::SummariserUsage;
use std::ops::Range;
use xxhash_rust::xxh3::{Xxh3, xxh3_64};

/// What an archive entry holds (`docs/design.md`, "Archive").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArchiveKind {
    /// A tool-result body collapsed by `micro`.
    ToolResult,
    /// An image, document or file stripped by `auto`.
    Media,
    /// A stale turn's agent blocks pruned by `time_based`, or older conversation (tool runs in
    /// it included) replaced by `auto`'s summary or digest.
    Turn,
    /// Long string values inside a tool call's input, stubbed by `micro` or `time_based`.
    ToolInput,
    /// A thinking or reasoning block archived by `time_based` or `auto`.
    Thinking,
    /// A tool run replaced by a summary or digest by `auto`.
    Run,
    /// Messages folded into the session summary by `session_memory`.
    Session,
    /// What broke the provider's rules in the input (an orphan result, an unanswered call, a
    /// duplicate id, a run of one role), removed or merged before any tier runs (`repair/`).
    Repair,
}

impl ArchiveKind {
    /// Every kind, in the order the docs list them.
    pub const ALL: [ArchiveKind; 8] = [
        ArchiveKind::ToolResult,
        ArchiveKind::ToolInput,
        ArchiveKind::Media,
        ArchiveKind::Thinking,
        ArchiveKind::Turn,
        ArchiveKind::Run,
        ArchiveKind::Session,
        ArchiveKind::Repair,
    ];

    /// The kind whose wire name is `name`; the error names `path` and lists the kinds.
    pub fn parse(name: &str, path: &str) -> crate::error::Result<Self> {
        Self::ALL
            .into_iter()
            .find(|kind| kind.as_str() == name)
            .ok_or_else(|| {
                let names: Vec<String> = Self::ALL
                    .iter()
                    .map(|kind| format!("{:?}", kind.as_str()))
                    .collect();
                crate::error::CompactionError::type_error(
                    path,
                    format!("must be one of {}, got {name:?}", names.join(", ")),
                )
            })
    }

    /// The wire name (`"tool_result"`).
    pub fn as_str(self) -> &'static str {
        match self {
            ArchiveKind::ToolResult => "tool_result",
            ArchiveKind::Media => "media",
            ArchiveKind::Turn => "turn",
            ArchiveKind::ToolInput => "tool_input",
            ArchiveKind::Thinking => "thinking",
            ArchiveKind::Run => "run",
            ArchiveKind::Session => "session",
            ArchiveKind::Repair => "repair",
        }
    }
}

/// One edit to make.
#[derive(Debug, Clone, PartialEq)]
pub enum Edit {
    /// Replace the content of block `block` of message `message` by `text`: a tool result keeps
    /// its id and flags and gets `text` as its body; media becomes a text part.
    ReplaceBlock {
        /// Message index in the transcript.
        message: usize,
        /// Block index in that message.
        block: usize,
        /// The new content.
        text: String,
        /// What the removed content was.
        kind: ArchiveKind,
    },
    /// Replace messages `range` by one assistant message of `text`, or remove them when `text`
    /// is `None`.
    ReplaceMessages {
        /// Message indices in the transcript, non-empty.
        range: Range<usize>,
        /// The replacement's text.
        text: Option<String>,
        /// What the removed messages were.
        kind: ArchiveKind,
        /// The replacement is a summary or digest written by this library (loop guard).
        is_summary: bool,
    },
    /// Rewrite messages `range` as one message holding their content in order, less the blocks
    /// `drop` names: a range of one message loses those blocks; a longer one (a run of one role,
    /// in a format whose roles alternate) is merged into its first message's shape. Repairs
    /// only: every message of the range goes to the archive, so `restore` gives them back.
    RewriteMessages {
        /// Message indices in the transcript, non-empty.
        range: Range<usize>,
        /// `(message, block)` of each top-level block left out (its nested blocks go with it).
        drop: Vec<(usize, usize)>,
        /// What the rewritten messages were.
        kind: ArchiveKind,
        /// What the rewrite did, in words: the archive entry's `replacement`, never empty (an
        /// empty one would tell `restore` that nothing stands in the range's place).
        note: String,
    },
}

impl Edit {
    /// The first message index the edit touches (edits are applied in this order).
    pub fn first_message(&self) -> usize {
        match self {
            Edit::ReplaceBlock { message, .. } => *message,
            Edit::ReplaceMessages { range, .. } | Edit::RewriteMessages { range, .. } => {
                range.start
            }
        }
    }
}

/// What a tier decided: edits, and what the result should say about them.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Plan {
    /// Edits in message order, non-overlapping.
    pub edits: Vec<Edit>,
    /// Why the tier did what it did (becomes `TierResult.reason`).
    pub reason: String,
    /// The session summary (`session_memory`).
    pub summary: Option<String>,
    /// The summariser misbehaved and the structural digest was used instead.
    pub degraded: bool,
    /// Human-readable warnings (the summariser's failure cause, skipped edits).
    pub warnings: Vec<String>,
    /// The summariser's reported spend.
    pub summariser_usage: Option<SummariserUsage>,
}

impl Plan {
    /// A plan that changes nothing, with its reason.
    pub fn unchanged(reason: impl Into<String>) -> Self {
        Self {
            reason: reason.into(),
            ..Self::default()
        }
    }

    /// Sorts edits into message order (adapters apply them in one pass).
    pub fn sorted(mut self) -> Self {
        let key = |edit: &Edit| {
            let block = match edit {
                Edit::ReplaceBlock { block, .. } => *block,
                Edit::ReplaceMessages { .. } | Edit::RewriteMessages { .. } => 0,
            };
            (edit.first_message(), block)
        };
        // Tiers plan in message order: a stable sort of a sorted list is the list (the sort
        // through indices was about 900 instructions an edit).
        if self
            .edits
            .windows(2)
            .all(|pair| key(&pair[0]) <= key(&pair[1]))
        {
            return self;
        }
        self.edits = crate::base::sort::sorted_by_key(self.edits, &key);
        self
    }
}

/// The archive id of `edit`, the `seq`-th plan of the call whose correlation id is `seed`: short
/// enough to quote (`a` and 12 hex digits), stable (the same call, plan and place give the same
/// id) and unique within a result and, all but surely, across a session's results. A tier that
/// names the id in its stub computes it with the same arguments before the edit is applied.
pub fn archive_id(seed: &str, seq: usize, edit: &Edit) -> String {
    let (message, block) = match edit {
        Edit::ReplaceBlock { message, block, .. } => (*message, *block as u64),
        Edit::ReplaceMessages { range, .. } | Edit::RewriteMessages { range, .. } => {
            (range.start, u64::MAX - range.end as u64)
        }
    };
    place_id(seed, seq, message, block)
}

/// [`archive_id`] of a block edit at `message`, `block`.
pub fn place_id(seed: &str, seq: usize, message: usize, block: u64) -> String {
    // One-shot xxh3 over the bytes a streaming hasher would be fed (the same digest), from the
    // stack: a streaming state and `format!` for each of a long run's thousands of stubs were
    // about 1.6 % of a call on a 3,275-message conversation.
    let mut place = [0u8; 24];
    place[..8].copy_from_slice(&(seq as u64).to_le_bytes());
    place[8..16].copy_from_slice(&(message as u64).to_le_bytes());
    place[16..].copy_from_slice(&block.to_le_bytes());
    let mut buffer = [0u8; 128];
    let digest = match buffer.get_mut(..seed.len() + place.len()) {
        Some(bytes) => {
            bytes[..seed.len()].copy_from_slice(seed.as_bytes());
            bytes[seed.len()..].copy_from_slice(&place);
            xxh3_64(bytes)
        }
        None => {
            let mut hasher = Xxh3::new();
            hasher.update(seed.as_bytes());
            hasher.update(&place);
            hasher.digest()
        }
    };
    hex_id(digest & 0xffff_ffff_ffff)
}

/// `a` and the low 48 bits of `digest` as 12 lowercase hex digits (`format!("a{:012x}")`).
fn hex_id(digest: u64) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut id = [b'a'; 13];
    for (at, digit) in id[1..].iter_mut().enumerate() {
        *digit = DIGITS[((digest >> ((11 - at) * 4)) & 0xf) as usize];
    }
    // ASCII throughout: never the empty fallback.
    String::from_utf8(id.to_vec()).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn place_ids_are_the_streaming_hashers() {
        for (seed, seq, message, block) in [
            ("", 0, 0, 0),
            (
                "ids-0123456789abcdef0123456789abcdef",
                3,
                1_514,
                u64::MAX / 2,
            ),
            (&"x".repeat(300)[..], 1, 7, u64::MAX - 9),
        ] {
            let mut hasher = Xxh3::new();
            hasher.update(seed.as_bytes());
            hasher.update(&(seq as u64).to_le_bytes());
            hasher.update(&(message as u64).to_le_bytes());
            hasher.update(&block.to_le_bytes());
            let expected = format!("a{:012x}", hasher.digest() & 0xffff_ffff_ffff);
            assert_eq!(place_id(seed, seq, message, block), expected);
        }
        assert_eq!(hex_id(0xabc), "a000000000abc");
    }
}

//! A tier's output: a [`Plan`] of edits over a [`crate::transcript::Transcript`]. Tiers never
//! rewrite the input; adapters apply plans to their own format and record what each edit removed
//! in the archive. Keeping edits this small is what lets untouched messages pass through as is.
//! Beside it: [`working`] (the context as a tier is compacting it, plans applied one after
//! another) and [`loop_state`] (the decisions a stateless host's later calls make again).

pub mod loop_state;
pub mod working;

use crate::summary::summarise::SummariserUsage;
use crate::transcript::fingerprint::Fingerprint;
use crate::transcript::{Block, BlockKind, Transcript};
use std::ops::Range;
use xxhash_rust::xxh3::Xxh3;

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

    /// The kind whose wire name is `name`.
    pub fn named(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|kind| kind.as_str() == name)
    }

    /// The kind whose wire name is `name`; the error names `path` and lists the kinds.
    pub fn parse(name: &str, path: &str) -> crate::error::Result<Self> {
        Self::named(name).ok_or_else(|| {
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
        Self::of(Vec::new(), reason.into())
    }

    /// A plan of `edits` for `reason`, and nothing else.
    pub fn of(edits: Vec<Edit>, reason: String) -> Self {
        Self {
            edits,
            reason,
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

/// The archive id of what `edit` removes from `transcript` (read before the edit is applied):
/// short enough to quote (`a` and 12 hex digits) and stable (docs/design.md §6): a function of the removed
/// content, its kind and the tool call ids that tie it to the conversation, never of the call,
/// the tier, the session or the position. So the same block gives the same id, and its stub the
/// same bytes, at every call of a loop: a stub that changed its id at each call would rewrite the
/// provider's cached prefix from the first stub on (issue 28). Two entries with one id hold the
/// same content, so `recall` answers either correctly.
pub fn archive_id(transcript: &Transcript<'_>, edit: &Edit) -> String {
    match edit {
        Edit::ReplaceBlock {
            message,
            block,
            kind,
            ..
        } => match transcript
            .messages
            .get(*message)
            .and_then(|at| at.blocks.get(*block))
        {
            Some(_) => block_id(*kind, transcript, *message, *block),
            None => range_id(transcript, *kind, *message..*message + 1),
        },
        Edit::ReplaceMessages { range, kind, .. } | Edit::RewriteMessages { range, kind, .. } => {
            range_id(transcript, *kind, range.clone())
        }
    }
}

/// [`archive_id`] of block `index` of message `message` archived as `kind` (a stub names it
/// before its edit exists). Blocks the transcript model sees alike (the same kind, tool id and
/// text) may differ in what they archive (two thinking blocks of one text and two signatures),
/// so the id also counts how many such blocks come before this one: a number that a history
/// growing at its end never changes.
pub fn block_id(
    kind: ArchiveKind,
    transcript: &Transcript<'_>,
    message: usize,
    index: usize,
) -> String {
    let Some(block) = transcript
        .messages
        .get(message)
        .and_then(|at| at.blocks.get(index))
    else {
        return range_id(transcript, kind, message..message + 1);
    };
    let mut hasher = Xxh3::new();
    hasher.update(kind.as_str().as_bytes());
    hash_block(&mut hasher, block);
    let alike = |other: &Block<'_>| {
        other.text.len() == block.text.len() && other.kind == block.kind && other.text == block.text
    };
    let before = transcript.messages[..message]
        .iter()
        .flat_map(|at| &at.blocks);
    let before = before.chain(&transcript.messages[message].blocks[..index]);
    let earlier = before.filter(|other| alike(other)).count();
    if earlier > 0 {
        hasher.update(&(earlier as u64).to_le_bytes());
    }
    hex_id(hasher.digest())
}

/// [`archive_id`] of messages `range` of `transcript` archived as `kind` (a digest names it
/// before its edit exists).
pub fn range_id(transcript: &Transcript<'_>, kind: ArchiveKind, range: Range<usize>) -> String {
    let mut hasher = Xxh3::new();
    hasher.update(kind.as_str().as_bytes());
    for message in transcript.messages.get(range).unwrap_or_default() {
        hasher.update(&[0xfe, message.role as u8]);
        for block in &message.blocks {
            hash_block(&mut hasher, block);
        }
    }
    hex_id(hasher.digest())
}

/// The id of the bridge entry that follows the entry `id` (a replaced range whose replacement
/// needed a message beside it, `formats::json`): derived from it, apart from it.
pub fn bridge_id(id: &str) -> String {
    let mut hasher = Xxh3::new();
    hasher.update(b"bridge");
    hasher.update(id.as_bytes());
    hex_id(hasher.digest())
}

/// Feeds `block`'s kind and tool id to `hasher` (what archive ids and the loop state's history
/// digest both start a block with).
pub(crate) fn hash_kind(hasher: &mut Xxh3, block: &Block<'_>) {
    let (tag, id): (u8, Option<&str>) = match &block.kind {
        BlockKind::Text => (0, None),
        BlockKind::ToolCall { id, .. } => (1, Some(id)),
        BlockKind::ToolResult { id, .. } => (2, id.as_deref()),
        BlockKind::Media { .. } => (3, None),
        BlockKind::Thinking => (4, None),
        BlockKind::Other => (5, None),
    };
    hasher.update(&[0xff, tag]);
    hasher.update(id.unwrap_or_default().as_bytes());
}

/// Feeds `block`'s text to `hasher` by its fingerprint (`transcript::fingerprint`): `0` and the
/// text when short, else `1`, its length in code points, its head, `separator` and its tail.
pub(crate) fn hash_fingerprint(hasher: &mut Xxh3, block: &Block<'_>, separator: u8) {
    match block.fingerprint() {
        Fingerprint::Whole(text) => {
            hasher.update(&[0]);
            hasher.update(text.as_bytes());
        }
        Fingerprint::Ends { chars, head, tail } => {
            hasher.update(&[1]);
            hasher.update(&(chars as u64).to_le_bytes());
            hasher.update(head.as_bytes());
            hasher.update(&[separator]);
            hasher.update(tail.as_bytes());
        }
    }
}

/// Feeds `block`'s kind, tool ids and content to `hasher`, each field closed by a byte no UTF-8
/// text holds (so `("ab", "c")` and `("a", "bc")` differ). A binary value is known by its
/// SHA-256, which its text already is.
fn hash_block(hasher: &mut Xxh3, block: &Block<'_>) {
    hash_kind(hasher, block);
    hasher.update(&[0xff]);
    hasher.update(block.text.as_bytes());
}

/// `a` and the low 48 bits of `digest` as 12 lowercase hex digits (`format!("a{:012x}")`).
fn hex_id(digest: u64) -> String {
    let digest = digest & 0xffff_ffff_ffff;
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
    use crate::transcript::Format;
    use serde_json::{Value, json};

    fn read(messages: &[Value]) -> Transcript<'_> {
        crate::formats::read_messages(messages, Format::OpenAi).unwrap()
    }

    fn call(id: &str, body: &str) -> [Value; 2] {
        [
            json!({"role": "assistant", "content": null, "tool_calls": [{"id": id, "type": "function", "function": {"name": "bash", "arguments": "{}"}}]}),
            json!({"role": "tool", "tool_call_id": id, "content": body}),
        ]
    }

    fn stub_edit(message: usize) -> Edit {
        Edit::ReplaceBlock {
            message,
            block: 0,
            text: String::new(),
            kind: ArchiveKind::ToolResult,
        }
    }

    #[test]
    fn a_blocks_id_does_not_depend_on_its_place() {
        let mut early = vec![json!({"role": "user", "content": "task"})];
        early.extend(call("c1", "body one"));
        let mut late = vec![json!({"role": "user", "content": "task"})];
        late.extend(call("c0", "other"));
        late.extend(call("c1", "body one"));
        let (early, late) = (read(&early), read(&late));
        let id = archive_id(&early, &stub_edit(2));
        assert_eq!(id, archive_id(&late, &stub_edit(4)));
        assert_eq!(id.len(), 13);
        assert!(id.starts_with('a') && id[1..].bytes().all(|b| b.is_ascii_hexdigit()));
        assert_ne!(id, archive_id(&late, &stub_edit(2)));
    }

    #[test]
    fn ids_differ_by_content_kind_and_tool_id() {
        let mut messages = vec![];
        messages.extend(call("c1", "same body"));
        messages.extend(call("c2", "same body"));
        messages.extend(call("c1", "same bodz"));
        let transcript = read(&messages);
        let ids = [1, 3, 5].map(|at| archive_id(&transcript, &stub_edit(at)));
        assert_ne!(ids[0], ids[1], "tool call id");
        assert_ne!(ids[0], ids[2], "content");
        assert_ne!(
            block_id(ArchiveKind::ToolResult, &transcript, 1, 0),
            block_id(ArchiveKind::Turn, &transcript, 1, 0)
        );
        assert_eq!(ids[0], block_id(ArchiveKind::ToolResult, &transcript, 1, 0));
    }

    #[test]
    fn blocks_alike_in_the_model_get_ids_of_their_own() {
        let mut messages = vec![];
        messages.extend(call("c1", "same body"));
        messages.extend(call("c1", "same body"));
        let transcript = read(&messages);
        let first = archive_id(&transcript, &stub_edit(1));
        let second = archive_id(&transcript, &stub_edit(3));
        assert_ne!(first, second);
        // The first keeps its id when the history grows.
        let mut longer = messages.clone();
        longer.extend(call("c2", "more"));
        assert_eq!(archive_id(&read(&longer), &stub_edit(1)), first);
    }

    #[test]
    fn a_ranges_id_is_its_content() {
        let mut short = vec![json!({"role": "user", "content": "task"})];
        short.extend(call("c1", "run"));
        let mut long = vec![json!({"role": "system", "content": "sys"})];
        long.extend(short.clone());
        let (short, long) = (read(&short), read(&long));
        let id = range_id(&short, ArchiveKind::Run, 1..3);
        assert_eq!(id, range_id(&long, ArchiveKind::Run, 2..4));
        assert_ne!(id, range_id(&long, ArchiveKind::Run, 1..3));
        assert_ne!(bridge_id(&id), id);
        assert_eq!(hex_id(0xabc), "a000000000abc");
    }
}

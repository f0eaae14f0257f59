//! [`TierResult`] and what it carries: the compacted context, token counts, cost, the archive of
//! everything removed, and the summariser's reported spend.

use crate::policy::tier::Tier;
use serde::Serialize;

/// The compacted context, in the shape it was given.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum ContextData {
    /// Structured messages in the host's wire format.
    Messages(Vec<serde_json::Value>),
    /// Flat text.
    Text(String),
}

/// One removed piece of content, exactly as it was, with where it was.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ArchiveEntry {
    /// Stable id, unique within the result (`a3f9c1b2e07d4`); stubs name it (`recall: …`).
    pub id: String,
    /// `tool_result`, `tool_input`, `media`, `thinking`, `turn`, `run` or `session`.
    pub kind: &'static str,
    /// The exact removed value: a message array, a content part, a tool-result body, a substring.
    pub content: serde_json::Value,
    /// Where it was in the input: `messages[3].content[1]`, `messages[4..9]`, `text[120..1020]`
    /// (flat text ranges are code points).
    pub location: String,
    /// What now stands in its place in the output (empty when it was removed outright).
    pub replacement: String,
}

/// One step of a path into a JSON value: an object key or an array index.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PathStep {
    /// The field of that name.
    Key(&'static str),
    /// The element at that index.
    Index(usize),
}

/// The value at `path` inside `value`, if there is one.
pub fn value_at<'v>(
    value: &'v serde_json::Value,
    path: &[PathStep],
) -> Option<&'v serde_json::Value> {
    path.iter().try_fold(value, |value, step| match step {
        PathStep::Key(key) => value.get(key),
        PathStep::Index(index) => value.get(index),
    })
}

/// The value at `path` inside `value`, mutably, if there is one.
pub fn value_at_mut<'v>(
    value: &'v mut serde_json::Value,
    path: &[PathStep],
) -> Option<&'v mut serde_json::Value> {
    path.iter().try_fold(value, |value, step| match step {
        PathStep::Key(key) => value.get_mut(key),
        PathStep::Index(index) => value.get_mut(index),
    })
}

/// Where an archive entry's content is in the input, when it is input content as it was: the
/// core moves (or copies) it from there into the entry once the call is done, and a host that
/// still holds its input can hand back its own value instead of a copy.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ArchiveOrigin {
    /// The value at `path` inside input message `message` (a tool result's body, a media part).
    Part {
        /// Index of the input message.
        message: usize,
        /// Path inside that message.
        path: Vec<PathStep>,
    },
    /// Whole messages, in order: for each, the input message it is, or `None` for a message an
    /// earlier step of the same call wrote (its content is in the entry already).
    Messages(Vec<Option<usize>>),
}

pub use crate::summary::summarise::SummariserUsage;

/// The outcome of one compaction.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TierResult {
    /// The tier that ran.
    pub tier: Tier,
    /// The compacted context (unchanged for `none` and for a tier that could not reduce).
    pub context: ContextData,
    /// Tokens before.
    pub before_tokens: u64,
    /// Tokens after (never more than before).
    pub after_tokens: u64,
    /// `max(0, before - after)`.
    pub tokens_saved: u64,
    /// `tokens_saved / 1000 × cost_per_1k_tokens × weight`, unrounded, in USD.
    pub cost_estimate: f64,
    /// Correlation id of this event.
    pub correlation_id: String,
    /// Why this tier was chosen and what it did (or why it changed nothing).
    pub reason: String,
    /// Everything removed.
    pub archive: Vec<ArchiveEntry>,
    /// The session summary (`session_memory`).
    pub summary: Option<String>,
    /// The summariser misbehaved and the structural digest was used instead.
    pub degraded: bool,
    /// Warnings, e.g. the summariser's failure cause.
    pub warnings: Vec<String>,
    /// The summariser's reported spend, when it reported any.
    pub summariser_usage: Option<SummariserUsage>,
    /// What the edits did to the provider's prompt cache, when the pressure gave `cachedTokens`.
    pub cache: Option<crate::policy::cache::CacheReport>,
    /// The loop's state after this call, for the next one (docs/design.md §11); `None` for flat text.
    pub state: Option<crate::plan::loop_state::LoopState>,
    /// The format the context was read as (`openai`, `anthropic`, `ai-sdk`, `text`).
    pub format: &'static str,
    /// For each output message, the index of the input message it is an unchanged copy of
    /// (`None` for edited or new messages; empty for flat text). Hosts (and the JS binding) can
    /// hand back their own objects for these instead of the copies.
    #[serde(skip)]
    pub origins: Vec<Option<usize>>,
    /// For each archive entry, where its content is in the input (`None` when it is not input
    /// content as it was, or for flat text); see [`ArchiveOrigin`].
    #[serde(skip)]
    pub archive_origins: Vec<Option<ArchiveOrigin>>,
}

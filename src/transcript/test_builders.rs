//! Transcript builders for the unit tests of the modules that read steps and pairs.

use super::{Block, BlockKind, Message, Role, Source};
use std::borrow::Cow;

/// A message of `role` holding one block of each kind, every block's text "words".
pub(crate) fn message(role: Role, kinds: Vec<BlockKind<'static>>) -> Message<'static> {
    Message {
        role,
        blocks: kinds
            .into_iter()
            .map(|kind| Block::new(kind, Cow::Borrowed("words"), vec![]))
            .collect(),
        source: Source::Index(0),
        explicit_age: None,
        is_library_summary: false,
        bound_to_next: false,
        output_item: false,
    }
}

/// A `bash` tool call with `id`.
pub(crate) fn call(id: &str) -> BlockKind<'static> {
    BlockKind::ToolCall {
        id: id.to_string().into(),
        name: "bash".into(),
    }
}

/// A tool result answering `id`.
pub(crate) fn result(id: &str) -> BlockKind<'static> {
    BlockKind::ToolResult {
        id: Some(id.to_string().into()),
        name: None,
        is_error: false,
    }
}

//! Anthropic Messages API `messages`: `user` / `assistant`, content as a string or an array of
//! blocks (`text`, `image`, `document`, `tool_use`, `tool_result`, `thinking`,
//! `redacted_thinking`, ...). The system prompt is a top-level request field and never appears
//! here.
//!
//! Block paths: `[]` for string content, `[i]` for `content[i]`, `[i, j]` for an image or
//! document at `content[i].content[j]` inside a `tool_result`. Text inside a tool result is part
//! of the result's body, not a block of its own.
//!
//! Server-side tool blocks (`server_tool_use`, `web_search_tool_result`, ...) are kept as unknown
//! blocks: their call and result live in the same assistant message, and their result content
//! has a fixed shape that a text body would break.

use super::adapter::{Found, MessageFields};
use super::common::{
    Path, compact_json, data_uri_media_type, object, object_at, object_field, optional_str,
    required_str, role_of,
};
use super::evidence::Seen;
use super::part_writer::PartWriter;
use super::walk::{
    self, Part, call_block, finish_message, media, other_block, text_field, thinking_field,
};
use crate::error::Result;
use crate::transcript::{Block, Message};
use serde_json::Value;
use std::borrow::Cow;

/// The key of the message list in a request body, and the start of error paths.
pub(crate) const LIST_KEY: &str = "messages";

/// Wire role names, in the order error messages list them.
const ROLES: [&str; 2] = ["user", "assistant"];

/// A Messages API tool: `{ name, description, input_schema }`.
pub(crate) fn tool_definition(name: &str, description: &str, schema: Value) -> Value {
    object(vec![
        ("name", name.into()),
        ("description", description.into()),
        ("input_schema", schema),
    ])
}

/// No message field is Anthropic's alone: its evidence is in its content blocks.
pub(crate) fn message_evidence(_: &MessageFields<'_>, _: Found<'_>) {}

/// Block types only the Messages API has.
pub(crate) fn part_evidence<'v>(part_type: &'v str, part: &Value) -> Option<Seen<'v>> {
    match part_type {
        "image" if part.get("source").is_some() => Some(Seen::Words("\"image\" with a source")),
        "tool_use"
        | "tool_result"
        | "thinking"
        | "redacted_thinking"
        | "document"
        | "server_tool_use"
        | "web_search_tool_result"
        | "search_result" => Some(Seen::PartType(part_type)),
        _ => None,
    }
}

/// Reads message `index` of a Messages API list, validating what the model needs.
pub(crate) fn read_message(value: &Value, index: usize) -> Result<Message<'_>> {
    let path = Path::Message(LIST_KEY, index);
    let object = object_at(value, &path)?;
    let role = role_of(object, &path, &ROLES)?;
    let blocks =
        walk::parts_with_results(object, &path, "tool_result", tool_result_blocks, part_block)?;
    Ok(finish_message(role, blocks, index))
}

/// A top-level block other than a tool result.
fn part_block<'v>(part: &Part<'v, '_>) -> Result<Block<'v>> {
    let (object, path, at) = (part.object, part.path, vec![part.index]);
    Ok(match part.kind {
        "text" => text_field(object, path, "text", at)?,
        "image" | "document" => source_block(part, at)?,
        "tool_use" => {
            let id = required_str(object, path, "id")?;
            let name = required_str(object, path, "name")?;
            let input = Cow::Owned(object.get("input").map(compact_json).unwrap_or_default());
            call_block(id, name, input, at)
        }
        "thinking" => thinking_field(object, "thinking", at),
        "redacted_thinking" => thinking_field(object, "data", at),
        _ => other_block(part.value, at),
    })
}

/// An `image` or `document` by its `source`: base64 and plain-text data are inline, a URL or an
/// uploaded file id is a reference; other sources (a document's `content` blocks) are unknown
/// blocks.
fn source_block<'v>(part: &Part<'v, '_>, at: Vec<usize>) -> Result<Block<'v>> {
    let source = object_field(part.object, part.path, "source")?;
    // A base64 payload never looks like a URL, but the source type is what says so.
    let (field, inline) = match optional_str(source, "type") {
        Some("base64") | Some("text") => ("data", true),
        Some("url") => ("url", false),
        Some("file") => ("file_id", false),
        _ => return Ok(other_block(part.value, at)),
    };
    let data = required_str(source, &part.path.field("source"), field)?;
    let media_type = optional_str(source, "media_type").or_else(|| data_uri_media_type(data));
    let media_type = media_type.unwrap_or(part.kind);
    Ok(media(media_type, inline, Cow::Borrowed(data), at))
}

/// A `tool_result` and the images / documents nested in its content.
fn tool_result_blocks<'v>(part: &Part<'v, '_>) -> Result<Vec<Block<'v>>> {
    let (object, path, index) = (part.object, part.path, part.index);
    let id = required_str(object, path, "tool_use_id")?;
    let body = walk::content_body(object, path, true, |item| match item.kind {
        "image" | "document" => source_block(item, vec![index, item.index]).map(Some),
        _ => Ok(None),
    })?;
    let is_error = object.get("is_error") == Some(&Value::Bool(true));
    Ok(body.blocks((id, None, is_error), vec![index]))
}

/// Writes edited Messages API messages: a call's `input` (stubbed, it stays an object), a
/// result's `content` (a string once edited; `tool_use_id`, `is_error` and `cache_control` stay)
/// and the media nested in a result's `content`.
pub(crate) static WRITER: PartWriter = PartWriter {
    alternates: true,
    call_input: |_| "input",
    result_body: |_| "content",
    body_payload: |part| part.get("content"),
    write_body: |result, _, text| {
        result.insert("content".into(), Value::String(text.into()));
    },
    nested: &["content"],
};

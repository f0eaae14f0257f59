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

use super::adapter::MessageFields;
use super::common::{
    Content, Path, compact_json, content_location, content_of, input_value, message_path,
    object_at, object_field, optional_str, part_object_mut, part_of, plain_payload,
    removed_plain_path, replace_nested, replace_plain_block, required_str, role_of,
    tool_call_not_replaceable,
};
use super::evidence::{Field, Seen};
use super::walk::{
    self, Part, call_block, finish_message, media_block, other_block, text_field, thinking_field,
};
use crate::api::result::PathStep;
use crate::error::Result;
use crate::transcript::{Block, BlockKind, Message};
use serde_json::{Map, Value};
use std::borrow::Cow;

/// The key of the message list in a request body, and the start of error paths.
pub(crate) const LIST_KEY: &str = "messages";

/// Wire role names, in the order error messages list them.
const ROLES: [&str; 2] = ["user", "assistant"];

/// A Messages API tool: `{ name, description, input_schema }`.
pub(crate) fn tool_definition(name: &str, description: &str, schema: Value) -> Value {
    super::common::object(vec![
        ("name", name.into()),
        ("description", description.into()),
        ("input_schema", schema),
    ])
}

/// No message field is Anthropic's alone: its evidence is in its content blocks.
pub(crate) fn message_evidence(_: &MessageFields<'_>, _: &mut dyn FnMut(Field, Seen<'static>)) {}

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
    let path = message_path(LIST_KEY, index);
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
        "image" | "document" => source_block(part.value, object, part.kind, path, at)?,
        "tool_use" => call_block(
            required_str(object, path, "id")?,
            required_str(object, path, "name")?,
            Cow::Owned(object.get("input").map(compact_json).unwrap_or_default()),
            at,
        ),
        "thinking" => thinking_field(object, "thinking", at),
        "redacted_thinking" => thinking_field(object, "data", at),
        _ => other_block(part.value, at),
    })
}

/// An `image` or `document` by its `source`: base64 and plain-text data are inline, a URL or an
/// uploaded file id is a reference; other sources (a document's `content` blocks) are unknown
/// blocks.
fn source_block<'v>(
    part: &Value,
    object: &'v Map<String, Value>,
    part_type: &str,
    path: &Path<'_>,
    block_path: Vec<usize>,
) -> Result<Block<'v>> {
    let source_path = path.field("source");
    let source = object_field(object, path, "source")?;
    let media_type = optional_str(source, "media_type");
    let (field, inline) = match optional_str(source, "type") {
        Some("base64") | Some("text") => ("data", true),
        Some("url") => ("url", false),
        Some("file") => ("file_id", false),
        _ => return Ok(other_block(part, block_path)),
    };
    let data = required_str(source, &source_path, field)?;
    let mut block = media_block(data, media_type, part_type, block_path);
    // A base64 payload never looks like a URL, but the source type is what says so.
    if let BlockKind::Media {
        inline: is_inline, ..
    } = &mut block.kind
    {
        *is_inline = inline;
    }
    Ok(block)
}

/// A `tool_result` and the images / documents nested in its content.
fn tool_result_blocks<'v>(part: &Part<'v, '_>) -> Result<Vec<Block<'v>>> {
    let (object, path, index) = (part.object, part.path, part.index);
    let id = required_str(object, path, "tool_use_id")?;
    let mut nested = Vec::new();
    let text = match content_of(object, path, true)? {
        Content::Text(text) => Cow::Borrowed(text),
        Content::Absent => Cow::Borrowed(""),
        Content::Parts(parts) => {
            let mut texts = Vec::new();
            for (inner, part) in parts.iter().enumerate() {
                let part_path = path.item("content", inner);
                let (part_object, part_type) = part_of(part, &part_path)?;
                match part_type {
                    "text" => texts.push(Cow::Borrowed(required_str(
                        part_object,
                        &part_path,
                        "text",
                    )?)),
                    "image" | "document" => {
                        let block = source_block(
                            part,
                            part_object,
                            part_type,
                            &part_path,
                            vec![index, inner],
                        )?;
                        // Only media may be a nested block; anything else counts as body text.
                        if block.kind == BlockKind::Other {
                            texts.push(block.text);
                        } else {
                            nested.push(block);
                        }
                    }
                    _ => texts.push(Cow::Owned(compact_json(part))),
                }
            }
            Cow::Owned(texts.join("\n"))
        }
    };
    let result = Block::new(
        BlockKind::ToolResult {
            id: Some(Cow::Borrowed(id)),
            name: None,
            is_error: object.get("is_error") == Some(&Value::Bool(true)),
        },
        text,
        vec![index],
    );
    Ok(std::iter::once(result).chain(nested).collect())
}

/// Writes edited Messages API messages.
pub(crate) struct Writer;

impl super::json::WireWriter for Writer {
    fn text_message(&self, text: &str, role: &str) -> Value {
        serde_json::json!({"role": role, "content": [{"type": "text", "text": text}]})
    }

    fn alternates(&self) -> bool {
        true
    }

    fn replace_block(&self, mut message: Value, block: &Block, text: &str) -> Result<Value> {
        match (&block.kind, block.path.as_slice()) {
            // A call keeps its id and name; its input, stubbed, stays an object.
            (BlockKind::ToolCall { .. }, [index]) => {
                let call = part_object_mut(&mut message, *index, block)?;
                let input = input_value(call.get("input"), text);
                call.insert("input".into(), input);
            }
            (BlockKind::ToolCall { .. }, _) => return Err(tool_call_not_replaceable(block)),
            // The result keeps tool_use_id, is_error, cache_control; its body becomes a string.
            (BlockKind::ToolResult { .. }, [index]) => {
                let result = part_object_mut(&mut message, *index, block)?;
                result.insert("content".into(), Value::String(text.into()));
            }
            (_, [_, _]) => replace_nested(&mut message, block, &["content"], text)?,
            _ => replace_plain_block(&mut message, block, text)?,
        }
        Ok(message)
    }

    fn removed_path(&self, message: &Value, block: &Block<'_>) -> Option<Vec<PathStep>> {
        use PathStep::{Index, Key};
        let path = match (&block.kind, block.path.as_slice()) {
            (BlockKind::ToolResult { .. }, [index]) => {
                vec![Key("content"), Index(*index), Key("content")]
            }
            (BlockKind::ToolCall { .. }, [index]) => {
                vec![Key("content"), Index(*index), Key("input")]
            }
            (_, [index, inner]) => {
                vec![Key("content"), Index(*index), Key("content"), Index(*inner)]
            }
            _ => return removed_plain_path(message, block),
        };
        crate::api::result::value_at(message, &path).map(|_| path)
    }

    fn payload<'v>(&self, message: &'v Value, block: &Block) -> Option<&'v Value> {
        match (&block.kind, block.path.as_slice()) {
            (BlockKind::ToolResult { .. }, [index]) => message
                .get("content")?
                .get(*index)?
                .get("content")
                .filter(|c| c.is_string()),
            (BlockKind::ToolCall { .. }, _) => None,
            _ => plain_payload(message, block),
        }
    }

    fn location(&self, _message: &Value, message_index: usize, block: &Block) -> String {
        let location = content_location(LIST_KEY, message_index, &block.path, ".content");
        match (&block.kind, block.path.as_slice()) {
            // The body, not the whole block: the id and flags stay in the output.
            (BlockKind::ToolResult { .. }, [_]) => format!("{location}.content"),
            (BlockKind::ToolCall { .. }, [_]) => format!("{location}.input"),
            _ => location,
        }
    }
}

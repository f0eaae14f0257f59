//! OpenAI Chat Completions messages: `system` / `developer` / `user` / `assistant` (with
//! `tool_calls`) / `tool` (with `tool_call_id`), content as a string or an array of parts.
//!
//! Block paths: content blocks are `[]` (string content) or `[i]` (`content[i]`). An
//! assistant's tool calls follow its content blocks with path `[k]` for `tool_calls[k]`; the
//! block kind ([`BlockKind::ToolCall`]) tells the two apart, so the model needs no extra field.
//! A `tool` message is one tool-result block with path `[]` whatever its content's shape: its
//! body is the whole `content`.

use super::adapter::{Found, MessageFields};
use super::common::{
    Object, Path, expected, input_value, lookup, missing_block, object, object_at, object_field,
    removed_plain_path, replace_plain_block, required_str, role_of, text_or_json, without_parts,
};
use super::evidence::Seen;
use super::walk::{
    self, Part, audio_type, call_block, file_data, finish_message, media, media_block, other_block,
    text_field,
};
use crate::api::result::PathStep;
use crate::error::Result;
use crate::transcript::{Block, BlockKind, Message, Role};
use serde_json::Value;
use std::borrow::Cow;

/// The key of the message list in a request body, and the start of error paths.
pub(crate) const LIST_KEY: &str = "messages";

/// Wire role names, in the order error messages list them.
const ROLES: [&str; 5] = ["system", "developer", "user", "assistant", "tool"];

/// A Chat Completions tool: `{ type: "function", function: { name, description, parameters } }`.
pub(crate) fn tool_definition(name: &str, description: &str, schema: Value) -> Value {
    let function = object(vec![
        ("name", name.into()),
        ("description", description.into()),
        ("parameters", schema),
    ]);
    object(vec![("type", "function".into()), ("function", function)])
}

/// Fields only Chat Completions has: `tool_calls`, a `tool` message's `tool_call_id`, a
/// legacy `function` role, and an assistant's `content: null` (beside its tool calls). A
/// `developer` role is no evidence: the Responses API has it too.
pub(crate) fn message_evidence(fields: &MessageFields<'_>, found: Found<'_>) {
    let role = fields.role;
    if role == Some("function") {
        found("role", "\"function\"");
    }
    if fields.tool_calls.is_some_and(|calls| !calls.is_null()) {
        found("tool_calls", "\"tool_calls\"");
    }
    if role == Some("tool") && fields.tool_call_id.is_some() {
        found("tool_call_id", "\"tool_call_id\"");
    }
    if role == Some("assistant") && fields.content.is_some_and(Value::is_null) {
        found("content", "null");
    }
}

/// Part types only Chat Completions has (`input_audio` and `refusal` parts are the Responses
/// API's too).
pub(crate) fn part_evidence<'v>(part_type: &'v str, part: &Value) -> Option<Seen<'v>> {
    match part_type {
        "image_url" => Some(Seen::PartType(part_type)),
        "file" if part.get("file").is_some() => Some(Seen::Words("\"file\" with a file field")),
        _ => None,
    }
}

/// Reads message `index` of a Chat Completions list, validating what the model needs.
pub(crate) fn read_message(value: &Value, index: usize) -> Result<Message<'_>> {
    let path = Path::Message(LIST_KEY, index);
    let object = object_at(value, &path)?;
    if lookup(object, "role").and_then(Value::as_str) == Some("function") {
        // The legacy function-calling result (`{ role: "function", name, content }`): the
        // agent's, kept whole and counted by its JSON; no tier edits it.
        let whole = vec![other_block(value, Vec::new())];
        return Ok(finish_message(Role::Tool, whole, index));
    }
    let role = role_of(object, &path, &ROLES)?;
    let blocks = match role {
        Role::Tool => tool_result_blocks(object, &path)?,
        Role::Assistant => assistant_blocks(object, &path)?,
        Role::System | Role::Developer | Role::User => {
            walk::content_blocks(object, &path, false, push_part)?
        }
    };
    Ok(finish_message(role, blocks, index))
}

/// Pushes the block of a content part (the walk is `walk::content_blocks`).
fn push_part<'v>(part: Part<'v, '_>, blocks: &mut Vec<Block<'v>>) -> Result<()> {
    let (object, path, at) = (part.object, part.path, vec![part.index]);
    blocks.push(match part.kind {
        "text" => text_field(object, path, "text", at)?,
        // A refusal is the model's prose; replacing it turns it into a text part.
        "refusal" => text_field(object, path, "refusal", at)?,
        "image_url" => image_url_block(&part)?,
        "input_audio" => audio_block(&part)?,
        "file" => file_block(&part),
        _ => other_block(part.value, at),
    });
    Ok(())
}

/// `{type: "image_url", image_url: {url, detail?}}`; some clients send `image_url` as the bare
/// URL string, which is accepted too.
fn image_url_block<'v>(part: &Part<'v, '_>) -> Result<Block<'v>> {
    let (url, detail) = match lookup(part.object, "image_url") {
        Some(Value::String(url)) => (url.as_str(), None),
        _ => {
            let image = object_field(part.object, part.path, "image_url")?;
            let url = required_str(image, &part.path.field("image_url"), "url")?;
            (url, image.get("detail").and_then(Value::as_str))
        }
    };
    let mut block = media_block(url, None, "image", vec![part.index]);
    block.low_detail = detail == Some("low");
    Ok(block)
}

/// `{type: "input_audio", input_audio: {data, format}}`: always inline base64.
fn audio_block<'v>(part: &Part<'v, '_>) -> Result<Block<'v>> {
    let audio = object_field(part.object, part.path, "input_audio")?;
    let data = required_str(audio, &part.path.field("input_audio"), "data")?;
    let media_type = audio_type(audio.get("format").and_then(Value::as_str));
    let data = Cow::Borrowed(data);
    Ok(media(media_type, true, data, vec![part.index]))
}

/// `{type: "file", file: {file_data? | file_id?, filename?}}`: inline data is media, an uploaded
/// file's id is a reference; anything else is kept as an unknown part.
fn file_block<'v>(part: &Part<'v, '_>) -> Block<'v> {
    let file = lookup(part.object, "file").and_then(Value::as_object);
    let field = |name: &str| file.and_then(|file| file.get(name)).and_then(Value::as_str);
    let path = vec![part.index];
    match (field("file_data"), field("file_id")) {
        (Some(data), _) => file_data(data, path),
        (None, Some(id)) => media("file", false, Cow::Borrowed(id), path),
        (None, None) => other_block(part.value, path),
    }
}

/// An assistant's content blocks, then one block per tool call. `content` may be `null` or
/// missing when the message carries something else the API accepts instead.
fn assistant_blocks<'v>(object: &'v Object, path: &Path<'_>) -> Result<Vec<Block<'v>>> {
    let has_calls = lookup(object, "tool_calls")
        .and_then(Value::as_array)
        .is_some_and(|calls| !calls.is_empty());
    let absent_ok = has_calls
        || ["function_call", "audio", "refusal"]
            .iter()
            .any(|name| lookup(object, name).is_some_and(|value| !value.is_null()));
    let mut blocks = walk::content_blocks(object, path, absent_ok, push_part)?;
    push_tool_call_blocks(object, path, &mut blocks)?;
    Ok(blocks)
}

/// Pushes one block per tool call onto `blocks` (the content's: no list of the calls' own, and
/// one growth, was 2 allocations per assistant message of a tool-calling run).
fn push_tool_call_blocks<'v>(
    object: &'v Object,
    path: &Path<'_>,
    blocks: &mut Vec<Block<'v>>,
) -> Result<()> {
    match lookup(object, "tool_calls") {
        None | Some(Value::Null) => Ok(()),
        Some(Value::Array(calls)) => {
            blocks.reserve_exact(calls.len());
            for (index, call) in calls.iter().enumerate() {
                let call_path = path.item("tool_calls", index);
                blocks.push(tool_call_block(call, &call_path, index)?);
            }
            Ok(())
        }
        Some(other) => Err(expected(path.field("tool_calls"), "an array", other)),
    }
}

/// Where a call's input is: `function.arguments`, or a custom tool's `custom.input`.
fn arguments_field(call: &Object) -> (&'static str, &'static str) {
    if call.contains_key("custom") && !call.contains_key("function") {
        ("custom", "input")
    } else {
        ("function", "arguments")
    }
}

/// `{id, type: "function", function: {name, arguments}}`, or a custom tool's
/// `{id, type: "custom", custom: {name, input}}`.
fn tool_call_block<'v>(call: &'v Value, path: &Path<'_>, index: usize) -> Result<Block<'v>> {
    let object = object_at(call, path)?;
    let id = required_str(object, path, "id")?;
    let (field, arguments_field) = arguments_field(object);
    let function = object_field(object, path, field)?;
    let name = required_str(function, &path.field(field), "name")?;
    let arguments = lookup(function, arguments_field).map(text_or_json);
    let arguments = arguments.unwrap_or_default();
    Ok(call_block(id, name, arguments, vec![index]))
}

/// A `tool` message: one result block for its whole content. Text parts are joined by newlines;
/// other parts (the API accepts none, some gateways do) are counted by their JSON.
fn tool_result_blocks<'v>(object: &'v Object, path: &Path<'_>) -> Result<Vec<Block<'v>>> {
    let id = required_str(object, path, "tool_call_id")?;
    let body = walk::content_body(object, path, false, |_| Ok(None))?;
    Ok(body.blocks((id, None, false), Vec::new()))
}

/// The writer of Chat Completions messages, registered as [`WRITER`].
pub(crate) struct Writer;
pub(crate) static WRITER: Writer = Writer;

impl super::json::WireWriter for Writer {
    fn text_message(&self, text: &str, role: &str) -> Value {
        object(vec![("role", role.into()), ("content", text.into())])
    }

    fn replace_block(&self, mut message: Value, block: &Block, text: &str) -> Result<Value> {
        match block.kind {
            // A call keeps its id and name; its arguments, stubbed, stay a JSON string.
            BlockKind::ToolCall { .. } => {
                let call = (block.path.first())
                    .and_then(|at| message.get_mut("tool_calls")?.get_mut(*at)?.as_object_mut())
                    .ok_or_else(|| missing_block(block))?;
                let (field, arguments) = arguments_field(call);
                let function = call
                    .get_mut(field)
                    .and_then(Value::as_object_mut)
                    .ok_or_else(|| missing_block(block))?;
                let input = input_value(function.get(arguments), text);
                function.insert(arguments.into(), input);
            }
            // A tool message's body is its whole content; every other field stays.
            BlockKind::ToolResult { .. } => {
                let object = message
                    .as_object_mut()
                    .ok_or_else(|| missing_block(block))?;
                // In place when the message has a content (it has, read whole): no key to make.
                match object.get_mut("content") {
                    Some(content) => *content = Value::String(text.into()),
                    None => {
                        object.insert("content".into(), Value::String(text.into()));
                    }
                }
            }
            _ => replace_plain_block(&mut message, block, text)?,
        }
        Ok(message)
    }

    fn removed_path(&self, message: &Value, block: &Block<'_>) -> Option<Vec<PathStep>> {
        match block.kind {
            BlockKind::ToolCall { .. } => {
                let index = *block.path.first()?;
                let call = message.get("tool_calls")?.get(index)?.as_object()?;
                let (field, arguments) = arguments_field(call);
                Some(vec![
                    PathStep::Key("tool_calls"),
                    PathStep::Index(index),
                    PathStep::Key(field),
                    PathStep::Key(arguments),
                ])
            }
            BlockKind::ToolResult { .. } => {
                message.get("content")?;
                Some(vec![PathStep::Key("content")])
            }
            _ => removed_plain_path(message, block),
        }
    }

    /// Calls leave `tool_calls` (which goes when none is left: the API refuses an empty list);
    /// other blocks leave `content`.
    fn without_blocks(&self, message: Value, dropped: &[&Block]) -> Result<Value> {
        let (calls, others): (Vec<&Block>, Vec<&Block>) = dropped
            .iter()
            .partition(|block| matches!(block.kind, BlockKind::ToolCall { .. }));
        let mut message = without_parts(message, &calls, "tool_calls")?;
        let emptied = message
            .get("tool_calls")
            .and_then(Value::as_array)
            .is_some_and(Vec::is_empty);
        if !calls.is_empty()
            && emptied
            && let Some(object) = message.as_object_mut()
        {
            object.shift_remove("tool_calls");
        }
        without_parts(message, &others, "content")
    }
}

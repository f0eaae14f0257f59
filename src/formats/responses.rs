//! OpenAI Responses API `input` items, one list element each:
//! - `message` items (`type` may be left out): roles `user`, `assistant`, `system` and
//!   `developer`; content a string or parts `input_text` / `output_text` / `refusal` (text),
//!   `input_image` / `input_file` / `input_audio` (media);
//! - `function_call` (`call_id`, `name`, `arguments` as a JSON string) and its
//!   `function_call_output` (`call_id`, `output` a string or a list of `input_text`,
//!   `input_image` and `input_file` items), paired by `call_id`; a freeform
//!   `custom_tool_call` (`input`) and its `custom_tool_call_output` the same way;
//! - `reasoning` items: opaque (their `encrypted_content` is the model's own), read as one
//!   unknown block that no tier edits, bound to the item after it
//!   ([`Message::bound_to_next`]): the API refuses a reasoning item without the item it precedes,
//!   and a `function_call` without its reasoning item, so the two only ever leave together, in a
//!   range a tier replaces whole (`docs/design.md`, "Formats");
//! - any other item (`web_search_call`, `computer_call`, `compaction`, `item_reference`, ...):
//!   one unknown block, passed through untouched.
//!
//! One model call is several items (reasoning, message, calls), so every assistant-side item is an
//! output item ([`Message::output_item`]): consecutive ones are one step.
//!
//! Block paths: a message's content blocks are `[]` (string content) or `[i]` (`content[i]`); a
//! call, an output and an unknown item are one block at `[]`; media inside an output list is
//! `[0, j]` (`output[j]`).

use super::adapter::{Found, MessageFields};
use super::common::{
    Object, Path, compact_json, missing_block, named_role, object, object_at, optional_str,
    required, required_str, role_of, text_or_json,
};
use super::evidence::Seen;
use super::walk::{
    self, Part, ResultBody, audio_type, file_data, finish_message, media, media_block, other_block,
    text_field,
};
use crate::api::result::{PathStep, value_at, value_at_mut};
use crate::error::{CompactionError, Result};
use crate::transcript::{Block, BlockKind, Message, Role};
use serde_json::Value;
use std::borrow::Cow;

/// The key of the item list in a request body, and the start of error paths.
pub(crate) const LIST_KEY: &str = "input";

/// Wire role names of `message` items, in the order error messages list them.
const ROLES: [&str; 4] = ["user", "assistant", "system", "developer"];

/// A Responses function tool: `{ type: "function", name, description, parameters, strict }`.
/// `strict` is the API's default; the schema meets its rules (every property required, no
/// others), and the SDK's `FunctionTool` type requires the field.
pub(crate) fn tool_definition(name: &str, description: &str, schema: Value) -> Value {
    object(vec![
        ("type", "function".into()),
        ("name", name.into()),
        ("description", description.into()),
        ("parameters", schema),
        ("strict", true.into()),
    ])
}

/// An item `type` (no other format's messages have one) and a `call_id`.
pub(crate) fn message_evidence(fields: &MessageFields<'_>, found: Found<'_>) {
    if let Some(item_type) = fields.item_type {
        let known = [
            "\"message\"",
            "\"function_call\"",
            "\"function_call_output\"",
            "\"reasoning\"",
        ];
        let what = known
            .into_iter()
            .find(|what| what.trim_matches('"') == item_type);
        let what = what.unwrap_or("an item \"type\"");
        found("type", what);
    }
    if fields.call_id.is_some() {
        found("call_id", "\"call_id\"");
    }
}

/// Content part types only the Responses API has.
pub(crate) fn part_evidence<'v>(part_type: &'v str, _part: &Value) -> Option<Seen<'v>> {
    match part_type {
        "input_text" | "output_text" | "input_image" | "input_file" | "summary_text"
        | "reasoning_text" => Some(Seen::PartType(part_type)),
        _ => None,
    }
}

/// Reads item `index` of a Responses API list, validating what the model needs.
pub(crate) fn read_message(value: &Value, index: usize) -> Result<Message<'_>> {
    let path = Path::Message(LIST_KEY, index);
    let object = object_at(value, &path)?;
    let (role, blocks, bound_to_next) = match item_type(object, &path)? {
        "message" => {
            let role = role_of(object, &path, &ROLES)?;
            let blocks = walk::content_blocks(object, &path, false, |part, blocks| {
                blocks.push(part_block(&part, vec![part.index], role)?);
                Ok(())
            })?;
            (role, blocks, false)
        }
        "function_call" | "custom_tool_call" => {
            (Role::Assistant, vec![call_item(object, &path)?], false)
        }
        "function_call_output" | "custom_tool_call_output" => {
            (Role::Tool, output_blocks(object, &path)?, false)
        }
        "reasoning" => (Role::Assistant, vec![other_block(value, Vec::new())], true),
        other => (
            other_role(object, other),
            vec![other_block(value, Vec::new())],
            false,
        ),
    };
    let mut message = finish_message(role, blocks, index);
    message.bound_to_next = bound_to_next;
    message.output_item = role == Role::Assistant;
    Ok(message)
}

/// The item's `type`; a message may leave it out (`{ role, content }`).
fn item_type<'v>(object: &'v Object, path: &Path<'_>) -> Result<&'v str> {
    match object.get("type") {
        None | Some(Value::Null) if object.contains_key("role") => Ok("message"),
        None => Err(CompactionError::type_error(
            format!("{path}.type"),
            "is required (an item type, or a message's role)",
        )),
        Some(_) => required_str(object, path, "type"),
    }
}

/// The side an item the library does not read stands on: a role it names (`additional_tools`
/// is the developer's), the tool's for an output or a response (`computer_call_output`,
/// `mcp_approval_response`), else the model's (`web_search_call`, `compaction`).
fn other_role(object: &Object, item_type: &str) -> Role {
    let named = object
        .get("role")
        .and_then(Value::as_str)
        .and_then(|name| named_role(name, &ROLES));
    match named {
        Some(role) => role,
        None if item_type.ends_with("_output") || item_type.ends_with("_response") => Role::Tool,
        None => Role::Assistant,
    }
}

/// A content part (or an item of an output list, at a nested path).
fn part_block<'v>(part: &Part<'v, '_>, at: Vec<usize>, role: Role) -> Result<Block<'v>> {
    let (object, string) = (part.object, |name| optional_str(part.object, name));
    Ok(match part.kind {
        "input_text" | "output_text" => text_field(object, part.path, "text", at)?,
        // A refusal is the model's prose; replacing it turns it into an output_text part.
        "refusal" if role == Role::Assistant => text_field(object, part.path, "refusal", at)?,
        "input_image" => {
            let mut block = reference_media(part, "image_url", "image", at);
            block.low_detail = string("detail") == Some("low");
            block
        }
        // `file_data` (a `data:` URI or base64) is inline; `file_url` and `file_id` are references.
        "input_file" => match string("file_data") {
            Some(data) => file_data(data, at),
            None => reference_media(part, "file_url", "file", at),
        },
        // `{ input_audio: { data, format } }`, always inline.
        "input_audio" => {
            let audio = object.get("input_audio");
            let field = |name| audio.and_then(|audio| audio.get(name)?.as_str());
            match field("data") {
                Some(data) => media(audio_type(field("format")), true, Cow::Borrowed(data), at),
                None => other_block(part.value, at),
            }
        }
        _ => other_block(part.value, at),
    })
}

/// Media that is a URL (a `data:` URI is inline) or an uploaded file's id.
fn reference_media<'v>(
    part: &Part<'v, '_>,
    field: &str,
    fallback: &str,
    at: Vec<usize>,
) -> Block<'v> {
    if let Some(url) = optional_str(part.object, field) {
        return media_block(url, None, fallback, at);
    }
    match optional_str(part.object, "file_id") {
        Some(id) => media(fallback, false, Cow::Borrowed(id), at),
        None => other_block(part.value, at),
    }
}

/// Where a call item keeps its input: `arguments` (a function's JSON), or a custom tool's
/// freeform `input`.
fn input_field(object: &Object) -> &'static str {
    match object.get("type").and_then(Value::as_str) {
        Some("custom_tool_call") => "input",
        _ => "arguments",
    }
}

/// `{ type: "function_call", call_id, name, arguments }` (or a custom tool's `input`).
fn call_item<'v>(object: &'v Object, path: &Path<'_>) -> Result<Block<'v>> {
    let id = required_str(object, path, "call_id")?;
    let name = required_str(object, path, "name")?;
    let input = object.get(input_field(object)).map(text_or_json);
    let input = input.unwrap_or_default();
    Ok(walk::call_block(id, name, input, Vec::new()))
}

/// `{ type: "function_call_output", call_id, output }`: one result block whose body is the
/// output string, or an output list's text items joined by newlines (other items by their JSON),
/// then the list's media as nested blocks.
fn output_blocks<'v>(object: &'v Object, path: &Path<'_>) -> Result<Vec<Block<'v>>> {
    let id = required_str(object, path, "call_id")?;
    let body = match object.get("output") {
        Some(Value::String(text)) => ResultBody::of(Cow::Borrowed(text.as_str())),
        Some(Value::Array(items)) => {
            let mut body = ResultBody::default();
            body.items(items, path, "output", |item| {
                part_block(item, vec![0, item.index], Role::Tool).map(Some)
            })?;
            body
        }
        None | Some(Value::Null) => return Err(required(path, "output")),
        Some(other) => ResultBody::of(Cow::Owned(compact_json(other))),
    };
    Ok(body.blocks((id, None, false), Vec::new()))
}

/// A text part of the Responses API for a message of `role`: the model writes `output_text`
/// (with its required `annotations`), everyone else `input_text`.
fn text_part(role: Option<&str>, text: &str) -> Value {
    match role {
        Some("assistant") => object(vec![
            ("type", "output_text".into()),
            ("text", text.into()),
            ("annotations", Vec::<Value>::new().into()),
        ]),
        _ => object(vec![("type", "input_text".into()), ("text", text.into())]),
    }
}

/// Whether replacing the text of `part` means replacing the whole part: a refusal becomes
/// output text, and an `output_text` with annotations loses them (their offsets point into
/// the text that is gone; the part is archived whole, so `restore` brings them back).
fn replaces_whole_part(part: &Value) -> bool {
    match part.get("type").and_then(Value::as_str) {
        Some("refusal") => true,
        Some("output_text") => part
            .get("annotations")
            .and_then(Value::as_array)
            .is_some_and(|annotations| !annotations.is_empty()),
        _ => part.get("text").is_none(),
    }
}

/// The writer of Responses API items, registered as [`WRITER`].
pub(crate) struct Writer;
pub(crate) static WRITER: Writer = Writer;

impl super::json::WireWriter for Writer {
    fn text_message(&self, text: &str, role: &str) -> Value {
        object(vec![
            ("type", "message".into()),
            ("role", role.into()),
            ("content", text.into()),
        ])
    }

    fn replace_block(&self, mut message: Value, block: &Block, text: &str) -> Result<Value> {
        let role = message
            .get("role")
            .and_then(Value::as_str)
            .map(str::to_string);
        let path = target(&message, block).ok_or_else(|| missing_block(block))?;
        match path.split_last() {
            // A call's input, an output, a string content or a text part's text becomes the
            // string: a call keeps its call_id and name, an output every other field.
            Some((PathStep::Key(key), parent)) => {
                let fields = (value_at_mut(&mut message, parent))
                    .and_then(Value::as_object_mut)
                    .ok_or_else(|| missing_block(block))?;
                fields.insert((*key).into(), Value::String(text.into()));
            }
            // A part, or an item of an output list, becomes a text part.
            _ => {
                let output = matches!(path.first(), Some(PathStep::Key("output")));
                let role = if output { None } else { role.as_deref() };
                let part = value_at_mut(&mut message, &path).ok_or_else(|| missing_block(block))?;
                *part = text_part(role, text);
            }
        }
        Ok(message)
    }

    fn removed_path(&self, message: &Value, block: &Block<'_>) -> Option<Vec<PathStep>> {
        let path = target(message, block)?;
        value_at(message, &path).map(|_| path)
    }
}

/// Where replacing `block` writes, whether or not there is a value yet: a call's input, an
/// output, a string content, a text part's text, or a part (a text part in its place).
fn target(message: &Value, block: &Block<'_>) -> Option<Vec<PathStep>> {
    use PathStep::{Index, Key};
    Some(match (&block.kind, block.path.as_slice()) {
        (BlockKind::ToolCall { .. }, []) => vec![Key(input_field(message.as_object()?))],
        (BlockKind::ToolResult { .. }, []) => vec![Key("output")],
        (_, [0, inner]) => vec![Key("output"), Index(*inner)],
        (BlockKind::Text, []) => vec![Key("content")],
        (kind, [index]) => {
            let part = message.get("content")?.get(*index)?;
            if *kind == BlockKind::Text && !replaces_whole_part(part) {
                vec![Key("content"), Index(*index), Key("text")]
            } else {
                vec![Key("content"), Index(*index)]
            }
        }
        _ => return None,
    })
}

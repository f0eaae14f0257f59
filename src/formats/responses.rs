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

use super::adapter::{Adapter, MessageFields, Structured};
use super::common::{
    Content, Path, compact_json, content_of, data_uri_media_type, finish_message, media_block,
    message_path, missing_block, object_at, other_block, part_of, read_each, required_str, role_of,
    string_content, text_or_json,
};
use super::evidence::{Field, Seen};
use crate::error::{CompactionError, Result};
use crate::pressure::json_type;
use crate::result::PathStep;
use crate::transcript::{Block, BlockKind, Format, Message, Role, Transcript};
use serde_json::{Map, Value, json};
use std::borrow::Cow;

/// Wire role names of `message` items, in the order error messages list them.
const ROLES: [(&str, Role); 4] = [
    ("user", Role::User),
    ("assistant", Role::Assistant),
    ("system", Role::System),
    ("developer", Role::Developer),
];

/// The OpenAI Responses API format's registration.
pub(crate) static ADAPTER: Adapter = Adapter {
    format: Format::Responses,
    name: "responses",
    label: "OpenAI Responses",
    list_key: "input",
    structured: Some(Structured {
        read_message,
        writer: &Writer,
        message_evidence,
        part_evidence,
        tool_definition,
        unique_tool_ids: false,
        string_list: true,
        link: None,
    }),
};

/// A Responses function tool: `{ type: "function", name, description, parameters, strict }`.
/// `strict` is the API's default; the schema meets its rules (every property required, no
/// others), and the SDK's `FunctionTool` type requires the field.
fn tool_definition(name: &str, description: &str, schema: Value) -> Value {
    super::common::object(vec![
        ("type", "function".into()),
        ("name", name.into()),
        ("description", description.into()),
        ("parameters", schema),
        ("strict", true.into()),
    ])
}

/// An item `type` (no other format's messages have one) and a `call_id`.
fn message_evidence(fields: &MessageFields<'_>, found: &mut dyn FnMut(Field, Seen<'static>)) {
    if let Some(item_type) = fields.item_type {
        let what = match item_type {
            "message" => "\"message\"",
            "function_call" => "\"function_call\"",
            "function_call_output" => "\"function_call_output\"",
            "reasoning" => "\"reasoning\"",
            _ => "an item \"type\"",
        };
        found(Field::Named("type"), Seen::Words(what));
    }
    if fields.call_id.is_some() {
        found(Field::Named("call_id"), Seen::Words("\"call_id\""));
    }
}

/// Content part types only the Responses API has.
fn part_evidence<'v>(part_type: &'v str, _part: &Value) -> Option<Seen<'v>> {
    match part_type {
        "input_text" | "output_text" | "input_image" | "input_file" | "summary_text"
        | "reasoning_text" => Some(Seen::PartType(part_type)),
        _ => None,
    }
}

/// Reads Responses API input items into a transcript, validating what the model needs.
pub fn read(messages: &[Value]) -> Result<Transcript<'_>> {
    read_each(messages, Format::Responses, read_message)
}

pub(crate) fn read_message(value: &Value, index: usize) -> Result<Message<'_>> {
    let path = message_path(ADAPTER.list_key, index);
    let object = object_at(value, &path)?;
    let (role, blocks, bound_to_next) = match item_type(object, &path)? {
        "message" => {
            let role = role_of(object, &path, &ROLES)?;
            (role, content_blocks(object, &path, role)?, false)
        }
        "function_call" | "custom_tool_call" => {
            (Role::Assistant, vec![call_block(object, &path)?], false)
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
fn item_type<'v>(object: &'v Map<String, Value>, path: &Path<'_>) -> Result<&'v str> {
    match object.get("type") {
        Some(Value::String(item_type)) => Ok(item_type),
        None | Some(Value::Null) if object.contains_key("role") => Ok("message"),
        None => Err(CompactionError::type_error(
            format!("{path}.type"),
            "is required (an item type, or a message's role)",
        )),
        Some(other) => Err(CompactionError::type_error(
            format!("{path}.type"),
            format!("must be a string, got {}", json_type(other)),
        )),
    }
}

/// The side an item the library does not read stands on: a role it names (`additional_tools`
/// is the developer's), the tool's for an output or a response (`computer_call_output`,
/// `mcp_approval_response`), else the model's (`web_search_call`, `compaction`).
fn other_role(object: &Map<String, Value>, item_type: &str) -> Role {
    let named = object
        .get("role")
        .and_then(Value::as_str)
        .and_then(|name| ROLES.iter().find(|(wire, _)| *wire == name))
        .map(|(_, role)| *role);
    match named {
        Some(role) => role,
        None if item_type.ends_with("_output") || item_type.ends_with("_response") => Role::Tool,
        None => Role::Assistant,
    }
}

/// Blocks of a message's `content`: a string, or parts.
fn content_blocks<'v>(
    object: &'v Map<String, Value>,
    path: &Path<'_>,
    role: Role,
) -> Result<Vec<Block<'v>>> {
    match content_of(object, path, false)? {
        Content::Text(text) => Ok(string_content(text)),
        Content::Parts(parts) => {
            let mut blocks = Vec::with_capacity(parts.len());
            for (index, part) in parts.iter().enumerate() {
                let part_path = path.item("content", index);
                blocks.push(part_block(part, &part_path, vec![index], role)?);
            }
            Ok(blocks)
        }
        Content::Absent => Ok(Vec::new()),
    }
}

/// A content part (or an item of an output list, at a nested path).
fn part_block<'v>(
    part: &'v Value,
    path: &Path<'_>,
    block_path: Vec<usize>,
    role: Role,
) -> Result<Block<'v>> {
    let (object, part_type) = part_of(part, path)?;
    let text = |field: &str| -> Result<Block<'v>> {
        Ok(Block::new(
            BlockKind::Text,
            Cow::Borrowed(required_str(object, path, field)?),
            block_path.clone(),
        ))
    };
    match part_type {
        "input_text" | "output_text" => text("text"),
        // A refusal is the model's prose; replacing it turns it into an output_text part.
        "refusal" if role == Role::Assistant => text("refusal"),
        "input_image" => {
            let mut block = reference_media(part, object, "image_url", "image", block_path);
            block.low_detail = object.get("detail").and_then(Value::as_str) == Some("low");
            Ok(block)
        }
        "input_file" => Ok(file_block(part, object, block_path)),
        "input_audio" => Ok(audio_block(part, object, block_path)),
        _ => Ok(other_block(part, block_path)),
    }
}

/// Media that is a URL (a `data:` URI is inline) or an uploaded file's id.
fn reference_media<'v>(
    part: &Value,
    object: &'v Map<String, Value>,
    field: &str,
    fallback: &str,
    path: Vec<usize>,
) -> Block<'v> {
    if let Some(url) = object.get(field).and_then(Value::as_str) {
        return media_block(url, None, fallback, path);
    }
    match object.get("file_id").and_then(Value::as_str) {
        Some(id) => Block::new(
            BlockKind::Media {
                media_type: fallback.into(),
                inline: false,
            },
            Cow::Borrowed(id),
            path,
        ),
        None => other_block(part, path),
    }
}

/// `input_file`: `file_data` (a `data:` URI or base64) is inline; `file_url` and `file_id` are
/// references.
fn file_block<'v>(part: &Value, object: &'v Map<String, Value>, path: Vec<usize>) -> Block<'v> {
    match object.get("file_data").and_then(Value::as_str) {
        Some(data) => Block::new(
            BlockKind::Media {
                media_type: data_uri_media_type(data).unwrap_or("file").into(),
                inline: true,
            },
            Cow::Borrowed(data),
            path,
        ),
        None => reference_media(part, object, "file_url", "file", path),
    }
}

/// `input_audio`: `{ input_audio: { data, format } }`, always inline.
fn audio_block<'v>(part: &Value, object: &'v Map<String, Value>, path: Vec<usize>) -> Block<'v> {
    let audio = object.get("input_audio");
    let data = audio
        .and_then(|audio| audio.get("data"))
        .and_then(Value::as_str);
    let format = audio
        .and_then(|audio| audio.get("format"))
        .and_then(Value::as_str);
    match data {
        Some(data) => Block::new(
            BlockKind::Media {
                media_type: format.map_or_else(|| "audio".into(), |f| format!("audio/{f}")),
                inline: true,
            },
            Cow::Borrowed(data),
            path,
        ),
        None => other_block(part, path),
    }
}

/// Where a call item keeps its input: `arguments` (a function's JSON), or a custom tool's
/// freeform `input`.
fn input_field(object: &Map<String, Value>) -> &'static str {
    match object.get("type").and_then(Value::as_str) {
        Some("custom_tool_call") => "input",
        _ => "arguments",
    }
}

/// `{ type: "function_call", call_id, name, arguments }` (or a custom tool's `input`).
fn call_block<'v>(object: &'v Map<String, Value>, path: &Path<'_>) -> Result<Block<'v>> {
    let id = required_str(object, path, "call_id")?;
    let name = required_str(object, path, "name")?;
    let input = object
        .get(input_field(object))
        .map(text_or_json)
        .unwrap_or_default();
    Ok(Block::new(
        BlockKind::ToolCall {
            id: Cow::Borrowed(id),
            name: Cow::Borrowed(name),
        },
        input,
        Vec::new(),
    ))
}

/// `{ type: "function_call_output", call_id, output }`: one result block whose body is the
/// output string, or an output list's text items joined by newlines (other items by their JSON),
/// then the list's media as nested blocks.
fn output_blocks<'v>(object: &'v Map<String, Value>, path: &Path<'_>) -> Result<Vec<Block<'v>>> {
    let id = required_str(object, path, "call_id")?;
    let mut nested = Vec::new();
    let text = match object.get("output") {
        Some(Value::String(text)) => Cow::Borrowed(text.as_str()),
        Some(Value::Array(items)) => {
            let mut texts = Vec::with_capacity(items.len());
            for (inner, item) in items.iter().enumerate() {
                let item_path = path.item("output", inner);
                let block = part_block(item, &item_path, vec![0, inner], Role::Tool)?;
                match block.kind {
                    BlockKind::Media { .. } => nested.push(block),
                    _ => texts.push(block.text),
                }
            }
            Cow::Owned(texts.join("\n"))
        }
        None | Some(Value::Null) => {
            return Err(CompactionError::type_error(
                format!("{path}.output"),
                "is required",
            ));
        }
        Some(other) => Cow::Owned(compact_json(other)),
    };
    let result = Block::new(
        BlockKind::ToolResult {
            id: Some(Cow::Borrowed(id)),
            name: None,
            is_error: false,
        },
        text,
        Vec::new(),
    );
    Ok(std::iter::once(result).chain(nested).collect())
}

/// A text part of the Responses API for a message of `role`: the model writes `output_text`
/// (with its required `annotations`), everyone else `input_text`.
fn text_part(role: Option<&str>, text: &str) -> Value {
    match role {
        Some("assistant") => json!({"type": "output_text", "text": text, "annotations": []}),
        _ => json!({"type": "input_text", "text": text}),
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

/// Writes edited Responses API items.
pub(crate) struct Writer;

impl super::json::Writer for Writer {
    fn text_message(&self, text: &str, role: &str) -> Value {
        json!({"type": "message", "role": role, "content": text})
    }

    fn replace_block(&self, mut message: Value, block: &Block, text: &str) -> Result<Value> {
        let role = message
            .get("role")
            .and_then(Value::as_str)
            .map(str::to_string);
        let object = message
            .as_object_mut()
            .ok_or_else(|| missing_block(block))?;
        match (&block.kind, block.path.as_slice()) {
            // A call keeps its call_id and name; its input, stubbed, stays a string.
            (BlockKind::ToolCall { .. }, []) => {
                let field = input_field(object);
                object.insert(field.into(), Value::String(text.into()));
            }
            // An output keeps its call_id and every other field; its body becomes a string.
            (BlockKind::ToolResult { .. }, []) => {
                object.insert("output".into(), Value::String(text.into()));
            }
            (_, [0, inner]) => {
                let item = object
                    .get_mut("output")
                    .and_then(|output| output.get_mut(*inner))
                    .ok_or_else(|| missing_block(block))?;
                *item = text_part(None, text);
            }
            (BlockKind::Text, []) => {
                object.insert("content".into(), Value::String(text.into()));
            }
            (kind, [index]) => {
                let part = object
                    .get_mut("content")
                    .and_then(|content| content.get_mut(*index))
                    .ok_or_else(|| missing_block(block))?;
                let in_place = *kind == BlockKind::Text && !replaces_whole_part(part);
                match part.as_object_mut() {
                    Some(fields) if in_place => {
                        fields.insert("text".into(), Value::String(text.into()));
                    }
                    _ => *part = text_part(role.as_deref(), text),
                }
            }
            _ => return Err(missing_block(block)),
        }
        Ok(message)
    }

    fn removed_path(&self, message: &Value, block: &Block<'_>) -> Option<Vec<PathStep>> {
        use PathStep::{Index, Key};
        let path = match (&block.kind, block.path.as_slice()) {
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
        };
        crate::result::value_at(message, &path).map(|_| path)
    }

    fn payload<'v>(&self, message: &'v Value, block: &Block) -> Option<&'v Value> {
        let payload = match (&block.kind, block.path.as_slice()) {
            (BlockKind::ToolResult { .. }, []) => message.get("output")?,
            (BlockKind::Text, []) => message.get("content")?,
            (BlockKind::Text, [index]) => {
                let part = message.get("content")?.get(*index)?;
                if replaces_whole_part(part) {
                    return None;
                }
                part.get("text")?
            }
            _ => return None,
        };
        payload.is_string().then_some(payload)
    }

    fn location(&self, message: &Value, message_index: usize, block: &Block) -> String {
        // Archive locations name the list the host passed as `messages` (what `restore` reads).
        let item = format!("messages[{message_index}]");
        match self.removed_path(message, block) {
            Some(path) => path.iter().fold(item, |mut location, step| {
                match step {
                    PathStep::Key(key) => location.push_str(&format!(".{key}")),
                    PathStep::Index(index) => location.push_str(&format!("[{index}]")),
                }
                location
            }),
            None => item,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::json::Writer as _;
    use crate::formats::test_support::{apply_with, array, replace};
    use crate::formats::{Applied, apply_messages, detect};
    use crate::plan::{ArchiveKind, Edit};

    fn conversation() -> Vec<Value> {
        array(json!([
            {"role": "developer", "content": "Be terse."},
            {"role": "user", "content": [
                {"type": "input_text", "text": "Fix the build"},
                {"type": "input_image", "image_url": "data:image/png;base64,iVBORw0K", "detail": "auto"},
                {"type": "input_file", "file_id": "file-1"}
            ]},
            {"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": "gAAAAB"},
            {"type": "function_call", "id": "fc_1", "call_id": "call_a", "name": "bash", "arguments": "{\"cmd\":\"cargo build\"}"},
            {"type": "function_call_output", "call_id": "call_a", "output": "error[E0425]: cannot find value"},
            {"type": "web_search_call", "id": "ws_1", "status": "completed", "action": {"type": "search", "query": "E0425"}},
            {"type": "function_call", "call_id": "call_b", "name": "screenshot", "arguments": "{}"},
            {"type": "function_call_output", "call_id": "call_b", "output": [
                {"type": "input_text", "text": "captured"},
                {"type": "input_image", "image_url": "data:image/jpeg;base64,/9j/4AAQ"}
            ]},
            {"type": "message", "id": "msg_1", "role": "assistant", "status": "completed", "content": [
                {"type": "output_text", "text": "Fixed it.", "annotations": []},
                {"type": "output_text", "text": "See the docs.", "annotations": [{"type": "url_citation", "start_index": 0, "end_index": 3, "url": "https://x", "title": "x"}]},
                {"type": "refusal", "refusal": "no"}
            ]},
            {"type": "custom_tool_call", "call_id": "call_c", "name": "apply_patch", "input": "*** Begin Patch"},
            {"type": "custom_tool_call_output", "call_id": "call_c", "output": "done"}
        ]))
    }

    fn block<'a>(kind: BlockKind<'a>, text: &str, path: &[usize]) -> Block<'a> {
        Block::new(kind, Cow::Owned(text.to_string()), path.to_vec())
    }

    fn call<'a>(id: &'a str, name: &'a str) -> BlockKind<'a> {
        BlockKind::ToolCall {
            id: id.into(),
            name: name.into(),
        }
    }

    fn result(id: &str) -> BlockKind<'_> {
        BlockKind::ToolResult {
            id: Some(id.into()),
            name: None,
            is_error: false,
        }
    }

    fn media(media_type: &str, inline: bool) -> BlockKind<'static> {
        BlockKind::Media {
            media_type: media_type.into(),
            inline,
        }
    }

    #[test]
    fn reads_items() {
        let messages = conversation();
        let transcript = read(&messages).expect("reads");
        let m = &transcript.messages;
        assert_eq!(m[0].role, Role::Developer);
        assert_eq!(m[1].role, Role::User);
        assert_eq!(
            m[1].blocks,
            vec![
                block(BlockKind::Text, "Fix the build", &[0]),
                block(
                    media("image/png", true),
                    "data:image/png;base64,iVBORw0K",
                    &[1]
                ),
                block(media("file", false), "file-1", &[2]),
            ]
        );
        assert_eq!(m[2].blocks[0].kind, BlockKind::Other);
        assert!(m[2].bound_to_next && m[2].output_item);
        assert_eq!(
            m[3].blocks,
            vec![block(
                call("call_a", "bash"),
                "{\"cmd\":\"cargo build\"}",
                &[]
            )]
        );
        assert_eq!(m[4].role, Role::Tool);
        assert_eq!(
            m[4].blocks,
            vec![block(
                result("call_a"),
                "error[E0425]: cannot find value",
                &[]
            )]
        );
        assert_eq!(m[5].role, Role::Assistant);
        assert_eq!(m[5].blocks[0].kind, BlockKind::Other);
        assert_eq!(
            m[7].blocks,
            vec![
                block(result("call_b"), "captured", &[]),
                block(
                    media("image/jpeg", true),
                    "data:image/jpeg;base64,/9j/4AAQ",
                    &[0, 1]
                ),
            ]
        );
        assert_eq!(m[8].blocks.len(), 3);
        assert_eq!(m[8].blocks[2], block(BlockKind::Text, "no", &[2]));
        assert_eq!(
            m[9].blocks,
            vec![block(call("call_c", "apply_patch"), "*** Begin Patch", &[])]
        );
        assert_eq!(m[10].blocks, vec![block(result("call_c"), "done", &[])]);
        assert!(
            m[3..10]
                .iter()
                .all(|m| m.output_item == (m.role == Role::Assistant))
        );
        assert!(!m[1].output_item && !m[3].bound_to_next);
        assert_eq!(
            crate::transcript::pairing::misplaced_results(&transcript),
            Vec::<String>::new()
        );
        let steps = crate::transcript::steps::Steps::of(&transcript);
        // The reasoning item and its call; the search and the next call; the message and the
        // custom call: three model calls, each output joining its call's step.
        assert_eq!(steps.starts, vec![2, 5, 8]);
        assert_eq!(steps.of[9..], [Some(2), Some(2)]);
    }

    #[test]
    fn detected_from_its_items_and_parts() {
        let messages = conversation();
        assert_eq!(detect::detect(&messages), Ok(Format::Responses));
        let plain_then_call = array(json!([
            {"role": "user", "content": "hi"},
            {"type": "function_call", "call_id": "c", "name": "f", "arguments": "{}"}
        ]));
        assert_eq!(detect::detect(&plain_then_call), Ok(Format::Responses));
        let parts =
            array(json!([{"role": "user", "content": [{"type": "input_text", "text": "hi"}]}]));
        assert_eq!(detect::detect(&parts), Ok(Format::Responses));
        let mixed = array(json!([
            {"type": "function_call", "call_id": "c", "name": "f", "arguments": "{}"},
            {"role": "tool", "tool_call_id": "c", "content": "x"}
        ]));
        assert_eq!(
            detect::detect(&mixed).unwrap_err().to_string(),
            "input[1].tool_call_id: \"tool_call_id\" is OpenAI but input[0] is OpenAI Responses"
        );
    }

    #[test]
    fn errors_name_the_field() {
        let cases = [
            (
                json!([{"content": "x"}]),
                "input[0].type is required (an item type, or a message's role)",
            ),
            (
                json!([{"type": 3}]),
                "input[0].type must be a string, got number",
            ),
            (
                json!([{"type": "function_call", "name": "f", "arguments": "{}"}]),
                "input[0].call_id is required",
            ),
            (
                json!([{"type": "function_call", "call_id": "c", "arguments": "{}"}]),
                "input[0].name is required",
            ),
            (
                json!([{"type": "function_call_output", "call_id": "c"}]),
                "input[0].output is required",
            ),
            (
                json!([{"type": "message", "role": "tool", "content": "x"}]),
                "input[0].role: expected one of \"user\", \"assistant\", \"system\", \"developer\", got \"tool\"",
            ),
            (
                json!([{"role": "user", "content": [{"type": "input_text"}]}]),
                "input[0].content[0].text is required",
            ),
            (
                json!([{"role": "user", "content": 4}]),
                "input[0].content: expected string or array of parts, got number",
            ),
        ];
        for (messages, expected) in cases {
            assert_eq!(read(&array(messages)).unwrap_err().to_string(), expected);
        }
    }

    fn apply(messages: &[Value], edits: &[Edit]) -> Applied<Vec<Value>> {
        apply_with(read, messages, edits)
    }

    #[test]
    fn stubs_keep_the_item() {
        let messages = conversation();
        let applied = apply(
            &messages,
            &[
                replace(3, 0, "{\"cmd\":\"[stub]\"}", ArchiveKind::ToolInput),
                replace(4, 0, "error [pruned]", ArchiveKind::ToolResult),
                replace(7, 0, "captured [pruned]", ArchiveKind::ToolResult),
                replace(9, 0, "[patch pruned]", ArchiveKind::ToolInput),
            ],
        );
        let out = &applied.output;
        assert_eq!(
            out[3],
            json!({"type": "function_call", "id": "fc_1", "call_id": "call_a", "name": "bash", "arguments": "{\"cmd\":\"[stub]\"}"})
        );
        assert_eq!(
            out[4],
            json!({"type": "function_call_output", "call_id": "call_a", "output": "error [pruned]"})
        );
        assert_eq!(out[7]["output"], json!("captured [pruned]"));
        assert_eq!(out[9]["input"], json!("[patch pruned]"));
        assert_eq!(out[2], messages[2], "the reasoning item is untouched");
        assert_eq!(applied.archive[0].location, "messages[3].arguments");
        assert_eq!(applied.archive[0].content, messages[3]["arguments"]);
        assert_eq!(applied.archive[1].location, "messages[4].output");
        assert_eq!(applied.archive[2].content, messages[7]["output"]);
        assert_eq!(applied.archive[3].location, "messages[9].input");
        let reread = read(out).expect("reads back");
        assert_eq!(
            reread.messages[7].blocks.len(),
            1,
            "the nested image went with the body"
        );
    }

    #[test]
    fn text_and_media_become_parts_of_the_role() {
        let messages = conversation();
        let applied = apply(
            &messages,
            &[
                replace(1, 1, "[media removed]", ArchiveKind::Media),
                replace(7, 1, "[image removed]", ArchiveKind::Media),
                replace(8, 0, "[stale]", ArchiveKind::Turn),
                replace(8, 1, "[stale 2]", ArchiveKind::Turn),
                replace(8, 2, "[stale 3]", ArchiveKind::Turn),
            ],
        );
        let out = &applied.output;
        assert_eq!(
            out[1]["content"][1],
            json!({"type": "input_text", "text": "[media removed]"})
        );
        assert_eq!(
            out[7]["output"][1],
            json!({"type": "input_text", "text": "[image removed]"})
        );
        assert_eq!(
            out[8]["content"],
            json!([
                {"type": "output_text", "text": "[stale]", "annotations": []},
                {"type": "output_text", "text": "[stale 2]", "annotations": []},
                {"type": "output_text", "text": "[stale 3]", "annotations": []}
            ])
        );
        assert_eq!(out[8]["id"], "msg_1");
        assert_eq!(applied.archive[2].content, json!("Fixed it."));
        assert_eq!(applied.archive[2].location, "messages[8].content[0].text");
        assert_eq!(
            applied.archive[3].content, messages[8]["content"][1],
            "annotations archived with their text"
        );
        assert_eq!(applied.archive[4].content, messages[8]["content"][2]);
        assert_eq!(applied.archive[1].location, "messages[7].output[1]");
    }

    #[test]
    fn replacements_are_typed_messages() {
        let messages = conversation();
        let applied = apply(
            &messages,
            &[Edit::ReplaceMessages {
                range: 2..8,
                text: Some("[digest of earlier tool runs] bash".into()),
                kind: ArchiveKind::Run,
                is_summary: true,
            }],
        );
        assert_eq!(
            applied.output[2],
            json!({"type": "message", "role": "assistant", "content": "[digest of earlier tool runs] bash"})
        );
        assert_eq!(applied.archive[0].location, "messages[2..8]");
        let reread = read(&applied.output).expect("reads back");
        assert!(reread.messages[2].is_library_summary);
        assert_eq!(detect::detect(&applied.output[2..3]), Ok(Format::Responses));
    }

    #[test]
    fn locations() {
        let messages = conversation();
        let transcript = read(&messages).expect("reads");
        let location = |m: usize, b: usize| {
            Writer.location(&messages[m], m, &transcript.messages[m].blocks[b])
        };
        assert_eq!(location(1, 1), "messages[1].content[1]");
        assert_eq!(location(3, 0), "messages[3].arguments");
        assert_eq!(location(7, 1), "messages[7].output[1]");
        assert_eq!(location(8, 0), "messages[8].content[0].text");
    }

    #[test]
    fn the_recall_tool() {
        let tool = crate::recall::recall_tool_definition(Format::Responses).expect("a tool");
        assert_eq!(tool["type"], "function");
        assert_eq!(tool["name"], crate::recall::TOOL_NAME);
        assert_eq!(tool["parameters"], crate::recall::input_schema());
    }

    #[test]
    fn an_edit_of_an_item_that_is_not_there_is_an_error() {
        let messages = conversation();
        let transcript = read(&messages).expect("reads");
        let error = apply_messages(
            &messages[..1],
            &transcript,
            &[replace(0, 3, "x", ArchiveKind::Turn)],
        )
        .unwrap_err();
        assert_eq!(error.path, "plan");
    }
}

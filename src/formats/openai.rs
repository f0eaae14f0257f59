//! OpenAI Chat Completions messages: `system` / `developer` / `user` / `assistant` (with
//! `tool_calls`) / `tool` (with `tool_call_id`), content as a string or an array of parts.
//!
//! Block paths: content blocks are `[]` (string content) or `[i]` (`content[i]`). An
//! assistant's tool calls follow its content blocks with path `[k]` for `tool_calls[k]`; the
//! block kind ([`BlockKind::ToolCall`]) tells the two apart, so the model needs no extra field.
//! A `tool` message is one tool-result block with path `[]` whatever its content's shape: its
//! body is the whole `content`.

use super::adapter::{Adapter, MessageFields, Structured};
use super::common::{
    Content, Path, compact_json, content_location, content_of, data_uri_media_type, finish_message,
    input_value, lookup, media_block, message_path, missing_block, object_at, object_field,
    other_block, part_of, plain_payload, read_each, removed_plain_path, replace_plain_block,
    required_str, role_of, string_content, text_or_json,
};
use super::evidence::{Field, Seen};
use crate::error::{CompactionError, Result};
use crate::pressure::json_type;
use crate::result::PathStep;
use crate::transcript::{Block, BlockKind, Format, Message, Role, Transcript};
use serde_json::{Map, Value};
use std::borrow::Cow;

/// Wire role names, in the order error messages list them.
const ROLES: [(&str, Role); 5] = [
    ("system", Role::System),
    ("developer", Role::Developer),
    ("user", Role::User),
    ("assistant", Role::Assistant),
    ("tool", Role::Tool),
];

/// The OpenAI Chat Completions format's registration.
pub(crate) static ADAPTER: Adapter = Adapter {
    format: Format::OpenAi,
    name: "openai",
    label: "OpenAI",
    list_key: "messages",
    structured: Some(Structured {
        read_message,
        writer: &Writer,
        message_evidence,
        part_evidence,
        tool_definition,
        unique_tool_ids: false,
        string_list: false,
        link: None,
    }),
};

/// A Chat Completions tool: `{ type: "function", function: { name, description, parameters } }`.
fn tool_definition(name: &str, description: &str, schema: Value) -> Value {
    let function = super::common::object(vec![
        ("name", name.into()),
        ("description", description.into()),
        ("parameters", schema),
    ]);
    super::common::object(vec![("type", "function".into()), ("function", function)])
}

/// Fields only Chat Completions has: `tool_calls`, a `tool` message's `tool_call_id`, a
/// legacy `function` role, and an assistant's `content: null` (beside its tool calls). A
/// `developer` role is no evidence: the Responses API has it too.
fn message_evidence(fields: &MessageFields<'_>, found: &mut dyn FnMut(Field, Seen<'static>)) {
    let role = fields.role;
    if role == Some("function") {
        found(Field::Named("role"), Seen::Words("\"function\""));
    }
    if fields.tool_calls.is_some_and(|calls| !calls.is_null()) {
        found(Field::Named("tool_calls"), Seen::Words("\"tool_calls\""));
    }
    if role == Some("tool") && fields.tool_call_id.is_some() {
        found(
            Field::Named("tool_call_id"),
            Seen::Words("\"tool_call_id\""),
        );
    }
    if role == Some("assistant") && fields.content.is_some_and(Value::is_null) {
        found(Field::Named("content"), Seen::Words("null"));
    }
}

/// Part types only Chat Completions has (`input_audio` and `refusal` parts are the Responses
/// API's too).
fn part_evidence<'v>(part_type: &'v str, part: &Value) -> Option<Seen<'v>> {
    match part_type {
        "image_url" => Some(Seen::PartType(part_type)),
        "file" if part.get("file").is_some() => Some(Seen::Words("\"file\" with a file field")),
        _ => None,
    }
}

/// Reads Chat Completions messages into a transcript, validating what the model needs.
pub fn read(messages: &[Value]) -> Result<Transcript<'_>> {
    read_each(messages, Format::OpenAi, read_message)
}

pub(crate) fn read_message(value: &Value, index: usize) -> Result<Message<'_>> {
    let path = message_path(ADAPTER.list_key, index);
    let object = object_at(value, &path)?;
    if lookup(object, "role").and_then(Value::as_str) == Some("function") {
        // The legacy function-calling result (`{ role: "function", name, content }`): the
        // agent's, kept whole and counted by its JSON; no tier edits it.
        return Ok(finish_message(
            Role::Tool,
            vec![other_block(value, Vec::new())],
            index,
        ));
    }
    let role = role_of(object, &path, &ROLES)?;
    let blocks = match role {
        Role::Tool => vec![tool_result_block(object, &path)?],
        Role::Assistant => assistant_blocks(object, &path)?,
        Role::System | Role::Developer | Role::User => content_blocks(object, &path, false)?,
    };
    Ok(finish_message(role, blocks, index))
}

/// Blocks of a message's `content`; `absent_ok` allows `null` / missing (no blocks).
fn content_blocks<'v>(
    object: &'v Map<String, Value>,
    path: &Path<'_>,
    absent_ok: bool,
) -> Result<Vec<Block<'v>>> {
    match content_of(object, path, absent_ok)? {
        Content::Text(text) => Ok(string_content(text)),
        Content::Parts(parts) => {
            let mut blocks = Vec::with_capacity(parts.len());
            for (index, part) in parts.iter().enumerate() {
                blocks.push(part_block(part, &path.item("content", index), index)?);
            }
            Ok(blocks)
        }
        Content::Absent => Ok(Vec::new()),
    }
}

fn part_block<'v>(part: &'v Value, path: &Path<'_>, index: usize) -> Result<Block<'v>> {
    let (object, part_type) = part_of(part, path)?;
    let block = match part_type {
        "text" => text_block(required_str(object, path, "text")?, index),
        // A refusal is the model's prose; replacing it turns it into a text part.
        "refusal" => text_block(required_str(object, path, "refusal")?, index),
        "image_url" => image_url_block(object, path, index)?,
        "input_audio" => audio_block(object, path, index)?,
        "file" => file_block(part, object, index),
        _ => other_block(part, vec![index]),
    };
    Ok(block)
}

fn text_block(text: &str, index: usize) -> Block<'_> {
    Block::new(BlockKind::Text, Cow::Borrowed(text), vec![index])
}

/// `{type: "image_url", image_url: {url, detail?}}`; some clients send `image_url` as the bare
/// URL string, which is accepted too.
fn image_url_block<'v>(
    object: &'v Map<String, Value>,
    path: &Path<'_>,
    index: usize,
) -> Result<Block<'v>> {
    let (url, detail) = match lookup(object, "image_url") {
        Some(Value::String(url)) => (url.as_str(), None),
        _ => {
            let image = object_field(object, path, "image_url")?;
            let url = required_str(image, &path.field("image_url"), "url")?;
            (url, image.get("detail").and_then(Value::as_str))
        }
    };
    let mut block = media_block(url, None, "image", vec![index]);
    block.low_detail = detail == Some("low");
    Ok(block)
}

/// `{type: "input_audio", input_audio: {data, format}}`: always inline base64.
fn audio_block<'v>(
    object: &'v Map<String, Value>,
    path: &Path<'_>,
    index: usize,
) -> Result<Block<'v>> {
    let audio_path = path.field("input_audio");
    let audio = object_field(object, path, "input_audio")?;
    let data = required_str(audio, &audio_path, "data")?;
    let media_type = audio
        .get("format")
        .and_then(Value::as_str)
        .map_or_else(|| "audio".to_string(), |format| format!("audio/{format}"));
    Ok(Block::new(
        BlockKind::Media {
            media_type,
            inline: true,
        },
        Cow::Borrowed(data),
        vec![index],
    ))
}

/// `{type: "file", file: {file_data? | file_id?, filename?}}`: inline data is media, an uploaded
/// file's id is a reference; anything else is kept as an unknown part.
fn file_block<'v>(part: &Value, object: &'v Map<String, Value>, index: usize) -> Block<'v> {
    let file = lookup(object, "file").and_then(Value::as_object);
    let field = |name: &str| file.and_then(|file| file.get(name)).and_then(Value::as_str);
    if let Some(data) = field("file_data") {
        let media_type = data_uri_media_type(data).unwrap_or("file").to_string();
        return Block::new(
            BlockKind::Media {
                media_type,
                inline: true,
            },
            Cow::Borrowed(data),
            vec![index],
        );
    }
    if let Some(id) = field("file_id") {
        return Block::new(
            BlockKind::Media {
                media_type: "file".into(),
                inline: false,
            },
            Cow::Borrowed(id),
            vec![index],
        );
    }
    other_block(part, vec![index])
}

/// An assistant's content blocks, then one block per tool call. `content` may be `null` or
/// missing when the message carries something else the API accepts instead.
fn assistant_blocks<'v>(object: &'v Map<String, Value>, path: &Path<'_>) -> Result<Vec<Block<'v>>> {
    let has_calls = lookup(object, "tool_calls")
        .and_then(Value::as_array)
        .is_some_and(|calls| !calls.is_empty());
    let absent_ok = has_calls
        || ["function_call", "audio", "refusal"]
            .iter()
            .any(|name| lookup(object, name).is_some_and(|value| !value.is_null()));
    let mut blocks = content_blocks(object, path, absent_ok)?;
    push_tool_call_blocks(object, path, &mut blocks)?;
    Ok(blocks)
}

/// Pushes one block per tool call onto `blocks` (the content's: no list of the calls' own, and
/// one growth, was 2 allocations per assistant message of a tool-calling run).
fn push_tool_call_blocks<'v>(
    object: &'v Map<String, Value>,
    path: &Path<'_>,
    blocks: &mut Vec<Block<'v>>,
) -> Result<()> {
    match lookup(object, "tool_calls") {
        None | Some(Value::Null) => Ok(()),
        Some(Value::Array(calls)) => {
            blocks.reserve_exact(calls.len());
            for (index, call) in calls.iter().enumerate() {
                blocks.push(tool_call_block(
                    call,
                    &path.item("tool_calls", index),
                    index,
                )?);
            }
            Ok(())
        }
        Some(other) => Err(CompactionError::type_error(
            format!("{path}.tool_calls"),
            format!(": expected an array, got {}", json_type(other)),
        )),
    }
}

/// Where a call's input is: `function.arguments`, or a custom tool's `custom.input`.
fn arguments_field(call: &Map<String, Value>) -> (&'static str, &'static str) {
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
    let arguments = lookup(function, arguments_field)
        .map(text_or_json)
        .unwrap_or_default();
    Ok(Block::new(
        BlockKind::ToolCall {
            id: Cow::Borrowed(id),
            name: Cow::Borrowed(name),
        },
        arguments,
        vec![index],
    ))
}

/// A `tool` message: one result block for its whole content. Text parts are joined by newlines;
/// other parts (the API accepts none, some gateways do) are counted by their JSON.
fn tool_result_block<'v>(object: &'v Map<String, Value>, path: &Path<'_>) -> Result<Block<'v>> {
    let id = required_str(object, path, "tool_call_id")?;
    let text = match content_of(object, path, false)? {
        Content::Text(text) => Cow::Borrowed(text),
        Content::Parts(parts) => Cow::Owned(joined_parts(parts, path)?),
        Content::Absent => Cow::Borrowed(""),
    };
    Ok(Block::new(
        BlockKind::ToolResult {
            id: Some(Cow::Borrowed(id)),
            name: None,
            is_error: false,
        },
        text,
        Vec::new(),
    ))
}

fn joined_parts(parts: &[Value], path: &Path<'_>) -> Result<String> {
    let mut joined = String::new();
    for (index, part) in parts.iter().enumerate() {
        let part_path = path.item("content", index);
        let (object, part_type) = part_of(part, &part_path)?;
        if index > 0 {
            joined.push('\n');
        }
        match part_type {
            "text" => joined.push_str(required_str(object, &part_path, "text")?),
            _ => joined.push_str(&compact_json(part)),
        }
    }
    Ok(joined)
}

/// Writes edited Chat Completions messages.
pub(crate) struct Writer;

impl super::json::Writer for Writer {
    fn text_message(&self, text: &str, role: &str) -> Value {
        serde_json::json!({"role": role, "content": text})
    }

    fn replace_block(&self, mut message: Value, block: &Block, text: &str) -> Result<Value> {
        match block.kind {
            // A call keeps its id and name; its arguments, stubbed, stay a JSON string.
            BlockKind::ToolCall { .. } => {
                let index = *block.path.first().ok_or_else(|| missing_block(block))?;
                let call = message
                    .get_mut("tool_calls")
                    .and_then(|calls| calls.get_mut(index))
                    .and_then(Value::as_object_mut)
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
                    .ok_or_else(|| super::common::missing_block(block))?;
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

    fn payload<'v>(&self, message: &'v Value, block: &Block) -> Option<&'v Value> {
        match block.kind {
            BlockKind::ToolCall { .. } => None,
            BlockKind::ToolResult { .. } => message.get("content").filter(|c| c.is_string()),
            _ => plain_payload(message, block),
        }
    }

    fn location(&self, message: &Value, message_index: usize, block: &Block) -> String {
        match (&block.kind, block.path.as_slice()) {
            (BlockKind::ToolCall { .. }, [index]) => {
                let call = message
                    .get("tool_calls")
                    .and_then(|calls| calls.get(*index))
                    .and_then(Value::as_object);
                let (field, arguments) = call.map_or(("function", "arguments"), arguments_field);
                format!(
                    "{}.tool_calls[{index}].{field}.{arguments}",
                    message_path(ADAPTER.list_key, message_index)
                )
            }
            (BlockKind::ToolResult { .. }, _) => {
                content_location(ADAPTER.list_key, message_index, &[], "")
            }
            _ => content_location(ADAPTER.list_key, message_index, &block.path, ".content"),
        }
    }

    /// Calls leave `tool_calls` (which goes when none is left: the API refuses an empty list);
    /// other blocks leave `content`.
    fn without_blocks(&self, mut message: Value, dropped: &[&Block]) -> Result<Value> {
        let (calls, others): (Vec<&Block>, Vec<&Block>) = dropped
            .iter()
            .partition(|block| matches!(block.kind, BlockKind::ToolCall { .. }));
        if let Some(first) = calls.first() {
            let object = message
                .as_object_mut()
                .ok_or_else(|| missing_block(first))?;
            let Some(Value::Array(list)) = object.get_mut("tool_calls") else {
                return Err(missing_block(first));
            };
            let mut index = 0;
            list.retain(|_| {
                let keep = !calls.iter().any(|call| call.path.first() == Some(&index));
                index += 1;
                keep
            });
            if list.is_empty() {
                object.shift_remove("tool_calls");
            }
        }
        super::common::without_parts(message, &others)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::json::Writer as _;
    use crate::formats::test_support::{apply_with, array, replace};
    use crate::formats::{Applied, apply_messages};
    use crate::plan::{ArchiveKind, Edit};
    use crate::transcript::Source;
    use serde_json::json;

    fn conversation() -> Vec<Value> {
        array(json!([
            {"role": "system", "content": "You are terse."},
            {"role": "user", "content": [
                {"type": "text", "text": "What is in these?"},
                {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0K", "detail": "low"}},
                {"type": "image_url", "image_url": {"url": "https://example.com/cat.jpg"}},
                {"type": "input_audio", "input_audio": {"data": "UklGRg==", "format": "wav"}},
                {"type": "file", "file": {"file_data": "data:application/pdf;base64,JVBERi0=", "filename": "a.pdf"}},
                {"type": "file", "file": {"file_id": "file-abc"}},
                {"type": "hologram", "depth": 3}
            ]},
            {"role": "assistant", "content": null, "x-trace": {"span": 7}, "tool_calls": [
                {"id": "call_a", "type": "function", "function": {"name": "read", "arguments": "{\"path\":\"a.rs\"}"}},
                {"id": "call_b", "type": "function", "function": {"name": "grep", "arguments": "{\"q\":\"fn\"}"}}
            ]},
            {"role": "tool", "tool_call_id": "call_a", "content": "fn main() {}", "cache_control": {"type": "ephemeral"}},
            {"role": "tool", "tool_call_id": "call_b", "content": [
                {"type": "text", "text": "a.rs:1"}, {"type": "text", "text": "b.rs:2"}
            ]},
            {"role": "assistant", "content": [{"type": "text", "text": "[age:7] done"}, {"type": "refusal", "refusal": "no"}], "name": "bot"},
            {"role": "developer", "content": "[digest of earlier tool runs] ..."},
            {"role": "user", "content": "thanks"}
        ]))
    }

    fn block<'a>(kind: BlockKind<'a>, text: &str, path: &[usize]) -> Block<'a> {
        Block::new(kind, Cow::Owned(text.to_string()), path.to_vec())
    }

    fn media(media_type: &str, inline: bool) -> BlockKind<'static> {
        BlockKind::Media {
            media_type: media_type.to_string(),
            inline,
        }
    }

    #[test]
    fn reads_a_realistic_conversation() {
        let messages = conversation();
        let transcript = read(&messages).expect("reads");
        assert_eq!(transcript.format, Format::OpenAi);
        let roles: Vec<Role> = transcript.messages.iter().map(|m| m.role).collect();
        assert_eq!(
            roles,
            vec![
                Role::System,
                Role::User,
                Role::Assistant,
                Role::Tool,
                Role::Tool,
                Role::Assistant,
                Role::Developer,
                Role::User
            ]
        );
        let messages = &transcript.messages;
        assert_eq!(
            messages[0].blocks,
            vec![block(BlockKind::Text, "You are terse.", &[])]
        );
        let mut low_detail = block(
            media("image/png", true),
            "data:image/png;base64,iVBORw0K",
            &[1],
        );
        low_detail.low_detail = true;
        assert_eq!(
            messages[1].blocks,
            vec![
                block(BlockKind::Text, "What is in these?", &[0]),
                low_detail,
                block(media("image", false), "https://example.com/cat.jpg", &[2]),
                block(media("audio/wav", true), "UklGRg==", &[3]),
                block(
                    media("application/pdf", true),
                    "data:application/pdf;base64,JVBERi0=",
                    &[4]
                ),
                block(media("file", false), "file-abc", &[5]),
                block(BlockKind::Other, r#"{"type":"hologram","depth":3}"#, &[6]),
            ]
        );
        let call = |id: &str, name: &str| BlockKind::ToolCall {
            id: id.to_string().into(),
            name: name.to_string().into(),
        };
        assert_eq!(
            messages[2].blocks,
            vec![
                block(call("call_a", "read"), r#"{"path":"a.rs"}"#, &[0]),
                block(call("call_b", "grep"), r#"{"q":"fn"}"#, &[1]),
            ]
        );
        let result = |id: &str| BlockKind::ToolResult {
            id: Some(id.to_string().into()),
            name: None,
            is_error: false,
        };
        assert_eq!(
            messages[3].blocks,
            vec![block(result("call_a"), "fn main() {}", &[])]
        );
        assert_eq!(
            messages[4].blocks,
            vec![block(result("call_b"), "a.rs:1\nb.rs:2", &[])]
        );
        assert_eq!(
            messages[5].blocks,
            vec![
                block(BlockKind::Text, "[age:7] done", &[0]),
                block(BlockKind::Text, "no", &[1])
            ]
        );
        assert_eq!(messages[5].explicit_age, Some(7));
        assert!(messages[6].is_library_summary);
        assert!(!messages[5].is_library_summary);
        for (index, message) in messages.iter().enumerate() {
            assert_eq!(message.source, Source::Index(index));
        }
        assert_eq!(
            crate::transcript::pairing::misplaced_results(&transcript),
            Vec::<String>::new()
        );
        assert_eq!(
            crate::transcript::pairing::paired_ids(&transcript),
            vec!["call_a".to_string(), "call_b".to_string()]
        );
    }

    #[test]
    fn accepts_the_shapes_clients_send() {
        let messages = array(json!([
            {"role": "assistant", "tool_calls": [{"id": "c", "type": "function", "function": {"name": "f", "arguments": {"a": 1}}}]},
            {"role": "assistant", "content": "", "tool_calls": null},
            {"role": "assistant", "content": null, "refusal": "I can't"},
            {"role": "assistant", "content": null, "tool_calls": [{"id": "k", "type": "custom", "custom": {"name": "sh", "input": "ls"}}]},
            {"role": "user", "content": [{"type": "image_url", "image_url": "https://x/y.png"}]},
            {"role": "tool", "tool_call_id": "c", "content": []}
        ]));
        let transcript = read(&messages).expect("reads");
        assert_eq!(transcript.messages[0].blocks[0].text, r#"{"a":1}"#);
        assert_eq!(
            transcript.messages[1].blocks,
            vec![block(BlockKind::Text, "", &[])]
        );
        assert!(transcript.messages[2].blocks.is_empty());
        assert_eq!(
            transcript.messages[3].blocks,
            vec![block(
                BlockKind::ToolCall {
                    id: "k".into(),
                    name: "sh".into()
                },
                "ls",
                &[0]
            )]
        );
        assert_eq!(transcript.messages[4].blocks[0].text, "https://x/y.png");
        assert_eq!(transcript.messages[5].blocks[0].text, "");
        assert!(read(&[]).expect("empty").messages.is_empty());
    }

    fn error_of(messages: Value) -> String {
        read(&array(messages)).unwrap_err().to_string()
    }

    #[test]
    fn errors_name_the_field() {
        let user = json!({"role": "user", "content": "hi"});
        let cases = [
            (
                json!([user, user, user, "oops"]),
                "messages[3]: expected an object, got string",
            ),
            (
                json!([user, user, user, {"role": "bot", "content": "x"}]),
                "messages[3].role: expected one of \"system\", \"developer\", \"user\", \"assistant\", \"tool\", got \"bot\"",
            ),
            (
                json!([{"content": "x"}]),
                "messages[0].role: expected one of \"system\", \"developer\", \"user\", \"assistant\", \"tool\", got undefined",
            ),
            (
                json!([user, user, user, {"role": "user", "content": 5}]),
                "messages[3].content: expected string or array of parts, got number",
            ),
            (
                json!([{"role": "user"}]),
                "messages[0].content: expected string or array of parts, got undefined",
            ),
            (
                json!([{"role": "assistant", "content": null}]),
                "messages[0].content: expected string or array of parts, got null",
            ),
            (
                json!([user, user, user, user, {"role": "tool", "content": "x"}]),
                "messages[4].tool_call_id is required",
            ),
            (
                json!([{"role": "tool", "tool_call_id": 4, "content": "x"}]),
                "messages[0].tool_call_id must be a string, got number",
            ),
            (
                json!([user, user, {"role": "assistant", "content": null, "tool_calls": [{"type": "function", "function": {"name": "f", "arguments": "{}"}}]}]),
                "messages[2].tool_calls[0].id is required",
            ),
            (
                json!([{"role": "assistant", "content": null, "tool_calls": [{"id": "c"}]}]),
                "messages[0].tool_calls[0].function is required",
            ),
            (
                json!([{"role": "assistant", "content": null, "tool_calls": [{"id": "c", "function": {"arguments": "{}"}}]}]),
                "messages[0].tool_calls[0].function.name is required",
            ),
            (
                json!([{"role": "assistant", "content": "x", "tool_calls": {"id": "c"}}]),
                "messages[0].tool_calls: expected an array, got object",
            ),
            (
                json!([{"role": "user", "content": [{"type": "text"}]}]),
                "messages[0].content[0].text is required",
            ),
            (
                json!([{"role": "user", "content": ["x"]}]),
                "messages[0].content[0]: expected an object, got string",
            ),
            (
                json!([{"role": "user", "content": [{"text": "x"}]}]),
                "messages[0].content[0].type is required",
            ),
            (
                json!([{"role": "user", "content": [{"type": "image_url", "image_url": {"detail": "low"}}]}]),
                "messages[0].content[0].image_url.url is required",
            ),
            (
                json!([{"role": "user", "content": [{"type": "input_audio", "input_audio": {"format": "wav"}}]}]),
                "messages[0].content[0].input_audio.data is required",
            ),
            (
                json!([{"role": "tool", "tool_call_id": "c", "content": [{"type": "text", "text": 1}]}]),
                "messages[0].content[0].text must be a string, got number",
            ),
        ];
        for (messages, expected) in cases {
            assert_eq!(error_of(messages), expected);
        }
        let error = read(&array(json!([5]))).unwrap_err();
        assert_eq!(error.kind, crate::error::ErrorKind::Type);
    }

    fn apply(messages: &[Value], edits: &[Edit]) -> Applied<Vec<Value>> {
        apply_with(read, messages, edits)
    }

    #[test]
    fn replacing_a_tool_result_keeps_its_other_fields() {
        let messages = conversation();
        let applied = apply(
            &messages,
            &[
                replace(3, 0, "fn ma [pruned]", ArchiveKind::ToolResult),
                replace(4, 0, "a.rs [pruned]", ArchiveKind::ToolResult),
            ],
        );
        let output = &applied.output;
        assert_eq!(
            output[3],
            json!({"role": "tool", "tool_call_id": "call_a", "content": "fn ma [pruned]", "cache_control": {"type": "ephemeral"}})
        );
        assert_eq!(
            serde_json::to_string(&output[3]).expect("serialises"),
            r#"{"role":"tool","tool_call_id":"call_a","content":"fn ma [pruned]","cache_control":{"type":"ephemeral"}}"#,
            "field order is kept"
        );
        assert_eq!(output[4]["content"], json!("a.rs [pruned]"));
        for index in [0, 1, 2, 5, 6, 7] {
            assert_eq!(output[index], messages[index]);
        }
        assert_eq!(applied.archive.len(), 2);
        assert_eq!(applied.archive[0].content, json!("fn main() {}"));
        assert_eq!(applied.archive[0].location, "messages[3].content");
        assert_eq!(applied.archive[0].kind, "tool_result");
        assert_eq!(applied.archive[0].replacement, "fn ma [pruned]");
        assert_eq!(applied.archive[1].content, messages[4]["content"]);
        let again = read(output).expect("output reads back");
        assert_eq!(again.messages[3].blocks[0].text, "fn ma [pruned]");
    }

    #[test]
    fn media_becomes_a_text_part() {
        let messages = conversation();
        let applied = apply(
            &messages,
            &[
                replace(1, 1, "[media removed: image/png]", ArchiveKind::Media),
                replace(1, 3, "[media removed: audio/wav]", ArchiveKind::Media),
            ],
        );
        let content = &applied.output[1]["content"];
        assert_eq!(
            content[1],
            json!({"type": "text", "text": "[media removed: image/png]"})
        );
        assert_eq!(
            content[3],
            json!({"type": "text", "text": "[media removed: audio/wav]"})
        );
        assert_eq!(content[2], messages[1]["content"][2]);
        assert_eq!(applied.archive[0].content, messages[1]["content"][1]);
        assert_eq!(applied.archive[0].location, "messages[1].content[1]");
        assert_eq!(applied.archive[1].location, "messages[1].content[3]");
    }

    #[test]
    fn text_blocks_are_replaced_in_place() {
        let messages = conversation();
        let applied = apply(
            &messages,
            &[
                replace(0, 0, "sys", ArchiveKind::Turn),
                replace(5, 0, "[stale block pruned]", ArchiveKind::Turn),
                replace(5, 1, "[stale block pruned]", ArchiveKind::Turn),
            ],
        );
        assert_eq!(
            applied.output[0],
            json!({"role": "system", "content": "sys"})
        );
        assert_eq!(
            applied.output[5],
            json!({"role": "assistant", "content": [
                {"type": "text", "text": "[stale block pruned]"},
                {"type": "text", "text": "[stale block pruned]"}
            ], "name": "bot"})
        );
        assert_eq!(applied.archive[0].content, json!("You are terse."));
        assert_eq!(applied.archive[1].content, json!("[age:7] done"));
        assert_eq!(
            applied.archive[2].content,
            json!({"type": "refusal", "refusal": "no"})
        );
    }

    #[test]
    fn replacing_messages() {
        let messages = conversation();
        let applied = apply(
            &messages,
            &[Edit::ReplaceMessages {
                range: 2..6,
                text: Some("[digest of earlier tool runs] read, grep".into()),
                kind: ArchiveKind::Run,
                is_summary: true,
            }],
        );
        assert_eq!(applied.output.len(), messages.len() - 3);
        assert_eq!(
            applied.output[2],
            json!({"role": "assistant", "content": "[digest of earlier tool runs] read, grep"})
        );
        assert_eq!(&applied.output[..2], &messages[..2]);
        assert_eq!(&applied.output[3..], &messages[6..]);
        assert_eq!(
            applied.archive[0].content,
            Value::Array(messages[2..6].to_vec())
        );
        assert_eq!(applied.archive[0].location, "messages[2..6]");
        let reread = read(&applied.output).expect("reads back");
        assert!(reread.messages[2].is_library_summary);

        let applied = apply(
            &messages,
            &[Edit::ReplaceMessages {
                range: 2..5,
                text: None,
                kind: ArchiveKind::Turn,
                is_summary: false,
            }],
        );
        assert_eq!(applied.output.len(), messages.len() - 3);
        assert_eq!(applied.archive[0].replacement, "");
    }

    #[test]
    fn a_tool_call_keeps_its_id_when_its_arguments_are_stubbed() {
        let messages = conversation();
        let transcript = read(&messages).expect("reads");
        let applied = apply_messages(
            &messages,
            &transcript,
            &[replace(2, 1, r#"{"q":"[stub]"}"#, ArchiveKind::ToolInput)],
        )
        .expect("applies");
        let call = &applied.output[2]["tool_calls"][1];
        assert_eq!(call["id"], "call_b");
        assert_eq!(call["function"]["name"], "grep");
        assert_eq!(call["function"]["arguments"], r#"{"q":"[stub]"}"#);
        assert_eq!(applied.archive[0].content, json!(r#"{"q":"fn"}"#));
        assert_eq!(
            applied.archive[0].location,
            "messages[2].tool_calls[1].function.arguments"
        );
    }

    #[test]
    fn a_legacy_function_message_passes_through_untouched() {
        let messages = serde_json::json!([
            {"role": "user", "content": "Weather in Paris?"},
            {"role": "assistant", "content": null, "function_call": {"name": "weather", "arguments": "{}"}},
            {"role": "function", "name": "weather", "content": "sunny"},
        ]);
        let messages = messages.as_array().expect("an array");
        assert_eq!(
            crate::formats::detect::detect(&messages[2..]).unwrap(),
            Format::OpenAi
        );
        let transcript = read(messages).expect("reads");
        assert_eq!(transcript.messages[2].role, Role::Tool);
        assert_eq!(transcript.messages[2].blocks[0].kind, BlockKind::Other);
        let applied = apply_messages(messages, &transcript, &[]).expect("applies");
        assert_eq!(applied.output, *messages);
    }

    #[test]
    fn locations() {
        let messages = conversation();
        let transcript = read(&messages).expect("reads");
        let location = |message: usize, block: usize| {
            Writer.location(
                &conversation()[message],
                message,
                &transcript.messages[message].blocks[block],
            )
        };
        assert_eq!(location(0, 0), "messages[0].content");
        assert_eq!(location(1, 4), "messages[1].content[4]");
        assert_eq!(
            location(2, 0),
            "messages[2].tool_calls[0].function.arguments"
        );
        assert_eq!(
            location(2, 1),
            "messages[2].tool_calls[1].function.arguments"
        );
        assert_eq!(location(4, 0), "messages[4].content");
        let call = &transcript.messages[2].blocks[1];
        let path = Writer.removed_path(&messages[2], call).expect("a call");
        assert_eq!(
            crate::result::value_at(&messages[2], &path),
            Some(&messages[2]["tool_calls"][1]["function"]["arguments"])
        );
    }
}

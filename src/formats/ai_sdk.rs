//! Vercel AI SDK `ModelMessage`s (v5): `system` / `user` / `assistant` / `tool`, parts `text`,
//! `image`, `file`, `reasoning`, `tool-call`, `tool-result`. v4 shapes are accepted where that
//! costs nothing: `args` for a call's `input`, `result` (with `isError`) for a result's `output`,
//! `mimeType` for `mediaType`, `redacted-reasoning` parts.
//!
//! Block paths: `[]` for string content, `[i]` for `content[i]`, `[i, j]` for media at
//! `content[i].output.value[j]` inside a tool result whose output is of type `content`. Text
//! items of such an output are part of the result's body.

use super::adapter::{Adapter, MessageFields, Structured};
use super::common::{
    Content, Path, compact_json, content_location, content_of, finish_message, input_value,
    media_block, message_path, missing_block, object_at, optional_str, other_block, part_of,
    plain_payload, read_each, removed_plain_path, replace_plain_block, required_str, role_of,
    string_content, text_or_json, text_part, tool_call_not_replaceable,
};
use super::evidence::{Field, Seen};
use crate::error::{CompactionError, Result};
use crate::pressure::json_type;
use crate::result::PathStep;
use crate::transcript::{Block, BlockKind, Format, Message, Role, Transcript};
use serde_json::{Map, Value, json};
use std::borrow::Cow;

/// Wire role names, in the order error messages list them.
const ROLES: [(&str, Role); 4] = [
    ("system", Role::System),
    ("user", Role::User),
    ("assistant", Role::Assistant),
    ("tool", Role::Tool),
];

/// The Vercel AI SDK `ModelMessage` format's registration.
pub(crate) static ADAPTER: Adapter = Adapter {
    format: Format::AiSdk,
    name: "ai-sdk",
    label: "AI SDK",
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

/// An AI SDK tool's parts: `{ description, inputSchema }` (a plain JSON Schema; the host wraps
/// it with `jsonSchema()` and names the tool by its key in `tools`).
fn tool_definition(_name: &str, description: &str, schema: Value) -> Value {
    super::common::object(vec![
        ("description", description.into()),
        ("inputSchema", schema),
    ])
}

/// An AI SDK tool message names its calls in its parts (its content is always an array); an
/// OpenAI one needs `tool_call_id`. Without this, an AI SDK list whose only other evidence was
/// compacted away would read as OpenAI on the next call.
fn message_evidence(fields: &MessageFields<'_>, found: &mut dyn FnMut(Field, Seen<'static>)) {
    if fields.role == Some("tool")
        && fields.tool_call_id.is_none()
        && fields.content.is_some_and(Value::is_array)
    {
        found(
            Field::Named("role"),
            Seen::Words("a \"tool\" message without \"tool_call_id\""),
        );
    }
}

/// Part types only the AI SDK has.
fn part_evidence<'v>(part_type: &'v str, part: &Value) -> Option<Seen<'v>> {
    match part_type {
        "file" if part.get("data").is_some() => Some(Seen::Words("\"file\" with a data field")),
        "image" if part.get("image").is_some() => {
            Some(Seen::Words("\"image\" with an image field"))
        }
        "tool-call" | "tool-result" | "reasoning" | "redacted-reasoning" => {
            Some(Seen::PartType(part_type))
        }
        _ => None,
    }
}

/// Reads AI SDK model messages into a transcript, validating what the model needs.
pub fn read(messages: &[Value]) -> Result<Transcript<'_>> {
    read_each(messages, Format::AiSdk, read_message)
}

pub(crate) fn read_message(value: &Value, index: usize) -> Result<Message<'_>> {
    let path = message_path(ADAPTER.list_key, index);
    let object = object_at(value, &path)?;
    let role = role_of(object, &path, &ROLES)?;
    let blocks = match content_of(object, &path, false)? {
        // A tool message has no prose: its content is always an array of results.
        Content::Text(_) if role == Role::Tool => {
            return Err(CompactionError::type_error(
                format!("{path}.content"),
                ": expected an array of tool-result parts, got string",
            ));
        }
        Content::Text(text) => string_content(text),
        Content::Parts(parts) => parts_blocks(parts, &path)?,
        Content::Absent => Vec::new(),
    };
    Ok(finish_message(role, blocks, index))
}

/// Blocks of an array content; a tool result's nested media follow the result.
fn parts_blocks<'v>(parts: &'v [Value], path: &Path<'_>) -> Result<Vec<Block<'v>>> {
    let mut blocks = Vec::with_capacity(parts.len());
    for (index, part) in parts.iter().enumerate() {
        let part_path = path.item("content", index);
        let (object, part_type) = part_of(part, &part_path)?;
        match part_type {
            "tool-result" => blocks.extend(tool_result_blocks(object, &part_path, index)?),
            _ => blocks.push(part_block(part, object, part_type, &part_path, index)?),
        }
    }
    Ok(blocks)
}

/// A top-level part other than a tool result.
fn part_block<'v>(
    part: &Value,
    object: &'v Map<String, Value>,
    part_type: &str,
    path: &Path<'_>,
    index: usize,
) -> Result<Block<'v>> {
    let (kind, text) = match part_type {
        "text" => (
            BlockKind::Text,
            Cow::Borrowed(required_str(object, path, "text")?),
        ),
        "image" => return data_block(object, path, "image", "image", index),
        "file" | "reasoning-file" => return data_block(object, path, "data", "file", index),
        "reasoning" => (
            BlockKind::Thinking,
            Cow::Borrowed(optional_str(object, "text").unwrap_or_default()),
        ),
        "redacted-reasoning" => (
            BlockKind::Thinking,
            Cow::Borrowed(optional_str(object, "data").unwrap_or_default()),
        ),
        "tool-call" => tool_call(object, path)?,
        _ => return Ok(other_block(part, vec![index])),
    };
    Ok(Block::new(kind, text, vec![index]))
}

/// An `image` (`image` field) or `file` (`data` field) part. The data is a base64 string, a data
/// URL or a URL; binary data a host passed as bytes arrives as JSON and is counted as such.
fn data_block<'v>(
    object: &'v Map<String, Value>,
    path: &Path<'_>,
    field: &str,
    fallback: &str,
    index: usize,
) -> Result<Block<'v>> {
    let media_type = optional_str(object, "mediaType").or_else(|| optional_str(object, "mimeType"));
    match object.get(field) {
        Some(Value::String(data)) => Ok(media_block(data, media_type, fallback, vec![index])),
        // AI SDK 7's tagged `FileData`: `{type: "data", data}` (bytes or base64), `{type: "url",
        // url}`; a provider reference or inline text falls through to the JSON count below.
        Some(Value::Object(tagged)) if tagged_data(tagged).is_some() => {
            let data = tagged_data(tagged).unwrap_or_default();
            Ok(media_block(data, media_type, fallback, vec![index]))
        }
        Some(Value::Null) | None => Err(CompactionError::type_error(
            format!("{path}.{field}"),
            "is required",
        )),
        Some(other) => Ok(Block::new(
            BlockKind::Media {
                media_type: media_type.unwrap_or(fallback).to_string(),
                inline: true,
            },
            Cow::Owned(compact_json(other)),
            vec![index],
        )),
    }
}

/// The data of a tagged `FileData` of type `data` or `url`.
fn tagged_data(tagged: &Map<String, Value>) -> Option<&str> {
    match tagged.get("type").and_then(Value::as_str)? {
        "data" => tagged.get("data")?.as_str(),
        "url" => tagged.get("url")?.as_str(),
        _ => None,
    }
}

/// `{type: "tool-call", toolCallId, toolName, input}` (v4: `args`).
fn tool_call<'v>(
    object: &'v Map<String, Value>,
    path: &Path<'_>,
) -> Result<(BlockKind<'v>, Cow<'v, str>)> {
    let id = required_str(object, path, "toolCallId")?;
    let name = required_str(object, path, "toolName")?;
    let input = object
        .get("input")
        .or_else(|| object.get("args"))
        .map(text_or_json)
        .unwrap_or_default();
    Ok((
        BlockKind::ToolCall {
            id: Cow::Borrowed(id),
            name: Cow::Borrowed(name),
        },
        input,
    ))
}

/// A `tool-result` part and the media nested in its `content` output.
fn tool_result_blocks<'v>(
    object: &'v Map<String, Value>,
    path: &Path<'_>,
    index: usize,
) -> Result<Vec<Block<'v>>> {
    let id = required_str(object, path, "toolCallId")?;
    let name = optional_str(object, "toolName").map(str::to_string);
    let body = if let Some(output) = object.get("output") {
        output_body(output, &path.field("output"), index)?
    } else if let Some(result) = object.get("result") {
        // v4: `result` is any JSON value, `isError` flags failures.
        Body {
            text: text_or_json(result),
            is_error: object.get("isError") == Some(&Value::Bool(true)),
            nested: Vec::new(),
        }
    } else {
        return Err(CompactionError::type_error(
            format!("{path}.output"),
            "is required",
        ));
    };
    let result = Block::new(
        BlockKind::ToolResult {
            id: Some(Cow::Borrowed(id)),
            name,
            is_error: body.is_error,
        },
        body.text,
        vec![index],
    );
    Ok(std::iter::once(result).chain(body.nested).collect())
}

/// What a tool result's output holds, in the model's terms.
struct Body<'v> {
    text: Cow<'v, str>,
    is_error: bool,
    nested: Vec<Block<'v>>,
}

/// `{type: "text" | "error-text", value: string}`, `{type: "json" | "error-json", value}`,
/// `{type: "content", value: [...]}`; any other type (`execution-denied`, later additions) is
/// counted by its JSON.
fn output_body<'v>(output: &'v Value, path: &Path<'_>, index: usize) -> Result<Body<'v>> {
    let object = object_at(output, path)?;
    let output_type = required_str(object, path, "type")?;
    let value = object.get("value").unwrap_or(&Value::Null);
    let (text, nested) = match output_type {
        "text" | "error-text" => (text_or_json(value), Vec::new()),
        "json" | "error-json" => (Cow::Owned(compact_json(value)), Vec::new()),
        "content" => {
            let (text, nested) = content_output(value, &path.field("value"), index)?;
            (Cow::Owned(text), nested)
        }
        _ => (Cow::Owned(compact_json(output)), Vec::new()),
    };
    Ok(Body {
        text,
        is_error: output_type.starts_with("error"),
        nested,
    })
}

/// A `content` output: text items joined by newlines, media items as nested blocks.
fn content_output<'v>(
    value: &'v Value,
    path: &Path<'_>,
    index: usize,
) -> Result<(String, Vec<Block<'v>>)> {
    let items = value.as_array().ok_or_else(|| {
        CompactionError::type_error(
            path.to_string(),
            format!(
                ": expected an array of content items, got {}",
                json_type(value)
            ),
        )
    })?;
    let mut texts = Vec::new();
    let mut nested = Vec::new();
    for (inner, item) in items.iter().enumerate() {
        let item_path = path.index(inner);
        let (object, item_type) = part_of(item, &item_path)?;
        let block_path = vec![index, inner];
        let media_type = optional_str(object, "mediaType");
        match item_type {
            "text" => texts.push(required_str(object, &item_path, "text")?.to_string()),
            "media" | "file-data" => {
                let data = required_str(object, &item_path, "data")?;
                nested.push(inline_media(data, media_type.unwrap_or("file"), block_path));
            }
            "image-data" => {
                let data = required_str(object, &item_path, "data")?;
                nested.push(inline_media(
                    data,
                    media_type.unwrap_or("image"),
                    block_path,
                ));
            }
            // AI SDK 7: `{type: "file", data: FileData}` (bytes, base64 or a URL, tagged).
            "file" => match object.get("data").and_then(|data| match data {
                Value::String(data) => Some(data.as_str()),
                Value::Object(tagged) => tagged_data(tagged),
                _ => None,
            }) {
                Some(data) => nested.push(media_block(data, media_type, "file", block_path)),
                None => texts.push(compact_json(item)),
            },
            "image-url" | "file-url" => {
                let url = required_str(object, &item_path, "url")?;
                let fallback = if item_type == "image-url" {
                    "image"
                } else {
                    "file"
                };
                nested.push(media_block(url, media_type, fallback, block_path));
            }
            // Only media may be a nested block; anything else counts as body text.
            _ => texts.push(compact_json(item)),
        }
    }
    Ok((texts.join("\n"), nested))
}

/// Base64 data is inline whatever it looks like.
fn inline_media<'v>(data: &'v str, media_type: &str, path: Vec<usize>) -> Block<'v> {
    Block::new(
        BlockKind::Media {
            media_type: media_type.to_string(),
            inline: true,
        },
        Cow::Borrowed(data),
        path,
    )
}

/// Writes edited AI SDK model messages.
pub(crate) struct Writer;

impl super::json::Writer for Writer {
    fn text_message(&self, text: &str, role: &str) -> Value {
        json!({"role": role, "content": [{"type": "text", "text": text}]})
    }

    fn replace_block(&self, mut message: Value, block: &Block, text: &str) -> Result<Value> {
        match (&block.kind, block.path.as_slice()) {
            // A call keeps its ids and name; its input (v4 `args`), stubbed, keeps its shape.
            (BlockKind::ToolCall { .. }, [index]) => {
                let call = content_part_mut(&mut message, *index)
                    .and_then(Value::as_object_mut)
                    .ok_or_else(|| missing_block(block))?;
                let field = input_field(call);
                let input = input_value(call.get(field), text);
                call.insert(field.into(), input);
            }
            (BlockKind::ToolCall { .. }, _) => return Err(tool_call_not_replaceable(block)),
            (BlockKind::ToolResult { is_error, .. }, [index]) => {
                let result = content_part_mut(&mut message, *index)
                    .and_then(Value::as_object_mut)
                    .ok_or_else(|| missing_block(block))?;
                replace_result_body(result, *is_error, text);
            }
            (_, [index, inner]) => {
                let item = content_part_mut(&mut message, *index)
                    .and_then(|result| result.get_mut("output")?.get_mut("value")?.get_mut(*inner))
                    .ok_or_else(|| missing_block(block))?;
                *item = text_part(item, text);
            }
            _ => replace_plain_block(&mut message, block, text)?,
        }
        Ok(message)
    }

    fn removed_path(&self, message: &Value, block: &Block<'_>) -> Option<Vec<PathStep>> {
        use PathStep::{Index, Key};
        let path = match (&block.kind, block.path.as_slice()) {
            (BlockKind::ToolResult { .. }, [index]) => {
                let part = message.get("content")?.get(*index)?;
                let body = if part.get("output").is_some() {
                    "output"
                } else {
                    "result"
                };
                vec![Key("content"), Index(*index), Key(body)]
            }
            (BlockKind::ToolCall { .. }, [index]) => {
                let part = message.get("content")?.get(*index)?.as_object()?;
                vec![Key("content"), Index(*index), Key(input_field(part))]
            }
            (_, [index, inner]) => vec![
                Key("content"),
                Index(*index),
                Key("output"),
                Key("value"),
                Index(*inner),
            ],
            _ => return removed_plain_path(message, block),
        };
        crate::result::value_at(message, &path).map(|_| path)
    }

    fn payload<'v>(&self, message: &'v Value, block: &Block) -> Option<&'v Value> {
        match (&block.kind, block.path.as_slice()) {
            // `replace_result_body` writes a new `output` (or `result`) from the text and the old
            // output's provider options: the old body string is never read.
            (BlockKind::ToolResult { .. }, [index]) => {
                let part = message.get("content")?.get(*index)?;
                let body = match (part.get("output"), part.get("result")) {
                    (None, Some(result)) => result,
                    (Some(output), _) => output.get("value")?,
                    (None, None) => return None,
                };
                body.is_string().then_some(body)
            }
            (BlockKind::ToolCall { .. }, _) => None,
            _ => plain_payload(message, block),
        }
    }

    fn location(&self, message: &Value, message_index: usize, block: &Block) -> String {
        let location = content_location(
            ADAPTER.list_key,
            message_index,
            &block.path,
            ".output.value",
        );
        match (&block.kind, block.path.as_slice()) {
            // The body (v5 `output`, v4 `result`), not the whole part: the ids stay in the output.
            (BlockKind::ToolResult { .. }, [index]) => {
                let part = message.get("content").and_then(|c| c.get(*index));
                let v4 =
                    part.is_some_and(|p| p.get("output").is_none() && p.get("result").is_some());
                format!("{location}.{}", if v4 { "result" } else { "output" })
            }
            (BlockKind::ToolCall { .. }, [index]) => {
                let part = message.get("content").and_then(|c| c.get(*index));
                let field = part.and_then(Value::as_object).map_or("input", input_field);
                format!("{location}.{field}")
            }
            _ => location,
        }
    }
}

/// The field of a tool-call part holding its input: v5 `input`, v4 `args`.
fn input_field(call: &Map<String, Value>) -> &'static str {
    if call.contains_key("input") || !call.contains_key("args") {
        "input"
    } else {
        "args"
    }
}

/// A result's body becomes text, in the shape it arrived in: v5 `output` (keeping the error
/// flag in its type), v4 `result` (whose `isError` stays as it was).
fn replace_result_body(result: &mut Map<String, Value>, is_error: bool, text: &str) {
    if result.contains_key("result") && !result.contains_key("output") {
        result.insert("result".into(), Value::String(text.into()));
        return;
    }
    let output_type = if is_error { "error-text" } else { "text" };
    let mut output = json!({"type": output_type, "value": text});
    // Newer SDKs put provider options on the output itself; they are about the call, not the body.
    let options = result
        .get("output")
        .and_then(|old| old.get("providerOptions"))
        .cloned();
    if let (Some(options), Some(object)) = (options, output.as_object_mut()) {
        object.insert("providerOptions".into(), options);
    }
    result.insert("output".into(), output);
}

fn content_part_mut(message: &mut Value, index: usize) -> Option<&mut Value> {
    message.get_mut("content")?.get_mut(index)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::Applied;
    use crate::formats::json::Writer as _;
    use crate::formats::test_support::{apply_with, array, replace};
    use crate::plan::{ArchiveKind, Edit};

    fn conversation() -> Vec<Value> {
        array(json!([
            {"role": "system", "content": "Be useful.", "providerOptions": {"anthropic": {"cacheControl": {"type": "ephemeral"}}}},
            {"role": "user", "content": [
                {"type": "text", "text": "Look"},
                {"type": "image", "image": "data:image/webp;base64,UklGR", "providerOptions": {"openai": {"imageDetail": "low"}}},
                {"type": "image", "image": "https://x/a.png"},
                {"type": "file", "data": "JVBERi0=", "mediaType": "application/pdf", "filename": "a.pdf"}
            ]},
            {"role": "assistant", "content": [
                {"type": "reasoning", "text": "Need two tools.", "providerOptions": {"anthropic": {"signature": "s"}}},
                {"type": "tool-call", "toolCallId": "c1", "toolName": "read", "input": {"path": "a.rs"}},
                {"type": "tool-call", "toolCallId": "c2", "toolName": "shot", "input": {}},
                {"type": "tool-call", "toolCallId": "c3", "toolName": "lint", "input": {}}
            ]},
            {"role": "tool", "content": [
                {"type": "tool-result", "toolCallId": "c1", "toolName": "read", "output": {"type": "text", "value": "fn main() {}"}},
                {"type": "tool-result", "toolCallId": "c2", "toolName": "shot", "output": {"type": "content", "value": [
                    {"type": "text", "text": "screen"},
                    {"type": "media", "data": "iVBORw0K", "mediaType": "image/png"},
                    {"type": "image-url", "url": "https://x/b.png"}
                ]}, "providerOptions": {"x": 1}},
                {"type": "tool-result", "toolCallId": "c3", "toolName": "lint", "output": {"type": "error-json", "value": {"errors": 2}}}
            ]},
            {"role": "assistant", "content": "[age:9] Done."},
            {"role": "user", "content": "ok"}
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

    fn result<'a>(id: &'a str, name: &str, is_error: bool) -> BlockKind<'a> {
        BlockKind::ToolResult {
            id: Some(id.into()),
            name: Some(name.into()),
            is_error,
        }
    }

    #[test]
    fn reads_a_realistic_conversation() {
        let messages = conversation();
        let transcript = read(&messages).expect("reads");
        assert_eq!(transcript.format, Format::AiSdk);
        let m = &transcript.messages;
        let roles: Vec<Role> = m.iter().map(|message| message.role).collect();
        assert_eq!(
            roles,
            vec![
                Role::System,
                Role::User,
                Role::Assistant,
                Role::Tool,
                Role::Assistant,
                Role::User
            ]
        );
        assert_eq!(
            m[1].blocks,
            vec![
                block(BlockKind::Text, "Look", &[0]),
                block(
                    media("image/webp", true),
                    "data:image/webp;base64,UklGR",
                    &[1]
                ),
                block(media("image", false), "https://x/a.png", &[2]),
                block(media("application/pdf", true), "JVBERi0=", &[3]),
            ]
        );
        let call = |id: &str, name: &str| BlockKind::ToolCall {
            id: id.to_string().into(),
            name: name.to_string().into(),
        };
        assert_eq!(
            m[2].blocks,
            vec![
                block(BlockKind::Thinking, "Need two tools.", &[0]),
                block(call("c1", "read"), r#"{"path":"a.rs"}"#, &[1]),
                block(call("c2", "shot"), "{}", &[2]),
                block(call("c3", "lint"), "{}", &[3]),
            ]
        );
        assert_eq!(
            m[3].blocks,
            vec![
                block(result("c1", "read", false), "fn main() {}", &[0]),
                block(result("c2", "shot", false), "screen", &[1]),
                block(media("image/png", true), "iVBORw0K", &[1, 1]),
                block(media("image", false), "https://x/b.png", &[1, 2]),
                block(result("c3", "lint", true), r#"{"errors":2}"#, &[2]),
            ]
        );
        assert!(crate::transcript::pairing::is_result_carrier(&m[3]));
        assert_eq!(m[4].explicit_age, Some(9));
        assert_eq!(
            crate::transcript::pairing::misplaced_results(&transcript),
            Vec::<String>::new()
        );
    }

    #[test]
    fn reads_v4_shapes_and_unknown_parts() {
        let messages = array(json!([
            {"role": "assistant", "content": [
                {"type": "tool-call", "toolCallId": "c", "toolName": "f", "args": {"a": 1}},
                {"type": "redacted-reasoning", "data": "xyz"},
                {"type": "image", "image": "AAAA", "mimeType": "image/gif"},
                {"type": "source", "sourceType": "url", "url": "https://x"}
            ]},
            {"role": "tool", "content": [
                {"type": "tool-result", "toolCallId": "c", "toolName": "f", "result": {"ok": true}, "isError": true},
                {"type": "tool-result", "toolCallId": "d", "toolName": "g", "result": "plain"},
                {"type": "tool-result", "toolCallId": "e", "toolName": "h", "output": {"type": "execution-denied", "reason": "no"}},
                {"type": "tool-result", "toolCallId": "f", "toolName": "i", "output": {"type": "json", "value": [1, "two"]}}
            ]}
        ]));
        let m = read(&messages).expect("reads").messages;
        assert_eq!(m[0].blocks[0].text, r#"{"a":1}"#);
        assert_eq!(m[0].blocks[1], block(BlockKind::Thinking, "xyz", &[1]));
        assert_eq!(
            m[0].blocks[2],
            block(media("image/gif", true), "AAAA", &[2])
        );
        assert_eq!(m[0].blocks[3].kind, BlockKind::Other);
        assert_eq!(
            m[1].blocks[0],
            block(result("c", "f", true), r#"{"ok":true}"#, &[0])
        );
        assert_eq!(
            m[1].blocks[1],
            block(result("d", "g", false), "plain", &[1])
        );
        assert_eq!(
            m[1].blocks[2],
            block(
                result("e", "h", false),
                r#"{"type":"execution-denied","reason":"no"}"#,
                &[2]
            )
        );
        assert_eq!(m[1].blocks[3].text, r#"[1,"two"]"#);
    }

    #[test]
    fn errors_name_the_field() {
        let cases = [
            (
                json!([true]),
                "messages[0]: expected an object, got boolean",
            ),
            (
                json!([{"role": "developer", "content": "x"}]),
                "messages[0].role: expected one of \"system\", \"user\", \"assistant\", \"tool\", got \"developer\"",
            ),
            (
                json!([{"role": "tool", "content": "x"}]),
                "messages[0].content: expected an array of tool-result parts, got string",
            ),
            (
                json!([{"role": "user", "content": {"type": "text"}}]),
                "messages[0].content: expected string or array of parts, got object",
            ),
            (
                json!([{"role": "assistant", "content": [{"type": "tool-call", "toolName": "f", "input": {}}]}]),
                "messages[0].content[0].toolCallId is required",
            ),
            (
                json!([{"role": "tool", "content": [{"type": "tool-result", "toolCallId": "c", "toolName": "f"}]}]),
                "messages[0].content[0].output is required",
            ),
            (
                json!([{"role": "tool", "content": [{"type": "tool-result", "toolCallId": "c", "output": "x"}]}]),
                "messages[0].content[0].output: expected an object, got string",
            ),
            (
                json!([{"role": "tool", "content": [{"type": "tool-result", "toolCallId": "c", "output": {"type": "content", "value": "x"}}]}]),
                "messages[0].content[0].output.value: expected an array of content items, got string",
            ),
            (
                json!([{"role": "tool", "content": [{"type": "tool-result", "toolCallId": "c", "output": {"type": "content", "value": [{"type": "media", "mediaType": "image/png"}]}}]}]),
                "messages[0].content[0].output.value[0].data is required",
            ),
            (
                json!([{"role": "user", "content": [{"type": "image"}]}]),
                "messages[0].content[0].image is required",
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
    fn tool_result_outputs_become_text() {
        let messages = conversation();
        let applied = apply(
            &messages,
            &[
                replace(3, 0, "fn [pruned]", ArchiveKind::ToolResult),
                replace(3, 4, "{\"errors\" [pruned]", ArchiveKind::ToolResult),
            ],
        );
        let content = &applied.output[3]["content"];
        assert_eq!(
            content[0],
            json!({"type": "tool-result", "toolCallId": "c1", "toolName": "read", "output": {"type": "text", "value": "fn [pruned]"}})
        );
        assert_eq!(content[1], messages[3]["content"][1]);
        assert_eq!(
            content[2]["output"],
            json!({"type": "error-text", "value": "{\"errors\" [pruned]"})
        );
        assert_eq!(
            applied.archive[0].content,
            json!({"type": "text", "value": "fn main() {}"})
        );
        assert_eq!(applied.archive[0].location, "messages[3].content[0].output");
        assert_eq!(
            applied.archive[1].content,
            messages[3]["content"][2]["output"]
        );
        for index in [0, 1, 2, 4, 5] {
            assert_eq!(applied.output[index], messages[index]);
        }
        let reread = read(&applied.output).expect("reads back");
        assert_eq!(
            reread.messages[3].blocks[4].kind,
            result("c3", "lint", true)
        );
    }

    #[test]
    fn v4_results_keep_their_shape() {
        let messages = array(json!([
            {"role": "tool", "content": [
                {"type": "tool-result", "toolCallId": "c", "toolName": "f", "result": {"big": "x"}, "isError": true}
            ]}
        ]));
        let applied = apply(
            &messages,
            &[replace(0, 0, "short", ArchiveKind::ToolResult)],
        );
        assert_eq!(
            applied.output[0]["content"][0],
            json!({"type": "tool-result", "toolCallId": "c", "toolName": "f", "result": "short", "isError": true})
        );
        assert_eq!(applied.archive[0].content, json!({"big": "x"}));
    }

    #[test]
    fn output_provider_options_survive() {
        let messages = array(json!([
            {"role": "tool", "content": [
                {"type": "tool-result", "toolCallId": "c", "toolName": "f",
                 "output": {"type": "text", "value": "long", "providerOptions": {"p": {"q": 1}}}}
            ]}
        ]));
        let applied = apply(
            &messages,
            &[replace(0, 0, "short", ArchiveKind::ToolResult)],
        );
        assert_eq!(
            applied.output[0]["content"][0]["output"],
            json!({"type": "text", "value": "short", "providerOptions": {"p": {"q": 1}}})
        );
    }

    #[test]
    fn media_top_level_and_nested_become_text_parts() {
        let messages = conversation();
        let applied = apply(
            &messages,
            &[
                replace(1, 1, "[media removed: image/webp]", ArchiveKind::Media),
                replace(1, 3, "[media removed: application/pdf]", ArchiveKind::Media),
                replace(3, 2, "[media removed: image/png]", ArchiveKind::Media),
            ],
        );
        assert_eq!(
            applied.output[1]["content"][1],
            json!({"type": "text", "text": "[media removed: image/webp]", "providerOptions": {"openai": {"imageDetail": "low"}}})
        );
        assert_eq!(
            applied.output[1]["content"][3],
            json!({"type": "text", "text": "[media removed: application/pdf]"})
        );
        let shot = &applied.output[3]["content"][1];
        assert_eq!(
            shot["output"]["value"][1],
            json!({"type": "text", "text": "[media removed: image/png]"})
        );
        assert_eq!(shot["providerOptions"], json!({"x": 1}));
        assert_eq!(
            shot["output"]["value"][2],
            messages[3]["content"][1]["output"]["value"][2]
        );
        assert_eq!(
            applied.archive[2].content,
            messages[3]["content"][1]["output"]["value"][1]
        );
        assert_eq!(
            applied.archive[2].location,
            "messages[3].content[1].output.value[1]"
        );
        let reread = read(&applied.output).expect("reads back");
        assert_eq!(
            reread.messages[3].blocks[1].text,
            "screen\n[media removed: image/png]"
        );
    }

    #[test]
    fn replacing_messages_and_text() {
        let messages = conversation();
        let applied = apply(
            &messages,
            &[
                Edit::ReplaceMessages {
                    range: 2..4,
                    text: Some("[digest of earlier tool runs] read, shot, lint".into()),
                    kind: ArchiveKind::Run,
                    is_summary: true,
                },
                replace(4, 0, "[stale block pruned]", ArchiveKind::Turn),
            ],
        );
        assert_eq!(
            applied.output[2],
            json!({"role": "assistant", "content": [{"type": "text", "text": "[digest of earlier tool runs] read, shot, lint"}]})
        );
        assert_eq!(
            applied.output[3],
            json!({"role": "assistant", "content": "[stale block pruned]"})
        );
        assert_eq!(applied.output.len(), 5);
        assert_eq!(applied.archive[1].content, json!("[age:9] Done."));
        assert_eq!(applied.archive[1].location, "messages[4].content");
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
        assert_eq!(location(2, 1), "messages[2].content[1].input");
        assert_eq!(location(3, 1), "messages[3].content[1].output");
        assert_eq!(location(3, 3), "messages[3].content[1].output.value[2]");
    }
}

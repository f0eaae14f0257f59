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

use super::adapter::{Adapter, MessageFields, Structured};
use super::common::{
    Content, Path, compact_json, content_location, content_of, finish_message, input_value,
    media_block, message_path, missing_block, object_at, object_field, optional_str, other_block,
    part_of, plain_payload, read_each, removed_plain_path, replace_plain_block, required_str,
    role_of, string_content, text_part, tool_call_not_replaceable,
};
use super::evidence::{Field, Seen};
use crate::error::Result;
use crate::result::PathStep;
use crate::transcript::{Block, BlockKind, Format, Message, Role, Transcript};
use serde_json::{Map, Value};
use std::borrow::Cow;

/// Wire role names, in the order error messages list them.
const ROLES: [(&str, Role); 2] = [("user", Role::User), ("assistant", Role::Assistant)];

/// The Anthropic Messages format's registration.
pub(crate) static ADAPTER: Adapter = Adapter {
    format: Format::Anthropic,
    name: "anthropic",
    label: "Anthropic",
    list_key: "messages",
    structured: Some(Structured {
        read_message,
        writer: &Writer,
        message_evidence,
        part_evidence,
        tool_definition,
        unique_tool_ids: true,
        string_list: false,
        link: None,
    }),
};

/// A Messages API tool: `{ name, description, input_schema }`.
fn tool_definition(name: &str, description: &str, schema: Value) -> Value {
    super::common::object(vec![
        ("name", name.into()),
        ("description", description.into()),
        ("input_schema", schema),
    ])
}

/// No message field is Anthropic's alone: its evidence is in its content blocks.
fn message_evidence(_: &MessageFields<'_>, _: &mut dyn FnMut(Field, Seen<'static>)) {}

/// Block types only the Messages API has.
fn part_evidence<'v>(part_type: &'v str, part: &Value) -> Option<Seen<'v>> {
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

/// Reads Messages API messages into a transcript, validating what the model needs.
pub fn read(messages: &[Value]) -> Result<Transcript<'_>> {
    read_each(messages, Format::Anthropic, read_message)
}

pub(crate) fn read_message(value: &Value, index: usize) -> Result<Message<'_>> {
    let path = message_path(ADAPTER.list_key, index);
    let object = object_at(value, &path)?;
    let role = role_of(object, &path, &ROLES)?;
    let blocks = match content_of(object, &path, false)? {
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
            "tool_result" => blocks.extend(tool_result_blocks(object, &part_path, index)?),
            _ => blocks.push(part_block(
                part,
                object,
                part_type,
                &part_path,
                vec![index],
            )?),
        }
    }
    Ok(blocks)
}

/// A top-level block other than a tool result.
fn part_block<'v>(
    part: &Value,
    object: &'v Map<String, Value>,
    part_type: &str,
    path: &Path<'_>,
    block_path: Vec<usize>,
) -> Result<Block<'v>> {
    let (kind, text) = match part_type {
        "text" => (
            BlockKind::Text,
            Cow::Borrowed(required_str(object, path, "text")?),
        ),
        "image" | "document" => return source_block(part, object, part_type, path, block_path),
        "tool_use" => (
            BlockKind::ToolCall {
                id: Cow::Borrowed(required_str(object, path, "id")?),
                name: Cow::Borrowed(required_str(object, path, "name")?),
            },
            Cow::Owned(object.get("input").map(compact_json).unwrap_or_default()),
        ),
        "thinking" => (
            BlockKind::Thinking,
            Cow::Borrowed(optional_str(object, "thinking").unwrap_or_default()),
        ),
        "redacted_thinking" => (
            BlockKind::Thinking,
            Cow::Borrowed(optional_str(object, "data").unwrap_or_default()),
        ),
        _ => return Ok(other_block(part, block_path)),
    };
    Ok(Block::new(kind, text, block_path))
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
fn tool_result_blocks<'v>(
    object: &'v Map<String, Value>,
    path: &Path<'_>,
    index: usize,
) -> Result<Vec<Block<'v>>> {
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

impl super::json::Writer for Writer {
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
                let call = content_part_mut(&mut message, *index)
                    .and_then(Value::as_object_mut)
                    .ok_or_else(|| missing_block(block))?;
                let input = input_value(call.get("input"), text);
                call.insert("input".into(), input);
            }
            (BlockKind::ToolCall { .. }, _) => return Err(tool_call_not_replaceable(block)),
            // The result keeps tool_use_id, is_error, cache_control; its body becomes a string.
            (BlockKind::ToolResult { .. }, [index]) => {
                let result = content_part_mut(&mut message, *index)
                    .and_then(Value::as_object_mut)
                    .ok_or_else(|| missing_block(block))?;
                result.insert("content".into(), Value::String(text.into()));
            }
            (_, [index, inner]) => {
                let part = content_part_mut(&mut message, *index)
                    .and_then(|result| result.get_mut("content")?.get_mut(*inner))
                    .ok_or_else(|| missing_block(block))?;
                *part = text_part(part, text);
            }
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
        crate::result::value_at(message, &path).map(|_| path)
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
        let location = content_location(ADAPTER.list_key, message_index, &block.path, ".content");
        match (&block.kind, block.path.as_slice()) {
            // The body, not the whole block: the id and flags stay in the output.
            (BlockKind::ToolResult { .. }, [_]) => format!("{location}.content"),
            (BlockKind::ToolCall { .. }, [_]) => format!("{location}.input"),
            _ => location,
        }
    }
}

fn content_part_mut(message: &mut Value, index: usize) -> Option<&mut Value> {
    message.get_mut("content")?.get_mut(index)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::json::Writer as _;
    use crate::formats::test_support::{apply_with, array, replace};
    use crate::formats::{Applied, apply_messages};
    use crate::plan::{ArchiveKind, Edit};
    use serde_json::json;

    fn conversation() -> Vec<Value> {
        array(json!([
            {"role": "user", "content": [
                {"type": "text", "text": "Fix the build", "cache_control": {"type": "ephemeral"}},
                {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0K"}},
                {"type": "document", "source": {"type": "url", "url": "https://x/spec.pdf"}, "title": "spec"}
            ]},
            {"role": "assistant", "content": [
                {"type": "thinking", "thinking": "Two reads.", "signature": "sig=="},
                {"type": "redacted_thinking", "data": "EqQB"},
                {"type": "text", "text": "Reading."},
                {"type": "tool_use", "id": "toolu_1", "name": "read", "input": {"path": "a.rs"}},
                {"type": "tool_use", "id": "toolu_2", "name": "screenshot", "input": {}}
            ], "x-custom": [1, 2]},
            {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "toolu_1", "content": "fn main() {}", "cache_control": {"type": "ephemeral"}},
                {"type": "tool_result", "tool_use_id": "toolu_2", "is_error": true, "content": [
                    {"type": "text", "text": "captured"},
                    {"type": "image", "source": {"type": "base64", "media_type": "image/jpeg", "data": "/9j/4AAQ"}, "cache_control": {"type": "ephemeral"}},
                    {"type": "search_result", "source": "s", "title": "t", "content": []},
                    {"type": "text", "text": "done"}
                ]},
                {"type": "text", "text": "[age:2] and also this"}
            ]},
            {"role": "assistant", "content": [
                {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {"query": "q"}},
                {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1", "content": []},
                {"type": "text", "text": "ok"}
            ]},
            {"role": "user", "content": "[session summary]\nall good"}
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

    fn result(id: &str, is_error: bool) -> BlockKind<'_> {
        BlockKind::ToolResult {
            id: Some(id.into()),
            name: None,
            is_error,
        }
    }

    #[test]
    fn reads_a_realistic_conversation() {
        let messages = conversation();
        let transcript = read(&messages).expect("reads");
        assert_eq!(transcript.format, Format::Anthropic);
        let m = &transcript.messages;
        assert_eq!(m[0].role, Role::User);
        assert_eq!(
            m[0].blocks,
            vec![
                block(BlockKind::Text, "Fix the build", &[0]),
                block(media("image/png", true), "iVBORw0K", &[1]),
                block(media("document", false), "https://x/spec.pdf", &[2]),
            ]
        );
        let call = |id: &str, name: &str| BlockKind::ToolCall {
            id: id.to_string().into(),
            name: name.to_string().into(),
        };
        assert_eq!(
            m[1].blocks,
            vec![
                block(BlockKind::Thinking, "Two reads.", &[0]),
                block(BlockKind::Thinking, "EqQB", &[1]),
                block(BlockKind::Text, "Reading.", &[2]),
                block(call("toolu_1", "read"), r#"{"path":"a.rs"}"#, &[3]),
                block(call("toolu_2", "screenshot"), "{}", &[4]),
            ]
        );
        let search = compact_json(&messages[2]["content"][1]["content"][2]);
        assert_eq!(
            m[2].blocks,
            vec![
                block(result("toolu_1", false), "fn main() {}", &[0]),
                block(
                    result("toolu_2", true),
                    &format!("captured\n{search}\ndone"),
                    &[1]
                ),
                block(media("image/jpeg", true), "/9j/4AAQ", &[1, 1]),
                block(BlockKind::Text, "[age:2] and also this", &[2]),
            ]
        );
        assert_eq!(m[2].explicit_age, Some(2));
        assert!(m[2].has_user_words());
        assert_eq!(m[3].blocks[0].kind, BlockKind::Other);
        assert_eq!(m[3].blocks[1].kind, BlockKind::Other);
        assert!(m[4].is_library_summary);
        assert_eq!(
            crate::transcript::pairing::misplaced_results(&transcript),
            Vec::<String>::new()
        );
    }

    #[test]
    fn sources_and_empty_results() {
        let messages = array(json!([
            {"role": "user", "content": [
                {"type": "image", "source": {"type": "url", "url": "https://x/a.png"}},
                {"type": "image", "source": {"type": "file", "file_id": "file_1"}},
                {"type": "document", "source": {"type": "text", "media_type": "text/plain", "data": "plain"}},
                {"type": "document", "source": {"type": "content", "content": [{"type": "text", "text": "c"}]}},
                {"type": "tool_result", "tool_use_id": "t"}
            ]}
        ]));
        let blocks = read(&messages).expect("reads").messages.remove(0).blocks;
        assert_eq!(
            blocks[0],
            block(media("image", false), "https://x/a.png", &[0])
        );
        assert_eq!(blocks[1], block(media("image", false), "file_1", &[1]));
        assert_eq!(blocks[2], block(media("text/plain", true), "plain", &[2]));
        assert_eq!(blocks[3].kind, BlockKind::Other);
        assert_eq!(blocks[4], block(result("t", false), "", &[4]));
    }

    #[test]
    fn errors_name_the_field() {
        let cases = [
            (
                json!([{"role": "user", "content": "a"}, 7]),
                "messages[1]: expected an object, got number",
            ),
            (
                json!([{"role": "system", "content": "s"}]),
                "messages[0].role: expected one of \"user\", \"assistant\", got \"system\"",
            ),
            (
                json!([{"role": "user", "content": null}]),
                "messages[0].content: expected string or array of parts, got null",
            ),
            (
                json!([{"role": "assistant", "content": [{"type": "tool_use", "name": "f", "input": {}}]}]),
                "messages[0].content[0].id is required",
            ),
            (
                json!([{"role": "assistant", "content": [{"type": "tool_use", "id": "t", "input": {}}]}]),
                "messages[0].content[0].name is required",
            ),
            (
                json!([{"role": "user", "content": [{"type": "tool_result", "content": "x"}]}]),
                "messages[0].content[0].tool_use_id is required",
            ),
            (
                json!([{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t", "content": 3}]}]),
                "messages[0].content[0].content: expected string or array of parts, got number",
            ),
            (
                json!([{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t", "content": [{"type": "image"}]}]}]),
                "messages[0].content[0].content[0].source is required",
            ),
            (
                json!([{"role": "user", "content": [{"type": "image", "source": {"type": "base64", "media_type": "image/png"}}]}]),
                "messages[0].content[0].source.data is required",
            ),
            (
                json!([{"role": "user", "content": [{"type": "image", "source": "x"}]}]),
                "messages[0].content[0].source: expected an object, got string",
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
    fn tool_result_bodies_become_strings() {
        let messages = conversation();
        let applied = apply(
            &messages,
            &[
                replace(2, 0, "fn [pruned]", ArchiveKind::ToolResult),
                replace(2, 1, "captured [pruned]", ArchiveKind::ToolResult),
            ],
        );
        let content = &applied.output[2]["content"];
        assert_eq!(
            content[0],
            json!({"type": "tool_result", "tool_use_id": "toolu_1", "content": "fn [pruned]", "cache_control": {"type": "ephemeral"}})
        );
        assert_eq!(
            content[1],
            json!({"type": "tool_result", "tool_use_id": "toolu_2", "is_error": true, "content": "captured [pruned]"})
        );
        assert_eq!(content[2], messages[2]["content"][2]);
        for index in [0, 1, 3, 4] {
            assert_eq!(applied.output[index], messages[index]);
        }
        assert_eq!(applied.archive[0].content, json!("fn main() {}"));
        assert_eq!(
            applied.archive[0].location,
            "messages[2].content[0].content"
        );
        assert_eq!(
            applied.archive[1].content,
            messages[2]["content"][1]["content"]
        );
        let reread = read(&applied.output).expect("reads back");
        assert_eq!(
            reread.messages[2].blocks.len(),
            3,
            "the nested image went with the body"
        );
        assert_eq!(reread.messages[2].blocks[1].kind, result("toolu_2", true));
    }

    #[test]
    fn media_top_level_and_nested_become_text_parts() {
        let messages = conversation();
        let applied = apply(
            &messages,
            &[
                replace(0, 1, "[media removed: image/png]", ArchiveKind::Media),
                replace(2, 2, "[media removed: image/jpeg]", ArchiveKind::Media),
            ],
        );
        assert_eq!(
            applied.output[0]["content"][1],
            json!({"type": "text", "text": "[media removed: image/png]"})
        );
        assert_eq!(
            applied.output[2]["content"][1]["content"][1],
            json!({"type": "text", "text": "[media removed: image/jpeg]", "cache_control": {"type": "ephemeral"}})
        );
        assert_eq!(
            applied.output[2]["content"][1]["is_error"],
            json!(true),
            "the result around the image is kept"
        );
        assert_eq!(applied.archive[0].content, messages[0]["content"][1]);
        assert_eq!(
            applied.archive[1].content,
            messages[2]["content"][1]["content"][1]
        );
        assert_eq!(
            applied.archive[1].location,
            "messages[2].content[1].content[1]"
        );
    }

    #[test]
    fn thinking_and_text_replacements() {
        let messages = conversation();
        let applied = apply(
            &messages,
            &[
                replace(1, 0, "[stale block pruned]", ArchiveKind::Turn),
                replace(1, 2, "[stale block pruned]", ArchiveKind::Turn),
                replace(4, 0, "new summary", ArchiveKind::Session),
            ],
        );
        let content = &applied.output[1]["content"];
        assert_eq!(
            content[0],
            json!({"type": "text", "text": "[stale block pruned]"})
        );
        assert_eq!(
            content[2],
            json!({"type": "text", "text": "[stale block pruned]"})
        );
        assert_eq!(applied.output[1]["x-custom"], json!([1, 2]));
        assert_eq!(applied.archive[0].content, messages[1]["content"][0]);
        assert_eq!(applied.archive[1].content, json!("Reading."));
        assert_eq!(
            applied.output[4],
            json!({"role": "user", "content": "new summary"})
        );
        assert_eq!(applied.archive[2].location, "messages[4].content");
    }

    #[test]
    fn replacing_messages_writes_a_text_block() {
        let messages = conversation();
        let applied = apply(
            &messages,
            &[Edit::ReplaceMessages {
                range: 1..4,
                text: Some("[summary of earlier tool runs] read a.rs".into()),
                kind: ArchiveKind::Run,
                is_summary: true,
            }],
        );
        assert_eq!(
            applied.output,
            vec![
                messages[0].clone(),
                json!({"role": "assistant", "content": [{"type": "text", "text": "[summary of earlier tool runs] read a.rs"}]}),
                messages[4].clone(),
            ]
        );
        assert_eq!(applied.archive[0].location, "messages[1..4]");
    }

    #[test]
    fn tool_use_keeps_its_id_with_a_stubbed_input_and_overlapping_edits_fail() {
        let messages = conversation();
        let transcript = read(&messages).expect("reads");
        let applied = apply_messages(
            &messages,
            &transcript,
            &[replace(
                1,
                3,
                r#"{"path":"[stub]"}"#,
                ArchiveKind::ToolInput,
            )],
        )
        .expect("applies");
        let call = &applied.output[1]["content"][3];
        assert_eq!(call["id"], "toolu_1");
        assert_eq!(call["input"], json!({"path": "[stub]"}));
        assert_eq!(
            applied.archive[0].content,
            messages[1]["content"][3]["input"]
        );
        // The nested image is gone once its result's body is replaced: a plan must not do both.
        let error = apply_messages(
            &messages,
            &transcript,
            &[
                replace(2, 1, "x", ArchiveKind::ToolResult),
                replace(2, 2, "y", ArchiveKind::Media),
            ],
        )
        .unwrap_err();
        assert_eq!(error.path, "plan");
    }

    #[test]
    fn locations() {
        let messages = conversation();
        let transcript = read(&messages).expect("reads");
        let location = |message: usize, block: usize| {
            Writer.location(
                &messages[message],
                message,
                &transcript.messages[message].blocks[block],
            )
        };
        assert_eq!(location(0, 1), "messages[0].content[1]");
        assert_eq!(location(1, 3), "messages[1].content[3].input");
        assert_eq!(location(2, 2), "messages[2].content[1].content[1]");
        assert_eq!(location(4, 0), "messages[4].content");
    }
}

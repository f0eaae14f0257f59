//! Which wire format a `messages` array is in, and the message-shape helpers the three JSON
//! adapters share (field access that names field paths in its errors, the final [`Message`],
//! the text part that replaces a block).
//!
//! Detection looks for positive evidence only: a part type, field or role that exists in one
//! format and not the others. The first piece of evidence decides; a later piece that points
//! elsewhere is an error naming both places, because guessing would make one of the readers
//! mangle the other's messages. Plain `{role, content: string}` lists are valid in all three
//! formats and are read as OpenAI (the most common host format, and the reader that accepts the
//! widest set of roles).
//!
//! The shared helpers live here because detection is the first code to look at every message;
//! they would sit better in a `formats/common.rs` of their own.

use crate::error::{CompactionError, Result};
use crate::pressure::json_type;
use crate::transcript::{Block, BlockKind, Format, Message, Role, Source};
use serde_json::{Map, Value};

/// Detects the format of structured messages from their roles, fields and part types.
///
/// An empty list, or one without any format-specific evidence, is OpenAI. Contradictory
/// evidence is a type error at the field that contradicts the first evidence found.
pub fn detect(messages: &[Value]) -> Result<Format> {
    Ok(first_evidence(messages)?.map_or(Format::OpenAi, |evidence| evidence.format))
}

/// One piece of format-specific evidence: which format, where, and what was seen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Evidence {
    /// The format the evidence points to.
    pub format: Format,
    /// Index of the message it was found in.
    pub message: usize,
    /// Field path of the evidence (`messages[5].content[0].type`).
    pub path: String,
    /// What was seen, quoted (`"tool_use"`).
    pub what: String,
}

impl Evidence {
    /// The error for `self` contradicting `first`.
    pub(crate) fn contradicts(&self, first: &Evidence) -> CompactionError {
        CompactionError::type_error(
            self.path.clone(),
            format!(
                ": {} is {} but messages[{}] is {}",
                self.what,
                format_name(self.format),
                first.message,
                format_name(first.format)
            ),
        )
    }
}

/// The first piece of evidence in `messages`, after checking that no later one contradicts it.
pub(crate) fn first_evidence(messages: &[Value]) -> Result<Option<Evidence>> {
    let mut first: Option<Evidence> = None;
    for (index, message) in messages.iter().enumerate() {
        for evidence in message_evidence(message, index) {
            match &first {
                None => first = Some(evidence),
                Some(seen) if seen.format != evidence.format => {
                    return Err(evidence.contradicts(seen));
                }
                Some(_) => {}
            }
        }
    }
    Ok(first)
}

/// The name a person would use for a format in an error message.
pub(crate) fn format_name(format: Format) -> &'static str {
    match format {
        Format::OpenAi => "OpenAI",
        Format::Anthropic => "Anthropic",
        Format::AiSdk => "AI SDK",
        Format::Text => "text",
    }
}

/// Evidence found in one message, in field order. Malformed messages give none: the reader
/// reports them with a better message than detection could.
fn message_evidence(message: &Value, index: usize) -> Vec<Evidence> {
    let Some(object) = message.as_object() else {
        return Vec::new();
    };
    let path = message_path(index);
    let found = |format, field: &str, what: &str| Evidence {
        format,
        message: index,
        path: format!("{path}.{field}"),
        what: what.to_string(),
    };
    let mut evidence = Vec::new();
    let role = object.get("role").and_then(Value::as_str);
    if role == Some("developer") {
        evidence.push(found(Format::OpenAi, "role", "\"developer\""));
    }
    if object
        .get("tool_calls")
        .is_some_and(|calls| !calls.is_null())
    {
        evidence.push(found(Format::OpenAi, "tool_calls", "\"tool_calls\""));
    }
    if role == Some("tool") && object.contains_key("tool_call_id") {
        evidence.push(found(Format::OpenAi, "tool_call_id", "\"tool_call_id\""));
    }
    // Only OpenAI lets an assistant message carry `content: null` (beside its tool calls).
    if role == Some("assistant") && object.get("content").is_some_and(Value::is_null) {
        evidence.push(found(Format::OpenAi, "content", "null"));
    }
    if let Some(parts) = object.get("content").and_then(Value::as_array) {
        for (part_index, part) in parts.iter().enumerate() {
            if let Some((format, what)) = part_evidence(part) {
                evidence.push(found(format, &format!("content[{part_index}].type"), &what));
            }
        }
    }
    evidence
}

/// The format a content part's type belongs to, if only one format has it.
fn part_evidence(part: &Value) -> Option<(Format, String)> {
    let part_type = part.get("type")?.as_str()?;
    let has = |field: &str| part.get(field).is_some();
    let format = match part_type {
        "image_url" | "input_audio" | "refusal" => Format::OpenAi,
        "file" if has("file") => Format::OpenAi,
        "file" if has("data") => Format::AiSdk,
        "image" if has("source") => Format::Anthropic,
        "image" if has("image") => Format::AiSdk,
        "tool_use"
        | "tool_result"
        | "thinking"
        | "redacted_thinking"
        | "document"
        | "server_tool_use"
        | "web_search_tool_result"
        | "search_result" => Format::Anthropic,
        "tool-call" | "tool-result" | "reasoning" | "redacted-reasoning" => Format::AiSdk,
        _ => return None,
    };
    let what = match (part_type, format) {
        ("image", Format::Anthropic) => "\"image\" with a source".to_string(),
        ("image", _) => "\"image\" with an image field".to_string(),
        ("file", Format::OpenAi) => "\"file\" with a file field".to_string(),
        ("file", _) => "\"file\" with a data field".to_string(),
        _ => format!("{part_type:?}"),
    };
    Some((format, what))
}

// ---------------------------------------------------------------------------------------------
// Shape helpers shared by the JSON adapters.
// ---------------------------------------------------------------------------------------------

/// The field path of message `index`: `messages[3]`.
pub(crate) fn message_path(index: usize) -> String {
    format!("messages[{index}]")
}

/// `value` as an object, or a type error at `path` (`messages[3]: expected an object, got string`).
pub(crate) fn object_at<'a>(value: &'a Value, path: &str) -> Result<&'a Map<String, Value>> {
    value.as_object().ok_or_else(|| {
        CompactionError::type_error(
            path,
            format!(": expected an object, got {}", json_type(value)),
        )
    })
}

/// The required object field `field` of `object` at `path`.
pub(crate) fn object_field<'a>(
    object: &'a Map<String, Value>,
    path: &str,
    field: &str,
) -> Result<&'a Map<String, Value>> {
    let field_path = format!("{path}.{field}");
    match object.get(field) {
        None => Err(CompactionError::type_error(field_path, "is required")),
        Some(value) => object_at(value, &field_path),
    }
}

/// The message's role, looked up in `roles` (wire name → role). The error lists the wire names.
pub(crate) fn role_of(
    object: &Map<String, Value>,
    path: &str,
    roles: &[(&str, Role)],
) -> Result<Role> {
    let value = object.get("role");
    let known = value
        .and_then(Value::as_str)
        .and_then(|name| roles.iter().find(|(wire, _)| *wire == name));
    if let Some((_, role)) = known {
        return Ok(*role);
    }
    let expected = roles
        .iter()
        .map(|(wire, _)| format!("{wire:?}"))
        .collect::<Vec<_>>()
        .join(", ");
    let got = match value {
        None => "undefined".to_string(),
        Some(Value::String(name)) => format!("{name:?}"),
        Some(other) => json_type(other).to_string(),
    };
    Err(CompactionError::type_error(
        format!("{path}.role"),
        format!(": expected one of {expected}, got {got}"),
    ))
}

/// A message's `content`, in the two shapes every format allows.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Content<'a> {
    /// A plain string.
    Text(&'a str),
    /// An array of parts.
    Parts(&'a [Value]),
    /// `null` or missing.
    Absent,
}

/// Reads `object.content`; `null` or missing is [`Content::Absent`] when `absent_ok`, else an
/// error like any other wrong type.
pub(crate) fn content_of<'a>(
    object: &'a Map<String, Value>,
    path: &str,
    absent_ok: bool,
) -> Result<Content<'a>> {
    let value = object.get("content");
    match value {
        Some(Value::String(text)) => Ok(Content::Text(text)),
        Some(Value::Array(parts)) => Ok(Content::Parts(parts)),
        None | Some(Value::Null) if absent_ok => Ok(Content::Absent),
        _ => Err(CompactionError::type_error(
            format!("{path}.content"),
            format!(
                ": expected string or array of parts, got {}",
                value.map_or("undefined", json_type)
            ),
        )),
    }
}

/// A content part as an object, with its `type`.
pub(crate) fn part_of<'a>(
    part: &'a Value,
    path: &str,
) -> Result<(&'a Map<String, Value>, &'a str)> {
    let object = object_at(part, path)?;
    let part_type = required_str(object, path, "type")?;
    Ok((object, part_type))
}

/// The required string field `field` of `object` at `path`.
pub(crate) fn required_str<'a>(
    object: &'a Map<String, Value>,
    path: &str,
    field: &str,
) -> Result<&'a str> {
    match object.get(field) {
        Some(Value::String(text)) => Ok(text),
        None => Err(CompactionError::type_error(
            format!("{path}.{field}"),
            "is required",
        )),
        Some(other) => Err(CompactionError::type_error(
            format!("{path}.{field}"),
            format!("must be a string, got {}", json_type(other)),
        )),
    }
}

/// The optional string field `field` of `object` (absent, `null` or another type is `None`).
pub(crate) fn optional_str<'a>(object: &'a Map<String, Value>, field: &str) -> Option<&'a str> {
    object.get(field).and_then(Value::as_str)
}

/// `value` as text: a string as is, anything else as compact JSON. Tool arguments and results
/// arrive both ways; either way this is what a model would read.
pub(crate) fn text_or_json(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        other => compact_json(other),
    }
}

/// Compact JSON of `value` (serde_json's `Display`, which cannot fail for a `Value`).
pub(crate) fn compact_json(value: &Value) -> String {
    value.to_string()
}

/// The media type of a `data:` URI (`data:image/png;base64,...` → `image/png`).
pub(crate) fn data_uri_media_type(uri: &str) -> Option<&str> {
    let rest = uri.strip_prefix("data:")?;
    let end = rest.find([';', ','])?;
    let media_type = &rest[..end];
    (!media_type.is_empty()).then_some(media_type)
}

/// A media block for data that may be a `data:` URI, a URL or bare base64.
pub(crate) fn media_block(
    data: &str,
    media_type: Option<&str>,
    fallback: &str,
    path: Vec<usize>,
) -> Block {
    let is_url = data.starts_with("http://") || data.starts_with("https://");
    let media_type = media_type
        .or_else(|| data_uri_media_type(data))
        .unwrap_or(fallback)
        .to_string();
    Block {
        kind: BlockKind::Media {
            media_type,
            inline: !is_url,
        },
        text: data.to_string(),
        path,
    }
}

/// A part kept as it is and counted by its JSON text.
pub(crate) fn other_block(part: &Value, path: Vec<usize>) -> Block {
    Block {
        kind: BlockKind::Other,
        text: compact_json(part),
        path,
    }
}

/// The blocks of a plain-string content: one text block at path `[]`.
pub(crate) fn string_content(text: &str) -> Vec<Block> {
    vec![Block {
        kind: BlockKind::Text,
        text: text.to_string(),
        path: Vec::new(),
    }]
}

/// The finished message: its explicit age and library-summary flag come from its first text block.
pub(crate) fn finish_message(role: Role, blocks: Vec<Block>, index: usize) -> Message {
    let first_text = blocks
        .iter()
        .find(|block| block.kind == BlockKind::Text)
        .map(|block| block.text.as_str());
    Message {
        role,
        explicit_age: first_text.and_then(crate::transcript::parse_age_tag),
        is_library_summary: first_text.is_some_and(crate::markers::is_library_text),
        blocks,
        source: Source::Index(index),
    }
}

/// Fields of a replaced part that a text part carries on: prompt-cache breakpoints and provider
/// options apply to the position in the prompt, not to what was there.
const CARRIED_FIELDS: [&str; 3] = ["cache_control", "providerOptions", "providerMetadata"];

/// The text part that takes the place of `replaced` (media, thinking, an unknown part).
pub(crate) fn text_part(replaced: &Value, text: &str) -> Value {
    let mut part = Map::new();
    part.insert("type".into(), Value::String("text".into()));
    part.insert("text".into(), Value::String(text.into()));
    for field in CARRIED_FIELDS {
        if let Some(value) = replaced.get(field) {
            part.insert(field.into(), value.clone());
        }
    }
    Value::Object(part)
}

/// The error for an edit whose block is not where the transcript says (a plan applied to other
/// messages than it was made for, or two edits of the same content).
pub(crate) fn missing_block(block: &Block) -> CompactionError {
    CompactionError::range_error(
        "plan",
        format!(
            "block at content path {:?} does not exist in its message",
            block.path
        ),
    )
}

/// The error for an edit that would replace a tool call by text: its result would be orphaned.
pub(crate) fn tool_call_not_replaceable(block: &Block) -> CompactionError {
    CompactionError::range_error(
        "plan",
        format!(
            "tool call {:?} cannot be replaced by text (its result would be orphaned); replace its messages",
            block.tool_id().unwrap_or_default()
        ),
    )
}

/// `message` with a block that is not a tool call or tool result (text, media, thinking, an
/// unknown part) replaced by `text`. Text keeps its part and gets new `text`; anything else
/// becomes a text part. Nested blocks are the adapter's business and are rejected here.
pub(crate) fn replace_plain_block(message: &mut Value, block: &Block, text: &str) -> Result<()> {
    let content = message
        .get_mut("content")
        .ok_or_else(|| missing_block(block))?;
    match block.path.as_slice() {
        [] => *content = Value::String(text.into()),
        [index] => {
            let part = content
                .get_mut(*index)
                .ok_or_else(|| missing_block(block))?;
            match part.as_object_mut() {
                Some(object) if block.kind == BlockKind::Text && object.contains_key("text") => {
                    object.insert("text".into(), Value::String(text.into()));
                }
                _ => *part = text_part(part, text),
            }
        }
        _ => return Err(missing_block(block)),
    }
    Ok(())
}

/// What [`replace_plain_block`] removes: the string content, a text part's `text`, or the part.
pub(crate) fn removed_plain_block(message: &Value, block: &Block) -> Value {
    let Some(content) = message.get("content") else {
        return Value::Null;
    };
    let removed = match block.path.as_slice() {
        [] => Some(content),
        [index] => content.get(*index).map(|part| match part.get("text") {
            Some(text) if block.kind == BlockKind::Text => text,
            _ => part,
        }),
        _ => None,
    };
    removed.cloned().unwrap_or(Value::Null)
}

/// `messages[i].content`, `messages[i].content[a]`, or `messages[i].content[a]{nested}[b]` for
/// a block nested in a tool result (`nested` is `.content` or `.output.value`).
pub(crate) fn content_location(message_index: usize, path: &[usize], nested: &str) -> String {
    let mut location = format!("{}.content", message_path(message_index));
    for (depth, index) in path.iter().enumerate() {
        if depth > 0 {
            location.push_str(nested);
        }
        location.push_str(&format!("[{index}]"));
    }
    location
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn detect_one(messages: Value) -> Result<Format> {
        match messages {
            Value::Array(messages) => detect(&messages),
            _ => panic!("test input must be an array"),
        }
    }

    #[test]
    fn detection_table() {
        let cases: Vec<(&str, Value, Format)> = vec![
            ("empty", json!([]), Format::OpenAi),
            (
                "plain strings",
                json!([{"role":"user","content":"hi"},{"role":"assistant","content":"yo"}]),
                Format::OpenAi,
            ),
            (
                "openai tool_calls",
                json!([{"role":"assistant","content":null,"tool_calls":[]}]),
                Format::OpenAi,
            ),
            (
                "openai tool message",
                json!([{"role":"tool","tool_call_id":"c1","content":"ok"}]),
                Format::OpenAi,
            ),
            (
                "openai developer",
                json!([{"role":"developer","content":"x"}]),
                Format::OpenAi,
            ),
            (
                "openai image_url",
                json!([{"role":"user","content":[{"type":"image_url","image_url":{"url":"https://x"}}]}]),
                Format::OpenAi,
            ),
            (
                "openai input_audio",
                json!([{"role":"user","content":[{"type":"input_audio","input_audio":{"data":"AA","format":"wav"}}]}]),
                Format::OpenAi,
            ),
            (
                "anthropic tool_use",
                json!([{"role":"user","content":"go"},{"role":"assistant","content":[{"type":"tool_use","id":"t","name":"n","input":{}}]}]),
                Format::Anthropic,
            ),
            (
                "anthropic thinking",
                json!([{"role":"assistant","content":[{"type":"thinking","thinking":"hm","signature":"s"}]}]),
                Format::Anthropic,
            ),
            (
                "anthropic image",
                json!([{"role":"user","content":[{"type":"image","source":{"type":"url","url":"https://x"}}]}]),
                Format::Anthropic,
            ),
            (
                "ai-sdk tool-call",
                json!([{"role":"assistant","content":[{"type":"tool-call","toolCallId":"c","toolName":"n","input":{}}]}]),
                Format::AiSdk,
            ),
            (
                "ai-sdk tool role",
                json!([{"role":"tool","content":[{"type":"tool-result","toolCallId":"c","toolName":"n","output":{"type":"text","value":"x"}}]}]),
                Format::AiSdk,
            ),
            (
                "ai-sdk reasoning",
                json!([{"role":"assistant","content":[{"type":"reasoning","text":"hm"}]}]),
                Format::AiSdk,
            ),
            (
                "ai-sdk image",
                json!([{"role":"user","content":[{"type":"image","image":"AAAA"}]}]),
                Format::AiSdk,
            ),
            (
                "ai-sdk file",
                json!([{"role":"user","content":[{"type":"file","data":"AAAA","mediaType":"application/pdf"}]}]),
                Format::AiSdk,
            ),
            (
                "text parts only",
                json!([{"role":"user","content":[{"type":"text","text":"hi"}]}]),
                Format::OpenAi,
            ),
            (
                "malformed messages are left to the reader",
                json!(["x", 3, {"role":"user","content":[{"type":"tool_result","tool_use_id":"t"}]}]),
                Format::Anthropic,
            ),
        ];
        for (name, messages, expected) in cases {
            assert_eq!(detect_one(messages), Ok(expected), "{name}");
        }
    }

    #[test]
    fn contradiction_names_both_places() {
        let messages = json!([
            {"role":"system","content":"s"},
            {"role":"user","content":"u"},
            {"role":"assistant","content":null,"tool_calls":[{"id":"c","type":"function","function":{"name":"f","arguments":"{}"}}]},
            {"role":"tool","tool_call_id":"c","content":"ok"},
            {"role":"user","content":"u2"},
            {"role":"assistant","content":[{"type":"tool_use","id":"t","name":"n","input":{}}]}
        ]);
        let error = detect_one(messages).unwrap_err();
        assert_eq!(
            error.to_string(),
            "messages[5].content[0].type: \"tool_use\" is Anthropic but messages[2] is OpenAI"
        );
        assert_eq!(error.kind, crate::error::ErrorKind::Type);
    }

    #[test]
    fn contradiction_inside_one_message() {
        let messages = json!([
            {"role":"user","content":[{"type":"tool-result","toolCallId":"c","toolName":"n","output":{"type":"text","value":"x"}},
                                     {"type":"tool_result","tool_use_id":"c"}]}
        ]);
        assert_eq!(
            detect_one(messages).unwrap_err().to_string(),
            "messages[0].content[1].type: \"tool_result\" is Anthropic but messages[0] is AI SDK"
        );
    }

    #[test]
    fn role_errors_list_the_roles() {
        let roles = [("user", Role::User), ("assistant", Role::Assistant)];
        let object = json!({"role": "bot"});
        let object = object.as_object().unwrap();
        assert_eq!(
            role_of(object, "messages[3]", &roles)
                .unwrap_err()
                .to_string(),
            "messages[3].role: expected one of \"user\", \"assistant\", got \"bot\""
        );
        let object = json!({"content": "x"});
        assert_eq!(
            role_of(object.as_object().unwrap(), "messages[0]", &roles)
                .unwrap_err()
                .to_string(),
            "messages[0].role: expected one of \"user\", \"assistant\", got undefined"
        );
        let object = json!({"role": 7});
        assert_eq!(
            role_of(object.as_object().unwrap(), "messages[0]", &roles)
                .unwrap_err()
                .to_string(),
            "messages[0].role: expected one of \"user\", \"assistant\", got number"
        );
    }

    #[test]
    fn data_uris() {
        assert_eq!(
            data_uri_media_type("data:image/png;base64,AAA"),
            Some("image/png")
        );
        assert_eq!(
            data_uri_media_type("data:text/plain,hi"),
            Some("text/plain")
        );
        assert_eq!(data_uri_media_type("data:;base64,AAA"), None);
        assert_eq!(data_uri_media_type("https://x/y.png"), None);
        assert_eq!(data_uri_media_type("data:nothing"), None);
    }

    #[test]
    fn text_part_carries_cache_and_provider_fields() {
        let part = json!({"type":"image","source":{},"cache_control":{"type":"ephemeral"},
                          "providerOptions":{"a":1},"custom":true});
        assert_eq!(
            text_part(&part, "gone"),
            json!({"type":"text","text":"gone","cache_control":{"type":"ephemeral"},"providerOptions":{"a":1}})
        );
    }

    #[test]
    fn locations() {
        assert_eq!(content_location(3, &[], ".content"), "messages[3].content");
        assert_eq!(
            content_location(3, &[1], ".content"),
            "messages[3].content[1]"
        );
        assert_eq!(
            content_location(3, &[1, 0], ".content"),
            "messages[3].content[1].content[0]"
        );
        assert_eq!(
            content_location(3, &[0, 1], ".output.value"),
            "messages[3].content[0].output.value[1]"
        );
    }
}

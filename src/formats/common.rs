//! Message-shape helpers the JSON adapters share: field access whose errors name the field path,
//! roles, and the edits of a message their writers share (the text part that replaces a block,
//! parts removed, messages merged). What reading a message shares is in `walk`.

use crate::api::result::{PathStep, value_at_mut};
pub(crate) use crate::base::json::compact_json;
use crate::error::{CompactionError, Result};
use crate::policy::pressure::json_type;
use crate::transcript::{Block, BlockKind, Role};
use serde_json::{Map, Value};
use std::borrow::Cow;
use std::fmt;

/// A JSON object: a message, a part, a field of one.
pub(crate) type Object = Map<String, Value>;

/// Where a value sits in the caller's messages (`messages[3].content[1].output`), written out
/// only when an error names it: formatting the path of every message and part up front was
/// about 6 % of a structural call. The variants write `messages[3]` (the list's key and the
/// message's index), `<parent>.<field>` and `<parent>.<field>[<index>]`.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Path<'a> {
    Message(&'static str, usize),
    Field(&'a Path<'a>, &'a str),
    Item(&'a Path<'a>, &'a str, usize),
}

impl<'a> Path<'a> {
    /// `<self>.<field>`.
    pub(crate) fn field(&'a self, field: &'a str) -> Path<'a> {
        Path::Field(self, field)
    }

    /// `<self>.<field>[<index>]`.
    pub(crate) fn item(&'a self, field: &'a str, index: usize) -> Path<'a> {
        Path::Item(self, field, index)
    }
}

impl fmt::Display for Path<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Path::Message(list, index) => write!(f, "{list}[{index}]"),
            Path::Field(parent, field) => write!(f, "{parent}.{field}"),
            Path::Item(parent, field, index) => write!(f, "{parent}.{field}[{index}]"),
        }
    }
}

/// `value` as an object, or a type error at `path` (`messages[3]: expected an object, got string`).
pub(crate) fn object_at<'a>(value: &'a Value, path: &Path<'_>) -> Result<&'a Object> {
    value
        .as_object()
        .ok_or_else(|| expected(path, "an object", value))
}

/// The error for the field `field` of the value at `path`, which is required and missing.
pub(crate) fn required(path: &Path<'_>, field: &str) -> CompactionError {
    CompactionError::type_error(format!("{path}.{field}"), "is required")
}

/// The error for `got` at `at` where `what` was expected (`: expected an array, got string`).
pub(crate) fn expected(at: impl fmt::Display, what: &str, got: &Value) -> CompactionError {
    CompactionError::type_error(
        at.to_string(),
        format!(": expected {what}, got {}", json_type(got)),
    )
}

/// The required object field `field` of `object` at `path`.
pub(crate) fn object_field<'a>(
    object: &'a Object,
    path: &Path<'_>,
    field: &str,
) -> Result<&'a Object> {
    match lookup(object, field) {
        Some(Value::Object(fields)) => Ok(fields),
        None => Err(required(path, field)),
        Some(value) => object_at(value, &path.field(field)),
    }
}

/// `object[key]`. A message or part has a handful of fields: comparing their keys costs less
/// than hashing `key` (IndexMap's `get`, about 200 instructions a lookup natively; 30,000 lookups
/// reading a 3,275-message conversation).
pub(crate) fn lookup<'a>(object: &'a Object, key: &str) -> Option<&'a Value> {
    if object.len() > SCANNED_FIELDS {
        return object.get(key);
    }
    object
        .iter()
        .find(|(name, _)| name.as_str() == key)
        .map(|(_, value)| value)
}

/// Objects of at most this many fields are searched key by key ([`lookup`]).
const SCANNED_FIELDS: usize = 8;

/// The role of a wire role `name` when the format has it (`names`, the format's wire role
/// names): Gemini's `model` is the assistant's, its `function` (function responses) the tool's.
pub(crate) fn named_role(name: &str, names: &[&str]) -> Option<Role> {
    if !names.contains(&name) {
        return None;
    }
    Some(match name {
        "system" => Role::System,
        "developer" => Role::Developer,
        "user" => Role::User,
        "assistant" | "model" => Role::Assistant,
        "tool" | "function" => Role::Tool,
        _ => return None,
    })
}

/// The message's role, one of the format's wire role `names`. The error lists them.
pub(crate) fn role_of(object: &Object, path: &Path<'_>, names: &[&str]) -> Result<Role> {
    let value = lookup(object, "role");
    if let Some(role) = value
        .and_then(Value::as_str)
        .and_then(|name| named_role(name, names))
    {
        return Ok(role);
    }
    let expected = names
        .iter()
        .map(|name| format!("{name:?}"))
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

/// A message's `content`, in the two shapes every format allows (a string, an array of parts),
/// or `null` / missing.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Content<'a> {
    Text(&'a str),
    Parts(&'a [Value]),
    Absent,
}

/// Reads `object.content`; `null` or missing is [`Content::Absent`] when `absent_ok`, else an
/// error like any other wrong type.
pub(crate) fn content_of<'a>(
    object: &'a Object,
    path: &Path<'_>,
    absent_ok: bool,
) -> Result<Content<'a>> {
    let value = lookup(object, "content");
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

/// Part `index` of `message.content` as an object to edit (a tool call, a tool result), or the
/// error for a block that is not there.
pub(crate) fn part_object_mut<'m>(
    message: &'m mut Value,
    index: usize,
    block: &Block,
) -> Result<&'m mut Object> {
    message
        .get_mut("content")
        .and_then(|content| content.get_mut(index))
        .and_then(Value::as_object_mut)
        .ok_or_else(|| missing_block(block))
}

/// The required string field `key` of `object` at `path`.
pub(crate) fn required_str<'a>(object: &'a Object, path: &Path<'_>, key: &str) -> Result<&'a str> {
    match lookup(object, key) {
        Some(Value::String(text)) => Ok(text),
        None => Err(required(path, key)),
        Some(other) => Err(CompactionError::type_error(
            format!("{path}.{key}"),
            format!("must be a string, got {}", json_type(other)),
        )),
    }
}

/// The optional string field `field` of `object` (absent, `null` or another type is `None`).
pub(crate) fn optional_str<'a>(object: &'a Object, field: &str) -> Option<&'a str> {
    lookup(object, field).and_then(Value::as_str)
}

/// `value` as text: a string as is, anything else as compact JSON. Tool arguments and results
/// arrive both ways; either way this is what a model would read.
pub(crate) fn text_or_json(value: &Value) -> Cow<'_, str> {
    match value {
        Value::String(text) => Cow::Borrowed(text),
        other => Cow::Owned(compact_json(other)),
    }
}

/// A JSON object of `entries`, in order: what `json!({ "key": value, ... })` builds, without
/// the macro's `to_value` on each entry, which for a `Value` (a tool's schema, a stub) serialises
/// it into a copy and keeps a serializer into `Value` for it in the wasm.
pub(crate) fn object(entries: Vec<(&str, Value)>) -> Value {
    let mut fields = Map::with_capacity(entries.len());
    for (key, value) in entries {
        fields.insert(key.to_owned(), value);
    }
    Value::Object(fields)
}

/// The media type of a `data:` URI (`data:image/png;base64,...` → `image/png`).
pub(crate) fn data_uri_media_type(uri: &str) -> Option<&str> {
    let rest = uri.strip_prefix("data:")?;
    let end = rest.find([';', ','])?;
    let media_type = &rest[..end];
    (!media_type.is_empty()).then_some(media_type)
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

/// A tool call's input written back from `text` (a stubbed input's JSON text): as JSON where the
/// input was JSON other than a string, as a string otherwise.
pub(crate) fn input_value(original: Option<&Value>, text: &str) -> Value {
    match original {
        Some(Value::String(_)) | None => Value::String(text.into()),
        Some(_) => serde_json::from_str(text).unwrap_or_else(|_| Value::String(text.into())),
    }
}

/// `message` with a block that is not a tool call, a tool result or nested replaced by `text`
/// where [`removed_plain_path`] says: a string content or a text part's `text` becomes `text`, any
/// other part a text part.
pub(crate) fn replace_plain_block(message: &mut Value, block: &Block, text: &str) -> Result<()> {
    let path = removed_plain_path(message, block).ok_or_else(|| missing_block(block))?;
    let slot = value_at_mut(message, &path).ok_or_else(|| missing_block(block))?;
    *slot = match path.last() {
        Some(PathStep::Index(_)) => text_part(slot, text),
        _ => Value::String(text.into()),
    };
    Ok(())
}

/// Where what [`replace_plain_block`] removes is: the string content, a text part's `text`, or
/// the part.
pub(crate) fn removed_plain_path(message: &Value, block: &Block<'_>) -> Option<Vec<PathStep>> {
    let content = message.get("content")?;
    match block.path.as_slice() {
        [] => Some(vec![PathStep::Key("content")]),
        [index] => {
            let part = content.get(*index)?;
            let mut path = vec![PathStep::Key("content"), PathStep::Index(*index)];
            if block.kind == BlockKind::Text && part.get("text").is_some() {
                path.push(PathStep::Key("text"));
            }
            Some(path)
        }
        _ => None,
    }
}

/// `message` without the top-level parts of `dropped` (blocks at `[i]`, their nested blocks
/// going with them; a dropped string content leaves an empty list), its parts the list at `key`
/// (`content`, Gemini's `parts`). Every other field stays.
pub(crate) fn without_parts(mut message: Value, dropped: &[&Block], key: &str) -> Result<Value> {
    let Some(first) = dropped.first() else {
        return Ok(message);
    };
    let content = message.get_mut(key).ok_or_else(|| missing_block(first))?;
    if dropped.iter().any(|block| block.path.is_empty()) {
        *content = Value::Array(Vec::new());
        return Ok(message);
    }
    let Value::Array(parts) = content else {
        return Err(missing_block(first));
    };
    let mut index = 0;
    parts.retain(|_| {
        let keep = !dropped
            .iter()
            .any(|block| block.path.first() == Some(&index));
        index += 1;
        keep
    });
    Ok(message)
}

/// One message from `messages` of one role: the first's fields, and the parts of all of them in
/// order as one list at `key` (`content`, Gemini's `parts`; a string content becomes a text
/// part, an empty one adds nothing).
pub(crate) fn merged(messages: Vec<Value>, key: &str) -> Result<Value> {
    let not_objects = || CompactionError::range_error("plan", "messages to merge must be objects");
    let mut messages = messages.into_iter();
    let Some(Value::Object(mut first)) = messages.next() else {
        return Err(not_objects());
    };
    // Taken out in place, not removed: the first message's fields keep their order.
    let mut parts = content_parts(first.get_mut(key).map(Value::take));
    for mut message in messages {
        if !message.is_object() {
            return Err(not_objects());
        }
        parts.extend(content_parts(message.get_mut(key).map(Value::take)));
    }
    // An existing key keeps its place.
    first.insert(key.into(), Value::Array(parts));
    Ok(Value::Object(first))
}

/// A message's content as a list of parts: a list as it is, a non-empty string as one text
/// part, nothing otherwise.
fn content_parts(content: Option<Value>) -> Vec<Value> {
    match content {
        Some(Value::Array(parts)) => parts,
        Some(Value::String(text)) if !text.is_empty() => {
            vec![object(vec![("type", "text".into()), ("text", text.into())])]
        }
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn block(path: &[usize]) -> Block<'static> {
        Block::new(BlockKind::Other, Cow::Borrowed(""), path.to_vec())
    }

    #[test]
    fn a_merge_keeps_the_first_message_and_joins_the_content() {
        let merged = merged(
            vec![
                json!({"role": "user", "content": "first", "x-first": 1}),
                json!({"role": "user", "content": ""}),
                json!({"role": "user", "content": [{"type": "image", "source": {}}], "x-later": 2}),
            ],
            "content",
        )
        .expect("merges");
        assert_eq!(
            merged,
            json!({"role": "user", "content": [
                {"type": "text", "text": "first"},
                {"type": "image", "source": {}}
            ], "x-first": 1})
        );
        // The first message's fields keep their order.
        let keys: Vec<&String> = merged.as_object().expect("object").keys().collect();
        assert_eq!(keys, ["role", "content", "x-first"]);
        assert!(super::merged(vec![json!("not a message")], "content").is_err());
    }

    #[test]
    fn parts_leave_by_their_top_level_index() {
        let message = json!({"role": "user", "content": [{"a": 0}, {"b": 1}, {"c": 2}], "k": 1});
        let out = without_parts(message.clone(), &[&block(&[0]), &block(&[2])], "content")
            .expect("removes");
        assert_eq!(out, json!({"role": "user", "content": [{"b": 1}], "k": 1}));
        assert_eq!(
            without_parts(message.clone(), &[], "content").expect("nothing"),
            message
        );
        let text = json!({"role": "user", "content": "words"});
        assert_eq!(
            without_parts(text, &[&block(&[])], "content").expect("removes"),
            json!({"role": "user", "content": []})
        );
        assert!(without_parts(json!({"role": "user"}), &[&block(&[0])], "content").is_err());
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
}

//! Vercel AI SDK `ModelMessage`s (v5): `system` / `user` / `assistant` / `tool`, parts `text`,
//! `image`, `file`, `reasoning`, `tool-call`, `tool-result`. v4 shapes are accepted where that
//! costs nothing: `args` for a call's `input`, `result` (with `isError`) for a result's `output`,
//! `mimeType` for `mediaType`, `redacted-reasoning` parts.
//!
//! Block paths: `[]` for string content, `[i]` for `content[i]`, `[i, j]` for media at
//! `content[i].output.value[j]` inside a tool result whose output is of type `content`. Text
//! items of such an output are part of the result's body.

use super::adapter::{Found, MessageFields};
use super::common::{
    Object, Path, compact_json, expected, lookup, object, object_at, optional_str, required,
    required_str, role_of, text_or_json,
};
use super::evidence::Seen;
use super::part_writer::PartWriter;
use super::walk::{
    self, Part, ResultBody, call_block, finish_message, media, media_block, other_block,
    text_field, thinking_field,
};
use crate::error::{CompactionError, Result};
use crate::transcript::{Block, Message, Role};
use serde_json::Value;
use std::borrow::Cow;

/// The key of the message list in a request body, and the start of error paths.
pub(crate) const LIST_KEY: &str = "messages";

/// Wire role names, in the order error messages list them.
const ROLES: [&str; 4] = ["system", "user", "assistant", "tool"];

/// An AI SDK tool's parts: `{ description, inputSchema }` (a plain JSON Schema; the host wraps
/// it with `jsonSchema()` and names the tool by its key in `tools`).
pub(crate) fn tool_definition(_name: &str, description: &str, schema: Value) -> Value {
    object(vec![
        ("description", description.into()),
        ("inputSchema", schema),
    ])
}

/// An AI SDK tool message names its calls in its parts (its content is always an array); an
/// OpenAI one needs `tool_call_id`. Without this, an AI SDK list whose only other evidence was
/// compacted away would read as OpenAI on the next call.
pub(crate) fn message_evidence(fields: &MessageFields<'_>, found: Found<'_>) {
    if fields.role == Some("tool")
        && fields.tool_call_id.is_none()
        && fields.content.is_some_and(Value::is_array)
    {
        found("role", "a \"tool\" message without \"tool_call_id\"");
    }
}

/// Part types only the AI SDK has.
pub(crate) fn part_evidence<'v>(part_type: &'v str, part: &Value) -> Option<Seen<'v>> {
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

/// Reads message `index` of an AI SDK list, validating what the model needs.
pub(crate) fn read_message(value: &Value, index: usize) -> Result<Message<'_>> {
    let path = Path::Message(LIST_KEY, index);
    let object = object_at(value, &path)?;
    let role = role_of(object, &path, &ROLES)?;
    // A tool message has no prose: its content is always an array of results.
    if role == Role::Tool && lookup(object, "content").is_some_and(Value::is_string) {
        return Err(CompactionError::type_error(
            format!("{path}.content"),
            ": expected an array of tool-result parts, got string",
        ));
    }
    let blocks =
        walk::parts_with_results(object, &path, "tool-result", tool_result_blocks, part_block)?;
    Ok(finish_message(role, blocks, index))
}

/// A top-level part other than a tool result.
fn part_block<'v>(part: &Part<'v, '_>) -> Result<Block<'v>> {
    let (object, path, index) = (part.object, part.path, part.index);
    Ok(match part.kind {
        "text" => text_field(object, path, "text", vec![index])?,
        "image" => data_block(object, path, "image", "image", index)?,
        "file" | "reasoning-file" => data_block(object, path, "data", "file", index)?,
        "reasoning" => thinking_field(object, "text", vec![index]),
        "redacted-reasoning" => thinking_field(object, "data", vec![index]),
        "tool-call" => tool_call(object, path, index)?,
        _ => other_block(part.value, vec![index]),
    })
}

/// An `image` (`image` field) or `file` (`data` field) part. The data is a base64 string, a data
/// URL or a URL; binary data a host passed as bytes arrives as JSON and is counted as such.
fn data_block<'v>(
    object: &'v Object,
    path: &Path<'_>,
    field: &str,
    fallback: &str,
    index: usize,
) -> Result<Block<'v>> {
    let media_type = optional_str(object, "mediaType").or_else(|| optional_str(object, "mimeType"));
    if let Some(data) = data_text(object.get(field)) {
        return Ok(media_block(data, media_type, fallback, vec![index]));
    }
    match object.get(field) {
        Some(Value::Null) | None => Err(required(path, field)),
        Some(other) => {
            let (media_type, text) = (media_type.unwrap_or(fallback), compact_json(other));
            Ok(media(media_type, true, Cow::Owned(text), vec![index]))
        }
    }
}

/// The text of `FileData`: a string, or AI SDK 7's tagged `{type: "data", data}` (bytes or
/// base64) or `{type: "url", url}`. A provider reference, inline text or bytes are not text.
fn data_text(data: Option<&Value>) -> Option<&str> {
    match data? {
        Value::String(data) => Some(data),
        Value::Object(tagged) => match tagged.get("type")?.as_str()? {
            "data" => tagged.get("data")?.as_str(),
            "url" => tagged.get("url")?.as_str(),
            _ => None,
        },
        _ => None,
    }
}

/// `{type: "tool-call", toolCallId, toolName, input}` (v4: `args`).
fn tool_call<'v>(object: &'v Object, path: &Path<'_>, index: usize) -> Result<Block<'v>> {
    let id = required_str(object, path, "toolCallId")?;
    let name = required_str(object, path, "toolName")?;
    let input = object.get("input").or_else(|| object.get("args"));
    let input = input.map(text_or_json).unwrap_or_default();
    Ok(call_block(id, name, input, vec![index]))
}

/// A `tool-result` part and the media nested in its `content` output.
fn tool_result_blocks<'v>(part: &Part<'v, '_>) -> Result<Vec<Block<'v>>> {
    let (object, path, index) = (part.object, part.path, part.index);
    let id = required_str(object, path, "toolCallId")?;
    let name = optional_str(object, "toolName").map(str::to_string);
    let (body, is_error) = if let Some(output) = object.get("output") {
        output_body(output, &path.field("output"), index)?
    } else if let Some(result) = object.get("result") {
        // v4: `result` is any JSON value, `isError` flags failures.
        let is_error = object.get("isError") == Some(&Value::Bool(true));
        (ResultBody::of(text_or_json(result)), is_error)
    } else {
        return Err(required(path, "output"));
    };
    Ok(body.blocks((id, name, is_error), vec![index]))
}

/// The body of an output (at `path`) and whether it is an error's: `{type: "text" |
/// "error-text", value: string}`, `{type: "json" | "error-json", value}`, `{type: "content",
/// value: [...]}`; any other type (`execution-denied`, later additions) is counted by its JSON.
fn output_body<'v>(
    output: &'v Value,
    path: &Path<'_>,
    index: usize,
) -> Result<(ResultBody<'v>, bool)> {
    let object = object_at(output, path)?;
    let output_type = required_str(object, path, "type")?;
    let value = object.get("value").unwrap_or(&Value::Null);
    let body = match output_type {
        "text" | "error-text" => ResultBody::of(text_or_json(value)),
        "json" | "error-json" => ResultBody::of(Cow::Owned(compact_json(value))),
        "content" => content_output(value, path, index)?,
        _ => ResultBody::of(Cow::Owned(compact_json(output))),
    };
    Ok((body, output_type.starts_with("error")))
}

/// A `content` output's `value` (of the output at `path`): text items joined by newlines, media
/// items as nested blocks.
fn content_output<'v>(value: &'v Value, path: &Path<'_>, index: usize) -> Result<ResultBody<'v>> {
    let items = value
        .as_array()
        .ok_or_else(|| expected(path.field("value"), "an array of content items", value))?;
    let mut body = ResultBody::default();
    body.items(items, path, "value", |item| content_media(item, index))?;
    Ok(body)
}

/// The block of a `content` output's item that is media, at `[index, item.index]`.
fn content_media<'v>(item: &Part<'v, '_>, index: usize) -> Result<Option<Block<'v>>> {
    let (object, path) = (item.object, item.path);
    let media_type = optional_str(object, "mediaType");
    let fallback = if item.kind.starts_with("image") {
        "image"
    } else {
        "file"
    };
    let at = || vec![index, item.index];
    Ok(Some(match item.kind {
        // Base64 data is inline whatever it looks like.
        "media" | "file-data" | "image-data" => {
            let data = Cow::Borrowed(required_str(object, path, "data")?);
            media(media_type.unwrap_or(fallback), true, data, at())
        }
        // AI SDK 7: `{type: "file", data: FileData}` (bytes, base64 or a URL, tagged).
        "file" => match data_text(object.get("data")) {
            Some(data) => media_block(data, media_type, "file", at()),
            None => return Ok(None),
        },
        "image-url" | "file-url" => {
            let url = required_str(object, path, "url")?;
            media_block(url, media_type, fallback, at())
        }
        _ => return Ok(None),
    }))
}

/// Writes edited AI SDK model messages (a result's body in the shape it arrived in).
pub(crate) static WRITER: PartWriter = PartWriter {
    alternates: false,
    call_input: input_field,
    result_body: |part| match part.get("output") {
        Some(_) => "output",
        None => "result",
    },
    body_payload,
    write_body: replace_result_body,
    nested: &["output", "value"],
};

/// The string of a result part's body, which [`replace_result_body`] replaces without reading:
/// it writes a new `output` (or `result`) from the text and the old output's provider options.
fn body_payload(part: &Value) -> Option<&Value> {
    match (part.get("output"), part.get("result")) {
        (None, Some(result)) => Some(result),
        (Some(output), _) => output.get("value"),
        (None, None) => None,
    }
}

/// The field of a tool-call part holding its input: v5 `input`, v4 `args`.
fn input_field(call: &Object) -> &'static str {
    if call.contains_key("input") || !call.contains_key("args") {
        "input"
    } else {
        "args"
    }
}

/// A result's body becomes text, in the shape it arrived in: v5 `output` (keeping the error
/// flag in its type), v4 `result` (whose `isError` stays as it was).
fn replace_result_body(result: &mut Object, is_error: bool, text: &str) {
    if result.contains_key("result") && !result.contains_key("output") {
        result.insert("result".into(), Value::String(text.into()));
        return;
    }
    let output_type = if is_error { "error-text" } else { "text" };
    let mut output = object(vec![("type", output_type.into()), ("value", text.into())]);
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

//! Gemini `contents`: `{ role: "user" | "model", parts }` (a missing role is the user's; the
//! legacy `function` role holds function responses). Parts are told apart by their one data
//! field: `text` (with `thought: true`, a thought summary), `inlineData` (inline media),
//! `fileData` (a reference), `functionCall`, `functionResponse`; anything else
//! (`executableCode`, `codeExecutionResult`, ...) is kept as an unknown part. A
//! `thoughtSignature` belongs to the part that carries it: it stays on that part when the part
//! is edited, and a part that is replaced by text keeps it (`docs/design.md`, "Formats").
//!
//! Pairing. A call is keyed by its `id`, or without one by its name and its place among the
//! calls of that name in its content (`read#0`). A response answers a call of the newest model
//! content before it: the call with its `id` where both have one, else the first unanswered
//! call of its name, in order (`link`). User and model alternate and the user goes first,
//! like Anthropic's roles.
//!
//! A function response's body (`body`) is the string the model reads: `response.output`,
//! else `response.result` (what Google's ADK writes), else the response's only string field;
//! otherwise the whole `response` as JSON. A stub is written where the body was: into that
//! field, or as `response: { output: STUB }` for a whole response (Gemini's own convention for
//! a function's output), so every other field of the response stays.
//!
//! Block paths: `[i]` for `parts[i]`; `[i, j]` for `functionResponse.parts[j]` of part `i`
//! (media a response carries, kept as unknown blocks: counted, never edited, as the API has no
//! text part there to put a placeholder in).

use super::adapter::{Found, MessageFields};
use super::common::{
    Object, Path, compact_json, expected, input_value, missing_block, object, object_at,
    object_field, optional_str, required, required_str, role_of,
};
use super::evidence::Seen;
use super::json::string_at;
use super::walk::{finish_message, media, other_block, result_block};
use crate::api::result::PathStep;
use crate::error::Result;
use crate::transcript::{Block, BlockKind, Message, Role, Transcript};
use serde_json::{Map, Value};
use std::borrow::Cow;

/// The key of the contents list in a request body, and the start of error paths.
pub(crate) const LIST_KEY: &str = "contents";

/// Wire role names, in the order error messages list them.
const ROLES: [&str; 3] = ["user", "model", "function"];

/// A Gemini `FunctionDeclaration`: `{ name, description, parameters }` (an entry of a tool's
/// `functionDeclarations`). Gemini's schema has no `additionalProperties`, so it is left out.
pub(crate) fn tool_definition(name: &str, description: &str, mut schema: Value) -> Value {
    if let Some(fields) = schema.as_object_mut() {
        fields.remove("additionalProperties");
    }
    object(vec![
        ("name", name.into()),
        ("description", description.into()),
        ("parameters", schema),
    ])
}

/// A content's `parts` and a `model` role are Gemini's alone.
pub(crate) fn message_evidence(fields: &MessageFields<'_>, found: Found<'_>) {
    if fields.parts.is_some() {
        found("parts", "\"parts\"");
    }
    if fields.role == Some("model") {
        found("role", "\"model\"");
    }
}

/// Gemini parts have no `type`: the evidence is in the message's fields.
pub(crate) fn part_evidence<'v>(_part_type: &'v str, _part: &Value) -> Option<Seen<'v>> {
    None
}

/// Reads content `index` of a Gemini list, validating what the model needs (its tool results'
/// ids are set by [`link`], once the whole list is read).
pub(crate) fn read_message(value: &Value, index: usize) -> Result<Message<'_>> {
    let path = Path::Message(LIST_KEY, index);
    let object = object_at(value, &path)?;
    let role = match object.get("role") {
        None | Some(Value::Null) => Role::User,
        Some(_) => role_of(object, &path, &ROLES)?,
    };
    let parts = match object.get("parts") {
        Some(Value::Array(parts)) => parts,
        None => return Err(required(&path, "parts")),
        Some(other) => return Err(expected(path.field("parts"), "an array of parts", other)),
    };
    let mut blocks = Vec::with_capacity(parts.len());
    for (at, part) in parts.iter().enumerate() {
        push_part(part, &path.item("parts", at), at, &mut blocks)?;
    }
    Ok(finish_message(role, blocks, index))
}

/// Pushes the blocks of part `at` (at `path`), told apart by its one data field.
fn push_part<'v>(
    part: &'v Value,
    path: &Path<'_>,
    at: usize,
    blocks: &mut Vec<Block<'v>>,
) -> Result<()> {
    let object = object_at(part, path)?;
    let block = if let Some(call) = object.get("functionCall") {
        call_block(call, &path.field("functionCall"), at)?
    } else if let Some(response) = object.get("functionResponse") {
        return push_response(response, path, at, blocks);
    } else if object.contains_key("inlineData") {
        data_part(object, path, ("inlineData", "data"), at)?
    } else if object.contains_key("fileData") {
        data_part(object, path, ("fileData", "fileUri"), at)?
    } else if object.contains_key("text") {
        let text = required_str(object, path, "text")?;
        let kind = if object.get("thought") == Some(&Value::Bool(true)) {
            BlockKind::Thinking
        } else {
            BlockKind::Text
        };
        Block::new(kind, Cow::Borrowed(text), vec![at])
    } else {
        other_block(part, vec![at])
    };
    blocks.push(block);
    Ok(())
}

/// A `functionCall` of part `at` (at `path`), keyed as [`link`] keys it within one content (it
/// keys the whole turn once the list is read).
fn call_block<'v>(call: &'v Value, path: &Path<'_>, at: usize) -> Result<Block<'v>> {
    let call = object_at(call, path)?;
    let name = required_str(call, path, "name")?;
    let id = wire_id(call).map_or_else(|| Cow::Owned(format!("{name}#{at}")), Cow::Borrowed);
    let args = call.get("args").map(compact_json).unwrap_or_default();
    let kind = BlockKind::ToolCall {
        id,
        name: Cow::Borrowed(name),
    };
    Ok(Block::new(kind, Cow::Owned(args), vec![at]))
}

/// Media of part `at`: inline data (`inlineData.data`) or a file's reference (`fileData.fileUri`),
/// its `mimeType` the media type.
fn data_part<'v>(
    part: &'v Object,
    path: &Path<'_>,
    (field, data): (&str, &str),
    at: usize,
) -> Result<Block<'v>> {
    let fields = object_field(part, path, field)?;
    let media_type = optional_str(fields, "mimeType").unwrap_or("file");
    let text = Cow::Borrowed(required_str(fields, &path.field(field), data)?);
    Ok(media(media_type, field == "inlineData", text, vec![at]))
}

/// A call's or a response's `id`, when it has a non-empty one.
fn wire_id(object: &Object) -> Option<&str> {
    object
        .get("id")
        .and_then(Value::as_str)
        .filter(|id| !id.is_empty())
}

/// Pushes a `functionResponse` part's blocks: one result block (its id set by [`link`]) and the
/// media its `parts` carry, as nested unknown blocks.
fn push_response<'v>(
    response: &'v Value,
    part_path: &Path<'_>,
    at: usize,
    blocks: &mut Vec<Block<'v>>,
) -> Result<()> {
    let path = part_path.field("functionResponse");
    let object = object_at(response, &path)?;
    let name = required_str(object, &path, "name")?;
    let (body, _) = body(object.get("response"));
    let is_error = object
        .get("response")
        .and_then(|response| response.get("error"))
        .is_some_and(|error| !error.is_null());
    let id = wire_id(object).unwrap_or(name);
    let result = (id, Some(name.to_string()), is_error);
    blocks.push(result_block(result, body, vec![at]));
    let parts = object.get("parts").and_then(Value::as_array);
    for (inner, part) in parts.into_iter().flatten().enumerate() {
        blocks.push(other_block(part, vec![at, inner]));
    }
    Ok(())
}

/// The body of a `response` (see the module docs), chosen by the fields' names and types only,
/// never their lengths: its text, and the string field it is (`None`: the whole `response`, a
/// string or any other value read as its JSON).
fn body(response: Option<&Value>) -> (Cow<'_, str>, Option<&str>) {
    let Some(response) = response else {
        return (Cow::Borrowed(""), None);
    };
    let Value::Object(fields) = response else {
        return (super::common::text_or_json(response), None);
    };
    let named = ["output", "result"]
        .into_iter()
        .find(|name| fields.get(*name).is_some_and(Value::is_string));
    let only = || {
        let mut strings = fields.iter().filter(|(_, value)| value.is_string());
        match (strings.next(), strings.next()) {
            (Some((name, _)), None) => Some(name.as_str()),
            _ => None,
        }
    };
    match named.or_else(only) {
        Some(name) => {
            let text = fields.get(name).and_then(Value::as_str).unwrap_or_default();
            (Cow::Borrowed(text), Some(name))
        }
        None => (Cow::Owned(compact_json(response)), None),
    }
}

/// Keys the calls of each model turn (a run of model contents, one turn once merged) and gives
/// each function response the key of the call it answers. A call's key is its `id` (an id used
/// again in the turn with its place among those calls: `c1#1`), or its name and place among the
/// id-less calls of that name in the turn (`read#0`). A response answers a call of the model turn
/// right before its own: the one with the response's `id` where both have one, else the first
/// unanswered one of its name. A response that answers none keeps its own id, or a key no call
/// has (`name (no call)`), and is an orphan to the repair. Keys are worked out from the values
/// each time, so a re-read after an edit keys the list the same way.
pub(crate) fn link(transcript: &mut Transcript<'_>, messages: &[&Value]) {
    // The current model turn's calls.
    let mut calls: Vec<TurnCall> = Vec::new();
    let mut previous_model = false;
    for (index, message) in transcript.messages.iter_mut().enumerate() {
        let value = messages.get(index).copied();
        if message.role == Role::Assistant {
            if !previous_model {
                calls.clear();
            }
            previous_model = true;
            key_calls(message, value, &mut calls);
        } else {
            previous_model = false;
            answer_calls(message, value, &mut calls);
        }
    }
}

/// A call of the current model turn, as [`link`] keys it: its key (the id its block gets), the
/// function's name, its own `id` if it has one, and whether a response has answered it.
struct TurnCall {
    key: String,
    name: String,
    wire: Option<String>,
    answered: bool,
}

/// Keys the calls of model content `message` (read from `value`) and adds them to the turn's.
fn key_calls(message: &mut Message<'_>, value: Option<&Value>, calls: &mut Vec<TurnCall>) {
    for block in &mut message.blocks {
        let (BlockKind::ToolCall { id, name }, [at]) = (&mut block.kind, block.path.as_slice())
        else {
            continue;
        };
        let wire = part_field(value, *at, "functionCall")
            .and_then(wire_id)
            .map(str::to_string);
        let key = call_key(calls, wire.as_deref(), name);
        *id = Cow::Owned(key.clone());
        calls.push(TurnCall {
            key,
            name: name.to_string(),
            wire,
            answered: false,
        });
    }
}

/// The key of a call with the id `wire` (or none) and the name `name` after the turn's `calls`
/// (see [`link`]: `c1`, `c1#1`, `read#0`).
fn call_key(calls: &[TurnCall], wire: Option<&str>, name: &str) -> String {
    let before = (calls.iter())
        .filter(|call| call.wire.as_deref() == wire && (wire.is_some() || call.name == name))
        .count();
    match wire {
        Some(wire) if before == 0 => wire.to_string(),
        Some(wire) => format!("{wire}#{before}"),
        None => format!("{name}#{before}"),
    }
}

/// Gives each function response of `message` (read from `value`) the key of the call of `calls`
/// it answers (see [`link`]): first the responses whose id a call has, then the rest by name.
fn answer_calls(message: &mut Message<'_>, value: Option<&Value>, calls: &mut [TurnCall]) {
    let mut keyed = vec![false; message.blocks.len()];
    for by_id in [true, false] {
        for (block, keyed) in message.blocks.iter_mut().zip(&mut keyed) {
            let (
                BlockKind::ToolResult {
                    id,
                    name: Some(name),
                    ..
                },
                [part],
            ) = (&mut block.kind, block.path.as_slice())
            else {
                continue;
            };
            if *keyed {
                continue;
            }
            let wire = part_field(value, *part, "functionResponse").and_then(wire_id);
            let found = calls.iter_mut().find(|call| {
                !call.answered
                    && match by_id {
                        true => wire.is_some() && call.wire.as_deref() == wire,
                        false => call.name == *name && (wire.is_none() || call.wire.is_none()),
                    }
            });
            let key = match found {
                Some(call) => {
                    call.answered = true;
                    call.key.clone()
                }
                None if by_id => continue,
                None => wire.map_or_else(|| format!("{name} (no call)"), str::to_string),
            };
            *id = Some(Cow::Owned(key));
            *keyed = true;
        }
    }
}

/// The object `field` of part `at` of the content `message`.
fn part_field<'v>(message: Option<&'v Value>, at: usize, field: &str) -> Option<&'v Object> {
    message?.get("parts")?.get(at)?.get(field)?.as_object()
}

/// A text part in place of `replaced`: a thought signature stays with the part that carried it.
fn text_part(replaced: &Value, text: &str) -> Value {
    let mut part = Map::new();
    part.insert("text".into(), Value::String(text.into()));
    if let Some(signature) = replaced.get("thoughtSignature") {
        part.insert("thoughtSignature".into(), signature.clone());
    }
    Value::Object(part)
}

/// The writer of Gemini contents, registered as [`WRITER`].
pub(crate) struct Writer;
pub(crate) static WRITER: Writer = Writer;

impl super::json::WireWriter for Writer {
    fn text_message(&self, text: &str, role: &str) -> Value {
        let role = if role == "assistant" { "model" } else { "user" };
        let parts = vec![object(vec![("text", text.into())])];
        object(vec![("role", role.into()), ("parts", parts.into())])
    }

    fn alternates(&self) -> bool {
        true
    }

    fn parts_key(&self) -> &'static str {
        "parts"
    }

    fn replace_block(&self, mut message: Value, block: &Block, text: &str) -> Result<Value> {
        if block.is_nested() {
            return Err(missing_block(block));
        }
        let part = (block.path.first())
            .and_then(|at| message.get_mut("parts")?.get_mut(*at))
            .ok_or_else(|| missing_block(block))?;
        match &block.kind {
            BlockKind::Text => {
                let fields = part.as_object_mut().ok_or_else(|| missing_block(block))?;
                fields.insert("text".into(), Value::String(text.into()));
            }
            // A call keeps its id, its name and its signature; its args, stubbed, stay an object.
            BlockKind::ToolCall { .. } => {
                let call = part
                    .get_mut("functionCall")
                    .and_then(Value::as_object_mut)
                    .ok_or_else(|| missing_block(block))?;
                let args = input_value(call.get("args"), text);
                call.insert("args".into(), args);
            }
            BlockKind::ToolResult { .. } => {
                let response = part
                    .get_mut("functionResponse")
                    .and_then(Value::as_object_mut)
                    .ok_or_else(|| missing_block(block))?;
                let stub = Value::String(text.into());
                let field = body(response.get("response")).1.map(str::to_string);
                match (field, response.get_mut("response")) {
                    (Some(name), Some(Value::Object(fields))) => {
                        fields.insert(name, stub);
                    }
                    (_, Some(Value::String(_))) => {
                        response.insert("response".into(), stub);
                    }
                    _ => {
                        response.insert("response".into(), object(vec![("output", stub)]));
                    }
                }
            }
            // Thought, media, an unknown part: a text part in its place.
            _ => *part = text_part(part, text),
        }
        Ok(message)
    }

    fn removed_path(&self, message: &Value, block: &Block<'_>) -> Option<Vec<PathStep>> {
        use PathStep::{Index, Key};
        let [at] = block.path.as_slice() else {
            return None;
        };
        let mut path = vec![Key("parts"), Index(*at)];
        match &block.kind {
            BlockKind::Text => path.push(Key("text")),
            BlockKind::ToolCall { .. } => path.extend([Key("functionCall"), Key("args")]),
            BlockKind::ToolResult { .. } => {
                let response = message
                    .get("parts")?
                    .get(*at)?
                    .get("functionResponse")?
                    .get("response");
                path.extend([Key("functionResponse"), Key("response")]);
                if let Some(name) = body(response).1 {
                    path.extend(static_key(name).map(Key));
                }
            }
            _ => {}
        }
        crate::api::result::value_at(message, &path).map(|_| path)
    }

    /// A response's body, also where it is a field the removed path does not name.
    fn payload<'v>(&self, message: &'v Value, block: &Block) -> Option<&'v Value> {
        let (BlockKind::ToolResult { .. }, [at]) = (&block.kind, block.path.as_slice()) else {
            return string_at(message, &self.removed_path(message, block)?);
        };
        let response = message
            .get("parts")?
            .get(*at)?
            .get("functionResponse")?
            .get("response")?;
        let payload = match body(Some(response)).1 {
            Some(name) => response.get(name)?,
            None => response,
        };
        payload.is_string().then_some(payload)
    }
}

/// A body field [`body`] picks by its name, as a `'static` path step: the archive entry holds
/// just that string. A response's only string field under another name is archived with the
/// whole response (`restore` puts the response back, the field's old value with it).
fn static_key(key: &str) -> Option<&'static str> {
    ["output", "result"].into_iter().find(|name| *name == key)
}

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

use super::adapter::{Adapter, MessageFields, Structured};
use super::common::{
    Path, compact_json, finish_message, input_value, message_path, missing_block, object,
    object_at, object_field, optional_str, other_block, read_each, required_str, role_of,
};
use super::evidence::{Field, Seen};
use crate::error::{CompactionError, Result};
use crate::pressure::json_type;
use crate::result::PathStep;
use crate::transcript::{Block, BlockKind, Format, Message, Role, Transcript};
use serde_json::{Map, Value, json};
use std::borrow::Cow;

/// Wire role names, in the order error messages list them.
const ROLES: [(&str, Role); 3] = [
    ("user", Role::User),
    ("model", Role::Assistant),
    ("function", Role::Tool),
];

/// The Gemini format's registration.
pub(crate) static ADAPTER: Adapter = Adapter {
    format: Format::Gemini,
    name: "gemini",
    label: "Gemini",
    list_key: "contents",
    structured: Some(Structured {
        read_message,
        writer: &Writer,
        message_evidence,
        part_evidence,
        tool_definition,
        unique_tool_ids: false,
        string_list: false,
        link: Some(link),
    }),
};

/// A Gemini `FunctionDeclaration`: `{ name, description, parameters }` (an entry of a tool's
/// `functionDeclarations`). Gemini's schema has no `additionalProperties`, so it is left out.
fn tool_definition(name: &str, description: &str, mut schema: Value) -> Value {
    if let Some(fields) = schema.as_object_mut() {
        fields.remove("additionalProperties");
    }
    super::common::object(vec![
        ("name", name.into()),
        ("description", description.into()),
        ("parameters", schema),
    ])
}

/// A content's `parts` and a `model` role are Gemini's alone.
fn message_evidence(fields: &MessageFields<'_>, found: &mut dyn FnMut(Field, Seen<'static>)) {
    if fields.parts.is_some() {
        found(Field::Named("parts"), Seen::Words("\"parts\""));
    }
    if fields.role == Some("model") {
        found(Field::Named("role"), Seen::Words("\"model\""));
    }
}

/// Gemini parts have no `type`: the evidence is in the message's fields.
fn part_evidence<'v>(_part_type: &'v str, _part: &Value) -> Option<Seen<'v>> {
    None
}

/// Reads Gemini contents into a transcript, validating what the model needs.
pub fn read(messages: &[Value]) -> Result<Transcript<'_>> {
    let mut transcript = read_each(messages, Format::Gemini, read_message)?;
    let values: Vec<&Value> = messages.iter().collect();
    link(&mut transcript, &values);
    Ok(transcript)
}

pub(crate) fn read_message(value: &Value, index: usize) -> Result<Message<'_>> {
    let path = message_path(ADAPTER.list_key, index);
    let object = object_at(value, &path)?;
    let role = match object.get("role") {
        None | Some(Value::Null) => Role::User,
        Some(_) => role_of(object, &path, &ROLES)?,
    };
    let parts = match object.get("parts") {
        Some(Value::Array(parts)) => parts,
        None => {
            return Err(CompactionError::type_error(
                format!("{path}.parts"),
                "is required",
            ));
        }
        Some(other) => {
            return Err(CompactionError::type_error(
                format!("{path}.parts"),
                format!(": expected an array of parts, got {}", json_type(other)),
            ));
        }
    };
    let mut blocks = Vec::with_capacity(parts.len());
    // Provisional keys, as [`link`] gives them within one content (it keys the whole turn).
    for (at, part) in parts.iter().enumerate() {
        let part_path = path.item("parts", at);
        let object = object_at(part, &part_path)?;
        if let Some(call) = object.get("functionCall") {
            let call_path = part_path.field("functionCall");
            let call = object_at(call, &call_path)?;
            let name = required_str(call, &call_path, "name")?;
            let id =
                wire_id(call).map_or_else(|| Cow::Owned(format!("{name}#{at}")), Cow::Borrowed);
            let args = call.get("args").map(compact_json).unwrap_or_default();
            blocks.push(Block::new(
                BlockKind::ToolCall {
                    id,
                    name: Cow::Borrowed(name),
                },
                Cow::Owned(args),
                vec![at],
            ));
        } else if let Some(response) = object.get("functionResponse") {
            blocks.extend(response_blocks(response, &part_path, at)?);
        } else if object.contains_key("inlineData") {
            let data_path = part_path.field("inlineData");
            let data = object_field(object, &part_path, "inlineData")?;
            blocks.push(Block::new(
                BlockKind::Media {
                    media_type: optional_str(data, "mimeType").unwrap_or("file").into(),
                    inline: true,
                },
                Cow::Borrowed(required_str(data, &data_path, "data")?),
                vec![at],
            ));
        } else if object.contains_key("fileData") {
            let file_path = part_path.field("fileData");
            let file = object_field(object, &part_path, "fileData")?;
            blocks.push(Block::new(
                BlockKind::Media {
                    media_type: optional_str(file, "mimeType").unwrap_or("file").into(),
                    inline: false,
                },
                Cow::Borrowed(required_str(file, &file_path, "fileUri")?),
                vec![at],
            ));
        } else if object.contains_key("text") {
            let text = required_str(object, &part_path, "text")?;
            let kind = if object.get("thought") == Some(&Value::Bool(true)) {
                BlockKind::Thinking
            } else {
                BlockKind::Text
            };
            blocks.push(Block::new(kind, Cow::Borrowed(text), vec![at]));
        } else {
            blocks.push(other_block(part, vec![at]));
        }
    }
    Ok(finish_message(role, blocks, index))
}

/// A call's or a response's `id`, when it has a non-empty one.
fn wire_id(object: &Map<String, Value>) -> Option<&str> {
    object
        .get("id")
        .and_then(Value::as_str)
        .filter(|id| !id.is_empty())
}

/// A `functionResponse` part: one result block (its id set by [`link`]) and the media its
/// `parts` carry, as nested unknown blocks.
fn response_blocks<'v>(
    response: &'v Value,
    part_path: &Path<'_>,
    at: usize,
) -> Result<Vec<Block<'v>>> {
    let path = part_path.field("functionResponse");
    let object = object_at(response, &path)?;
    let name = required_str(object, &path, "name")?;
    let body = body(object.get("response"));
    let is_error = object
        .get("response")
        .and_then(|response| response.get("error"))
        .is_some_and(|error| !error.is_null());
    let result = Block::new(
        BlockKind::ToolResult {
            id: Some(Cow::Borrowed(wire_id(object).unwrap_or(name))),
            name: Some(name.to_string()),
            is_error,
        },
        body.text,
        vec![at],
    );
    let nested = object
        .get("parts")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .enumerate()
        .map(|(inner, part)| other_block(part, vec![at, inner]));
    Ok(std::iter::once(result).chain(nested).collect())
}

/// Where a function response's body is in its `response`.
#[derive(Debug, Clone, PartialEq)]
enum BodyAt<'v> {
    /// The string field of this name.
    Field(&'v str),
    /// The whole `response` (a string, or any other value read as its JSON).
    Whole,
}

/// A function response's body: its text and where it is.
struct Body<'v> {
    text: Cow<'v, str>,
    at: BodyAt<'v>,
}

/// The body of a `response` (see the module docs): chosen by the fields' names and types
/// only, never their lengths.
fn body(response: Option<&Value>) -> Body<'_> {
    let Some(response) = response else {
        return Body {
            text: Cow::Borrowed(""),
            at: BodyAt::Whole,
        };
    };
    let Value::Object(fields) = response else {
        return Body {
            text: super::common::text_or_json(response),
            at: BodyAt::Whole,
        };
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
        Some(name) => Body {
            text: Cow::Borrowed(fields.get(name).and_then(Value::as_str).unwrap_or_default()),
            at: BodyAt::Field(name),
        },
        None => Body {
            text: Cow::Owned(compact_json(response)),
            at: BodyAt::Whole,
        },
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
fn link(transcript: &mut Transcript<'_>, messages: &[&Value]) {
    // The current model turn's calls: key, name, wire id, answered.
    let mut calls: Vec<(String, String, Option<String>, bool)> = Vec::new();
    let mut previous_model = false;
    for (index, message) in transcript.messages.iter_mut().enumerate() {
        let value = messages.get(index).copied();
        if message.role == Role::Assistant {
            if !previous_model {
                calls.clear();
            }
            previous_model = true;
            for block in &mut message.blocks {
                let (BlockKind::ToolCall { id, name }, [at]) =
                    (&mut block.kind, block.path.as_slice())
                else {
                    continue;
                };
                let wire = part_field(value, *at, "functionCall")
                    .and_then(wire_id)
                    .map(str::to_string);
                let key = match &wire {
                    Some(wire) => {
                        let again = calls
                            .iter()
                            .filter(|call| call.2.as_deref() == Some(wire))
                            .count();
                        if again == 0 {
                            wire.clone()
                        } else {
                            format!("{wire}#{again}")
                        }
                    }
                    None => {
                        let ordinal = calls
                            .iter()
                            .filter(|call| call.2.is_none() && call.1 == *name)
                            .count();
                        format!("{name}#{ordinal}")
                    }
                };
                *id = Cow::Owned(key.clone());
                calls.push((key, name.to_string(), wire, false));
            }
            continue;
        }
        previous_model = false;
        let mut results: Vec<(usize, String, Option<String>)> = Vec::new();
        for (at, block) in message.blocks.iter().enumerate() {
            if let (
                BlockKind::ToolResult {
                    name: Some(name), ..
                },
                [part],
            ) = (&block.kind, block.path.as_slice())
            {
                let wire = part_field(value, *part, "functionResponse")
                    .and_then(wire_id)
                    .map(str::to_string);
                results.push((at, name.clone(), wire));
            }
        }
        let mut keys: Vec<Option<String>> = vec![None; results.len()];
        // First by id, then the rest by name in order.
        for (slot, (_, _, wire)) in keys.iter_mut().zip(&results) {
            let Some(wire) = wire else { continue };
            if let Some(call) = calls
                .iter_mut()
                .find(|call| !call.3 && call.2.as_deref() == Some(wire.as_str()))
            {
                call.3 = true;
                *slot = Some(call.0.clone());
            }
        }
        for (slot, (_, name, wire)) in keys.iter_mut().zip(&results) {
            if slot.is_some() {
                continue;
            }
            let found = calls
                .iter_mut()
                .find(|call| !call.3 && call.1 == *name && (wire.is_none() || call.2.is_none()));
            *slot = Some(match found {
                Some(call) => {
                    call.3 = true;
                    call.0.clone()
                }
                None => wire.clone().unwrap_or_else(|| format!("{name} (no call)")),
            });
        }
        for ((at, _, _), key) in results.iter().zip(keys) {
            if let (Some(BlockKind::ToolResult { id, .. }), Some(key)) =
                (message.blocks.get_mut(*at).map(|b| &mut b.kind), key)
            {
                *id = Some(Cow::Owned(key));
            }
        }
    }
}

/// The object `field` of part `at` of the content `message`.
fn part_field<'v>(
    message: Option<&'v Value>,
    at: usize,
    field: &str,
) -> Option<&'v Map<String, Value>> {
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

/// Writes edited Gemini contents.
pub(crate) struct Writer;

impl Writer {
    fn part_mut<'m>(message: &'m mut Value, block: &Block) -> Result<&'m mut Value> {
        let at = *block.path.first().ok_or_else(|| missing_block(block))?;
        message
            .get_mut("parts")
            .and_then(|parts| parts.get_mut(at))
            .ok_or_else(|| missing_block(block))
    }
}

impl super::json::Writer for Writer {
    fn text_message(&self, text: &str, role: &str) -> Value {
        let role = if role == "assistant" { "model" } else { "user" };
        json!({"role": role, "parts": [{"text": text}]})
    }

    fn alternates(&self) -> bool {
        true
    }

    fn side(&self, message: &Value) -> Option<&'static str> {
        match message.get("role").and_then(Value::as_str) {
            Some("model") => Some("assistant"),
            _ => Some("user"),
        }
    }

    fn merged(&self, messages: Vec<Value>) -> Result<Value> {
        let mut messages = messages.into_iter();
        let Some(Value::Object(mut first)) = messages.next() else {
            return Err(CompactionError::range_error(
                "plan",
                "messages to merge must be objects",
            ));
        };
        let mut parts = match first.get_mut("parts").map(Value::take) {
            Some(Value::Array(parts)) => parts,
            _ => Vec::new(),
        };
        for mut message in messages {
            if let Some(Value::Array(more)) = message.get_mut("parts").map(Value::take) {
                parts.extend(more);
            }
        }
        first.insert("parts".into(), Value::Array(parts));
        Ok(Value::Object(first))
    }

    fn replace_block(&self, mut message: Value, block: &Block, text: &str) -> Result<Value> {
        if block.is_nested() {
            return Err(missing_block(block));
        }
        let part = Self::part_mut(&mut message, block)?;
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
                let field = match body(response.get("response")).at {
                    BodyAt::Field(name) => Some(name.to_string()),
                    BodyAt::Whole => None,
                };
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
                if let BodyAt::Field(name) = body(response).at {
                    path.extend(static_key(name).map(Key));
                }
            }
            _ => {}
        }
        crate::result::value_at(message, &path).map(|_| path)
    }

    fn payload<'v>(&self, message: &'v Value, block: &Block) -> Option<&'v Value> {
        let [at] = block.path.as_slice() else {
            return None;
        };
        let part = message.get("parts")?.get(*at)?;
        let payload = match &block.kind {
            BlockKind::Text => part.get("text")?,
            BlockKind::ToolResult { .. } => {
                let response = part.get("functionResponse")?.get("response")?;
                match body(Some(response)).at {
                    BodyAt::Field(name) => response.get(name)?,
                    BodyAt::Whole => response,
                }
            }
            _ => return None,
        };
        payload.is_string().then_some(payload)
    }

    fn location(&self, message: &Value, message_index: usize, block: &Block) -> String {
        // Archive locations name the list the host passed as `messages` (what `restore` reads).
        let mut location = format!("messages[{message_index}]");
        for step in self.removed_path(message, block).unwrap_or_default() {
            match step {
                PathStep::Key(key) => location.push_str(&format!(".{key}")),
                PathStep::Index(index) => location.push_str(&format!("[{index}]")),
            }
        }
        location
    }

    fn without_blocks(&self, mut message: Value, dropped: &[&Block]) -> Result<Value> {
        let Some(first) = dropped.first() else {
            return Ok(message);
        };
        let Some(Value::Array(parts)) = message.get_mut("parts") else {
            return Err(missing_block(first));
        };
        super::common::drop_parts(parts, dropped);
        Ok(message)
    }
}

/// A body field [`body`] picks by its name, as a `'static` path step: the archive entry holds
/// just that string. A response's only string field under another name is archived with the
/// whole response (`restore` puts the response back, the field's old value with it).
fn static_key(key: &str) -> Option<&'static str> {
    ["output", "result"].into_iter().find(|name| *name == key)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::json::Writer as _;
    use crate::formats::test_support::{apply_with, array, replace};
    use crate::formats::{Applied, detect};
    use crate::plan::{ArchiveKind, Edit};

    fn conversation() -> Vec<Value> {
        array(json!([
            {"role": "user", "parts": [
                {"text": "Fix the build"},
                {"inlineData": {"mimeType": "image/png", "data": "iVBORw0K"}},
                {"fileData": {"mimeType": "application/pdf", "fileUri": "gs://b/spec.pdf"}}
            ]},
            {"role": "model", "parts": [
                {"text": "Two reads.", "thought": true, "thoughtSignature": "sig-1"},
                {"functionCall": {"name": "read", "args": {"path": "a.rs"}}, "thoughtSignature": "sig-2"},
                {"functionCall": {"name": "read", "args": {"path": "b.rs"}}},
                {"functionCall": {"id": "c9", "name": "grep", "args": {"q": "fn"}}}
            ]},
            {"role": "user", "parts": [
                {"functionResponse": {"id": "c9", "name": "grep", "response": {"output": "a.rs:1"}}},
                {"functionResponse": {"name": "read", "response": {"result": "fn a() {}"}}},
                {"functionResponse": {"name": "read", "response": {"stdout": "fn b() {}", "exit_code": 0},
                  "parts": [{"inlineData": {"mimeType": "image/png", "data": "AAAA"}}]}}
            ]},
            {"role": "model", "parts": [
                {"executableCode": {"language": "PYTHON", "code": "print(1)"}},
                {"text": "Done."}
            ]},
            {"role": "user", "parts": [{"text": "[session summary]\nall good"}]}
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

    fn result<'a>(id: &'a str, name: &str) -> BlockKind<'a> {
        BlockKind::ToolResult {
            id: Some(id.into()),
            name: Some(name.into()),
            is_error: false,
        }
    }

    #[test]
    fn reads_contents_and_pairs_by_id_then_name_and_order() {
        let messages = conversation();
        let transcript = read(&messages).expect("reads");
        let m = &transcript.messages;
        assert_eq!(transcript.format, Format::Gemini);
        assert_eq!(m[0].role, Role::User);
        assert_eq!(
            m[0].blocks[1..],
            [
                block(
                    BlockKind::Media {
                        media_type: "image/png".into(),
                        inline: true
                    },
                    "iVBORw0K",
                    &[1]
                ),
                block(
                    BlockKind::Media {
                        media_type: "application/pdf".into(),
                        inline: false
                    },
                    "gs://b/spec.pdf",
                    &[2]
                ),
            ]
        );
        assert_eq!(m[1].role, Role::Assistant);
        assert_eq!(
            m[1].blocks,
            vec![
                block(BlockKind::Thinking, "Two reads.", &[0]),
                block(call("read#0", "read"), r#"{"path":"a.rs"}"#, &[1]),
                block(call("read#1", "read"), r#"{"path":"b.rs"}"#, &[2]),
                block(call("c9", "grep"), r#"{"q":"fn"}"#, &[3]),
            ]
        );
        assert_eq!(
            m[2].blocks,
            vec![
                block(result("c9", "grep"), "a.rs:1", &[0]),
                block(result("read#0", "read"), "fn a() {}", &[1]),
                block(result("read#1", "read"), "fn b() {}", &[2]),
                block(
                    BlockKind::Other,
                    r#"{"inlineData":{"mimeType":"image/png","data":"AAAA"}}"#,
                    &[2, 0]
                ),
            ]
        );
        assert!(!m[2].has_user_words(), "responses are the agent's");
        assert_eq!(m[3].blocks[0].kind, BlockKind::Other);
        assert!(m[4].is_library_summary);
        assert_eq!(
            crate::transcript::pairing::paired_ids(&transcript),
            vec!["c9".to_string(), "read#0".into(), "read#1".into()]
        );
        assert_eq!(
            crate::repair::find(&transcript).faults,
            Vec::new(),
            "valid contents need no repair"
        );
    }

    #[test]
    fn a_response_without_a_call_in_the_turn_before_is_an_orphan() {
        let messages = array(json!([
            {"role": "user", "parts": [{"text": "go"}]},
            {"role": "model", "parts": [{"functionCall": {"id": "x1", "name": "read", "args": {}}}]},
            // No id here although the call has one: paired by name.
            {"role": "user", "parts": [{"functionResponse": {"name": "read", "response": {"output": "ok"}}},
                                        {"functionResponse": {"name": "ghost", "response": {"output": "?"}}}]},
            {"role": "model", "parts": [{"text": "ok"}]}
        ]));
        let transcript = read(&messages).expect("reads");
        assert_eq!(transcript.messages[2].blocks[0].tool_id(), Some("x1"));
        assert_eq!(
            transcript.messages[2].blocks[1].tool_id(),
            Some("ghost (no call)")
        );
        let faults = crate::repair::find(&transcript).faults;
        assert_eq!(faults.len(), 1);
        assert_eq!(
            faults[0].to_string(),
            "repair: removed the tool result at messages[2] (id \"ghost (no call)\"): no call with its id comes before it"
        );
    }

    #[test]
    fn detected_by_parts_and_the_model_role() {
        assert_eq!(detect::detect(&conversation()), Ok(Format::Gemini));
        let model = array(json!([{"role": "model", "parts": []}]));
        assert_eq!(detect::detect(&model), Ok(Format::Gemini));
        let mixed = array(json!([
            {"role": "user", "parts": [{"text": "hi"}]},
            {"role": "assistant", "content": null, "tool_calls": []}
        ]));
        assert_eq!(
            detect::detect(&mixed).unwrap_err().to_string(),
            "contents[1].tool_calls: \"tool_calls\" is OpenAI but contents[0] is Gemini"
        );
    }

    #[test]
    fn errors_name_the_field() {
        let cases = [
            (json!([{"role": "user"}]), "contents[0].parts is required"),
            (
                json!([{"role": "user", "parts": {}}]),
                "contents[0].parts: expected an array of parts, got object",
            ),
            (
                json!([{"role": "bot", "parts": []}]),
                "contents[0].role: expected one of \"user\", \"model\", \"function\", got \"bot\"",
            ),
            (
                json!([{"role": "model", "parts": [{"functionCall": {"args": {}}}]}]),
                "contents[0].parts[0].functionCall.name is required",
            ),
            (
                json!([{"role": "user", "parts": [{"functionResponse": {"response": {}}}]}]),
                "contents[0].parts[0].functionResponse.name is required",
            ),
            (
                json!([{"role": "user", "parts": [{"inlineData": {"mimeType": "image/png"}}]}]),
                "contents[0].parts[0].inlineData.data is required",
            ),
            (
                json!([{"role": "user", "parts": [{"text": 3}]}]),
                "contents[0].parts[0].text must be a string, got number",
            ),
            (
                json!([{"role": "user", "parts": ["x"]}]),
                "contents[0].parts[0]: expected an object, got string",
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
    fn stubs_go_where_the_body_was() {
        let messages = conversation();
        let applied = apply(
            &messages,
            &[
                replace(1, 1, r#"{"path":"[stub]"}"#, ArchiveKind::ToolInput),
                replace(2, 0, "a.rs [pruned]", ArchiveKind::ToolResult),
                replace(2, 1, "fn [pruned]", ArchiveKind::ToolResult),
                replace(2, 2, "fn b [pruned]", ArchiveKind::ToolResult),
            ],
        );
        let out = &applied.output;
        assert_eq!(
            out[1]["parts"][1],
            json!({"functionCall": {"name": "read", "args": {"path": "[stub]"}}, "thoughtSignature": "sig-2"})
        );
        assert_eq!(
            out[2]["parts"][0]["functionResponse"],
            json!({"id": "c9", "name": "grep", "response": {"output": "a.rs [pruned]"}})
        );
        assert_eq!(
            out[2]["parts"][1]["functionResponse"]["response"],
            json!({"result": "fn [pruned]"})
        );
        assert_eq!(
            out[2]["parts"][2]["functionResponse"],
            json!({"name": "read", "response": {"stdout": "fn b [pruned]", "exit_code": 0},
                   "parts": [{"inlineData": {"mimeType": "image/png", "data": "AAAA"}}]})
        );
        assert_eq!(
            applied.archive[0].location,
            "messages[1].parts[1].functionCall.args"
        );
        assert_eq!(applied.archive[0].content, json!({"path": "a.rs"}));
        assert_eq!(
            applied.archive[1].location,
            "messages[2].parts[0].functionResponse.response.output"
        );
        assert_eq!(applied.archive[1].content, json!("a.rs:1"));
        // The only string field under another name: archived with its whole response.
        assert_eq!(
            applied.archive[3].location,
            "messages[2].parts[2].functionResponse.response"
        );
        assert_eq!(
            applied.archive[3].content,
            messages[2]["parts"][2]["functionResponse"]["response"]
        );
        let reread = read(out).expect("reads back");
        assert_eq!(reread.messages[2].blocks[2].text, "fn b [pruned]");
        assert_eq!(reread.messages[2].blocks[1].tool_id(), Some("read#0"));
    }

    #[test]
    fn a_response_without_one_string_body_becomes_an_output() {
        let messages = array(json!([
            {"role": "user", "parts": [{"text": "go"}]},
            {"role": "model", "parts": [{"functionCall": {"name": "ls", "args": {}}}]},
            {"role": "user", "parts": [{"functionResponse": {"name": "ls", "response": {"files": ["a", "b"], "dir": "/", "cwd": "/x"}}}]}
        ]));
        let transcript = read(&messages).expect("reads");
        assert_eq!(
            transcript.messages[2].blocks[0].text,
            r#"{"files":["a","b"],"dir":"/","cwd":"/x"}"#
        );
        let applied = apply(
            &messages,
            &[replace(2, 0, "[pruned]", ArchiveKind::ToolResult)],
        );
        assert_eq!(
            applied.output[2]["parts"][0]["functionResponse"]["response"],
            json!({"output": "[pruned]"})
        );
        assert_eq!(
            applied.archive[0].content,
            messages[2]["parts"][0]["functionResponse"]["response"]
        );
    }

    #[test]
    fn thoughts_and_media_become_text_keeping_their_signature() {
        let messages = conversation();
        let applied = apply(
            &messages,
            &[
                replace(0, 1, "[media removed]", ArchiveKind::Media),
                replace(1, 0, "[thinking archived]", ArchiveKind::Thinking),
                replace(3, 1, "[stale]", ArchiveKind::Turn),
            ],
        );
        let out = &applied.output;
        assert_eq!(out[0]["parts"][1], json!({"text": "[media removed]"}));
        assert_eq!(
            out[1]["parts"][0],
            json!({"text": "[thinking archived]", "thoughtSignature": "sig-1"})
        );
        assert_eq!(out[3]["parts"][1], json!({"text": "[stale]"}));
        assert_eq!(applied.archive[1].content, messages[1]["parts"][0]);
        assert_eq!(applied.archive[1].location, "messages[1].parts[0]");
        assert_eq!(applied.archive[2].location, "messages[3].parts[1].text");
    }

    #[test]
    fn replacements_merges_and_removals_keep_gemini_shapes() {
        let messages = conversation();
        let applied = apply(
            &messages,
            &[Edit::ReplaceMessages {
                range: 1..3,
                text: Some("[digest of earlier tool runs] read".into()),
                kind: ArchiveKind::Run,
                is_summary: true,
            }],
        );
        // Between the user's content and a model content no one side fits: the digest takes
        // the model's side, and a bridge of the user's follows it.
        let roles: Vec<&Value> = applied.output.iter().map(|m| &m["role"]).collect();
        assert_eq!(
            roles,
            [
                &json!("user"),
                &json!("model"),
                &json!("user"),
                &json!("model"),
                &json!("user")
            ]
        );
        assert_eq!(
            applied.output[1]["parts"][0]["text"],
            "[digest of earlier tool runs] read"
        );
        let merged = Writer
            .merged(vec![messages[1].clone(), messages[3].clone()])
            .expect("merges");
        assert_eq!(merged["parts"].as_array().map(Vec::len), Some(6));
        assert_eq!(merged["role"], "model");
        let transcript = read(&messages).expect("reads");
        let blocks = &transcript.messages[1].blocks;
        let without = Writer
            .without_blocks(messages[1].clone(), &[&blocks[1], &blocks[3]])
            .expect("removes");
        assert_eq!(
            without["parts"],
            json!([messages[1]["parts"][0], messages[1]["parts"][2]])
        );
        assert_eq!(Writer.side(&json!({"parts": []})), Some("user"));
        assert_eq!(Writer.side(&json!({"role": "model"})), Some("assistant"));
    }

    #[test]
    fn the_recall_tool_is_a_function_declaration() {
        let tool = crate::recall::recall_tool_definition(Format::Gemini).expect("a tool");
        assert_eq!(tool["name"], crate::recall::TOOL_NAME);
        assert_eq!(tool["parameters"]["required"], json!(["id"]));
        assert!(tool["parameters"].get("additionalProperties").is_none());
        assert!(tool.get("type").is_none());
    }
}

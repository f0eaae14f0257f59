//! Core values → JS objects with camelCase keys. Optional fields are omitted, not `undefined`
//! or `null`: `summary` when there is none, `degraded` unless true, `warnings` when empty,
//! `summariserUsage` when the summariser reported nothing, `costUsd` inside it when unknown,
//! `cache` when the pressure gave no cache facts.

use crate::errors;
use crate::host;
use crate::host::AbortSignal;
use crate::skeleton::Originals;
use crate::surrogates::Window;
use compaction::api::result::{ArchiveEntry, ArchiveOrigin, ContextData, PathStep, TierResult};
use compaction::summary::summarise::SummaryRequest;
use js_sys::{Array, Object, Reflect};
use serde::Serialize;
use serde_json::Value;
use wasm_bindgen::JsValue;

/// A plain object of `fields`, in their order (which is the documented one).
fn object(fields: &[(&'static str, JsValue)]) -> JsValue {
    let object = JsValue::from(Object::new());
    for (key, value) in fields {
        put(&object, key, value);
    }
    object
}

/// A JSON value as plain JS data (objects, not `Map`s; integers beyond 2^53 as the nearest JS
/// number, as `JSON.parse` reads them). A host-value placeholder of `originals` left in it
/// becomes the host's own binary data or URL object again (see [`crate::skeleton`]), a lone
/// surrogate of their window the host's code unit.
///
/// Hand-written in place of serde-wasm-bindgen's `Serializer`, the crate's only remaining use:
/// its serializer was 24 functions, 2,228 B of code before wasm-opt, where this match is 511 B;
/// the commit that dropped it took the module from 247.7 to 245.2 KiB gzipped with the field
/// readers it merged. Recursive like the serializer was: the values it converts passed
/// `maxNestingDepth`.
pub fn json_value(value: &Value, originals: Option<&Originals>) -> JsValue {
    match value {
        Value::Null => JsValue::NULL,
        Value::Bool(flag) => JsValue::from_bool(*flag),
        Value::Number(number) => JsValue::from_f64(number.as_f64().unwrap_or(f64::NAN)),
        Value::String(text) => match originals {
            Some(originals) => originals
                .original(text)
                .unwrap_or_else(|| originals.window.to_js(text)),
            None => JsValue::from_str(text),
        },
        Value::Array(items) => json_values(items, originals).into(),
        Value::Object(fields) => {
            let object = Object::new();
            for (key, value) in fields {
                let value = json_value(value, originals);
                let _ = Reflect::set(&object, &JsValue::from_str(key), &value);
            }
            object.into()
        }
    }
}

/// JSON values as a JS array, see [`json_value`].
pub fn json_values(values: &[Value], originals: Option<&Originals>) -> Array {
    values
        .iter()
        .map(|value| json_value(value, originals))
        .collect()
}

/// Values written by the core, as plain JS data through one JSON text and one `JSON.parse` (a
/// call per value cost more than the tier; lone surrogates of `window` are written back as
/// escapes, which `JSON.parse` turns into the host's code units).
fn json_text(values: &impl Serialize, window: Window) -> Result<JsValue, JsValue> {
    let text = serde_json::to_string(values).map_err(errors::internal)?;
    js_sys::JSON::parse(&window.unmap_json(&text))
}

/// A `TierResult`. `context`: `None` leaves out `messages` / `text` (`compactRequestBody` has
/// them in its body), else the caller's `messages`, whose unchanged messages are handed back as
/// they are (only edited ones cross). The plain fields come from one `JSON.parse`
/// ([`crate::plain`]); the host's values and converted ones are set into it.
pub fn result_object(
    result: &TierResult,
    context: Option<Option<&Array>>,
    originals: Option<&Originals>,
) -> Result<JsValue, JsValue> {
    let plain = crate::plain::Plain {
        result,
        with_context: context.is_some(),
    };
    let window = Originals::window_of(originals);
    let object = json_text(&plain, window)?;
    match (&result.context, context) {
        (_, None) => {}
        (ContextData::Messages(messages), Some(input)) => {
            let messages = shared_messages(messages, &result.origins, input, originals)?;
            put(&object, "messages", &messages.into());
        }
        (ContextData::Text(text), Some(_)) => put(&object, "text", &window.to_js(text)),
    }
    let input = context
        .flatten()
        .or_else(|| originals.and_then(|originals| originals.messages.as_ref()));
    let archive = Reflect::get(&object, &host::key("archive")).unwrap_or_default();
    for (index, entry) in result.archive.iter().enumerate() {
        let origin = result.archive_origins.get(index).and_then(Option::as_ref);
        let object = Reflect::get_u32(&archive, index as u32)?;
        put(
            &object,
            "content",
            &archive_content(entry, origin, input, originals),
        );
    }
    Ok(object)
}

/// Sets `key` of `object`, a fresh object or a property `JSON.parse` defined (assigning an own
/// data property calls no setter and cannot fail).
fn put(object: &JsValue, key: &'static str, value: &JsValue) {
    let _ = Reflect::set(object, &host::key(key), value);
}

/// The output messages: the caller's own object where the message is an unchanged copy of an
/// input message, a converted value otherwise.
fn shared_messages(
    messages: &[Value],
    origins: &[Option<usize>],
    input: Option<&Array>,
    originals: Option<&Originals>,
) -> Result<Array, JsValue> {
    let output = Array::new_with_length(messages.len() as u32);
    // Messages built anew without placeholders: one JSON text, one `JSON.parse`.
    let (mut fresh, mut fresh_at) = (Vec::new(), Vec::new());
    for (index, message) in messages.iter().enumerate() {
        let original = match (input, origins.get(index).copied().flatten()) {
            (Some(input), Some(at)) => input.get(at as u32),
            _ => JsValue::UNDEFINED,
        };
        if !original.is_undefined() {
            output.set(index as u32, original);
        } else if originals.is_some_and(|o| holds_placeholder(message, o)) {
            output.set(index as u32, json_value(message, originals));
        } else {
            fresh.push(message);
            fresh_at.push(index as u32);
        }
    }
    if !fresh.is_empty() {
        let parsed = json_text(&fresh, Originals::window_of(originals))?;
        for (at, index) in fresh_at.into_iter().enumerate() {
            output.set(index, Reflect::get_u32(&parsed, at as u32)?);
        }
    }
    Ok(output)
}

/// Whether `value` holds a placeholder of `originals` (a value the host must get back).
fn holds_placeholder(value: &Value, originals: &Originals) -> bool {
    let mut stack = vec![value];
    while let Some(value) = stack.pop() {
        match value {
            Value::String(text) if originals.mentioned_in(text) => return true,
            Value::Array(items) => stack.extend(items),
            Value::Object(fields) => stack.extend(fields.values()),
            _ => {}
        }
    }
    false
}

/// An archive entry's content. Content that is the caller's input as it was (see
/// [`ArchiveOrigin`]) is handed back as the caller's own value, like unchanged messages: nothing
/// is converted.
fn archive_content(
    entry: &ArchiveEntry,
    origin: Option<&ArchiveOrigin>,
    input: Option<&Array>,
    originals: Option<&Originals>,
) -> JsValue {
    let converted = |value| json_value(value, originals);
    match (origin, input) {
        (Some(ArchiveOrigin::Part { message, path }), Some(input)) => {
            caller_value(input, *message, path).unwrap_or_else(|| converted(&entry.content))
        }
        (Some(ArchiveOrigin::Messages(from)), Some(input)) => {
            let items = entry.content.as_array().map_or(&[][..], Vec::as_slice);
            let messages = items.iter().enumerate().map(|(index, item)| {
                let at = from.get(index).copied().flatten();
                at.and_then(|at| caller_value(input, at, &[]))
                    .unwrap_or_else(|| converted(item))
            });
            messages.collect::<Array>().into()
        }
        _ => converted(&entry.content),
    }
}

/// The value at `path` inside the caller's message `message`, if it is there.
fn caller_value(input: &Array, message: usize, path: &[PathStep]) -> Option<JsValue> {
    let mut value = input.get(message as u32);
    for step in path {
        if !value.is_object() {
            return None;
        }
        value = match step {
            PathStep::Key(key) => Reflect::get(&value, &host::key(key)).ok()?,
            PathStep::Index(index) => Reflect::get_u32(&value, *index as u32).ok()?,
        };
    }
    (!value.is_undefined()).then_some(value)
}

/// The object the host's `summarise` callback receives (`docs/design.md`, "Summaries").
/// `window`: where the call's lone surrogates crossed, to hand them back as they were.
/// `host_values`: the call's binary data and URLs, which the request's messages hold as the
/// caller's own objects.
pub fn summary_request(
    request: &SummaryRequest,
    signal: &AbortSignal,
    window: Window,
    host_values: Option<&Originals>,
) -> Result<JsValue, JsValue> {
    let must_keep: Array = request
        .must_keep
        .iter()
        .map(|item| window.to_js(item))
        .collect();
    let messages = match host_values {
        Some(originals) => json_values(&request.messages, Some(originals)).into(),
        None => json_text(&request.messages, window)?,
    };
    Ok(object(&[
        ("tier", request.tier.as_str().into()),
        ("sessionId", request.session_id.as_str().into()),
        ("correlationId", request.correlation_id.as_str().into()),
        ("instructions", request.instructions.as_str().into()),
        ("transcript", window.to_js(&request.transcript)),
        ("messages", messages),
        ("targetTokens", (request.target_tokens as f64).into()),
        ("mustKeep", must_keep.into()),
        ("signal", AsRef::<JsValue>::as_ref(signal).clone()),
    ]))
}

/// `{ body, result }` of `compactRequestBody`; `result` has no `messages` (they are in `body`).
/// `originals`: the host's own messages where the archive needs them, and the window.
pub fn body_result(
    body: JsValue,
    result: &TierResult,
    originals: Option<&Originals>,
) -> Result<JsValue, JsValue> {
    let result = result_object(result, None, originals)?;
    Ok(object(&[("body", body), ("result", result)]))
}

/// `TIER_COST_WEIGHT` as a plain object keyed by tier name.
pub fn cost_weights() -> JsValue {
    let weights = compaction::policy::tier::TIER_COST_WEIGHT.iter();
    object(
        &weights
            .map(|(tier, weight)| (tier.as_str(), (*weight).into()))
            .collect::<Vec<_>>(),
    )
}

//! The few host (JS global) APIs the binding needs that js-sys does not declare. All of them exist
//! in every runtime we ship for: browsers, Node 18+, Deno, Bun and Cloudflare workerd.

use compaction::error::{CompactionError, Result};
use std::cell::RefCell;
use wasm_bindgen::prelude::*;

#[wasm_bindgen]
extern "C" {
    /// A global `AbortController`: one per summariser call, aborted on timeout or host abort.
    pub type AbortController;

    /// `new AbortController()`.
    #[wasm_bindgen(constructor)]
    pub fn new() -> AbortController;

    /// `controller.signal`.
    #[wasm_bindgen(method, getter)]
    pub fn signal(this: &AbortController) -> AbortSignal;

    /// `controller.abort(reason)`.
    #[wasm_bindgen(method)]
    pub fn abort(this: &AbortController, reason: &JsValue);

    /// An `AbortSignal`: the host's (`options.signal`) or one of ours.
    pub type AbortSignal;

    /// `signal.aborted`.
    #[wasm_bindgen(method, getter)]
    pub fn aborted(this: &AbortSignal) -> bool;

    /// `signal.reason`.
    #[wasm_bindgen(method, getter)]
    pub fn reason(this: &AbortSignal) -> JsValue;

    /// `signal.addEventListener(type, listener)`.
    #[wasm_bindgen(method, js_name = addEventListener)]
    pub fn add_event_listener(this: &AbortSignal, kind: &str, listener: &js_sys::Function);

    /// `signal.removeEventListener(type, listener)`.
    #[wasm_bindgen(method, js_name = removeEventListener)]
    pub fn remove_event_listener(this: &AbortSignal, kind: &str, listener: &js_sys::Function);

    /// The global `setTimeout`; the handle is a number in browsers and an object in Node.
    #[wasm_bindgen(js_name = setTimeout)]
    pub fn set_timeout(handler: &js_sys::Function, milliseconds: f64) -> JsValue;

    /// The global `clearTimeout`.
    #[wasm_bindgen(js_name = clearTimeout)]
    pub fn clear_timeout(handle: &JsValue);

    /// `String(value)`, which can throw (a `Symbol`, a throwing `toString`).
    #[wasm_bindgen(js_name = String, catch)]
    fn string_of(value: &JsValue) -> std::result::Result<String, JsValue>;
}

/// A readable one-line description of a thrown or rejected value: an `Error`'s message, a
/// string as is, anything else through `String(value)`.
pub fn describe_thrown(value: &JsValue) -> String {
    if let Some(error) = value.dyn_ref::<js_sys::Error>() {
        let message = String::from(error.message());
        let name = String::from(error.name());
        return if message.is_empty() { name } else { message };
    }
    if let Some(text) = value.as_string() {
        return text;
    }
    string_of(value).unwrap_or_else(|_| "an unprintable value".to_string())
}

/// A `TypeError` at `path`: `value` is not `expected` ("a string", "an array", ...).
pub fn wrong_type(path: &str, expected: &str, value: &JsValue) -> CompactionError {
    let problem = format!("must be {expected}, got {}", type_name(value));
    CompactionError::type_error(path, problem)
}

/// The JS string `value`, else a [`wrong_type`] error at `path`.
pub fn js_string(path: &str, value: &JsValue) -> Result<js_sys::JsString> {
    value
        .dyn_ref()
        .cloned()
        .ok_or_else(|| wrong_type(path, "a string", value))
}

/// `n` as a count a host callback returned: an integer in `0..=9e15`.
pub fn whole_count(n: f64) -> Option<u64> {
    (n.is_finite() && n >= 0.0 && n.fract() == 0.0 && n <= 9.0e15).then_some(n as u64)
}

/// The JS type of `value` for error messages: `typeof`, except that arrays and `null` are named.
pub fn type_name(value: &JsValue) -> &'static str {
    if value.is_undefined() {
        "undefined"
    } else if value.is_null() {
        "null"
    } else if js_sys::Array::is_array(value) {
        "array"
    } else if value.is_function() {
        "function"
    } else if value.as_bool().is_some() {
        "boolean"
    } else if value.as_f64().is_some() {
        "number"
    } else if value.is_string() {
        "string"
    } else if value.is_bigint() {
        "bigint"
    } else if value.is_symbol() {
        "symbol"
    } else {
        "object"
    }
}

/// Room for every field name the binding uses (under a hundred): the table is allocated once.
const KEY_CAPACITY: usize = 128;

thread_local! {
    /// The JS strings of the binding's own field names, made once each (making one costs about
    /// as much as the property access). Nothing is allocated after the first call: a lasting
    /// allocation made late can split the free memory a later large request needs (the memory
    /// test saw three more pages after 8,000 calls when the names were `String`s).
    static KEYS: RefCell<compaction::base::hash::FastMap<&'static str, JsValue>> =
        RefCell::new(compaction::base::hash::FastMap::with_capacity_and_hasher(KEY_CAPACITY, Default::default()));
}

/// The JS string of the field name `name` (see `KEYS`). Takes the cached string out rather than
/// lending it, so that a getter the host runs meanwhile may call back into the library.
pub fn key(name: &'static str) -> JsValue {
    KEYS.with(|keys| {
        let Ok(mut keys) = keys.try_borrow_mut() else {
            return JsValue::from_str(name);
        };
        if let Some(key) = keys.get(name) {
            return key.clone();
        }
        let key = JsValue::from_str(name);
        if keys.len() < KEY_CAPACITY {
            keys.insert(name, key.clone());
        }
        key
    })
}

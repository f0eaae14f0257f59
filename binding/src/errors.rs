//! The one place a [`CompactionError`] becomes a JS exception: a real `Error` subclass chosen by
//! [`ErrorKind`], with `code` (stable, machine-readable) and `path` (the offending field) set.
//! Never a thrown string.

use compaction::error::{CompactionError, ErrorKind};
use wasm_bindgen::JsValue;

/// Converts `error` into the JS error the host sees. `cause`, when given, becomes `error.cause`
/// (the value a host callback threw).
pub fn to_js(error: &CompactionError, cause: Option<&JsValue>) -> JsValue {
    let message = error.to_string();
    let js_error: js_sys::Error = match error.kind {
        // `Callback`: a host callback broke its contract (a bad return value, a throw): the
        // caller's `options.countTokens` is the wrong thing to pass, hence a TypeError.
        ErrorKind::Type | ErrorKind::Callback => js_sys::TypeError::new(&message).into(),
        ErrorKind::Range => js_sys::RangeError::new(&message).into(),
        // Like `JSON.parse` on a malformed body.
        ErrorKind::Parse => js_sys::SyntaxError::new(&message).into(),
        // `ErrorKind` is non-exhaustive: a kind added to the core later is a plain `Error`
        // (with its own `code`) until it is mapped here.
        _ => js_sys::Error::new(&message),
    };
    set(&js_error, "code", &JsValue::from_str(error.kind.code()));
    set(&js_error, "path", &JsValue::from_str(&error.path));
    if let Some(cause) = cause {
        set(&js_error, "cause", cause);
    }
    js_error.into()
}

/// Shorthand for the common case without a cause.
pub fn throw(error: CompactionError) -> JsValue {
    to_js(&error, None)
}

/// [`throw`] for errors relative to the argument `name`.
pub fn throw_under(name: &str) -> impl Fn(CompactionError) -> JsValue + Copy + '_ {
    move |error| throw(error.under(name))
}

/// An error of the binding itself (a value our own output could not be converted to): a plain
/// `Error` with code `ERR_TC_INTERNAL`. Seeing one is a bug of this library.
pub fn internal(message: impl std::fmt::Display) -> JsValue {
    let js_error = js_sys::Error::new(&format!("tiered-compaction internal error: {message}"));
    set(&js_error, "code", &JsValue::from_str("ERR_TC_INTERNAL"));
    js_error.into()
}

fn set(target: &js_sys::Error, key: &str, value: &JsValue) {
    // Setting a data property on a fresh, extensible Error cannot fail.
    let _ = js_sys::Reflect::set(target, &JsValue::from_str(key), value);
}

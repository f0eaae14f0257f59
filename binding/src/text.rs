//! Large JS strings into wasm memory at copying speed. wasm-bindgen's own conversion (`as_string`,
//! `String::from(JsString)`) writes ASCII into wasm memory one character at a time from JS,
//! about 3 ms per MB in V8; `TextEncoder.encodeInto` straight into the destination `Vec` is
//! about 0.06 ms per MB for the one-byte strings that JSON request bodies are.

use js_sys::{JsString, Uint8Array};
use wasm_bindgen::prelude::*;

#[wasm_bindgen]
extern "C" {
    /// A global `TextEncoder` (every runtime we ship for has one; wasm-bindgen's glue uses it too).
    type TextEncoder;

    #[wasm_bindgen(constructor)]
    fn new() -> TextEncoder;

    /// `encoder.encodeInto(source, destination)`.
    #[wasm_bindgen(method, js_name = encodeInto)]
    fn encode_into(this: &TextEncoder, source: &JsString, destination: &Uint8Array) -> Progress;

    /// `{ read, written }` of `encodeInto`: UTF-16 units consumed, bytes written.
    type Progress;

    #[wasm_bindgen(method, getter)]
    fn read(this: &Progress) -> u32;

    #[wasm_bindgen(method, getter)]
    fn written(this: &Progress) -> u32;
}

thread_local! {
    static ENCODER: TextEncoder = TextEncoder::new();
}

/// `text` as the core reads it, refused as `path` if it is over `limits`' size before anything
/// is copied into wasm memory (a UTF-16 unit is one to three bytes: only a string that may be
/// over is measured, in the host); lone surrogates cross in a window (see
/// [`crate::surrogates`]), which comes back as the second value.
pub fn read_bounded(
    text: &JsString,
    limits: &compaction::api::limits::Limits,
    path: &str,
) -> compaction::error::Result<(String, crate::surrogates::Window)> {
    check_size(text, limits, path)?;
    let crossed = crate::surrogates::cross_text(text);
    Ok((to_string(&crossed.text), crossed.window))
}

/// Refuses `text` as `path` if its UTF-8 is over `limits`' size, measuring it in the host when
/// its length alone does not settle it.
pub fn check_size(
    text: &JsString,
    limits: &compaction::api::limits::Limits,
    path: &str,
) -> compaction::error::Result<()> {
    let units = text.length() as usize;
    if units.saturating_mul(3) <= limits.max_input_bytes {
        return Ok(());
    }
    // Without the package's helper, the core measures the copy (as before).
    match crate::surrogates::utf8_len(text) {
        Some(bytes) => limits.check_measured(path, bytes, false),
        None => Ok(()),
    }
}

/// `text` as UTF-8 (a lone surrogate becomes U+FFFD, as everywhere a JS string is encoded).
pub fn to_string(text: &JsString) -> String {
    to_utf8(text).0
}

/// [`to_string`], and whether `text` is all ASCII (one byte per UTF-16 unit).
pub fn to_utf8(text: &JsString) -> (String, bool) {
    let units = text.length();
    // One byte per UTF-16 unit is exact for ASCII; what is left then needs at most three bytes
    // per unit, so the second round always finishes.
    let mut bytes: Vec<u8> = Vec::with_capacity(units as usize);
    let mut read = 0;
    while read < units {
        let rest = if read == 0 {
            text.clone()
        } else {
            bytes.reserve((units - read) as usize * 3);
            text.slice(read, units)
        };
        let (consumed, written) =
            ENCODER.with(|encoder| encode_into_spare(encoder, &rest, &mut bytes));
        if consumed == 0 && written == 0 {
            break; // cannot happen with room for three bytes per unit; never loop forever
        }
        read += consumed;
    }
    // Every unit read became one byte only if every character is ASCII.
    let ascii = bytes.len() == units as usize;
    // SAFETY: `encodeInto` writes only whole characters of valid UTF-8 (a lone surrogate as
    // U+FFFD), and `bytes` holds nothing else. Checking it again was a pass over every byte
    // crossed (5 % of a `none` call on a 10 MB body).
    #[allow(unsafe_code)]
    let text = unsafe { String::from_utf8_unchecked(bytes) };
    (text, ascii)
}

/// Encodes `text` into the spare capacity of `bytes` and extends it by what was written.
#[allow(unsafe_code)]
fn encode_into_spare(encoder: &TextEncoder, text: &JsString, bytes: &mut Vec<u8>) -> (u32, u32) {
    let len = bytes.len();
    let spare = bytes.capacity() - len;
    // SAFETY: the view covers exactly the spare capacity of `bytes`, which nothing else refers
    // to. It is used only by `encodeInto`, which allocates nothing in wasm memory (so the
    // memory cannot grow and detach the view) and writes at most `spare` bytes at its start.
    let progress = unsafe {
        let view = Uint8Array::view_mut_raw(bytes.as_mut_ptr().add(len), spare);
        encoder.encode_into(text, &view)
    };
    let written = progress.written().min(spare as u32);
    // SAFETY: `encodeInto` initialised the first `written` bytes of the spare capacity.
    unsafe { bytes.set_len(len + written as usize) };
    (progress.read(), written)
}

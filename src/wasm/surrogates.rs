//! Lone UTF-16 surrogates across the boundary (js/surrogates.mjs has the host's half). A call
//! whose input has lone surrogates crosses each as a character of a *window* of 2,048
//! private-use characters that the input does not use (one character for one, three UTF-8
//! bytes and one UTF-16 unit, as the surrogate), so the core counts and cuts them as the host
//! would. Everything the binding hands back to the host from that call — messages, text,
//! bodies, archive, summaries, the texts given to `countTokens` and `summarise` — is mapped the
//! other way here, so the host gets its own code units back, cut or whole.

use js_sys::{JsString, Reflect};
use std::borrow::Cow;
use wasm_bindgen::prelude::*;

#[wasm_bindgen]
extern "C" {
    /// js/surrogates.mjs `unmap(text, base)`.
    #[wasm_bindgen(js_name = tieredCompactionUnmapString)]
    fn unmap_string(text: &JsString, base: u32) -> JsString;

    /// js/surrogates.mjs `unmapBody(text, base)`.
    #[wasm_bindgen(js_name = tieredCompactionUnmapBody)]
    fn unmap_body(text: &JsString, base: u32) -> JsString;

    /// js/surrogates.mjs `mapString(text)`: `{ text, base }`.
    #[wasm_bindgen(catch, js_name = tieredCompactionCrossString)]
    fn cross_string(text: &JsString) -> Result<JsValue, JsValue>;

    /// js/surrogates.mjs `mapBody(body)`: `{ text, base }`.
    #[wasm_bindgen(catch, js_name = tieredCompactionCrossBody)]
    fn cross_body(body: &JsString) -> Result<JsValue, JsValue>;

    /// js/host-values.mjs `utf8Length(text)`.
    #[wasm_bindgen(catch, js_name = tieredCompactionMeasureString)]
    fn measure_string(text: &JsString) -> Result<f64, JsValue>;
}

/// The window a call's lone surrogates crossed in: the base of its characters, or none.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Window(u32);

/// Characters in a window: one per surrogate code unit.
const SPAN: u32 = 0x800;

impl Window {
    /// No lone surrogate crossed: nothing to map back.
    pub const NONE: Window = Window(0);

    /// The window of base `base` as the host reported it (0 or anything unexpected: none).
    pub fn from_base(base: f64) -> Self {
        [0xE000u32, 0xE800, 0xF000]
            .into_iter()
            .find(|window| f64::from(*window) == base)
            .map_or(Self::NONE, Window)
    }

    /// The lone surrogate `c` stands for, if it is a character of this window.
    fn surrogate(self, c: char) -> Option<u32> {
        let code = c as u32;
        (self.0 != 0 && (self.0..self.0 + SPAN).contains(&code)).then(|| code - self.0 + 0xD800)
    }

    /// Whether `text` may hold a character of this window (its UTF-8 lead byte is 0xEE or 0xEF).
    fn may_hold(self, text: &str) -> bool {
        self.0 != 0 && text.bytes().any(|b| b == 0xEE || b == 0xEF)
    }

    /// JSON text the core wrote, with this window's characters as the escapes of the lone
    /// surrogates they stand for (`\ud800`), as `JSON.stringify` writes them.
    pub fn unmap_json<'a>(self, text: &'a str) -> Cow<'a, str> {
        if !self.may_hold(text) || !text.chars().any(|c| self.surrogate(c).is_some()) {
            return Cow::Borrowed(text);
        }
        let mut out = String::with_capacity(text.len() + 16);
        for c in text.chars() {
            match self.surrogate(c) {
                Some(unit) => out.push_str(&format!("\\u{unit:04x}")),
                None => out.push(c),
            }
        }
        Cow::Owned(out)
    }

    /// JSON text the core wrote as the host's string ([`Self::unmap_json`]).
    pub fn to_js_json(self, text: &str) -> JsValue {
        JsValue::from_str(&self.unmap_json(text))
    }

    /// A body the core wrote from a body crossed in this window, in the host's code units.
    pub fn body_to_js(self, text: &str) -> JsValue {
        let value = JsValue::from_str(text);
        if self.0 == 0 {
            return value;
        }
        unmap_body(value.unchecked_ref(), self.0).into()
    }

    /// `text` as the host's string: this window's characters back as lone surrogates.
    pub fn to_js(self, text: &str) -> JsValue {
        let value = JsValue::from_str(text);
        if !self.may_hold(text) {
            return value;
        }
        unmap_string(value.unchecked_ref(), self.0).into()
    }
}

/// A host string as it crosses, with the window its lone surrogates crossed in.
fn crossed(result: Result<JsValue, JsValue>, original: &JsString) -> (JsString, Window) {
    let read = |value: &JsValue, key: &str| Reflect::get(value, &JsValue::from_str(key)).ok();
    let Ok(value) = result else {
        return (original.clone(), Window::NONE);
    };
    let text = read(&value, "text").and_then(|text| text.dyn_into::<JsString>().ok());
    let base = read(&value, "base").and_then(|base| base.as_f64());
    match (text, base) {
        (Some(text), Some(base)) => (text, Window::from_base(base)),
        // Without the package's helpers (the glue used on its own), strings cross as UTF-8 does.
        _ => (original.clone(), Window::NONE),
    }
}

/// `text` (a flat text, a string field) as the core reads it, and its window.
pub fn cross_text(text: &JsString) -> (JsString, Window) {
    if text.is_valid_utf16() {
        return (text.clone(), Window::NONE);
    }
    crossed(cross_string(text), text)
}

/// A request body as the core reads it (raw and escaped lone surrogates mapped), and its window.
pub fn cross_request_body(body: &JsString) -> (JsString, Window) {
    crossed(cross_body(body), body)
}

/// Bytes of `text` in UTF-8, measured in the host; `None` without the package's helpers.
pub fn utf8_len(text: &JsString) -> Option<usize> {
    measure_string(text).ok().map(|bytes| bytes as usize)
}

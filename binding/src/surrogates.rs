//! Lone UTF-16 surrogates across the boundary (js/surrogates.mjs has the host's half): each
//! crosses as a character of a *window* of 2,048 private-use characters the input does not use
//! (one for one, so the core counts and cuts them as the host would; a body's windows are in the
//! BMP, so its offsets hold). All the binding hands back from that call is mapped back here.

use js_sys::{JsString, Reflect};
use std::borrow::Cow;
use wasm_bindgen::prelude::*;

#[wasm_bindgen]
extern "C" {
    /// js/surrogates.mjs `unmap(text, base)`.
    #[wasm_bindgen(js_name = tieredCompactionUnmapString)]
    fn unmap_string(text: &JsString, base: u32) -> JsString;

    /// js/surrogates.mjs `unmapBody(text, base, raw)`.
    #[wasm_bindgen(js_name = tieredCompactionUnmapBody)]
    fn unmap_body(text: &JsString, base: u32, raw: bool) -> JsString;

    /// js/surrogates.mjs `mapString(text)`: `{ text, base }`.
    #[wasm_bindgen(catch, js_name = tieredCompactionCrossString)]
    fn cross_string(text: &JsString) -> Result<JsValue, JsValue>;

    /// js/surrogates.mjs `mapBody(body, base)`: `{ text, base, raw }`.
    #[wasm_bindgen(catch, js_name = tieredCompactionCrossBody)]
    fn cross_body(body: &JsString, base: u32) -> Result<JsValue, JsValue>;

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
        // Private-use windows only: three in the BMP, 64 in planes 15 and 16.
        let window = base as u32;
        let private_use = matches!(window, 0xE000 | 0xE800 | 0xF000)
            || ((0xF_0000..=0x10_F800).contains(&window) && window % SPAN == 0);
        if private_use && f64::from(window) == base {
            Window(window)
        } else {
            Self::NONE
        }
    }

    /// The lone surrogate `c` stands for, if it is a character of this window.
    fn surrogate(self, c: char) -> Option<u32> {
        let code = c as u32;
        (self.0 != 0 && (self.0..self.0 + SPAN).contains(&code)).then(|| code - self.0 + 0xD800)
    }

    /// Whether `text` may hold a character of this window (private-use characters start with a
    /// UTF-8 lead byte of 0xEE or more).
    fn may_hold(self, text: &str) -> bool {
        self.0 != 0 && text.bytes().any(|b| b >= 0xEE)
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

    /// A body the core wrote from a body crossed in this window, in the host's code units
    /// (`raw`: the body had raw lone surrogates, so what the core wrote anew is raw too; else
    /// escaped, as `JSON.stringify` writes them).
    pub fn body_to_js(self, text: &str, raw: bool) -> JsValue {
        let value = JsValue::from_str(text);
        if self.0 == 0 {
            return value;
        }
        unmap_body(value.unchecked_ref(), self.0, raw).into()
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

/// How a host string crossed.
pub struct Crossed {
    /// The string as the core reads it.
    pub text: JsString,
    /// The window of its lone surrogates.
    pub window: Window,
    /// It had raw lone surrogates (not only escaped ones).
    pub raw: bool,
    /// It had lone surrogates and no window was free: they crossed as U+FFFD.
    pub lossy: bool,
}

impl Crossed {
    /// `text` crossing as it is: no lone surrogates.
    pub fn as_is(text: &JsString) -> Self {
        Self {
            text: text.clone(),
            window: Window::NONE,
            raw: false,
            lossy: false,
        }
    }
}

/// A host string as it crosses: the string, its window and whether it had raw lone surrogates.
fn crossed(result: Result<JsValue, JsValue>, original: &JsString) -> Crossed {
    let fallback = || Crossed {
        lossy: !original.is_valid_utf16(),
        ..Crossed::as_is(original)
    };
    let read = |value: &JsValue, key: &str| Reflect::get(value, &JsValue::from_str(key)).ok();
    let Ok(value) = result else {
        return fallback();
    };
    let text = read(&value, "text").and_then(|text| text.dyn_into::<JsString>().ok());
    let base = read(&value, "base").and_then(|base| base.as_f64());
    let flag = |key: &str| read(&value, key).and_then(|flag| flag.as_bool()) == Some(true);
    match (text, base) {
        (Some(text), Some(base)) => Crossed {
            text,
            window: Window::from_base(base),
            raw: flag("raw"),
            lossy: flag("lossy"),
        },
        // Without the package's helpers (the glue used on its own), strings cross as UTF-8 does.
        _ => fallback(),
    }
}

/// `text` (a flat text, a string field) as the core reads it.
pub fn cross_text(text: &JsString) -> Crossed {
    // The host checks (`isWellFormed`): `JsString::is_valid_utf16` would read the string one
    // `charCodeAt` call per unit from wasm.
    crossed(cross_string(text), text)
}

/// A request body as the core reads it (raw and escaped lone surrogates mapped, in `window`
/// when one is given).
pub fn cross_request_body(body: &JsString, window: Window) -> Crossed {
    crossed(cross_body(body, window.0), body)
}

/// Whether a body whose UTF-8 copy is `text` may have lone surrogates for the host to map: raw
/// ones, which the copy holds as U+FFFD (as a U+FFFD of its own), or escaped ones (`\ud800`),
/// found as js/surrogates.mjs `mayHaveLoneEscapes` does.
pub fn may_need_crossing(text: &str) -> bool {
    use compaction::base::bytes::{equal, word};
    let bytes = text.as_bytes();
    let fffd = |at: usize| bytes.get(at..at + 3) == Some(&[0xEF, 0xBF, 0xBD][..]);
    // As the host's regex has it, `\\ud800` (an escaped backslash) is asked about too.
    let escape = |at: usize| {
        matches!(
            bytes.get(at..at + 4),
            Some(
                [
                    b'\\',
                    b'u',
                    b'd' | b'D',
                    b'8'..=b'9' | b'a'..=b'f' | b'A'..=b'F',
                ],
            )
        )
    };
    // Eight positions at a time, both by their first two bytes (`\u`, and U+FFFD's `EF BF`) in
    // the word at a position and the word one byte on: a JSON body has a backslash on every
    // line of every output (`\n`), and stopping at each cost more than the host's check did.
    let mut at = 0;
    while at + 9 <= bytes.len() {
        let x = word(&bytes[at..at + 8]);
        let y = word(&bytes[at + 1..at + 9]);
        // Every real pair is marked (a borrow only adds marks above one): each is checked.
        let mut marks = (equal(x, b'\\') & equal(y, b'u')) | (equal(x, 0xEF) & equal(y, 0xBF));
        while marks != 0 {
            let here = at + (marks.trailing_zeros() / 8) as usize;
            if fffd(here) || escape(here) {
                return true;
            }
            marks &= marks - 1;
        }
        at += 8;
    }
    (at..bytes.len()).any(|here| fffd(here) || escape(here))
}

/// Bytes of `text` in UTF-8, measured in the host; `None` without the package's helpers.
pub fn utf8_len(text: &JsString) -> Option<usize> {
    measure_string(text).ok().map(|bytes| bytes as usize)
}

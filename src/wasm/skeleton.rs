//! Message arrays read as a skeleton: the package's `readSkeleton` (js/api.mjs) runs one
//! `JSON.stringify` in the host whose replacer swaps each long string for a placeholder (see
//! [`crate::elision`]), and the skeleton's text is parsed here. A 1 MB transcript crosses as
//! about 20 KB; the long strings stay in the host, as `strings`.
//!
//! Read *whole*, the placeholders are replaced by their strings at once (each copied into wasm
//! memory once, by `TextEncoder.encodeInto`): what `JSON.stringify` + `serde_json` would give,
//! without walking every value across the boundary. Read *elided*, they stay: the structural
//! tiers work from the placeholders' facts, and the output hands the host's own strings back
//! wherever a placeholder is left in a converted value ([`Originals`]).
//!
//! The glue gets `readSkeleton` from the package (scripts/glue.mjs); used on its own, without
//! it, the call fails and the binding reads the messages the way it did before.

use crate::elision::{self, ElisionKey};
use js_sys::{Array, JsString, Reflect};
use serde_json::Value;
use std::ops::Range;
use wasm_bindgen::prelude::*;

#[wasm_bindgen]
extern "C" {
    /// js/api.mjs `readSkeleton(messages, minChars, headUnits, tailUnits)`.
    #[wasm_bindgen(catch, js_name = tieredCompactionReadSkeleton)]
    fn read_skeleton(
        messages: &JsValue,
        min_chars: u32,
        head_units: u32,
        tail_units: u32,
    ) -> Result<JsValue, JsValue>;

    /// `JSON.parse(text)` of a JS string (js-sys's takes a Rust string).
    #[wasm_bindgen(catch, js_namespace = JSON, js_name = parse)]
    pub(super) fn json_parse(text: &JsString) -> Result<JsValue, JsValue>;
}

/// A skeleton read from the host.
pub struct Skeleton {
    /// The messages, long strings as placeholders.
    pub values: Vec<Value>,
    /// The host's long strings, and how to tell their placeholders.
    pub originals: Originals,
    /// UTF-16 units of all long strings together.
    units: f64,
    /// Bytes of the skeleton's text.
    text_bytes: usize,
}

/// The strings behind the placeholders of one call: the host's own, or a request body's tokens.
#[derive(Debug)]
pub struct Originals {
    /// The call's placeholder key.
    pub key: ElisionKey,
    source: Source,
}

/// Where the strings are.
#[derive(Debug)]
enum Source {
    /// The strings themselves (a skeleton of objects).
    Strings(Array),
    /// A request body, each placeholder's string token in it, and the body's UTF-8 text (the
    /// copy the call read: kept, not made again, so memory stays at one body); each string is
    /// made when asked for, one at a time.
    Body(BodyTokens),
    /// No placeholders: the host's own messages (parsed from its body where the result archived
    /// from them), for archive content the UTF-8 copy could not hold exactly.
    Messages(Array),
}

/// The string tokens of a request body's placeholders.
#[derive(Debug)]
pub struct BodyTokens {
    /// The caller's body.
    pub body: JsString,
    /// Its UTF-8 text.
    pub text: String,
    /// Whether `text` is all ASCII.
    pub ascii: bool,
    /// Each placeholder's string token (quotes included), in bytes of `text`.
    pub bytes: Vec<Range<usize>>,
    /// The same tokens in UTF-16 units of `body`.
    pub units: Vec<Range<u32>>,
}

impl BodyTokens {
    /// The string of token `index`, as `JSON.parse` of the token would give it.
    fn string(&self, index: usize) -> Option<JsValue> {
        let (bytes, units) = (self.bytes.get(index)?, self.units.get(index)?);
        let token = self.text.get(bytes.clone())?;
        let inner = token.get(1..token.len().checked_sub(1)?)?;
        if crate::base::unescape::find_backslash(inner.as_bytes()).is_none() {
            // Nothing escaped: the text between the quotes, as a slice of the host's own string.
            return Some(self.body.slice(units.start + 1, units.end - 1).into());
        }
        // U+FFFD in the text may stand for a lone surrogate of the body (`text::to_utf8`), which
        // `JSON.parse` keeps: only the host can decode such a token exactly.
        if self.ascii || !inner.contains('\u{FFFD}') {
            if let Some(decoded) = crate::base::unescape::unescape(inner.as_bytes()) {
                return Some(super::text::from_utf8(&decoded).into());
            }
        }
        json_parse(&self.body.slice(units.start, units.end)).ok()
    }
}

impl Originals {
    /// The strings of a request body's placeholders under `key`.
    pub fn in_body(key: ElisionKey, tokens: BodyTokens) -> Self {
        Self {
            key,
            source: Source::Body(tokens),
        }
    }

    /// The host's own messages (sparse: those a whole read's archive took from), standing for
    /// the caller's input where there was no input array.
    pub fn of_messages(messages: Array) -> Self {
        Self {
            key: ElisionKey::new(""),
            source: Source::Messages(messages),
        }
    }

    /// The host's messages, when these originals are messages.
    pub fn host_messages(&self) -> Option<&Array> {
        match &self.source {
            Source::Messages(messages) => Some(messages),
            _ => None,
        }
    }

    /// The host's string behind placeholder `text`, if it is one.
    pub fn original(&self, text: &str) -> Option<JsValue> {
        let index = self.key.parse(text)?.index;
        match &self.source {
            Source::Messages(_) => None,
            Source::Strings(strings) => {
                let index = u32::try_from(index).ok()?;
                (index < strings.length()).then(|| strings.get(index))
            }
            Source::Body(tokens) => tokens.string(index),
        }
    }
}

/// The skeleton of `messages`, with heads long enough to cut `keep_head_chars` characters;
/// `None` when the package's reader is absent or `JSON.stringify` / the parser refuses the
/// messages (the caller then reads them the slow way, which names the element at fault).
pub fn read(messages: &JsValue, keep_head_chars: usize) -> Option<Skeleton> {
    let head_units = u32::try_from(elision::head_units(keep_head_chars)).unwrap_or(u32::MAX);
    let read = read_skeleton(
        messages,
        elision::MIN_CHARS as u32,
        head_units,
        elision::TAIL_UNITS as u32,
    )
    .ok()?;
    let field = |name: &'static str| Reflect::get(&read, &super::host::key(name)).ok();
    let text = super::text::to_string(field("text")?.dyn_ref::<JsString>()?);
    // A Value, not a Vec: a typed target links serde's "invalid type" message (flt2dec).
    let Value::Array(values) = serde_json::from_str(&text).ok()? else {
        return None;
    };
    let nonce = field("nonce")?.as_string()?;
    Some(Skeleton {
        values,
        originals: Originals {
            key: ElisionKey::new(&nonce),
            source: Source::Strings(field("strings")?.dyn_into().ok()?),
        },
        units: field("units")?.as_f64()?,
        text_bytes: text.len(),
    })
}

impl crate::elision::ElidedStrings for Originals {
    fn original(&self, index: usize) -> Option<String> {
        let Source::Strings(strings) = &self.source else {
            return None; // a body's strings are the core's to read (`edge::elision::BodyStrings`)
        };
        let index = u32::try_from(index).ok()?;
        let text = (index < strings.length()).then(|| strings.get(index))?;
        Some(super::text::to_string(text.dyn_ref::<JsString>()?))
    }
}

impl Skeleton {
    /// Whether the input is certainly within `max_input_bytes` as UTF-8 JSON (a UTF-16 unit is
    /// at most three bytes), so that the core's size check may run on the skeleton.
    pub fn within(&self, max_input_bytes: usize) -> bool {
        self.text_bytes as f64 + 3.0 * self.units <= max_input_bytes as f64
    }

    /// Whether any string was long enough to be elided.
    pub fn has_elisions(&self) -> bool {
        self.units > 0.0
    }

    /// The messages with every placeholder replaced by its string: the messages read whole.
    pub fn whole(self) -> Option<Vec<Value>> {
        let elided = self.has_elisions();
        let mut values = self.values;
        let complete =
            !elided || crate::elision::put_back(&mut values, &self.originals.key, &self.originals);
        complete.then_some(values)
    }
}

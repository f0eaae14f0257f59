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
//! Binary data and URL objects cross as host-value placeholders ([`crate::host_value`]) in both
//! reads: the host's own objects are put back wherever one is left in the output or the archive.
//! Lone surrogates cross mapped to a private-use window ([`super::surrogates`]). The input's
//! size is known before anything is copied into wasm memory: the skeleton's text is bounded by
//! its length, and an input that may be over `maxInputBytes` is measured in the host first.
//!
//! The glue gets `readSkeleton` from the package (scripts/glue.mjs); used on its own, without
//! it, the call fails and the binding reads the messages the way it did before.

use super::surrogates::Window;
use crate::elision::{self, ElisionKey};
use crate::error::Result;
use crate::host_value::HostValueKey;
use crate::limits::Limits;
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
        body: &JsValue,
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
}

/// The strings behind the placeholders of one call: the host's own, or a request body's tokens.
pub struct Originals {
    /// The call's placeholder key.
    pub key: ElisionKey,
    source: Source,
    /// The host's binary values and URL objects, and the key of their placeholders.
    host: Option<HostValues>,
    /// The window the call's lone surrogates crossed in.
    pub window: Window,
}

/// The values a skeleton left in the host (see [`crate::host_value`]).
struct HostValues {
    key: HostValueKey,
    values: Array,
}

/// Where the strings are.
enum Source {
    /// The strings themselves (a skeleton of objects), and the text each ill-formed one crossed
    /// as (lone surrogates mapped; sparse).
    Strings(Array, Array),
    /// A request body, each placeholder's string token in it, and the body's UTF-8 text (the
    /// copy the call read: kept, not made again, so memory stays at one body); each string is
    /// made when asked for, one at a time.
    Body(BodyTokens),
    /// No placeholders: the host's own messages (parsed from its body where the result archived
    /// from them), for archive content the UTF-8 copy could not hold exactly.
    Messages(Array),
    /// Nothing but the window of the call's lone surrogates (a flat text).
    Nothing,
}

/// The string tokens of a request body's placeholders.
pub struct BodyTokens {
    /// The caller's body.
    pub body: JsString,
    /// Its UTF-8 text.
    pub text: String,
    /// Whether `text` is all ASCII.
    pub ascii: bool,
    /// Whether `text` decodes to the body's strings exactly (no lone surrogate was mapped).
    pub exact: bool,
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
        if self.exact && (self.ascii || !inner.contains('\u{FFFD}')) {
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
            host: None,
            window: Window::NONE,
        }
    }

    /// The host's own messages (sparse: those a whole read's archive took from), standing for
    /// the caller's input where there was no input array.
    pub fn of_messages(messages: Array) -> Self {
        Self {
            key: ElisionKey::new(""),
            source: Source::Messages(messages),
            host: None,
            window: Window::NONE,
        }
    }

    /// The host values and window of these originals, without their strings: what a callback
    /// (the summariser) gets back in its messages. `None` when there are no host values.
    pub fn host_values_only(&self) -> Option<Self> {
        let host = self.host.as_ref()?;
        Some(Self {
            key: ElisionKey::new(""),
            source: Source::Nothing,
            host: Some(HostValues {
                key: host.key.clone(),
                values: host.values.clone(),
            }),
            window: self.window,
        })
    }

    /// Only the window a call's lone surrogates crossed in (a flat text, a request body).
    pub fn of_window(window: Window) -> Self {
        Self {
            key: ElisionKey::new(""),
            source: Source::Nothing,
            host: None,
            window,
        }
    }

    /// These originals with the window a call's lone surrogates crossed in.
    pub fn with_window(mut self, window: Window) -> Self {
        self.window = window;
        self
    }

    /// The host's messages, when these originals are messages.
    pub fn host_messages(&self) -> Option<&Array> {
        match &self.source {
            Source::Messages(messages) => Some(messages),
            _ => None,
        }
    }

    /// The key of the host-value placeholders, when the input had binary data or URLs.
    pub fn host_key(&self) -> Option<HostValueKey> {
        self.host.as_ref().map(|host| host.key.clone())
    }

    /// Whether `text` mentions a placeholder of these originals (a string the host must get back).
    pub fn mentioned_in(&self, text: &str) -> bool {
        self.key.mentions(text)
            || self
                .host
                .as_ref()
                .is_some_and(|host| host.key.mentions(text))
    }

    /// The host's value behind placeholder `text`, if it is one: its string, its binary data or
    /// its URL object.
    pub fn original(&self, text: &str) -> Option<JsValue> {
        if let Some(host) = &self.host {
            if let Some((index, _)) = host.key.parse(text) {
                let index = u32::try_from(index).ok()?;
                return (index < host.values.length()).then(|| host.values.get(index));
            }
        }
        let index = self.key.parse(text)?.index;
        match &self.source {
            Source::Messages(_) | Source::Nothing => None,
            Source::Strings(strings, _) => {
                let index = u32::try_from(index).ok()?;
                (index < strings.length()).then(|| strings.get(index))
            }
            Source::Body(tokens) => tokens.string(index),
        }
    }
}

/// The skeleton of `messages`, with heads long enough to cut `keep_head_chars` characters
/// (`None`: to be read whole, so the placeholders carry no head or tail: a third of a long
/// string's size would cross, be parsed and be dropped again); `Ok(None)` when the package's reader is absent or `JSON.stringify` / the parser refuses the
/// messages (the caller then reads them the slow way, which names the element at fault). An
/// input over `limits`' size is refused before its text is copied into wasm memory (the error
/// is relative: `: N bytes as JSON exceeds maxInputBytes M`).
pub fn read(
    messages: &JsValue,
    keep_head_chars: Option<usize>,
    limits: &Limits,
) -> Result<Option<Skeleton>> {
    read_for(messages, keep_head_chars, limits, &JsValue::UNDEFINED)
}

/// [`read`], for values that will be written into request body `body` (`restore`): lone
/// surrogates cross in a window the body can take too.
pub fn read_for(
    messages: &JsValue,
    keep_head_chars: Option<usize>,
    limits: &Limits,
    body: &JsValue,
) -> Result<Option<Skeleton>> {
    let (head_units, tail_units) = keep_head_chars.map_or((0, 0), |chars| {
        let head = u32::try_from(elision::head_units(chars)).unwrap_or(u32::MAX);
        (head, elision::TAIL_UNITS as u32)
    });
    let Ok(read) = read_skeleton(
        messages,
        elision::MIN_CHARS as u32,
        head_units,
        tail_units,
        body,
    ) else {
        return Ok(None);
    };
    let field = |name: &'static str| Reflect::get(&read, &super::host::key(name)).ok();
    let number = |name: &'static str| field(name).and_then(|value| value.as_f64());
    let (Some(text), Some(units), Some(value_bytes)) = (
        field("text").and_then(|text| text.dyn_into::<JsString>().ok()),
        number("units"),
        number("valueBytes"),
    ) else {
        return Ok(None);
    };
    // A UTF-16 unit is at most three bytes of UTF-8 (and of JSON, but for escapes, which the
    // text holds already): over that bound, the host measures the input exactly first.
    let bound = 3.0 * (f64::from(text.length()) + units) + value_bytes;
    if bound > limits.max_input_bytes as f64 {
        let exact = field("exactBytes")
            .and_then(|measure| measure.dyn_into::<js_sys::Function>().ok())
            .and_then(|measure| measure.call0(&read).ok())
            .and_then(|bytes| bytes.as_f64());
        if let Some(bytes) = exact {
            limits.check_measured("", bytes as usize, true)?;
        }
    }
    let text = super::text::to_string(&text);
    // A Value, not a Vec: a typed target links serde's "invalid type" message (flt2dec).
    let Ok(Value::Array(values)) = serde_json::from_str(&text) else {
        return Ok(None);
    };
    let (Some(nonce), Some(strings), Some(crossing)) = (
        field("nonce").and_then(|nonce| nonce.as_string()),
        field("strings").and_then(|strings| strings.dyn_into().ok()),
        field("crossing").and_then(|crossing| crossing.dyn_into().ok()),
    ) else {
        return Ok(None);
    };
    let host = field("values")
        .and_then(|values| values.dyn_into::<Array>().ok())
        .filter(|values| values.length() > 0)
        .map(|values| HostValues {
            key: HostValueKey::new(&nonce),
            values,
        });
    Ok(Some(Skeleton {
        values,
        originals: Originals {
            key: ElisionKey::new(&nonce),
            source: Source::Strings(strings, crossing),
            host,
            window: Window::from_base(number("base").unwrap_or(0.0)),
        },
        units,
    }))
}

impl crate::elision::ElidedStrings for Originals {
    fn original(&self, index: usize) -> Option<String> {
        let Source::Strings(strings, crossing) = &self.source else {
            return None; // a body's strings are the core's to read (`edge::elision::BodyStrings`)
        };
        let index = u32::try_from(index).ok()?;
        let mapped = (index < crossing.length()).then(|| crossing.get(index));
        let text = match mapped.filter(JsValue::is_string) {
            Some(mapped) => mapped,
            None => (index < strings.length()).then(|| strings.get(index))?,
        };
        Some(super::text::to_string(text.dyn_ref::<JsString>()?))
    }
}

impl Skeleton {
    /// Whether any string was long enough to be elided.
    pub fn has_elisions(&self) -> bool {
        self.units > 0.0
    }

    /// The messages with every long-string placeholder replaced by its string: the messages
    /// read whole. Host values stay placeholders (their bytes are never read), and the
    /// originals stay to put them back.
    pub fn whole(self) -> Option<(Vec<Value>, Originals)> {
        let elided = self.has_elisions();
        let mut values = self.values;
        let complete =
            !elided || crate::elision::put_back(&mut values, &self.originals.key, &self.originals);
        complete.then_some((values, self.originals))
    }

    /// Whether the skeleton holds anything the output must put back or map back.
    pub fn needs_originals(&self) -> bool {
        self.originals.host.is_some() || self.originals.window != Window::NONE
    }
}

//! Message arrays read as a skeleton: the package's `readSkeleton` (js/api.mjs, handed to the
//! glue by scripts/glue.mjs) runs one `JSON.stringify` whose replacer swaps each long string for
//! a placeholder `\0{nonce}:{index}`; the text is parsed here and each placeholder replaced by
//! its string, copied into wasm once: what `JSON.stringify` + `serde_json` would give, without
//! escaping and unescaping the long strings, nor walking every value across the boundary.
//!
//! Binary data and URL objects stay host-value placeholders ([`compaction::api::host_value`]),
//! put back as the host's own objects by the output ([`Originals`]); lone surrogates cross in a
//! window ([`crate::surrogates`]). Nothing is copied into wasm before the input's size is known.

use crate::surrogates::Window;
use compaction::api::host_value::HostValueKey;
use compaction::api::limits::Limits;
use compaction::base::marker::Opening;
use compaction::error::Result;
use js_sys::{Array, JsString, Reflect};
use serde_json::Value;
use wasm_bindgen::prelude::*;

/// Strings of more UTF-16 units than this cross on their own, not inside the skeleton's text
/// (all inside, tier none and micro were 1.3 to 2.6 times as slow: `node bench/builds.mjs`).
const LONG_UNITS: u32 = 1024;

#[wasm_bindgen]
extern "C" {
    /// js/api.mjs `readSkeleton(messages, longUnits, body)`.
    #[wasm_bindgen(catch, js_name = tieredCompactionReadSkeleton)]
    fn read_skeleton(
        messages: &JsValue,
        long_units: u32,
        body: &JsValue,
    ) -> Result<JsValue, JsValue>;

    /// `JSON.parse(text)` of a JS string (js-sys's takes a Rust string).
    #[wasm_bindgen(catch, js_namespace = JSON, js_name = parse)]
    pub(super) fn json_parse(text: &JsString) -> Result<JsValue, JsValue>;
}

/// No limit: for a result handed back, and for messages whose size was checked already.
pub const UNBOUNDED: Limits = Limits {
    max_input_bytes: usize::MAX,
    max_nesting_depth: usize::MAX,
};

/// Messages read from the host as a skeleton.
pub struct Skeleton {
    /// The messages, host values as placeholders.
    pub values: Vec<Value>,
    /// The host's values behind those placeholders, and the window of lone surrogates.
    pub originals: Originals,
}

/// What the output needs to hand a call's values back as the host's own.
#[derive(Default)]
pub struct Originals {
    /// The host's binary values and URL objects, and the key of their placeholders.
    host: Option<HostValues>,
    /// The host's own messages (sparse: those a result's archive took from, parsed from its
    /// body), standing for the caller's input where there was no input array.
    pub messages: Option<Array>,
    /// The window the call's lone surrogates crossed in.
    pub window: Window,
}

/// The values a skeleton left in the host (see [`compaction::api::host_value`]).
#[derive(Clone)]
struct HostValues {
    key: HostValueKey,
    values: Array,
}

impl Originals {
    /// The host values and window without the messages, for the summariser's request; `None`
    /// without host values.
    pub fn host_values_only(&self) -> Option<Self> {
        let host = self.host.clone()?;
        let window = self.window;
        Some(Self {
            host: Some(host),
            messages: None,
            window,
        })
    }

    /// Only a window (a flat text, a request body); `None` without one.
    pub fn of_window(window: Window) -> Option<Self> {
        (window != Window::NONE).then(|| Self {
            window,
            ..Self::default()
        })
    }

    /// The key of the host-value placeholders, when the input had binary data or URLs.
    pub fn host_key(&self) -> Option<HostValueKey> {
        self.host.as_ref().map(|host| host.key.clone())
    }

    /// Whether `text` mentions a host-value placeholder (a value the host must get back).
    pub fn mentioned_in(&self, text: &str) -> bool {
        let host = self.host.as_ref();
        host.is_some_and(|host| host.key.mentions(text))
    }

    /// The host's binary data or URL object behind placeholder `text`, if it is one.
    pub fn original(&self, text: &str) -> Option<JsValue> {
        let host = self.host.as_ref()?;
        let index = u32::try_from(host.key.parse(text)?.0).ok()?;
        (index < host.values.length()).then(|| host.values.get(index))
    }

    /// The window of `originals`, if any.
    pub fn window_of(originals: Option<&Self>) -> Window {
        originals.map_or(Window::NONE, |originals| originals.window)
    }

    /// Whether there is anything the output must put back or map back.
    pub fn needed(&self) -> bool {
        self.host.is_some() || self.window != Window::NONE
    }
}

/// The skeleton of `messages`; `Ok(None)` when the package's reader is absent or refuses them
/// (the caller then reads them the slow way, which names the element at fault). An input over
/// `limits` is refused before it is copied. `body`: the request body the values will be written
/// into (`restore`), whose window they must share; `undefined` for none.
pub fn read(messages: &JsValue, limits: &Limits, body: &JsValue) -> Result<Option<Skeleton>> {
    let Ok(read) = read_skeleton(messages, LONG_UNITS, body) else {
        return Ok(None);
    };
    let field = |name: &'static str| Reflect::get(&read, &crate::host::key(name)).ok();
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
    let text = crate::text::to_string(&text);
    // A Value, not a Vec: a typed target links serde's "invalid type" message (flt2dec).
    let Ok(Value::Array(mut values)) = serde_json::from_str(&text) else {
        return Ok(None);
    };
    let (Some(nonce), Some(strings), Some(crossing)) = (
        field("nonce").and_then(|nonce| nonce.as_string()),
        field("strings").and_then(|strings| strings.dyn_into::<Array>().ok()),
        field("crossing").and_then(|crossing| crossing.dyn_into::<Array>().ok()),
    ) else {
        return Ok(None);
    };
    if strings.length() > 0 && !put_back(&mut values, &nonce, &strings, &crossing) {
        return Ok(None);
    }
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
            host,
            messages: None,
            window: Window::from_base(number("base").unwrap_or(0.0)),
        },
    }))
}

/// Replaces every long-string placeholder of `nonce` in `values` by `crossing[i]` (its lone
/// surrogates mapped) or `strings[i]`; whether each found its string. Iterative: values nest up
/// to 128 levels, which the wasm stack is not spent on.
fn put_back(values: &mut [Value], nonce: &str, strings: &Array, crossing: &Array) -> bool {
    let opening = Opening::new(nonce, ':');
    let string = |index: u32| {
        let mapped = (index < crossing.length()).then(|| crossing.get(index));
        let text = match mapped.filter(JsValue::is_string) {
            Some(mapped) => mapped,
            None => (index < strings.length()).then(|| strings.get(index))?,
        };
        Some(crate::text::to_string(text.dyn_ref::<JsString>()?))
    };
    let mut stack: Vec<&mut Value> = values.iter_mut().collect();
    while let Some(value) = stack.pop() {
        match value {
            // A placeholder starts with a NUL: one byte settles nearly every string.
            Value::String(text) if text.as_bytes().first() == Some(&0) => {
                let index = text.strip_prefix(opening.as_str());
                let Some(index) = index.and_then(|index| index.parse().ok()) else {
                    continue;
                };
                match string(index) {
                    Some(original) => *text = original,
                    None => return false,
                }
            }
            Value::Array(items) => stack.extend(items.iter_mut()),
            Value::Object(fields) => stack.extend(fields.values_mut()),
            _ => {}
        }
    }
    true
}

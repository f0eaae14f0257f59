//! Messages read straight from the host's objects, without `JSON.stringify`: on a large
//! transcript, stringifying the messages and copying the text into wasm cost more than all the
//! compaction after it (2.2 ms + 0.7 ms of a 6 ms call at 1 MB), and the text doubled the memory
//! a call needs. The walk reads plain JSON data only: plain objects and arrays, strings, numbers,
//! booleans and null. At anything `JSON.stringify` would treat in its own way (a `toJSON`, a
//! class instance or boxed primitive, a BigInt, a lone surrogate, nesting deeper than the parser
//! allows, a getter that throws) it gives up, and the caller reads the messages the old way, so
//! the values and the errors are exactly those of `JSON.stringify` + `serde_json`.

use js_sys::{Array, JsString, Object, Reflect};
use serde_json::{Map, Number, Value};
use wasm_bindgen::prelude::*;

#[wasm_bindgen]
extern "C" {
    /// `Object.keys(value)`, which a proxy can make throw.
    #[wasm_bindgen(js_namespace = Object, js_name = keys, catch)]
    fn object_keys(value: &JsValue) -> Result<Array, JsValue>;

    /// `Array.isArray(value)`, which throws for a revoked proxy.
    #[wasm_bindgen(js_namespace = Array, js_name = isArray, catch)]
    fn is_array(value: &JsValue) -> Result<bool, JsValue>;
}

/// serde_json's nesting limit: deeper values are the parser's error to report.
const MAX_DEPTH: usize = 127;

/// Strings this long or longer go through `TextEncoder.encodeInto`; shorter ones through
/// wasm-bindgen's conversion (one call instead of several).
const LONG_STRING: u32 = 64;

/// The elements of `array` as JSON values, exactly as `JSON.stringify` + `serde_json` would read
/// them; `None` when the walk gave up (see the module doc).
pub fn plain_array(array: &Array) -> Option<Vec<Value>> {
    let mut walk = Walk {
        object_prototype: Reflect::get_prototype_of(&Object::new()).ok()?.into(),
        to_json: JsValue::from_str("toJSON"),
        length: JsValue::from_str("length"),
    };
    let length = walk.length_of(array)?;
    let mut values = Vec::with_capacity(length as usize);
    for index in 0..length {
        values.push(
            match walk.value(&Reflect::get_u32(array, index).ok()?, 1)? {
                Read::Value(value) => value,
                Read::Skip => Value::Null,
            },
        );
    }
    Some(values)
}

struct Walk {
    object_prototype: JsValue,
    to_json: JsValue,
    length: JsValue,
}

/// What one JS value reads as.
enum Read {
    Value(Value),
    /// `undefined`, a function or a symbol: left out of an object, `null` in an array.
    Skip,
}

impl Walk {
    fn value(&mut self, value: &JsValue, depth: usize) -> Option<Read> {
        if let Some(text) = value.dyn_ref::<JsString>() {
            return string(text).map(|text| Read::Value(Value::String(text)));
        }
        if value.is_object() {
            if depth > MAX_DEPTH {
                return None;
            }
            // A `toJSON` anywhere on the prototype chain is `JSON.stringify`'s to call.
            if !Reflect::get(value, &self.to_json).ok()?.is_undefined() {
                return None;
            }
            return if is_array(value).ok()? {
                self.array(value, depth).map(Read::Value)
            } else {
                self.object(value, depth).map(Read::Value)
            };
        }
        if let Some(number) = value.as_f64() {
            return Some(Read::Value(json_number(number)));
        }
        if let Some(flag) = value.as_bool() {
            return Some(Read::Value(Value::Bool(flag)));
        }
        if value.is_null() {
            return Some(Read::Value(Value::Null));
        }
        if value.is_undefined() || value.is_function() || value.is_symbol() {
            return Some(Read::Skip);
        }
        None // a BigInt: JSON.stringify throws
    }

    fn length_of(&self, array: &JsValue) -> Option<u32> {
        let length = Reflect::get(array, &self.length).ok()?.as_f64()?;
        (length >= 0.0 && length <= f64::from(u32::MAX)).then_some(length as u32)
    }

    fn array(&mut self, array: &JsValue, depth: usize) -> Option<Value> {
        let length = self.length_of(array)?;
        let mut items = Vec::with_capacity(length as usize);
        for index in 0..length {
            let item = Reflect::get_u32(array, index).ok()?;
            items.push(match self.value(&item, depth + 1)? {
                Read::Value(value) => value,
                Read::Skip => Value::Null,
            });
        }
        Some(Value::Array(items))
    }

    fn object(&mut self, object: &JsValue, depth: usize) -> Option<Value> {
        // Plain objects only: a boxed primitive or a class instance is not read by its keys.
        let prototype = Reflect::get_prototype_of(object).ok()?;
        if !prototype.is_null() && JsValue::from(prototype) != self.object_prototype {
            return None;
        }
        let keys = object_keys(object).ok()?;
        let mut fields = Map::with_capacity(keys.length() as usize);
        for key in keys.iter() {
            let name = key.as_string()?;
            if !well_formed(&name) {
                return None;
            }
            let item = Reflect::get(object, &key).ok()?;
            if let Read::Value(value) = self.value(&item, depth + 1)? {
                fields.insert(name, value);
            }
        }
        Some(Value::Object(fields))
    }
}

/// A JS string as UTF-8, or `None` when it has a lone surrogate (which the encoders turn into
/// U+FFFD and `JSON.stringify` escapes, for serde_json to refuse).
fn string(text: &JsString) -> Option<String> {
    if text.length() >= LONG_STRING {
        let (text, ascii) = super::text::to_utf8(text);
        return (ascii || well_formed(&text)).then_some(text);
    }
    let text = String::from(text);
    well_formed(&text).then_some(text)
}

/// No U+FFFD, which is where an encoder put a lone surrogate (a real U+FFFD makes the walk give
/// up too: rare, and the slow way is right either way).
fn well_formed(text: &str) -> bool {
    text.is_ascii() || !text.contains('\u{FFFD}')
}

/// A JS number as serde_json reads `JSON.stringify`'s spelling of it: `null` when not finite,
/// an integer when written without fraction or exponent (|n| < 1e21) and in range, else a float.
fn json_number(number: f64) -> Value {
    if !number.is_finite() {
        return Value::Null;
    }
    if number.fract() == 0.0 && number.abs() < 1e21 {
        if (0.0..18_446_744_073_709_551_616.0).contains(&number) {
            return Value::Number(Number::from(number as u64));
        }
        if (-9_223_372_036_854_775_808.0..0.0).contains(&number) {
            return Value::Number(Number::from(number as i64));
        }
    }
    Number::from_f64(number).map_or(Value::Null, Value::Number)
}

//! Reading fields of host objects. Values are read with `Reflect::get` into the core's
//! [`Scalar`]s, so NaN and Infinity reach the core's validators (JSON would turn them into
//! `null`) and the core writes the error messages. Errors here are relative to the object
//! being read; callers put the object's own path in front with [`CompactionError::under`].

use crate::host::type_name;
use compaction::api::input::Scalar;
use compaction::config::FieldSource;
use compaction::error::{CompactionError, Result};
use js_sys::{Array, Object, Reflect};
use wasm_bindgen::{JsCast, JsValue};

/// A plain JS object whose fields are being read.
pub struct Fields {
    object: Object,
}

impl Fields {
    /// `value` as an object; arrays, functions and primitives are rejected.
    pub fn read(value: &JsValue) -> Result<Self> {
        let is_object = value.is_object() && !Array::is_array(value) && !value.is_function();
        if !is_object {
            return Err(CompactionError::type_error(
                "",
                format!("must be an object, got {}", type_name(value)),
            ));
        }
        Ok(Self {
            object: value.clone().unchecked_into(),
        })
    }

    /// `value` as an object, or `None` when it is `undefined` (an omitted optional argument).
    pub fn read_optional(value: &JsValue) -> Result<Option<Self>> {
        if value.is_undefined() {
            Ok(None)
        } else {
            Self::read(value).map(Some)
        }
    }

    /// The field `name` (`undefined` when absent). A throwing getter is reported at `name`.
    pub fn get(&self, name: &'static str) -> Result<JsValue> {
        Reflect::get(&self.object, &crate::host::key(name)).map_err(|thrown| {
            CompactionError::type_error(
                name,
                format!(
                    "could not be read: {}",
                    crate::host::describe_thrown(&thrown)
                ),
            )
        })
    }

    /// The field `name` as a [`Scalar`] for the core's validators.
    pub fn scalar(&self, name: &'static str) -> Result<Scalar> {
        self.get(name).map(|value| scalar(&value))
    }

    /// Rejects own enumerable keys that are not in `known`, naming the first one: a typo such as
    /// `timeoutMS` must not be silently ignored.
    pub fn reject_unknown(&self, known: &[&str]) -> Result<()> {
        for key in Object::keys(&self.object).iter() {
            let key = key.as_string().unwrap_or_default();
            if !known.contains(&key.as_str()) {
                return Err(CompactionError::type_error(
                    key,
                    format!("is not a known field; expected one of {}", known.join(", ")),
                ));
            }
        }
        Ok(())
    }
}

/// Converts a JS value into the core's [`Scalar`].
pub fn scalar(value: &JsValue) -> Scalar {
    if value.is_undefined() {
        Scalar::Missing
    } else if value.is_null() {
        Scalar::Null
    } else if let Some(flag) = value.as_bool() {
        Scalar::Bool(flag)
    } else if let Some(number) = value.as_f64() {
        Scalar::Number(number)
    } else if let Some(text) = value.as_string() {
        Scalar::Text(text)
    } else {
        Scalar::Other(type_name(value))
    }
}

/// A JS value as JSON, read the way `JSON.stringify` sees it (`toJSON`, `undefined` fields left
/// out; `undefined`, a function or a symbol itself reads as `null`). Never recursive in wasm:
/// `JSON.stringify` runs in the host and `serde_json`'s parser stops at 128 levels, so a deeply
/// nested value is refused with a `RangeError` instead of overflowing the wasm stack. Values JSON
/// cannot hold (a cycle, a BigInt) are refused with a `TypeError`.
pub fn json(value: &JsValue) -> Result<serde_json::Value> {
    let text = match js_sys::JSON::stringify(value) {
        Ok(text) => text.is_string().then(|| crate::text::to_string(&text)),
        // V8 and the others throw a RangeError when a value is too deep for their stack (or
        // its text too long for a string).
        Err(thrown) if thrown.is_instance_of::<js_sys::RangeError>() => {
            let problem = format!(
                ": too deeply nested or too large to convert ({})",
                crate::host::describe_thrown(&thrown)
            );
            return Err(CompactionError::range_error("", problem));
        }
        Err(thrown) => {
            let problem = format!(
                "is not JSON-compatible: {}",
                crate::host::describe_thrown(&thrown)
            );
            return Err(CompactionError::type_error("", problem));
        }
    };
    let Some(text) = text else {
        // No text for undefined, a function or a symbol: null, as inside an array.
        return Ok(serde_json::Value::Null);
    };
    serde_json::from_str(&text).map_err(|error| {
        if error.to_string().starts_with("recursion limit exceeded") {
            CompactionError::range_error("", ": nesting deeper than 128 levels")
        } else {
            CompactionError::type_error("", format!("is not JSON-compatible: {error}"))
        }
    })
}

/// A JS array of JSON values; each element's error names its index (`[3]: ...`).
///
/// Read as a skeleton whose long strings are then copied in once ([`crate::skeleton`]); without
/// the package's reader, through one `JSON.stringify` in the host. Either way one `serde_json`
/// parse here, whose nesting limit (128 levels) turns a pathologically deep value into a clean
/// error instead of a stack overflow.
pub fn json_array(value: &JsValue) -> Result<Vec<serde_json::Value>> {
    let array = value.dyn_ref::<Array>().ok_or_else(|| {
        CompactionError::type_error("", format!("must be an array, got {}", type_name(value)))
    })?;
    let unbounded = compaction::api::limits::Limits {
        max_input_bytes: usize::MAX,
        max_nesting_depth: usize::MAX,
    };
    if let Ok(Some(skeleton)) = crate::skeleton::read(value, &unbounded) {
        return Ok(skeleton.values);
    }
    let parsed = js_sys::JSON::stringify(value)
        .ok()
        .and_then(|text| serde_json::from_str(&crate::text::to_string(&text)).ok());
    // Parsed as a Value, not a Vec: a typed target links serde's "invalid type" message, which
    // prints floats with core's flt2dec (src/decimal.rs).
    match parsed {
        Some(serde_json::Value::Array(values)) => Ok(values),
        // Only on failure: find the element at fault, so the error can name it.
        _ => Err(first_bad_element(array)),
    }
}

/// The error of the first element that `JSON.stringify` refuses or `serde_json` cannot read.
fn first_bad_element(array: &Array) -> CompactionError {
    for (index, item) in array.iter().enumerate() {
        if let Err(error) = json(&item) {
            return error.under(&format!("[{index}]"));
        }
    }
    CompactionError::type_error("", "is not JSON-compatible")
}

/// A JS array of strings.
pub fn string_array(value: &JsValue) -> Result<Vec<String>> {
    let array = value.dyn_ref::<Array>().ok_or_else(|| {
        CompactionError::type_error("", format!("must be an array, got {}", type_name(value)))
    })?;
    array
        .iter()
        .enumerate()
        .map(|(index, item)| {
            item.as_string().ok_or_else(|| {
                CompactionError::type_error(
                    format!("[{index}]"),
                    format!("must be a string, got {}", type_name(&item)),
                )
            })
        })
        .collect()
}

/// A host's options object as the core's [`FieldSource`], so the core reads and checks the
/// policy's fields itself.
impl FieldSource for Fields {
    fn keys(&self) -> Result<Vec<String>> {
        Ok(Object::keys(&self.object)
            .iter()
            .map(|key| key.as_string().unwrap_or_default())
            .collect())
    }

    fn scalar(&self, name: &'static str) -> Result<Scalar> {
        Fields::scalar(self, name)
    }

    fn object(&self, name: &'static str) -> Result<Option<Box<dyn FieldSource + '_>>> {
        let fields = Fields::read_optional(&self.get(name)?).map_err(|error| error.under(name))?;
        Ok(fields.map(|fields| Box::new(fields) as Box<dyn FieldSource>))
    }

    fn strings(&self, name: &'static str) -> Result<Option<Vec<String>>> {
        let value = self.get(name)?;
        if value.is_undefined() {
            return Ok(None);
        }
        string_array(&value)
            .map(Some)
            .map_err(|error| error.under(name))
    }
}

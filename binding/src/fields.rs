//! Reading fields of host objects. Values are read with `Reflect::get` into the core's
//! [`Scalar`]s, so NaN and Infinity reach the core's validators (JSON would turn them into
//! `null`) and the core writes the error messages. Errors here are relative to the object
//! being read; callers put the object's own path in front with [`CompactionError::under`].

use crate::host::{describe_thrown, type_name, wrong_type};
use compaction::api::input::{self, MAX_SAFE_INTEGER, Scalar};
use compaction::config::FieldSource;
use compaction::error::{CompactionError, Result, describe_number};
use js_sys::{Array, Object, Reflect};
use wasm_bindgen::{JsCast, JsValue};

/// A plain JS object whose fields are being read.
pub struct Fields {
    object: Object,
}

impl Fields {
    /// `value` as an object; arrays, functions and primitives are rejected.
    pub fn read(value: &JsValue) -> Result<Self> {
        if !value.is_object() || Array::is_array(value) || value.is_function() {
            return Err(wrong_type("", "an object", value));
        }
        Ok(Self {
            object: value.clone().unchecked_into(),
        })
    }

    /// `value` as an object, or `None` when it is `undefined` (an omitted optional argument).
    pub fn read_optional(value: &JsValue) -> Result<Option<Self>> {
        (!value.is_undefined())
            .then(|| Self::read(value))
            .transpose()
    }

    /// The field `name` (`undefined` when absent). A throwing getter is reported at `name`.
    pub fn get(&self, name: &'static str) -> Result<JsValue> {
        Reflect::get(&self.object, &crate::host::key(name)).map_err(|thrown| {
            let problem = format!("could not be read: {}", describe_thrown(&thrown));
            CompactionError::type_error(name, problem)
        })
    }

    /// The field `name` read by `read` unless it is `undefined`; its errors are put under `name`.
    pub fn optional<T>(
        &self,
        name: &'static str,
        read: impl FnOnce(&JsValue) -> Result<T>,
    ) -> Result<Option<T>> {
        let value = self.get(name)?;
        if value.is_undefined() {
            return Ok(None);
        }
        read(&value).map(Some).map_err(|error| error.under(name))
    }

    /// The field `name` as a [`Scalar`] for the core's validators.
    pub fn scalar(&self, name: &'static str) -> Result<Scalar> {
        self.get(name).map(|value| scalar(&value))
    }

    /// The required string field `name`.
    pub fn string(&self, name: &'static str) -> Result<String> {
        input::required_string(name, self.scalar(name)?)
    }

    /// The optional string field `name`.
    pub fn optional_string(&self, name: &'static str) -> Result<Option<String>> {
        input::optional_string(name, self.scalar(name)?)
    }

    /// The optional number field `name`.
    pub fn optional_number(&self, name: &'static str) -> Result<Option<f64>> {
        input::optional_number(name, self.scalar(name)?)
    }

    /// The required number field `name`, finite and >= 0.
    pub fn non_negative(&self, name: &'static str) -> Result<f64> {
        non_negative(name, self.scalar(name)?)
    }

    /// The required integer field `name`, in `0..=MAX_SAFE_INTEGER`.
    pub fn count(&self, name: &'static str) -> Result<u64> {
        input::required_integer(name, self.scalar(name)?, MAX_SAFE_INTEGER)
    }

    /// Rejects own enumerable keys that are not in `known`, naming the first one: a typo such as
    /// `timeoutMS` must not be silently ignored.
    pub fn reject_unknown(&self, known: &[&str]) -> Result<()> {
        match self
            .keys()?
            .into_iter()
            .find(|key| !known.contains(&key.as_str()))
        {
            Some(key) => {
                let problem = format!("is not a known field; expected one of {}", known.join(", "));
                Err(CompactionError::type_error(key, problem))
            }
            None => Ok(()),
        }
    }
}

/// A required number, finite and >= 0.
pub fn non_negative(name: &str, value: Scalar) -> Result<f64> {
    let number = input::required_number(name, value)?;
    compaction::policy::pressure::validate_non_negative(name, number)
}

/// An optional time in seconds, which must be finite and >= 0.
pub fn seconds(name: &str, value: Option<f64>) -> Result<Option<f64>> {
    match value {
        Some(seconds) if !seconds.is_finite() || seconds < 0.0 => {
            let got = describe_number(seconds);
            let problem = format!("must be a finite number >= 0 (seconds), got {got}");
            Err(CompactionError::range_error(name, problem))
        }
        seconds => Ok(seconds),
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

/// A JS value as JSON, as `JSON.stringify` sees it (`undefined` itself reads as `null`). Never
/// recursive in wasm: a value deeper than `serde_json`'s 128 levels is a `RangeError`, not a
/// stack overflow; one JSON cannot hold (a cycle, a BigInt) a `TypeError`.
pub fn json(value: &JsValue) -> Result<serde_json::Value> {
    let text = match js_sys::JSON::stringify(value) {
        Ok(text) => text.is_string().then(|| crate::text::to_string(&text)),
        // V8 and the others throw a RangeError when a value is too deep for their stack (or
        // its text too long for a string).
        Err(thrown) if thrown.is_instance_of::<js_sys::RangeError>() => {
            let problem = format!(
                ": too deeply nested or too large to convert ({})",
                describe_thrown(&thrown)
            );
            return Err(CompactionError::range_error("", problem));
        }
        Err(thrown) => {
            let problem = format!("is not JSON-compatible: {}", describe_thrown(&thrown));
            return Err(CompactionError::type_error("", problem));
        }
    };
    // No text for undefined, a function or a symbol: null, as inside an array.
    let Some(text) = text else {
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

/// A JS array of JSON values, read as a skeleton ([`crate::skeleton`]) or else through one
/// `JSON.stringify`; an element's error names its index (`[3]: ...`).
pub fn json_array(value: &JsValue) -> Result<Vec<serde_json::Value>> {
    let array = array(value)?;
    if let Ok(Some(skeleton)) =
        crate::skeleton::read(value, &crate::skeleton::UNBOUNDED, &JsValue::UNDEFINED)
    {
        return Ok(skeleton.values);
    }
    let parsed = js_sys::JSON::stringify(value)
        .ok()
        .and_then(|text| serde_json::from_str(&crate::text::to_string(&text)).ok());
    // Parsed as a Value, not a Vec: a typed target links serde's "invalid type" message, which
    // prints floats with core's flt2dec (src/decimal.rs).
    if let Some(serde_json::Value::Array(values)) = parsed {
        return Ok(values);
    }
    // Only on failure: find the element at fault, so the error can name it.
    for (index, item) in array.iter().enumerate() {
        if let Err(error) = json(&item) {
            return Err(error.under(&format!("[{index}]")));
        }
    }
    Err(CompactionError::type_error("", "is not JSON-compatible"))
}

/// `value` as an array, else a [`wrong_type`] error.
pub fn array(value: &JsValue) -> Result<&Array> {
    value
        .dyn_ref::<Array>()
        .ok_or_else(|| wrong_type("", "an array", value))
}

/// A JS array of strings.
pub fn string_array(value: &JsValue) -> Result<Vec<String>> {
    array(value)?
        .iter()
        .enumerate()
        .map(|(index, item)| {
            item.as_string()
                .ok_or_else(|| wrong_type(&format!("[{index}]"), "a string", &item))
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
        let fields = self.optional(name, Fields::read)?;
        Ok(fields.map(|fields| Box::new(fields) as Box<dyn FieldSource>))
    }

    fn strings(&self, name: &'static str) -> Result<Option<Vec<String>>> {
        self.optional(name, string_array)
    }
}

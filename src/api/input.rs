//! Reading host-supplied option fields with errors that name them. The binding reads JS values
//! into [`Scalar`]s (keeping NaN and Infinity, which JSON cannot carry); JSON callers convert
//! `serde_json::Value`s. Both go through the same checks.

use crate::error::{CompactionError, Result, describe_number};

/// One field of a host's options object, as far as validation needs to know it.
#[derive(Debug, Clone, PartialEq)]
pub enum Scalar {
    /// The field is absent (or `undefined`).
    Missing,
    /// `null`.
    Null,
    /// A boolean.
    Bool(bool),
    /// A number (may be NaN or infinite when it comes from JS).
    Number(f64),
    /// A string.
    Text(String),
    /// Anything else; the JS type name (`object`, `array`, `function`, `bigint`).
    Other(&'static str),
}

impl Scalar {
    /// The JS type name, for error messages.
    pub fn type_name(&self) -> &'static str {
        match self {
            Scalar::Missing => "undefined",
            Scalar::Null => "null",
            Scalar::Bool(_) => "boolean",
            Scalar::Number(_) => "number",
            Scalar::Text(_) => "string",
            Scalar::Other(name) => name,
        }
    }

    /// Reads a field of a JSON object.
    pub fn from_json_field(
        object: &serde_json::Map<String, serde_json::Value>,
        name: &str,
    ) -> Self {
        object.get(name).map_or(Scalar::Missing, Scalar::from_json)
    }

    /// Converts a JSON value.
    pub fn from_json(value: &serde_json::Value) -> Self {
        match value {
            serde_json::Value::Null => Scalar::Null,
            serde_json::Value::Bool(b) => Scalar::Bool(*b),
            serde_json::Value::Number(n) => Scalar::Number(n.as_f64().unwrap_or(f64::NAN)),
            serde_json::Value::String(s) => Scalar::Text(s.clone()),
            serde_json::Value::Array(_) => Scalar::Other("array"),
            serde_json::Value::Object(_) => Scalar::Other("object"),
        }
    }
}

/// The error for `value` at `name` where `expected` (`a number`) is required.
fn mismatch(name: &str, expected: &str, value: &Scalar) -> CompactionError {
    match value {
        Scalar::Missing => CompactionError::type_error(name, "is required"),
        other => CompactionError::type_error(
            name,
            format!("must be {expected}, got {}", other.type_name()),
        ),
    }
}

/// `None` for an absent field, else what `read` makes of it.
fn optional<T>(value: Scalar, read: impl FnOnce(Scalar) -> Result<T>) -> Result<Option<T>> {
    match value {
        Scalar::Missing => Ok(None),
        other => read(other).map(Some),
    }
}

/// A required number.
pub fn required_number(name: &str, value: Scalar) -> Result<f64> {
    match value {
        Scalar::Number(n) => Ok(n),
        other => Err(mismatch(name, "a number", &other)),
    }
}

/// An optional number (`undefined` → `None`; `null` is a type error, so a typo'd null is seen).
pub fn optional_number(name: &str, value: Scalar) -> Result<Option<f64>> {
    optional(value, |value| required_number(name, value))
}

/// A required boolean.
pub fn required_bool(name: &str, value: Scalar) -> Result<bool> {
    match value {
        Scalar::Bool(b) => Ok(b),
        other => Err(mismatch(name, "a boolean", &other)),
    }
}

/// A required string.
pub fn required_string(name: &str, value: Scalar) -> Result<String> {
    match value {
        Scalar::Text(s) => Ok(s),
        other => Err(mismatch(name, "a string", &other)),
    }
}

/// An optional string.
pub fn optional_string(name: &str, value: Scalar) -> Result<Option<String>> {
    optional(value, |value| required_string(name, value))
}

/// The largest integer a JS number holds exactly (2^53 - 1).
pub const MAX_SAFE_INTEGER: f64 = 9_007_199_254_740_991.0;

/// An optional integer field in `0..=max`: absent → `None`.
pub fn optional_integer(name: &str, value: Scalar, max: f64) -> Result<Option<u64>> {
    optional(value, |value| required_integer(name, value, max))
}

/// A required integer field in `0..=max`.
pub fn required_integer(name: &str, value: Scalar, max: f64) -> Result<u64> {
    let number = required_number(name, value)?;
    if !number.is_finite() || number < 0.0 || number.fract() != 0.0 || number > max {
        return Err(CompactionError::range_error(
            name,
            format!(
                "must be an integer in [0, {}], got {}",
                describe_number(max),
                describe_number(number)
            ),
        ));
    }
    Ok(number as u64)
}

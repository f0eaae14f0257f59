//! [`BudgetPressure`]: the four inputs the policy reads, the optional prompt-cache facts the
//! cache model reads (docs/design.md §11), and their validation. Unlike the seed, NaN, negative or infinite
//! numbers are errors, never a silent tier choice.

use crate::api::input::{
    MAX_SAFE_INTEGER, Scalar, optional_number, required_bool, required_number,
};
use crate::error::{CompactionError, Result, check_number};
use serde::Serialize;

/// Budget pressure of one session at one turn: what the policy selects a tier from.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BudgetPressure {
    /// 1-based turn number of the session (0 means "before the first turn").
    pub turn_count: u64,
    /// Fraction of the context window used, in `0.0..=1.0`.
    pub context_pct_used: f64,
    /// Seconds since the last turn.
    pub idle_seconds: f64,
    /// Whether the session has finished.
    pub session_complete: bool,
    /// The prompt prefix the provider reported as cached on the last call (Anthropic
    /// `cache_read_input_tokens + cache_creation_input_tokens`, OpenAI
    /// `prompt_tokens_details.cached_tokens`), in the provider's tokens. Without it the cache
    /// model is off.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cached_tokens: Option<f64>,
    /// The model's context window in the provider's tokens: puts `cached_tokens` on the
    /// counter's scale.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub context_window_tokens: Option<f64>,
}

impl BudgetPressure {
    /// The fields a host may set, as spelled in JS.
    pub const FIELDS: [&'static str; 6] = [
        "turnCount",
        "contextPctUsed",
        "idleSeconds",
        "sessionComplete",
        "cachedTokens",
        "contextWindowTokens",
    ];

    /// Validates raw numbers into a pressure. Errors name the JS field (`turnCount`, ...) relative
    /// to the pressure object; callers prefix the object's own path with [`CompactionError::under`].
    pub fn new(
        turn_count: f64,
        context_pct_used: f64,
        idle_seconds: f64,
        session_complete: bool,
    ) -> Result<Self> {
        Ok(Self {
            turn_count: validate_turn_count(turn_count)?,
            context_pct_used: validate_fraction("contextPctUsed", context_pct_used)?,
            idle_seconds: validate_non_negative("idleSeconds", idle_seconds)?,
            session_complete,
            cached_tokens: None,
            context_window_tokens: None,
        })
    }

    /// This pressure with the prompt cache's facts (each `None` when unknown).
    pub fn with_cache(
        self,
        cached_tokens: Option<f64>,
        context_window_tokens: Option<f64>,
    ) -> Result<Self> {
        let check =
            |name, value: Option<f64>| value.map(|v| validate_non_negative(name, v)).transpose();
        Ok(Self {
            cached_tokens: check("cachedTokens", cached_tokens)?,
            context_window_tokens: check("contextWindowTokens", context_window_tokens)?,
            ..self
        })
    }

    /// Reads a pressure from its fields, fetched by JS name: `turnCount`, `contextPctUsed`,
    /// `idleSeconds` and `sessionComplete` are required, `cachedTokens` and
    /// `contextWindowTokens` optional.
    pub fn from_fields(field: &dyn Fn(&'static str) -> Scalar) -> Result<Self> {
        Self::new(
            required_number("turnCount", field("turnCount"))?,
            required_number("contextPctUsed", field("contextPctUsed"))?,
            required_number("idleSeconds", field("idleSeconds"))?,
            required_bool("sessionComplete", field("sessionComplete"))?,
        )?
        .with_cache(
            optional_number("cachedTokens", field("cachedTokens"))?,
            optional_number("contextWindowTokens", field("contextWindowTokens"))?,
        )
    }

    /// Reads a pressure from a JSON object.
    pub fn from_json(value: &serde_json::Value) -> Result<Self> {
        let object = value.as_object().ok_or_else(|| {
            CompactionError::type_error("", format!("must be an object, got {}", json_type(value)))
        })?;
        Self::from_fields(&|name| Scalar::from_json_field(object, name))
    }
}

fn validate_turn_count(value: f64) -> Result<u64> {
    let ok = value.is_finite() && value >= 0.0 && value.fract() == 0.0 && value <= MAX_SAFE_INTEGER;
    Ok(check_number("turnCount", value, ok, "an integer >= 0")? as u64)
}

fn validate_fraction(name: &str, value: f64) -> Result<f64> {
    check_number(
        name,
        value,
        (0.0..=1.0).contains(&value),
        "a finite number in [0, 1]",
    )
}

/// `value` if it is a finite number >= 0, else a range error naming `name`.
pub fn validate_non_negative(name: &str, value: f64) -> Result<f64> {
    check_number(
        name,
        value,
        value.is_finite() && value >= 0.0,
        "a finite number >= 0",
    )
}

/// The JS name of a JSON value's type, for error messages.
pub(crate) fn json_type(value: &serde_json::Value) -> &'static str {
    match value {
        serde_json::Value::Null => "null",
        serde_json::Value::Bool(_) => "boolean",
        serde_json::Value::Number(_) => "number",
        serde_json::Value::String(_) => "string",
        serde_json::Value::Array(_) => "array",
        serde_json::Value::Object(_) => "object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn rejects_nan_naming_the_field() {
        let e = BudgetPressure::new(1.0, f64::NAN, 0.0, false)
            .unwrap_err()
            .under("pressure");
        assert_eq!(
            e.to_string(),
            "pressure.contextPctUsed must be a finite number in [0, 1], got NaN"
        );
    }

    #[test]
    fn rejects_negative_idle_and_fractional_turn() {
        let e = BudgetPressure::new(1.0, 0.1, -1.0, false).unwrap_err();
        assert_eq!(e.path, "idleSeconds");
        let e = BudgetPressure::new(1.5, 0.1, 0.0, false).unwrap_err();
        assert_eq!(e.path, "turnCount");
        let e = BudgetPressure::new(1.0, 1.01, 0.0, false).unwrap_err();
        assert_eq!(e.path, "contextPctUsed");
        let e = BudgetPressure::new(1.0, 0.1, f64::INFINITY, false).unwrap_err();
        assert!(e.to_string().contains("Infinity"));
    }

    #[test]
    fn non_boolean_session_complete_is_an_error() {
        let e = BudgetPressure::from_json(&json!({
            "turnCount": 1, "contextPctUsed": 0.1, "idleSeconds": 0, "sessionComplete": "yes"
        }))
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "sessionComplete must be a boolean, got string"
        );
    }

    #[test]
    fn missing_field_is_named() {
        let e = BudgetPressure::from_json(&json!({"turnCount": 1})).unwrap_err();
        assert_eq!(e.path, "contextPctUsed");
    }
}

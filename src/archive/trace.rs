//! Trace steps: [`record_tier_event`] turns a [`TierResult`] into one JSON line, a step of type
//! `"compact"` that a plain `tail -f` of a JSONL file can audit without a special reader. The
//! seed's namespaced fields (`compaction_*`) are kept, and tier and cost are structured fields
//! too, not only words in `detail`.

use crate::api::result::TierResult;
use serde_json::{Map, Value, json};

/// Builds the trace line of `result`: a step of type `"compact"` with the host's `step` fields
/// kept (trace id, turn number, ...). `timestamp` is `step.timestamp` when the host gives a
/// number, else `timestamp_seconds`. Always valid JSON on one line: no NaN, no raw newline.
pub fn record_tier_event(
    result: &TierResult,
    step: &Map<String, Value>,
    timestamp_seconds: f64,
) -> String {
    let mut line = step.clone();
    let timestamp = step
        .get("timestamp")
        .and_then(Value::as_f64)
        .filter(|t| t.is_finite())
        .unwrap_or(timestamp_seconds);
    line.insert("type".into(), json!("compact"));
    line.insert("timestamp".into(), finite(timestamp));
    line.insert("detail".into(), json!(detail(result)));
    line.insert("tokens".into(), json!(result.tokens_saved));
    // The seed's namespaced fields, in this order.
    let mut put = |key: &str, value: Value| {
        line.insert(format!("compaction_{key}"), value);
    };
    put("tier", json!(result.tier.as_str()));
    put("cost_estimate", finite(result.cost_estimate));
    put("correlation_id", json!(result.correlation_id));
    put("tokens_before", json!(result.before_tokens));
    put("tokens_after", json!(result.after_tokens));
    put("reason", json!(result.reason));
    if result.degraded {
        put("degraded", json!(true));
    }
    if let Some(usage) = &result.summariser_usage {
        put("summariser_input_tokens", json!(usage.input_tokens));
        put("summariser_output_tokens", json!(usage.output_tokens));
        if let Some(cost) = usage.cost_usd {
            put("summariser_cost_usd", finite(cost));
        }
    }
    if let Some(cache) = &result.cache {
        put("cache_warm", json!(cache.warm));
        put("cache_invalidated_tokens", json!(cache.invalidated_tokens));
        put("cache_rewrite_cost_usd", finite(cache.rewrite_cost_usd));
        put(
            "cache_expected_savings_usd",
            finite(cache.expected_savings_usd),
        );
        put("cache_deferred", json!(cache.deferred));
    }
    // Serialising a map of JSON values cannot fail; an empty object is the safe fallback.
    serde_json::to_string(&Value::Object(line)).unwrap_or_else(|_| "{}".to_string())
}

/// The human-readable detail: `tier=micro before=232 after=36 saved=196 cost_estimate=0.000029`.
fn detail(result: &TierResult) -> String {
    let mut detail = format!(
        "tier={} before={} after={} saved={} cost_estimate={}",
        result.tier,
        result.before_tokens,
        result.after_tokens,
        result.tokens_saved,
        crate::base::decimal::fixed6(result.cost_estimate)
    );
    if result.degraded {
        detail.push_str(" degraded=true");
    }
    detail
}

/// A JSON number, or 0 for a non-finite value (JSON has no NaN).
fn finite(value: f64) -> Value {
    serde_json::Number::from_f64(value).map_or(json!(0), Value::Number)
}

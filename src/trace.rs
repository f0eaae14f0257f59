//! Trace steps: [`record_tier_event`] turns a [`TierResult`] into one JSON line that a plain
//! `tail -f` of a JSONL file can audit.

use crate::result::TierResult;

/// Builds the trace line of `result`: a step of type `"compact"` at `timestamp_seconds`, with the
/// host's `step` fields kept. Valid JSON, no raw newline inside.
pub fn record_tier_event(
    result: &TierResult,
    step: &serde_json::Map<String, serde_json::Value>,
    timestamp_seconds: f64,
) -> String {
    let _ = (result, step, timestamp_seconds);
    todo!()
}

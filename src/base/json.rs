//! Compact JSON text of a `serde_json::Value`, written one way across the crate.

use serde_json::Value;

/// Compact JSON of `value`: the same text as `value.to_string()`.
pub(crate) fn compact_json(value: &Value) -> String {
    // Through the serializer that writes to a Vec, which the rest of the crate uses too: Value's
    // Display writes through a `fmt::Formatter` adapter, a second copy of the whole serializer
    // in the wasm. Serialising a Value cannot fail (its keys are strings).
    serde_json::to_string(value).unwrap_or_default()
}

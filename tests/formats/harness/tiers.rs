//! Every tier on every case's input, late in a session (every trigger holds): the result keeps
//! the case's format, never grows, restores to the input, and a list the provider takes stays one
//! it takes (`common/provider.rs`); no tier falls back on the rule check.

use crate::common::provider::problems;
use crate::common::{
    block_on, messages_ctx, no_rule_check_fallback, pressure, text_ctx, unbatched,
};
use serde_json::Value;
use tiered_compaction::formats::registry;
use tiered_compaction::transcript::Format;
use tiered_compaction::{ContextData, Tier, TierContext, compact_with_tier, restore};

/// Runs every tier on `input` (a message list, or flat text) of `format`.
pub fn every_tier(format: Format, input: &ContextData) -> Result<(), String> {
    let late = || pressure(40, 0.8, 400.0, false);
    let valid = match input {
        ContextData::Messages(messages) => problems(format, messages).is_empty(),
        ContextData::Text(_) => true,
    };
    for tier in Tier::ALL {
        let ctx: TierContext = match input {
            ContextData::Messages(messages) => messages_ctx(messages.clone(), late()),
            ContextData::Text(text) => text_ctx(text, late()),
        };
        let result = block_on(compact_with_tier(tier, &ctx, &unbatched()))
            .map_err(|error| format!("{tier}: {error}"))?;
        no_rule_check_fallback(&result)?;
        if result.format != registry::name(format) {
            return Err(format!("{tier}: the result's format is {}", result.format));
        }
        if result.after_tokens > result.before_tokens {
            return Err(format!("{tier}: the context grew"));
        }
        if let (true, ContextData::Messages(output)) = (valid, &result.context) {
            let found = problems(format, output);
            if !found.is_empty() {
                return Err(format!("{tier}: the provider would refuse {found:?}"));
            }
        }
        match restore(&result.context, &result.archive) {
            Ok(restored) if restored == *input => {}
            other => {
                return Err(format!(
                    "{tier}: the archive does not restore the input: {other:?}"
                ));
            }
        }
    }
    Ok(())
}

/// `input` as the context a tier reads.
pub fn context(input: &Value) -> ContextData {
    match input {
        Value::String(text) => ContextData::Text(text.clone()),
        Value::Array(messages) => ContextData::Messages(messages.clone()),
        other => ContextData::Messages(vec![other.clone()]),
    }
}

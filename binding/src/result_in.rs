//! A `TierResult` handed back by the host (to `recordTierEvent`) → the core's [`TierResult`].
//! Fields the result type does not have are ignored: hosts often store results with their own
//! bookkeeping attached. The context (`messages` / `text`) may be absent, as in the `result` of
//! `compactRequestBody`: a trace line does not carry it.

use crate::fields::{Fields, json, json_array, string_array};
use crate::host::type_name;
use crate::skeleton::Originals;
use compaction::api::input::{MAX_SAFE_INTEGER, required_integer};
use compaction::api::input::{optional_string, required_number, required_string};
use compaction::api::result::{ArchiveEntry, ContextData, SummariserUsage, TierResult};
use compaction::error::{CompactionError, Result, describe_number};
use compaction::formats::registry;
use compaction::plan::ArchiveKind;
use compaction::policy::tier::Tier;
use js_sys::Array;
use wasm_bindgen::{JsCast, JsValue};

/// Reads a result object. Errors are relative to it (`tokensSaved ...`).
pub fn tier_result(value: &JsValue) -> Result<TierResult> {
    let fields = Fields::read(value)?;
    let count = |name: &'static str| required_integer(name, fields.scalar(name)?, MAX_SAFE_INTEGER);
    let tier = Tier::parse(&required_string("tier", fields.scalar("tier")?)?, "tier")?;
    let context = context(&fields)?;
    let cost_estimate = required_number("costEstimate", fields.scalar("costEstimate")?)?;
    if !cost_estimate.is_finite() || cost_estimate < 0.0 {
        return Err(CompactionError::range_error(
            "costEstimate",
            format!(
                "must be a finite number >= 0, got {}",
                describe_number(cost_estimate)
            ),
        ));
    }
    let archive = archive(&fields)?;
    let degraded = match fields.get("degraded")? {
        value if value.is_undefined() => false,
        value => value.as_bool().ok_or_else(|| {
            CompactionError::type_error(
                "degraded",
                format!("must be a boolean, got {}", type_name(&value)),
            )
        })?,
    };
    let warnings = match fields.get("warnings")? {
        value if value.is_undefined() => Vec::new(),
        value => string_array(&value).map_err(|error| error.under("warnings"))?,
    };
    let summariser_usage = match fields.get("summariserUsage")? {
        value if value.is_undefined() => None,
        value => Some(usage(&value).map_err(|error| error.under("summariserUsage"))?),
    };
    let cache = match fields.get("cache")? {
        value if value.is_undefined() => None,
        value => Some(cache_report(&value).map_err(|error| error.under("cache"))?),
    };
    let format_name = required_string("format", fields.scalar("format")?)?;
    let format = registry::by_name(&format_name)
        .map(registry::name)
        .ok_or_else(|| {
            CompactionError::type_error(
                "format",
                format!(
                    "must be one of {}, got {format_name:?}",
                    registry::quoted_names()
                ),
            )
        })?;
    Ok(TierResult {
        tier,
        context,
        before_tokens: count("beforeTokens")?,
        after_tokens: count("afterTokens")?,
        tokens_saved: count("tokensSaved")?,
        cost_estimate,
        correlation_id: required_string("correlationId", fields.scalar("correlationId")?)?,
        reason: required_string("reason", fields.scalar("reason")?)?,
        archive,
        summary: optional_string("summary", fields.scalar("summary")?)?,
        degraded,
        warnings,
        summariser_usage,
        cache,
        // What restore and the trace read of a result holds no state.
        state: None,
        format,
        origins: Vec::new(),
        archive_origins: Vec::new(),
    })
}

/// A result's context: its `messages` or its `text` (an empty list when it has neither).
pub fn context(fields: &Fields) -> Result<ContextData> {
    let messages = fields.get("messages")?;
    let text = fields.get("text")?;
    Ok(match (messages.is_undefined(), text.is_undefined()) {
        (false, true) => {
            ContextData::Messages(json_array(&messages).map_err(|error| error.under("messages"))?)
        }
        (true, false) => ContextData::Text(text.as_string().ok_or_else(|| {
            CompactionError::type_error(
                "text",
                format!("must be a string, got {}", type_name(&text)),
            )
        })?),
        (true, true) => ContextData::Messages(Vec::new()),
        (false, false) => {
            return Err(CompactionError::type_error(
                "",
                "must not have both messages and text",
            ));
        }
    })
}

/// What `restore` reads of a result: its context and its archive, read together in one
/// skeleton, so that binary values and URLs stay the host's own objects (their placeholders
/// are put back by the output) and lone surrogates cross in one window. `None` when the
/// result is not shaped for it; the caller then reads it field by field, which names what is
/// wrong.
///
/// `body`: the request body the archive will be written into, whose window it must share.
pub fn restorable(
    fields: &Fields,
    body: &JsValue,
) -> Option<(ContextData, Vec<ArchiveEntry>, Originals)> {
    let archive = fields.get("archive").ok()?.dyn_into::<Array>().ok()?;
    let (messages, text) = (fields.get("messages").ok()?, fields.get("text").ok()?);
    let context = match (messages.is_undefined(), text.is_undefined()) {
        (false, true) if Array::is_array(&messages) => messages,
        (true, false) if text.is_string() => text,
        (true, true) => JsValue::NULL,
        _ => return None,
    };
    let unbounded = compaction::api::limits::Limits {
        max_input_bytes: usize::MAX,
        max_nesting_depth: usize::MAX,
    };
    let pair = Array::of2(&context, &archive);
    let skeleton = crate::skeleton::read_for(&pair, &unbounded, body).ok()??;
    let (mut values, originals) = (skeleton.values, skeleton.originals);
    let serde_json::Value::Array(entries) = values.pop()? else {
        return None;
    };
    let entries = entries
        .into_iter()
        .map(entry_of_json)
        .collect::<Option<Vec<_>>>()?;
    let context = match values.pop()? {
        serde_json::Value::String(text) => ContextData::Text(text),
        serde_json::Value::Array(messages) => ContextData::Messages(messages),
        _ => ContextData::Messages(Vec::new()),
    };
    Some((context, entries, originals))
}

/// An archive entry read as JSON (strings as they crossed); `None` if it is not well formed.
fn entry_of_json(mut value: serde_json::Value) -> Option<ArchiveEntry> {
    let fields = value.as_object_mut()?;
    let text = |name: &str| match fields.get(name) {
        Some(serde_json::Value::String(text)) => Some(Some(text.clone())),
        None => Some(None),
        Some(_) => None,
    };
    let id = text("id")??;
    let kind = ArchiveKind::parse(&text("kind")??, "kind").ok()?.as_str();
    let location = text("location")??;
    let replacement = text("replacement")?.unwrap_or_default();
    // Taken, not copied: the content may be a whole run of messages.
    let content = fields.get_mut("content").map(std::mem::take);
    Some(ArchiveEntry {
        id,
        kind,
        content: content.unwrap_or(serde_json::Value::Null),
        location,
        replacement,
    })
}

/// The `archive` field of a result: its entries, errors naming `archive[i]`.
pub fn archive(fields: &Fields) -> Result<Vec<ArchiveEntry>> {
    let archive = fields.get("archive")?;
    archive
        .dyn_ref::<Array>()
        .ok_or_else(|| {
            CompactionError::type_error(
                "archive",
                format!("must be an array, got {}", type_name(&archive)),
            )
        })?
        .iter()
        .enumerate()
        .map(|(index, entry)| {
            archive_entry(&entry).map_err(|error| error.under(&format!("archive[{index}]")))
        })
        .collect()
}

fn archive_entry(value: &JsValue) -> Result<ArchiveEntry> {
    let fields = Fields::read(value)?;
    let kind_name = required_string("kind", fields.scalar("kind")?)?;
    let kind = ArchiveKind::parse(&kind_name, "kind")?.as_str();
    Ok(ArchiveEntry {
        id: required_string("id", fields.scalar("id")?)?,
        kind,
        content: json(&fields.get("content")?).map_err(|error| error.under("content"))?,
        location: required_string("location", fields.scalar("location")?)?,
        replacement: optional_string("replacement", fields.scalar("replacement")?)?
            .unwrap_or_default(),
    })
}

fn usage(value: &JsValue) -> Result<SummariserUsage> {
    let fields = Fields::read(value)?;
    let cost_usd = match fields.scalar("costUsd")? {
        compaction::api::input::Scalar::Missing => None,
        other => {
            let cost = required_number("costUsd", other)?;
            if !cost.is_finite() || cost < 0.0 {
                return Err(CompactionError::range_error(
                    "costUsd",
                    format!(
                        "must be a finite number >= 0, got {}",
                        describe_number(cost)
                    ),
                ));
            }
            Some(cost)
        }
    };
    Ok(SummariserUsage {
        input_tokens: required_integer(
            "inputTokens",
            fields.scalar("inputTokens")?,
            MAX_SAFE_INTEGER,
        )?,
        output_tokens: required_integer(
            "outputTokens",
            fields.scalar("outputTokens")?,
            MAX_SAFE_INTEGER,
        )?,
        cost_usd,
    })
}

/// A result's `cache` report, read back for the trace.
fn cache_report(value: &JsValue) -> Result<compaction::policy::cache::CacheReport> {
    let fields = Fields::read(value)?;
    let usd = |name: &'static str| -> Result<f64> {
        compaction::policy::pressure::validate_non_negative(
            name,
            required_number(name, fields.scalar(name)?)?,
        )
    };
    Ok(compaction::policy::cache::CacheReport {
        warm: compaction::api::input::required_bool("warm", fields.scalar("warm")?)?,
        invalidated_tokens: required_integer(
            "invalidatedTokens",
            fields.scalar("invalidatedTokens")?,
            MAX_SAFE_INTEGER,
        )?,
        rewrite_cost_usd: usd("rewriteCostUsd")?,
        expected_savings_usd: usd("expectedSavingsUsd")?,
        // Absent in a result written before it existed: not deferred.
        deferred: match fields.scalar("deferred")? {
            compaction::api::input::Scalar::Missing => false,
            value => compaction::api::input::required_bool("deferred", value)?,
        },
    })
}

//! A `TierResult` handed back by the host (to `recordTierEvent`) → the core's [`TierResult`].
//! Fields the result type does not have are ignored: hosts often store results with their own
//! bookkeeping attached. The context (`messages` / `text`) may be absent, as in the `result` of
//! `compactRequestBody`: a trace line does not carry it.

use crate::fields::{Fields, array, json, json_array, non_negative, string_array};
use crate::host::wrong_type;
use crate::skeleton::Originals;
use compaction::api::input::{Scalar, required_bool};
use compaction::api::result::{ArchiveEntry, ContextData, SummariserUsage, TierResult};
use compaction::error::{CompactionError, Result};
use compaction::formats::registry;
use compaction::plan::ArchiveKind;
use compaction::policy::cache::CacheReport;
use compaction::policy::tier::Tier;
use js_sys::Array;
use serde_json::Value;
use wasm_bindgen::{JsCast, JsValue};

/// Reads a result object. Errors are relative to it (`tokensSaved ...`).
pub fn tier_result(value: &JsValue) -> Result<TierResult> {
    let fields = Fields::read(value)?;
    let tier = Tier::parse(&fields.string("tier")?, "tier")?;
    let context = context(&fields)?;
    let cost_estimate = fields.non_negative("costEstimate")?;
    let archive = archive(&fields)?;
    let degraded = fields.optional("degraded", |value| {
        value
            .as_bool()
            .ok_or_else(|| wrong_type("", "a boolean", value))
    })?;
    let warnings = fields.optional("warnings", string_array)?;
    let summariser_usage = fields.optional("summariserUsage", usage)?;
    let cache = fields.optional("cache", cache_report)?;
    let format = registry::name(format(&fields.string("format")?)?);
    Ok(TierResult {
        tier,
        context,
        before_tokens: fields.count("beforeTokens")?,
        after_tokens: fields.count("afterTokens")?,
        tokens_saved: fields.count("tokensSaved")?,
        cost_estimate,
        correlation_id: fields.string("correlationId")?,
        reason: fields.string("reason")?,
        archive,
        summary: fields.optional_string("summary")?,
        degraded: degraded.unwrap_or(false),
        warnings: warnings.unwrap_or_default(),
        summariser_usage,
        cache,
        // What restore and the trace read of a result holds no state.
        state: None,
        format,
        origins: Vec::new(),
        archive_origins: Vec::new(),
    })
}

/// The format named `name`.
pub fn format(name: &str) -> Result<compaction::transcript::Format> {
    registry::by_name(name).ok_or_else(|| {
        let problem = format!("must be one of {}, got {name:?}", registry::quoted_names());
        CompactionError::type_error("format", problem)
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
        (true, false) => ContextData::Text(
            text.as_string()
                .ok_or_else(|| wrong_type("text", "a string", &text))?,
        ),
        (true, true) => ContextData::Messages(Vec::new()),
        (false, false) => {
            let problem = "must not have both messages and text";
            return Err(CompactionError::type_error("", problem));
        }
    })
}

/// What `restore` reads of a result: its context and archive in one skeleton, so binary values
/// and URLs stay the host's own and lone surrogates cross in one window (`body`'s, whose request
/// body the archive will be written into). `None` when the result is not shaped for it: the
/// caller then reads it field by field, which names what is wrong.
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
    let pair = Array::of2(&context, &archive);
    let skeleton = crate::skeleton::read(&pair, &crate::skeleton::UNBOUNDED, body).ok()??;
    let (mut values, originals) = (skeleton.values, skeleton.originals);
    let Value::Array(entries) = values.pop()? else {
        return None;
    };
    let entries = entries
        .into_iter()
        .map(entry_of_json)
        .collect::<Option<_>>()?;
    let context = match values.pop()? {
        Value::String(text) => ContextData::Text(text),
        Value::Array(messages) => ContextData::Messages(messages),
        _ => ContextData::Messages(Vec::new()),
    };
    Some((context, entries, originals))
}

/// An archive entry read as JSON (strings as they crossed); `None` if it is not well formed.
fn entry_of_json(mut value: Value) -> Option<ArchiveEntry> {
    let fields = value.as_object_mut()?;
    let text = |name: &str| match fields.get(name) {
        Some(Value::String(text)) => Some(Some(text.clone())),
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
        content: content.unwrap_or(Value::Null),
        location,
        replacement,
    })
}

/// The `archive` field of a result: its entries, errors naming `archive[i]`.
pub fn archive(fields: &Fields) -> Result<Vec<ArchiveEntry>> {
    let archive = fields.get("archive")?;
    array(&archive)
        .map_err(|error| error.under("archive"))?
        .iter()
        .enumerate()
        .map(|(index, entry)| {
            archive_entry(&entry).map_err(|error| error.under(&format!("archive[{index}]")))
        })
        .collect()
}

fn archive_entry(value: &JsValue) -> Result<ArchiveEntry> {
    let fields = Fields::read(value)?;
    let kind = ArchiveKind::parse(&fields.string("kind")?, "kind")?.as_str();
    Ok(ArchiveEntry {
        id: fields.string("id")?,
        kind,
        content: json(&fields.get("content")?).map_err(|error| error.under("content"))?,
        location: fields.string("location")?,
        replacement: fields.optional_string("replacement")?.unwrap_or_default(),
    })
}

fn usage(value: &JsValue) -> Result<SummariserUsage> {
    let fields = Fields::read(value)?;
    let cost_usd = match fields.scalar("costUsd")? {
        Scalar::Missing => None,
        other => Some(non_negative("costUsd", other)?),
    };
    Ok(SummariserUsage {
        input_tokens: fields.count("inputTokens")?,
        output_tokens: fields.count("outputTokens")?,
        cost_usd,
    })
}

/// A result's `cache` report, read back for the trace.
fn cache_report(value: &JsValue) -> Result<CacheReport> {
    let fields = Fields::read(value)?;
    Ok(CacheReport {
        warm: required_bool("warm", fields.scalar("warm")?)?,
        invalidated_tokens: fields.count("invalidatedTokens")?,
        rewrite_cost_usd: fields.non_negative("rewriteCostUsd")?,
        expected_savings_usd: fields.non_negative("expectedSavingsUsd")?,
        // Absent in a result written before it existed: not deferred.
        deferred: match fields.scalar("deferred")? {
            Scalar::Missing => false,
            value => required_bool("deferred", value)?,
        },
    })
}

//! The JS binding: the only code that touches wasm-bindgen, js-sys and wasm-bindgen-futures.
//! Each export converts its JS arguments into core types, calls one core
//! function and converts the outcome back (camelCase keys, real `Error`s). The names are the
//! API in `docs/design.md`; the package's JS entry points (`js/`) re-export exactly these.

#![cfg(target_arch = "wasm32")]
#![deny(unsafe_code)]
#![warn(missing_docs)]

mod body;
mod counter;
mod errors;
mod fields;
mod host;
mod inputs;
mod output;
mod plain;
mod restore;
mod result_in;
mod skeleton;
mod summariser;
mod surrogates;
#[cfg(feature = "test-trap")]
mod test_trap;
#[cfg(test)]
mod tests;
mod text;

use compaction::api::result::TierResult;
use compaction::error::Result;
use compaction::policy::tier::Tier;
use errors::{throw, throw_under};
use fields::Fields;
use inputs::HostOptions;
use skeleton::Originals;
use wasm_bindgen::prelude::*;

/// Routes Rust panics (bugs of this library) to `console.error` with a readable message.
fn install_panic_hook() {
    console_error_panic_hook::set_once();
}

/// A required string argument.
fn string_argument(name: &str, value: &JsValue) -> Result<String> {
    host::js_string(name, value).map(|text| text::to_string(&text))
}

/// Reads an optional options argument whose errors are named `<name>.<field>`, together with
/// its `extra` non-`CompactOptions` fields.
fn options_argument(
    name: &str,
    value: &JsValue,
    extra: &[&str],
) -> Result<(HostOptions, Option<Fields>)> {
    let read = |fields: Option<Fields>| Ok((HostOptions::read(fields.as_ref(), extra)?, fields));
    Fields::read_optional(value)
        .and_then(read)
        .map_err(|error| error.under(name))
}

/// The outcome of a core call as the JS promise settles: a `countTokens` failure wins over the
/// result, whose counts are then not the host's. See [`output::result_object`] for the rest.
fn settle(
    options: &HostOptions,
    outcome: Result<TierResult>,
    input: Option<&js_sys::Array>,
    originals: Option<&Originals>,
) -> Result<JsValue, JsValue> {
    #[cfg(feature = "test-trap")]
    test_trap::on_settle();
    if let Some(failure) = options.counter_failure() {
        return Err(failure);
    }
    output::result_object(&outcome.map_err(throw)?, Some(input), originals)
}

/// Runs `tier` (or the policy's choice) on `ctx_value`.
async fn run(
    tier: Option<Tier>,
    ctx_value: &JsValue,
    options: &JsValue,
) -> Result<JsValue, JsValue> {
    // The caller's `ctx.messages`, whose unchanged messages are handed back as they are.
    let input = js_sys::Reflect::get(ctx_value, &host::key("messages"))
        .ok()
        .and_then(|value| value.dyn_into::<js_sys::Array>().ok());
    // The context's errors are reported before the options' ones; the options are read first
    // for the call's own size limit, under which nothing is copied before its size is checked.
    let options = options_argument("options", options, &[]);
    let limits = options.as_ref().map_or_else(
        |_| compaction::config::PolicyConfig::default().limits(),
        |(options, _)| options.plain.policy.limits(),
    );
    let (ctx, originals) = inputs::context(ctx_value, &limits).map_err(throw)?;
    let (options, _) = options.map_err(throw)?;
    options.set_originals(originals.as_ref());
    let core_options = options.core();
    let outcome = match tier {
        Some(tier) => compaction::engine::compact_with_tier_owned(tier, ctx, &core_options).await,
        None => compaction::engine::compact_owned(ctx, &core_options).await,
    };
    settle(&options, outcome, input.as_ref(), originals.as_ref())
}

/// Picks exactly one tier for `pressure` (seed order, first match wins) under `policy` (the
/// seed's thresholds where omitted). Synchronous and pure.
#[wasm_bindgen(js_name = selectTier)]
pub fn select_tier(pressure: JsValue, policy: JsValue) -> Result<String, JsValue> {
    install_panic_hook();
    let pressure = inputs::pressure(&pressure).map_err(throw_under("pressure"))?;
    let policy = inputs::policy(&policy).map_err(throw_under("policy"))?;
    Ok(compaction::policy::select_tier(&pressure, &policy)
        .as_str()
        .to_string())
}

/// [`select_tier`] for a pressure of just its four fields, passed as they are (reading them off
/// an object was most of a 3.5 µs call), and no policy. `undefined` when they do not validate:
/// the package then calls `selectTier`, which reports the error.
#[wasm_bindgen(js_name = selectTierOf)]
pub fn select_tier_of(
    turn_count: f64,
    context_pct_used: f64,
    idle_seconds: f64,
    session_complete: bool,
) -> JsValue {
    use compaction::policy::pressure::BudgetPressure;
    match BudgetPressure::new(turn_count, context_pct_used, idle_seconds, session_complete) {
        // The tier's name as a cached JS string.
        Ok(pressure) => {
            let policy = compaction::config::PolicyConfig::default();
            host::key(compaction::policy::select_tier(&pressure, &policy).as_str())
        }
        Err(_) => JsValue::UNDEFINED,
    }
}

/// Selects a tier from `ctx.pressure` and runs it; resolves to a `TierResult`.
#[wasm_bindgen(js_name = compact)]
pub async fn compact(ctx: JsValue, options: JsValue) -> Result<JsValue, JsValue> {
    install_panic_hook();
    run(None, &ctx, &options).await
}

/// Runs `tier` on `ctx` whatever the pressure says; resolves to a `TierResult`.
#[wasm_bindgen(js_name = compactWithTier)]
pub async fn compact_with_tier(
    tier: JsValue,
    ctx: JsValue,
    options: JsValue,
) -> Result<JsValue, JsValue> {
    install_panic_hook();
    let tier = string_argument("tier", &tier).and_then(|name| Tier::parse(&name, "tier"));
    run(Some(tier.map_err(throw)?), &ctx, &options).await
}

/// One JSON line (no newline inside) recording `result` as a trace step of type `"compact"`.
/// `step` fields are kept; its `timestamp` (seconds) defaults to now.
#[wasm_bindgen(js_name = recordTierEvent)]
pub fn record_tier_event(result: JsValue, step: JsValue) -> Result<String, JsValue> {
    install_panic_hook();
    let result = result_in::tier_result(&result).map_err(throw_under("result"))?;
    let (step, timestamp) = step_fields(&step).map_err(throw_under("step"))?;
    let timestamp = timestamp.unwrap_or_else(|| js_sys::Date::now() / 1000.0);
    Ok(compaction::archive::trace::record_tier_event(
        &result, &step, timestamp,
    ))
}

/// `recordTierEvent`'s `step` as a JSON object, and its `timestamp`.
fn step_fields(
    step: &JsValue,
) -> Result<(serde_json::Map<String, serde_json::Value>, Option<f64>)> {
    let Some(fields) = Fields::read_optional(step)? else {
        return Ok(Default::default());
    };
    let timestamp = fields.optional_number("timestamp")?;
    let map = match fields::json(step)? {
        serde_json::Value::Object(map) => map,
        _ => serde_json::Map::new(),
    };
    // Checked after the conversion, whose error comes first.
    Ok((map, fields::seconds("timestamp", timestamp)?))
}

/// The seed's single-strategy call: compacts flat `contextText` with full-context pressure
/// (`contextPctUsed` 1.0, `turnCount` 1 unless given in `opts`), which selects `auto`.
#[wasm_bindgen(js_name = runLegacyCompaction)]
pub async fn run_legacy_compaction(
    session_id: JsValue,
    context_text: JsValue,
    opts: JsValue,
) -> Result<JsValue, JsValue> {
    install_panic_hook();
    let session_id = string_argument("sessionId", &session_id).map_err(throw)?;
    let context_text = host::js_string("contextText", &context_text).map_err(throw)?;
    let extra = &["contextPctUsed", "turnCount"];
    let (options, fields) = options_argument("opts", &opts, extra).map_err(throw)?;
    // Refused before it is copied into wasm memory; lone surrogates cross in a window.
    let (context_text, window) =
        text::read_bounded(&context_text, &options.plain.policy.limits(), "text").map_err(throw)?;
    options.set_window(window);
    let number = |name| match &fields {
        Some(fields) => fields.optional_number(name).map_err(throw_under("opts")),
        None => Ok(None),
    };
    let (context_pct_used, turn_count) = (number("contextPctUsed")?, number("turnCount")?);
    let core_options = options.core();
    let outcome = compaction::engine::legacy::run_legacy_compaction(
        &session_id,
        &context_text,
        context_pct_used,
        turn_count,
        &core_options,
    )
    .await;
    settle(
        &options,
        outcome,
        None,
        Originals::of_window(window).as_ref(),
    )
}

/// Edge-proxy path: compacts the `messages` of an OpenAI Chat Completions or Anthropic Messages
/// request body (a JSON string); resolves to `{ body, result }` with every other byte of the
/// body unchanged.
#[wasm_bindgen(js_name = compactRequestBody)]
pub async fn compact_request_body(body: JsValue, options: JsValue) -> Result<JsValue, JsValue> {
    install_panic_hook();
    let body = host::js_string("body", &body).map_err(throw)?;
    let extra = &["sessionId", "pressure", "costPer1kTokens", "state"];
    let fields = Fields::read(&options).map_err(throw_under("options"))?;
    let options = HostOptions::read(Some(&fields), extra).map_err(throw_under("options"))?;
    let (session_id, pressure, cost, state) =
        body_fields(&fields).map_err(throw_under("options"))?;
    let request = compaction::edge::body::BodyRequest {
        session_id: &session_id,
        pressure,
        cost_per_1k_tokens: cost,
        state,
    };
    // Refused before it is copied into wasm memory (the core checks the copy again).
    text::check_size(&body, &options.plain.policy.limits(), "body").map_err(throw)?;
    let core_options = options.core();
    let source = body::JsBody::new(&body);
    let window = source.window();
    options.set_window(window);
    let outcome = compaction::edge::body::compact(source, &request, &core_options).await;
    if let Some(failure) = options.counter_failure() {
        return Err(failure);
    }
    let (body, result, originals) = outcome.map_err(throw)?;
    let originals = originals.or_else(|| Originals::of_window(window));
    output::body_result(body.into(), &result, originals.as_ref())
}

/// `sessionId`, `pressure`, `costPer1kTokens` and `state` of `compactRequestBody`'s options.
type BodyFields = (
    String,
    compaction::policy::pressure::BudgetPressure,
    Option<f64>,
    Option<compaction::plan::loop_state::LoopState>,
);

fn body_fields(fields: &Fields) -> Result<BodyFields> {
    Ok((
        fields.string("sessionId")?,
        inputs::pressure_field(fields)?,
        fields.optional_number("costPer1kTokens")?,
        inputs::loop_state(&fields.get("state")?)?,
    ))
}

/// A token estimate of a text: the seed's rule by default, as for flat text (0 for `""`, else
/// `max(1, ⌊code points / 4⌋)`), the heuristic estimator (the default of structured messages)
/// with `{ tokenEstimator: "heuristic" }`.
#[wasm_bindgen(js_name = estimateTokens)]
pub fn estimate_tokens(text: JsValue, options: JsValue) -> Result<f64, JsValue> {
    install_panic_hook();
    let text = string_argument("text", &text).map_err(throw)?;
    let estimator = Fields::read_optional(&options).and_then(|fields| match fields {
        Some(fields) => fields
            .reject_unknown(&["tokenEstimator"])
            .and_then(|()| inputs::token_estimator(&fields)),
        None => Ok(None),
    });
    let estimator = estimator.map_err(throw_under("options"))?;
    let estimator = estimator.unwrap_or(compaction::tokens::TokenEstimator::Seed);
    Ok(compaction::tokens::estimate_tokens_with(&text, estimator) as f64)
}

/// `TIER_COST_WEIGHT` as a plain object. Not part of the API: the build reads it once and writes
/// the frozen `TIER_COST_WEIGHT` constant into the package's entry points, so the constant exists
/// before the module is initialised (browsers) and has one source, the core's table.
#[wasm_bindgen(js_name = tierCostWeightTable)]
pub fn tier_cost_weight_table() -> JsValue {
    output::cost_weights()
}

/// The allocator: talc instead of the standard library's dlmalloc, 6.8 KB smaller in the shipped
/// module (2.5 KB gzipped, issue 21) and as fast on the benchmark's workloads. Its
/// `disable-realloc-in-place` feature saves only 0.4 KB more and makes every growing string copy.
#[global_allocator]
static ALLOCATOR: talc::wasm::WasmDynamicTalc = talc::wasm::new_wasm_dynamic_allocator();

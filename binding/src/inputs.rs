//! JS arguments → core types: pressure, policy, context and the per-call options. Validation of
//! values is the core's (`BudgetPressure::from_fields`, `PolicyConfig::from_source`,
//! `TierContext::validate`); this file only reads fields and rejects unknown ones.

use crate::counter::JsCounter;
use crate::fields::{Fields, json_array};
use crate::host::{AbortSignal, wrong_type};
use crate::skeleton::{self, Originals};
use crate::summariser::JsSummariser;
use compaction::api::context::{CompactOptions, ContextInput, FormatChoice, TierContext};
use compaction::api::input::Scalar;
use compaction::api::limits::Limits;
use compaction::config::PolicyConfig;
use compaction::error::{CompactionError, Result, describe_number};
use compaction::plan::loop_state::LoopState;
use compaction::policy::pressure::BudgetPressure;
use compaction::tokens::TokenEstimator;
use wasm_bindgen::{JsCast, JsValue};

/// Fields of a `TierContext`.
pub const CONTEXT_KEYS: &[&str] = &[
    "sessionId",
    "pressure",
    "costPer1kTokens",
    "messages",
    "text",
    "format",
    "state",
];

/// Fields of `CompactOptions`. `now` is accepted and checked but not used yet (the core has no
/// clock-dependent behaviour); `instructions` overrides the summarisation prompt.
pub const OPTION_KEYS: &[&str] = &[
    "summarise",
    "countTokens",
    "policy",
    "timeoutMs",
    "signal",
    "correlationId",
    "instructions",
    "now",
    "tokenEstimator",
];

/// The summariser's default timeout (`docs/design.md`, "Summaries").
pub const DEFAULT_TIMEOUT_MS: f64 = 60_000.0;

/// The longest delay `setTimeout` honours (2^31 − 1 ms); longer ones fire at once.
const MAX_TIMEOUT_MS: f64 = 2_147_483_647.0;

/// A `BudgetPressure` object. Errors are relative (`contextPctUsed ...`).
pub fn pressure(value: &JsValue) -> Result<BudgetPressure> {
    let fields = Fields::read(value)?;
    fields.reject_unknown(&BudgetPressure::FIELDS)?;
    // `from_fields` takes an infallible reader; a throwing getter reads as a non-number.
    BudgetPressure::from_fields(&|name| {
        fields
            .scalar(name)
            .unwrap_or(Scalar::Other("throwing getter"))
    })
}

/// The `pressure` field of `fields`.
pub fn pressure_field(fields: &Fields) -> Result<BudgetPressure> {
    pressure(&fields.get("pressure")?).map_err(|error| error.under("pressure"))
}

/// A `PolicyConfig` object, or the seed's defaults for `undefined`. Errors are relative.
pub fn policy(value: &JsValue) -> Result<PolicyConfig> {
    let Some(fields) = Fields::read_optional(value)? else {
        return Ok(PolicyConfig::default());
    };
    PolicyConfig::from_source(&fields)
}

/// The `ctx` argument of `compact` / `compactWithTier`, errors named without a prefix
/// (`messages[3].content`), and the originals the output needs. Nothing is copied into wasm
/// before its size is known to be within `limits`.
pub fn context(value: &JsValue, limits: &Limits) -> Result<(TierContext, Option<Originals>)> {
    let fields = Fields::read(value).map_err(|error| error.under("ctx"))?;
    fields.reject_unknown(CONTEXT_KEYS)?;
    let session_id = fields.string("sessionId")?;
    let pressure = pressure_field(&fields)?;
    let cost = fields.optional_number("costPer1kTokens")?;
    let format = fields.optional_string("format")?;
    let state = loop_state(&fields.get("state")?)?;
    let messages = fields.get("messages")?;
    let text = fields.get("text")?;
    let (input, originals) = match (messages.is_undefined(), text.is_undefined()) {
        (false, true) => {
            let (messages, originals) =
                read_messages(&messages, limits).map_err(|error| error.under("messages"))?;
            let format = FormatChoice::parse(format.as_deref().unwrap_or("auto"))?;
            (ContextInput::Messages { messages, format }, originals)
        }
        (true, false) => {
            let text = crate::host::js_string("text", &text)?;
            let (text, window) = crate::text::read_bounded(&text, limits, "text")?;
            if let Some(name) = format.filter(|name| !matches!(name.as_str(), "auto" | "text")) {
                return Err(CompactionError::type_error(
                    "format",
                    format!("must be \"auto\" or \"text\" for a text context, got {name:?}"),
                ));
            }
            (ContextInput::Text(text), Originals::of_window(window))
        }
        (no_messages, _) => {
            let got = if no_messages { "neither" } else { "both" };
            let problem = format!("must have exactly one of messages or text, got {got}");
            return Err(CompactionError::type_error("ctx", problem));
        }
    };
    let mut ctx = TierContext::new(session_id, pressure, input);
    ctx.state = state;
    if let Some(cost) = cost {
        ctx.cost_per_1k_tokens = cost;
    }
    ctx.host_values = originals.as_ref().and_then(Originals::host_key);
    ctx.validate()?;
    Ok((ctx, originals))
}

/// `ctx.state`: the previous result's `state`, read through its JSON text (a few hundred bytes;
/// more than [`LoopState::MAX_JSON_BYTES`] is refused). `undefined` and `null` are no state.
pub(crate) fn loop_state(value: &JsValue) -> Result<Option<LoopState>> {
    if value.is_undefined() || value.is_null() {
        return Ok(None);
    }
    let refused =
        || CompactionError::type_error("state", "must be the object a result's state gave");
    let text = js_sys::JSON::stringify(value)
        .ok()
        .and_then(|text| text.as_string())
        .ok_or_else(refused)?;
    if text.len() > LoopState::MAX_JSON_BYTES {
        let max = LoopState::MAX_JSON_BYTES;
        let problem = format!("must be at most {max} bytes of JSON, got {}", text.len());
        return Err(CompactionError::range_error("state", problem));
    }
    let json: serde_json::Value = serde_json::from_str(&text).map_err(|_| refused())?;
    LoopState::from_json(&json).map(Some)
}

/// `ctx.messages` as JSON values, with the originals when the output needs them (binary
/// values, URLs, lone surrogates). An input over `limits` is refused before it is copied.
fn read_messages(
    messages: &JsValue,
    limits: &Limits,
) -> Result<(Vec<serde_json::Value>, Option<Originals>)> {
    Ok(
        match skeleton::read(messages, limits, &JsValue::UNDEFINED)? {
            Some(skeleton) => {
                let originals = Some(skeleton.originals).filter(Originals::needed);
                (skeleton.values, originals)
            }
            None => (json_array(messages)?, None),
        },
    )
}

/// The per-call options, owning the JS callbacks; [`HostOptions::core`] lends them to the core.
#[derive(Default)]
pub struct HostOptions {
    /// The options but for the callbacks.
    pub plain: CompactOptions<'static>,
    summariser: Option<JsSummariser>,
    counter: Option<JsCounter>,
}

impl HostOptions {
    /// Reads the `CompactOptions` fields of `fields` (absent → defaults). `extra` names the other
    /// fields the same object may carry (`sessionId`, `pressure`, ... of `compactRequestBody`).
    /// Errors are relative to the options object.
    pub fn read(fields: Option<&Fields>, extra: &[&str]) -> Result<Self> {
        let Some(fields) = fields else {
            return Ok(Self::default());
        };
        let known: Vec<&str> = OPTION_KEYS.iter().chain(extra).copied().collect();
        fields.reject_unknown(&known)?;
        let policy = policy(&fields.get("policy")?).map_err(|error| error.under("policy"))?;
        let timeout_ms = match fields.optional_number("timeoutMs")? {
            None => DEFAULT_TIMEOUT_MS,
            Some(ms) if ms.is_finite() && (0.0..=MAX_TIMEOUT_MS).contains(&ms) => ms,
            Some(ms) => {
                let got = describe_number(ms);
                let problem = format!("must be a finite number in [0, 2147483647], got {got}");
                return Err(CompactionError::range_error("timeoutMs", problem));
            }
        };
        let signal = fields.optional("signal", abort_signal)?;
        let summariser = fields
            .optional("summarise", function)?
            .map(|callback| JsSummariser::new(callback, timeout_ms, signal));
        let counter = fields.optional("countTokens", function)?;
        let correlation_id = fields.optional_string("correlationId")?;
        let instructions = fields.optional_string("instructions")?;
        crate::fields::seconds("now", fields.optional_number("now")?)?;
        let plain = CompactOptions {
            policy,
            correlation_id,
            instructions,
            token_estimator: token_estimator(fields)?,
            ..CompactOptions::default()
        };
        Ok(Self {
            plain,
            summariser,
            counter: counter.map(JsCounter::new),
        })
    }

    /// The options as the core takes them, borrowing the callbacks.
    pub fn core(&self) -> CompactOptions<'_> {
        CompactOptions {
            counter: self.counter.as_ref().map(|counter| counter as _),
            summariser: self.summariser.as_ref().map(|summariser| summariser as _),
            ..self.plain.clone()
        }
    }

    /// Hands the window of the call's lone surrogates to the callbacks, which give the host
    /// its own code units (see [`crate::surrogates`]).
    pub fn set_window(&self, window: crate::surrogates::Window) {
        if let Some(counter) = &self.counter {
            counter.window.set(window);
        }
        if let Some(summariser) = &self.summariser {
            summariser.window.set(window);
        }
    }

    /// Hands the call's window and host values to the callbacks: the summariser's request's
    /// messages hold the caller's own binary data and URLs.
    pub fn set_originals(&self, originals: Option<&Originals>) {
        self.set_window(Originals::window_of(originals));
        if let Some(summariser) = &self.summariser {
            *summariser.host_values.borrow_mut() = originals.and_then(Originals::host_values_only);
        }
    }

    /// The JS error to reject with when the host's `countTokens` misbehaved during the call.
    pub fn counter_failure(&self) -> Option<JsValue> {
        self.counter.as_ref().and_then(JsCounter::failure)
    }
}

/// The `tokenEstimator` field of an options object: `"seed"` or `"heuristic"`; absent, the
/// input's default (see [`compaction::CompactOptions::estimator_for`]).
pub fn token_estimator(fields: &Fields) -> Result<Option<TokenEstimator>> {
    fields
        .optional_string("tokenEstimator")?
        .map(|name| TokenEstimator::parse(&name, "tokenEstimator"))
        .transpose()
}

/// A callback.
fn function(value: &JsValue) -> Result<js_sys::Function> {
    let function = value.dyn_ref::<js_sys::Function>().cloned();
    function.ok_or_else(|| wrong_type("", "a function", value))
}

/// `options.signal`: anything shaped like an `AbortSignal` (a boolean `aborted` and an
/// `addEventListener` method), so signals of another realm or a polyfill work too.
fn abort_signal(value: &JsValue) -> Result<AbortSignal> {
    let field = |name| js_sys::Reflect::get(value, &crate::host::key(name));
    let shaped = value.is_object()
        && field("aborted").is_ok_and(|aborted| aborted.as_bool().is_some())
        && field("addEventListener").is_ok_and(|method| method.is_function());
    if !shaped {
        return Err(wrong_type("", "an AbortSignal", value));
    }
    Ok(value.clone().unchecked_into())
}

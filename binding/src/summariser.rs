//! `options.summarise`: the host's JS callback behind the core's [`Summariser`]. Its answer (a
//! value or a promise) is raced against `timeoutMs` and the host's `signal`; each call's own
//! `AbortController` is aborted on timeout or host abort, so the host can cancel its request.
//! No `RefCell` borrow is held across an `.await`: many calls run interleaved.

use crate::host::{
    AbortController, AbortSignal, clear_timeout, describe_thrown, set_timeout, type_name,
};
use crate::output;
use compaction::api::result::SummariserUsage;
use compaction::summary::summarise::{
    LocalBoxFuture, Summariser, SummariserFailure, SummaryAnswer, SummaryRequest,
};
use js_sys::{Array, Function, Object, Promise, Reflect};
use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;

/// A JS `(request) => string | { summary, usage? } | Promise<...>` callback.
pub struct JsSummariser {
    callback: Function,
    timeout_ms: f64,
    signal: Option<AbortSignal>,
    /// The window the call's lone surrogates crossed in, to hand the host its own code units.
    pub window: std::cell::Cell<crate::surrogates::Window>,
    /// The call's host values (binary data, URLs), put back into the request's messages (see
    /// [`crate::skeleton::Originals::host_values_only`]).
    pub host_values: std::cell::RefCell<Option<crate::skeleton::Originals>>,
}

impl JsSummariser {
    /// Wraps `callback` with the call's timeout and the host's abort signal.
    pub fn new(callback: Function, timeout_ms: f64, signal: Option<AbortSignal>) -> Self {
        Self {
            callback,
            timeout_ms,
            signal,
            window: std::cell::Cell::default(),
            host_values: std::cell::RefCell::default(),
        }
    }

    async fn call(&self, request: SummaryRequest) -> Result<SummaryAnswer, SummariserFailure> {
        if let Some(signal) = self.signal.as_ref().filter(|signal| signal.aborted()) {
            return Err(SummariserFailure::Aborted(describe_thrown(
                &signal.reason(),
            )));
        }
        let controller = AbortController::new();
        // Borrowed only while the request is built, never across an `.await`.
        let js_request = output::summary_request(
            &request,
            &controller.signal(),
            self.window.get(),
            self.host_values.borrow().as_ref(),
        )
        .map_err(|error| SummariserFailure::Threw(describe_thrown(&error)))?;
        // Armed before the callback runs: a callback that aborts the host's signal synchronously
        // is then seen too. Disarmed when `deadline` is dropped, on every path out.
        let deadline = Deadline::arm(self.timeout_ms, self.signal.as_ref());
        let returned = self
            .callback
            .call1(&JsValue::UNDEFINED, &js_request)
            .map_err(|thrown| SummariserFailure::Threw(describe_thrown(&thrown)))?;
        let answer = Promise::resolve(&returned);
        let raced = JsFuture::from(Promise::race(&Array::of2(&answer, &deadline.promise))).await;
        let is = |tag: &JsValue| raced.as_ref().is_ok_and(|value| value == tag);
        let (timed_out, aborted) = (is(&deadline.timed_out), is(&deadline.aborted));
        // Under load, the host may run an overdue answer before our overdue timer (Node runs
        // expired timers grouped by duration); an answer seen after the deadline is late all
        // the same, so the outcome does not depend on which callback the host picked first.
        let late = js_sys::Date::now() - deadline.started > self.timeout_ms;
        drop(deadline);
        if aborted {
            let reason = self
                .signal
                .as_ref()
                .map_or(JsValue::UNDEFINED, AbortSignal::reason);
            controller.abort(&reason);
            return Err(SummariserFailure::Aborted(describe_thrown(&reason)));
        }
        if timed_out || late {
            controller.abort(&timeout_reason(self.timeout_ms));
            return Err(SummariserFailure::TimedOut(self.timeout_ms as u64));
        }
        match raced {
            Ok(value) => answer_from_js(&value),
            Err(reason) => Err(SummariserFailure::Rejected(describe_thrown(&reason))),
        }
    }
}

/// A promise that resolves to one of two fresh tags when the time is up or the host aborts;
/// racing it against the answer tells which came first.
struct Deadline<'a> {
    promise: Promise,
    started: f64,
    timed_out: JsValue,
    aborted: JsValue,
    timer: JsValue,
    signal: Option<&'a AbortSignal>,
    on_timeout: Closure<dyn FnMut()>,
    on_abort: Closure<dyn FnMut()>,
}

impl<'a> Deadline<'a> {
    fn arm(timeout_ms: f64, signal: Option<&'a AbortSignal>) -> Self {
        let timed_out = JsValue::from(Object::new());
        let aborted = JsValue::from(Object::new());
        let mut settle = None;
        let promise = Promise::new(&mut |resolve, _reject| settle = Some(resolve));
        // `Promise::new` runs its executor synchronously, so `settle` is always set.
        let settle = settle.unwrap_or_else(|| Function::new_no_args(""));
        let on_timeout = settle_with(&settle, &timed_out);
        let on_abort = settle_with(&settle, &aborted);
        let timer = set_timeout(on_timeout.as_ref().unchecked_ref(), timeout_ms);
        if let Some(signal) = signal {
            signal.add_event_listener("abort", on_abort.as_ref().unchecked_ref());
        }
        Self {
            promise,
            started: js_sys::Date::now(),
            timed_out,
            aborted,
            timer,
            signal,
            on_timeout,
            on_abort,
        }
    }
}

impl Drop for Deadline<'_> {
    fn drop(&mut self) {
        // After this neither closure can be called any more, so they may be freed with `self`.
        // (`on_timeout` is only ever read here: it is kept alive for the timer's sake.)
        clear_timeout(&self.timer);
        if let Some(signal) = self.signal {
            signal.remove_event_listener("abort", self.on_abort.as_ref().unchecked_ref());
        }
        let _ = &self.on_timeout;
    }
}

impl Summariser for JsSummariser {
    fn summarise(
        &self,
        request: SummaryRequest,
    ) -> LocalBoxFuture<'_, Result<SummaryAnswer, SummariserFailure>> {
        Box::pin(self.call(request))
    }
}

/// A timed-out call's abort reason: an `Error` named `TimeoutError`, as `AbortSignal.timeout`'s.
fn timeout_reason(timeout_ms: f64) -> JsValue {
    let reason = js_sys::Error::new(&format!(
        "summariser timed out after {} ms",
        compaction::base::decimal::shortest(timeout_ms)
    ));
    reason.set_name("TimeoutError");
    reason.into()
}

fn settle_with(settle: &Function, tag: &JsValue) -> Closure<dyn FnMut()> {
    let settle = settle.clone();
    let tag = tag.clone();
    Closure::new(move || {
        // Resolving an already settled promise is a no-op; nothing to handle.
        let _ = settle.call1(&JsValue::UNDEFINED, &tag);
    })
}

/// A string, or `{ summary: string, usage?: { inputTokens, outputTokens, costUsd? } }`.
fn answer_from_js(value: &JsValue) -> Result<SummaryAnswer, SummariserFailure> {
    if let Some(summary) = value.as_string() {
        return Ok(SummaryAnswer {
            summary,
            usage: None,
        });
    }
    let not_a_string = |what: String| Err(SummariserFailure::NotAString(what));
    if !value.is_object() || Array::is_array(value) || value.is_function() {
        return not_a_string(type_name(value).to_string());
    }
    let field = |name: &'static str| Reflect::get(value, &crate::host::key(name)).ok();
    let Some(summary) = field("summary").and_then(|summary| summary.as_string()) else {
        return not_a_string("an object without a string summary".to_string());
    };
    let usage = field("usage").filter(|usage| !usage.is_undefined() && !usage.is_null());
    let usage = usage.map(|usage| usage_from_js(&usage)).transpose();
    let usage = usage.map_err(|problem| {
        SummariserFailure::NotAString(format!("an object whose usage {problem}"))
    })?;
    Ok(SummaryAnswer { summary, usage })
}

fn usage_from_js(usage: &JsValue) -> Result<SummariserUsage, String> {
    if !usage.is_object() {
        return Err(format!("is a {}, not an object", type_name(usage)));
    }
    let field = |name| Reflect::get(usage, &crate::host::key(name)).unwrap_or_default();
    let cost = field("costUsd");
    let cost_usd = match cost.as_f64() {
        _ if cost.is_undefined() => None,
        Some(n) if n.is_finite() && n >= 0.0 => Some(n),
        _ => return Err("costUsd is not a finite number >= 0".to_string()),
    };
    let count = |name: &'static str| {
        let count = field(name).as_f64().and_then(crate::host::whole_count);
        count.ok_or_else(|| format!("{name} is not an integer >= 0"))
    };
    Ok(SummariserUsage {
        input_tokens: count("inputTokens")?,
        output_tokens: count("outputTokens")?,
        cost_usd,
    })
}

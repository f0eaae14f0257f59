//! Shared test helpers: a deterministic fake summariser, a blocking runner for the async entry
//! points, shorthands for building contexts, and the proptest setup (`cases`).
#![allow(dead_code)]

pub mod cases;
pub mod generate;
pub mod provider;
pub mod restore;

use std::cell::RefCell;
use tiered_compaction::summary::summarise::LocalBoxFuture;
use tiered_compaction::{
    BudgetPressure, CompactOptions, ContextInput, FormatChoice, Summariser, SummariserFailure,
    SummariserUsage, SummaryAnswer, SummaryRequest, Tier, TierContext, TierResult,
};

/// Runs a future to completion on this thread.
pub fn block_on<F: std::future::Future>(future: F) -> F::Output {
    pollster::block_on(future)
}

/// How the fake summariser behaves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// A short summary that names the first must-keep item only (the rest get appended).
    Good,
    /// Fails as a rejected promise would.
    Reject,
    /// Answers an empty string.
    Empty,
    /// Answers something longer than the whole request.
    Long,
    /// Answers with the wrong type.
    NotString,
}

/// A deterministic summariser that records what it was asked.
pub struct FakeSummariser {
    pub mode: Mode,
    pub requests: RefCell<Vec<SummaryRequest>>,
}

impl FakeSummariser {
    pub fn new(mode: Mode) -> Self {
        Self {
            mode,
            requests: RefCell::new(Vec::new()),
        }
    }

    pub fn calls(&self) -> usize {
        self.requests.borrow().len()
    }
}

impl Summariser for FakeSummariser {
    fn summarise(
        &self,
        request: SummaryRequest,
    ) -> LocalBoxFuture<'_, Result<SummaryAnswer, SummariserFailure>> {
        let answer = match self.mode {
            Mode::Good => Ok(SummaryAnswer {
                summary: format!(
                    "Goal: continue the task. Steps summarised: {}. First item: {}",
                    request.transcript.lines().count(),
                    request.must_keep.first().map_or("none", String::as_str)
                ),
                usage: Some(SummariserUsage {
                    input_tokens: request.transcript.len() as u64 / 4,
                    output_tokens: 20,
                    cost_usd: Some(0.001),
                }),
            }),
            Mode::Reject => Err(SummariserFailure::Rejected(
                "Error: model overloaded".into(),
            )),
            Mode::Empty => Ok(SummaryAnswer {
                summary: "   ".into(),
                usage: None,
            }),
            Mode::Long => Ok(SummaryAnswer {
                summary: format!("{}{}", request.transcript, "x".repeat(100)),
                usage: None,
            }),
            Mode::NotString => Err(SummariserFailure::NotAString("a number".into())),
        };
        self.requests.borrow_mut().push(request);
        Box::pin(async move { answer })
    }
}

/// Passes calls on to an optional summariser and counts them.
pub struct Counting<'s> {
    inner: Option<&'s dyn Summariser>,
    calls: std::cell::Cell<usize>,
}

impl<'s> Counting<'s> {
    pub fn new(inner: Option<&'s dyn Summariser>) -> Self {
        Self {
            inner,
            calls: std::cell::Cell::new(0),
        }
    }

    /// Itself as the summariser to pass, when there is one behind it.
    pub fn get(&self) -> Option<&dyn Summariser> {
        self.inner.map(|_| self as &dyn Summariser)
    }

    pub fn calls(&self) -> usize {
        self.calls.get()
    }
}

impl Summariser for Counting<'_> {
    fn summarise(
        &self,
        request: SummaryRequest,
    ) -> LocalBoxFuture<'_, Result<SummaryAnswer, SummariserFailure>> {
        self.calls.set(self.calls.get() + 1);
        match self.inner {
            Some(inner) => inner.summarise(request),
            None => Box::pin(async { Err(SummariserFailure::Rejected("none".into())) }),
        }
    }
}

/// A tool output of step `step`: a 40-test log, long enough to stub, with one failing line
/// (an error and a path with the step in it) and a last line that matters.
pub fn failing_test_log(step: usize) -> String {
    format!(
        "running 40 tests\n{}error[E0425]: cannot find value `x{step}` in src/lib.rs:{step}:9\ntest result: FAILED. 39 passed; 1 failed\n",
        "test t ... ok\n".repeat(40)
    )
}

/// A pressure, unwrapped (tests only pass valid numbers).
pub fn pressure(turn: u64, pct: f64, idle: f64, complete: bool) -> BudgetPressure {
    BudgetPressure::new(turn as f64, pct, idle, complete).expect("valid test pressure")
}

/// A flat-text context.
pub fn text_ctx(text: &str, pressure: BudgetPressure) -> TierContext {
    TierContext::new("s-test", pressure, ContextInput::Text(text.to_string()))
}

/// A structured context with format detection.
pub fn messages_ctx(messages: Vec<serde_json::Value>, pressure: BudgetPressure) -> TierContext {
    TierContext::new(
        "s-test",
        pressure,
        ContextInput::Messages {
            messages,
            format: FormatChoice::Auto,
        },
    )
}

/// `Err` naming the fallback when the engine returned the input because a tier's result broke
/// a rule (never grows, pairs kept, provider-valid): the fallback's output keeps every rule, so
/// checks of the output alone would pass a broken tier. Every property test and fuzz target
/// runs its results through this (`run_tier` does).
pub fn no_rule_check_fallback(result: &TierResult) -> Result<(), String> {
    match result.rule_check_fallbacks() {
        0 => Ok(()),
        n => Err(format!(
            "{}: the engine fell back {n} time(s): {} (warnings {:?})",
            result.tier, result.reason, result.warnings
        )),
    }
}

/// `result`, after [`no_rule_check_fallback`] (panics with its words).
pub fn checked(result: TierResult) -> TierResult {
    if let Err(fallback) = no_rule_check_fallback(&result) {
        panic!("{fallback}");
    }
    result
}

/// Runs `tier` on `messages` (format detected) late in a session: turn 40, 80 % of the context
/// used, idle 400 s, so every tier's trigger holds.
pub fn compact_late(
    tier: Tier,
    messages: &[serde_json::Value],
    options: &CompactOptions,
) -> TierResult {
    let ctx = messages_ctx(messages.to_vec(), pressure(40, 0.8, 400.0, false));
    checked(block_on(tiered_compaction::compact_with_tier(tier, &ctx, options)).expect("compacts"))
}

/// Options that stub every step as it leaves the protected tail (`batchTokens` 0): what the
/// tests of a stub's content and of the invariants use, on contexts far smaller than a batch
/// (`tests/tiers/batches.rs` tests the batches).
pub fn unbatched() -> CompactOptions<'static> {
    let mut options = CompactOptions::default();
    options.policy.cache.batch_tokens = 0;
    options
}

/// Runs `tier` on `ctx` with an optional summariser, every step unbatched; panics when the
/// engine fell back ([`no_rule_check_fallback`]).
pub fn run_tier(tier: Tier, ctx: &TierContext, summariser: Option<&dyn Summariser>) -> TierResult {
    let options = CompactOptions {
        summariser,
        ..unbatched()
    };
    checked(
        block_on(tiered_compaction::compact_with_tier(tier, ctx, &options))
            .expect("compaction succeeds"),
    )
}

/// Runs `tier` on `ctx` with an optional summariser and a protected tail of `keep` steps; panics
/// when the engine fell back ([`no_rule_check_fallback`]).
pub fn run_tier_keeping(
    tier: Tier,
    ctx: &TierContext,
    summariser: Option<&dyn Summariser>,
    keep: usize,
) -> TierResult {
    let mut options = CompactOptions {
        summariser,
        ..unbatched()
    };
    options.policy.keep_recent_steps = keep;
    checked(
        block_on(tiered_compaction::compact_with_tier(tier, ctx, &options))
            .expect("compaction succeeds"),
    )
}

/// The same context with the result's output as input.
pub fn rerun_input(ctx: &TierContext, result: &TierResult) -> TierContext {
    let input = match (&ctx.input, &result.context) {
        (ContextInput::Messages { format, .. }, tiered_compaction::ContextData::Messages(m)) => {
            ContextInput::Messages {
                messages: m.clone(),
                format: *format,
            }
        }
        (_, tiered_compaction::ContextData::Text(t)) => ContextInput::Text(t.clone()),
        (ContextInput::Text(_), tiered_compaction::ContextData::Messages(m)) => {
            ContextInput::Messages {
                messages: m.clone(),
                format: FormatChoice::Auto,
            }
        }
    };
    TierContext {
        input,
        ..ctx.clone()
    }
}

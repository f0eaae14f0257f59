//! Prefix stability as a property (SPEC §4 invariant 3, §11): for generated agent runs in every
//! wire format, each prefix H of the run and its extension H′ by one more message, the output for
//! H′ repeats the output for H byte for byte, up to the first change H′ brings: a batch closed
//! (more stubs), or the last message of H joined by the next one (a run of one role merged by the
//! repair). Replayed as a stateless host that passes the state back, and as a stateful one.

mod common;

use common::generate;
use common::*;
use proptest::prelude::*;
use serde_json::Value;
use tiered_compaction::plan::loop_state::LoopState;
use tiered_compaction::transcript::Format;
use tiered_compaction::{
    CompactOptions, ContextData, ContextInput, FormatChoice, TierContext, TierResult, compact,
};

/// One call at turn `turn`: the cache warm (idle 5 s) and no cache facts, so only the batches
/// decide; `batch` tokens a batch (small, so the generated runs close several).
fn call(
    format: Format,
    messages: Vec<Value>,
    turn: u64,
    state: Option<LoopState>,
    batch: u64,
) -> TierResult {
    let mut ctx = TierContext::new(
        "s-loop",
        pressure(turn, 0.3, 5.0, false),
        ContextInput::Messages {
            messages,
            format: FormatChoice::Fixed(format),
        },
    );
    ctx.state = state;
    let mut options = CompactOptions::default();
    options.policy.cache.batch_tokens = batch;
    block_on(compact(&ctx, &options)).expect("a valid run compacts")
}

fn messages_of(result: &TierResult) -> Vec<Value> {
    match &result.context {
        ContextData::Messages(messages) => messages.clone(),
        ContextData::Text(_) => Vec::new(),
    }
}

fn stubs(messages: &[Value]) -> usize {
    messages
        .iter()
        .map(|message| message.to_string().matches("body pruned: ").count())
        .sum()
}

/// `now` (the output for H′) against `before` (for H): shares every message of `before`, or all
/// but its last, or holds more stubs.
fn check_extension(before: &[Value], now: &[Value]) -> Result<(), TestCaseError> {
    let shared = before.iter().zip(now).take_while(|(a, b)| a == b).count();
    prop_assert!(
        shared + 1 >= before.len() || stubs(now) > stubs(before),
        "the output changed at message {shared} of {} without a batch ({} stubs before, {} now)",
        before.len(),
        stubs(before),
        stubs(now)
    );
    Ok(())
}

proptest! {
    #![proptest_config(common::cases::config(12))]

    #[test]
    fn each_extension_repeats_the_previous_output_up_to_a_batch(
        run in generate::agent_run(),
        format in common::cases::format(),
        batch in prop_oneof![Just(0u64), Just(200u64), Just(2_000u64)],
    ) {
        let messages = generate::render(format, &run);
        let mut state = None;
        let mut previous: Option<Vec<Value>> = None;
        let mut kept: Vec<Value> = Vec::new();
        let mut previous_kept: Option<Vec<Value>> = None;
        for len in 1..=messages.len() {
            // Stateless, passing the state back: no warning, ever, on a growing history.
            let result = call(format, messages[..len].to_vec(), len as u64, state.take(), batch);
            prop_assert!(
                result.warnings.iter().all(|w| w.starts_with("repair:")),
                "{:?}",
                result.warnings
            );
            let now = messages_of(&result);
            if let Some(before) = &previous {
                check_extension(before, &now)?;
            }
            state = result.state.clone();
            previous = Some(now);
            // Stateful: its own output and the new message.
            kept.push(messages[len - 1].clone());
            let result = call(format, kept.clone(), len as u64, None, batch);
            kept = messages_of(&result);
            if let Some(before) = &previous_kept {
                check_extension(before, &kept)?;
            }
            previous_kept = Some(kept.clone());
        }
    }
}

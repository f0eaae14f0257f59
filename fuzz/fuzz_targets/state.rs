//! The loop's state is input like any other (SPEC §11): arbitrary JSON read as `ctx.state` never
//! panics, and a state that is refused or ignored changes nothing: the output is the one without
//! a state.
#![no_main]

use libfuzzer_sys::fuzz_target;
use serde_json::{Value, json};
use tiered_compaction::plan::loop_state::LoopState;
use tiered_compaction::{CompactOptions, ContextInput, FormatChoice, TierContext, compact};

fn run() -> Vec<Value> {
    let mut messages = vec![json!({"role": "user", "content": "Fix it."})];
    for step in 0..8 {
        let id = format!("c{step}");
        messages.push(json!({"role": "assistant", "content": null, "tool_calls": [
            {"id": id, "type": "function", "function": {"name": "bash", "arguments": "{}"}}]}));
        messages.push(json!({"role": "tool", "tool_call_id": id, "content": format!("line {step}\n").repeat(80)}));
    }
    messages
}

fuzz_target!(|data: &[u8]| {
    let Ok(value) = serde_json::from_slice::<Value>(data) else {
        return;
    };
    let Ok(state) = LoopState::from_json(&value) else {
        return;
    };
    let ctx = |state: Option<LoopState>| {
        let mut ctx = TierContext::new(
            "fuzz",
            tiered_compaction::BudgetPressure::new(9.0, 0.3, 5.0, false).expect("valid"),
            ContextInput::Messages {
                messages: run(),
                format: FormatChoice::Auto,
            },
        );
        ctx.state = state;
        ctx
    };
    let mut options = CompactOptions::default();
    options.policy.cache.batch_tokens = 0;
    let plain = pollster::block_on(compact(&ctx(None), &options)).expect("compacts");
    let with = pollster::block_on(compact(&ctx(Some(state)), &options)).expect("compacts");
    if with.warnings.iter().any(|w| w.starts_with("state ignored")) {
        assert_eq!(with.context, plain.context, "an ignored state changed the output");
    }
});

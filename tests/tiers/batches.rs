//! In the loop (SPEC §11, §4 invariant 3): a run replayed call by call, as a stateless host
//! (the raw history each call, the previous result's state passed back) and as a stateful one
//! (its own output plus the new messages). Stubs keep their bytes from call to call, micro's
//! frontier moves only by whole batches, and each call's output repeats the previous one's
//! messages up to the first change a batch or time_based brings.

use crate::common::*;
use serde_json::{Value, json};
use tiered_compaction::plan::loop_state::LoopState;
use tiered_compaction::{
    CompactOptions, ContextData, ContextInput, FormatChoice, TierContext, TierResult, compact,
};

/// An OpenAI run of `steps` tool calls, each answered by a body of about 1,600 characters
/// (about 400 tokens by the seed's rule) naming its file and an error line.
fn run(steps: usize) -> Vec<Value> {
    let mut messages = vec![
        json!({"role": "system", "content": "You are a coding agent."}),
        json!({"role": "user", "content": "Fix the failing tests."}),
    ];
    for step in 0..steps {
        let id = format!("call_{step}");
        messages.push(json!({"role": "assistant", "content": null, "tool_calls": [
            {"id": id, "type": "function", "function": {"name": "bash", "arguments": format!("{{\"command\":\"cat src/m{step}.rs\"}}")}}
        ]}));
        let body = format!(
            "src/m{step}.rs\n{}error[E0{step:03}]: mismatched types in src/m{step}.rs\nend of m{step}",
            format!("fn f{step}() {{ let x = {step}; }}\n").repeat(60)
        );
        messages.push(json!({"role": "tool", "tool_call_id": id, "content": body}));
    }
    messages
}

/// The request of model call `k` (1-based): every message before the k-th assistant message.
fn request(messages: &[Value], k: usize) -> Vec<Value> {
    let mut seen = 0;
    let end = messages
        .iter()
        .position(|message| {
            seen += usize::from(message["role"] == "assistant");
            seen == k
        })
        .unwrap_or(messages.len());
    messages[..end].to_vec()
}

fn call(messages: Vec<Value>, turn: u64, idle: f64, state: Option<LoopState>) -> TierResult {
    call_with(messages, turn, idle, state, &CompactOptions::default())
}

fn call_at(messages: Vec<Value>, turn: u64, pct: f64, state: Option<LoopState>) -> TierResult {
    let mut ctx = TierContext::new(
        "loop",
        pressure(turn, pct, 5.0, false),
        ContextInput::Messages {
            messages,
            format: FormatChoice::Auto,
        },
    );
    ctx.state = state;
    // A target stubs alone cannot reach: auto digests the oldest runs too.
    let mut options = CompactOptions::default();
    options.policy.auto_target_pct = 0.05;
    block_on(compact(&ctx, &options)).expect("compacts")
}

fn call_with(
    messages: Vec<Value>,
    turn: u64,
    idle: f64,
    state: Option<LoopState>,
    options: &CompactOptions<'_>,
) -> TierResult {
    let mut ctx = TierContext::new(
        "loop",
        pressure(turn, 0.3, idle, false),
        ContextInput::Messages {
            messages,
            format: FormatChoice::Auto,
        },
    );
    ctx.state = state;
    block_on(compact(&ctx, options)).expect("compacts")
}

fn output(result: &TierResult) -> Vec<Value> {
    match &result.context {
        ContextData::Messages(messages) => messages.clone(),
        ContextData::Text(_) => panic!("messages expected"),
    }
}

/// How many leading messages two requests share byte for byte.
fn shared_prefix(a: &[Value], b: &[Value]) -> usize {
    a.iter().zip(b).take_while(|(x, y)| x == y).count()
}

/// `now` repeats all of `previous` unless it holds more stubs (a batch closed).
fn assert_no_rewrite_without_a_batch(previous: &[Value], now: &[Value], call: usize) {
    if shared_prefix(previous, now) < previous.len() {
        assert!(
            stubs(now) > stubs(previous),
            "call {call}: rewrote the prefix without a batch"
        );
    }
}

fn stubs(messages: &[Value]) -> usize {
    messages
        .iter()
        .filter(|m| {
            let text = m.to_string();
            text.contains("[tool result body pruned")
        })
        .count()
}

/// Replays `steps` calls as a stateless host with state; returns each call's output.
fn stateless(messages: &[Value], calls: usize, idle_at: &dyn Fn(usize) -> f64) -> Vec<Vec<Value>> {
    let mut state = None;
    (1..=calls)
        .map(|k| {
            let result = call(request(messages, k), k as u64, idle_at(k), state.take());
            assert!(result.warnings.is_empty(), "{:?}", result.warnings);
            state = result.state.clone();
            output(&result)
        })
        .collect()
}

#[test]
fn stubs_move_in_batches_and_each_call_repeats_the_previous_prefix() {
    let messages = run(40);
    let outputs = stateless(&messages, 40, &|_| 5.0);
    let mut batches = 0;
    for k in 1..outputs.len() {
        let (previous, now) = (&outputs[k - 1], &outputs[k]);
        let shared = shared_prefix(previous, now);
        if shared < previous.len() {
            // A change: only a batch closing, which adds stubs.
            batches += 1;
            assert!(
                stubs(now) > stubs(previous),
                "call {}: rewrote without a batch",
                k + 1
            );
        }
    }
    assert!(
        stubs(outputs.last().unwrap()) > 0,
        "micro stubbed something"
    );
    // About 400 tokens a body and 5,000 a batch: a batch every dozen steps or so, not one a call.
    assert!((1..=4).contains(&batches), "{batches} rewrites in 40 calls");
}

#[test]
fn a_stub_is_the_same_bytes_at_every_call() {
    let messages = run(30);
    let outputs = stateless(&messages, 30, &|_| 5.0);
    let first_stubbed = outputs
        .iter()
        .position(|output| stubs(output) > 0)
        .expect("a batch closed");
    let stub = outputs[first_stubbed]
        .iter()
        .find(|m| {
            m["content"]
                .as_str()
                .is_some_and(|c| c.contains("recall: a"))
        })
        .cloned()
        .expect("a stub");
    for output in &outputs[first_stubbed..] {
        assert!(output.contains(&stub), "the stub kept its bytes and id");
    }
}

#[test]
fn a_stateful_host_gets_the_same_stubs_as_a_stateless_one() {
    let messages = run(30);
    let stateless = stateless(&messages, 30, &|_| 5.0);
    let mut kept: Vec<Value> = Vec::new();
    let mut sent = 0;
    for k in 1..=30 {
        let raw = request(&messages, k);
        kept.extend_from_slice(&raw[sent..]);
        sent = raw.len();
        let result = call(kept.clone(), k as u64, 5.0, None);
        kept = output(&result);
    }
    assert_eq!(&kept, stateless.last().unwrap());
}

#[test]
fn with_state_the_call_after_time_based_keeps_its_pruning() {
    let messages = run(24);
    // Idle 10 minutes before call 20: time_based prunes; calls 21.. are warm again.
    let idle = |k: usize| if k == 20 { 600.0 } else { 5.0 };
    let outputs = stateless(&messages, 24, &idle);
    let stale = |output: &Vec<Value>| {
        output
            .iter()
            .filter(|m| {
                m["content"]
                    .as_str()
                    .is_some_and(|c| c.starts_with("[stale block pruned"))
            })
            .count()
    };
    assert!(stale(&outputs[19]) > 0, "time_based pruned at call 20");
    for k in 20..24 {
        assert_eq!(
            stale(&outputs[k]),
            stale(&outputs[19]),
            "call {} kept it",
            k + 1
        );
        let shared = shared_prefix(&outputs[k - 1], &outputs[k]);
        assert!(
            shared + 3 >= outputs[k - 1].len(),
            "call {} rewrote the prefix",
            k + 1
        );
    }
    // Without the state, the next warm call undoes it.
    let previous = request(&messages, 21);
    let undone = call(previous, 21, 5.0, None);
    assert_eq!(stale(&output(&undone)), 0);
}

#[test]
fn a_state_for_another_history_is_ignored_with_a_warning() {
    let messages = run(12);
    let first = call(request(&messages, 12), 12, 5.0, None);
    let state = first.state.clone().expect("a state");
    let other = run(13)
        .into_iter()
        .map(|mut m| {
            if m["role"] == "user" {
                m["content"] = json!("Another task.");
            }
            m
        })
        .collect();
    let result = call(other, 13, 5.0, Some(state.clone()));
    assert!(
        result.warnings.iter().any(|w| w.contains("do not extend")),
        "{:?}",
        result.warnings
    );
    let mut elsewhere = TierContext::new(
        "another session",
        pressure(13, 0.3, 5.0, false),
        ContextInput::Messages {
            messages: request(&messages, 13),
            format: FormatChoice::Auto,
        },
    );
    elsewhere.state = Some(state);
    let result = block_on(compact(&elsewhere, &CompactOptions::default())).expect("compacts");
    assert!(
        result
            .warnings
            .iter()
            .any(|w| w.contains("another session"))
    );
}

#[test]
fn a_tampered_state_changes_nothing_it_should_not() {
    let messages = run(30);
    let clean = call(request(&messages, 30), 30, 5.0, None);
    let mut state = clean.state.clone().expect("a state");
    // A frontier moved on the way back: refused as a whole, the output is the stateless one.
    state.micro_steps += 20;
    let result = call(request(&messages, 30), 30, 5.0, Some(state.clone()));
    assert_eq!(output(&result), output(&clean));
    assert!(
        result.warnings.iter().any(|w| w.contains("its check")),
        "{:?}",
        result.warnings
    );
    // Even with its check made again, a frontier past the history it names is refused.
    state.micro_steps = state.history.messages + 5;
    state.check = state.checksum();
    let result = call(request(&messages, 30), 30, 5.0, Some(state));
    assert_eq!(output(&result), output(&clean));
    assert!(!result.warnings.is_empty());
}

#[test]
fn a_history_the_library_repairs_keeps_its_prefix_from_call_to_call() {
    // Anthropic, with a run of two user messages in the middle (merged by the repair at every
    // call) and a reminder after every fifth result: the state's frontier counts steps of the
    // repaired history, so the merge does not shift it.
    let mut messages = vec![json!({"role": "user", "content": "Fix the failing tests."})];
    for step in 0..36 {
        let id = format!("toolu_{step}");
        messages.push(json!({"role": "assistant", "content": [
            {"type": "tool_use", "id": id, "name": "bash", "input": {"command": format!("cat src/m{step}.rs")}}
        ]}));
        let body = format!("fn f{step}() {{}}\n").repeat(120);
        messages.push(json!({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": id, "content": body}
        ]}));
        if step % 5 == 4 {
            messages.push(json!({"role": "user", "content": "Keep going."}));
        }
    }
    let mut state = None;
    let mut previous: Option<Vec<Value>> = None;
    for k in 1..=36 {
        let result = call(request(&messages, k), k as u64, 5.0, state.take());
        assert!(
            result.warnings.iter().all(|w| w.starts_with("repair:")),
            "{:?}",
            result.warnings
        );
        let now = output(&result);
        if let Some(previous) = &previous {
            assert_no_rewrite_without_a_batch(previous, &now, k);
        }
        state = result.state.clone();
        previous = Some(now);
    }
    assert!(stubs(previous.as_deref().unwrap_or_default()) > 0);
}

#[test]
fn with_state_the_calls_after_auto_keep_its_digest() {
    let messages = run(30);
    // Call 20 at 85 % of the window: auto digests the oldest runs. Calls 21.. at 40 %: micro.
    let mut state = None;
    let mut outputs = Vec::new();
    for k in 18..=26 {
        let pct = if k == 20 { 0.85 } else { 0.4 };
        let result = call_at(request(&messages, k), k as u64, pct, state.take());
        assert!(
            result.warnings.is_empty(),
            "call {k}: {:?}",
            result.warnings
        );
        if k == 20 {
            assert_eq!(result.tier, tiered_compaction::Tier::Auto);
            assert!(result.after_tokens < result.before_tokens);
        }
        state = result.state.clone();
        outputs.push(output(&result));
    }
    let at_auto = &outputs[2];
    assert!(
        at_auto.len() < request(&messages, 20).len(),
        "auto replaced messages"
    );
    for (offset, now) in outputs.iter().enumerate().skip(3) {
        let previous = &outputs[offset - 1];
        assert!(
            now.len() < request(&messages, 18 + offset).len(),
            "call {}: the digest stays",
            18 + offset
        );
        assert_no_rewrite_without_a_batch(previous, now, 18 + offset);
    }
    // Without the state, the call after auto sends the history whole again.
    let undone = call_at(request(&messages, 21), 21, 0.4, None);
    assert_eq!(output(&undone).len(), request(&messages, 21).len());
}

//! Agent runs: one human prompt, then many steps. Steps and the protected tail, stubs that keep
//! what matters and name their recall id, tool inputs stubbed in place, `excludeTools`,
//! `keepRecentSteps`, reused call ids, and thinking blocks, in every structured format.

use crate::common::restore::restore;
use crate::common::*;
use serde_json::{Value, json};
use tiered_compaction::transcript::Format;
use tiered_compaction::{
    CompactOptions, ContextData, ContextInput, FormatChoice, Tier, TierContext, TierResult,
    compact_with_tier,
};

const FORMATS: [Format; 3] = [Format::OpenAi, Format::Anthropic, Format::AiSdk];

/// A single-prompt agent run of `steps` steps in `format`: system prompt (OpenAI, AI SDK), the
/// task, then one call and its result per step (call ids from `id`), each step's input writing a
/// long file, and no further user words.
fn run(format: Format, steps: usize, id: &dyn Fn(usize) -> String) -> Vec<Value> {
    let file = |step: usize| format!("// file {step}\n{}", "let a = 1;\n".repeat(60));
    let mut messages = Vec::new();
    match format {
        Format::Anthropic => {
            messages
                .push(json!({"role": "user", "content": "Fix the failing test in src/lib.rs."}));
            for step in 0..steps {
                messages.push(json!({"role": "assistant", "content": [
                    {"type": "thinking", "thinking": format!("Step {step}: {}", "reasoning ".repeat(60)), "signature": "sig"},
                    {"type": "tool_use", "id": id(step), "name": "bash", "input": {"cmd": "cargo test", "file": file(step)}}
                ]}));
                messages.push(json!({"role": "user", "content": [
                    {"type": "tool_result", "tool_use_id": id(step), "content": failing_test_log(step)}
                ]}));
            }
        }
        Format::OpenAi => {
            messages.push(json!({"role": "system", "content": "You are a coding agent."}));
            messages
                .push(json!({"role": "user", "content": "Fix the failing test in src/lib.rs."}));
            for step in 0..steps {
                let arguments = json!({"cmd": "cargo test", "file": file(step)}).to_string();
                messages.push(json!({"role": "assistant", "content": null, "tool_calls": [
                    {"id": id(step), "type": "function", "function": {"name": "bash", "arguments": arguments}}
                ]}));
                messages
                    .push(json!({"role": "tool", "tool_call_id": id(step), "content": failing_test_log(step)}));
            }
        }
        _ => {
            messages.push(json!({"role": "system", "content": "You are a coding agent."}));
            messages.push(json!({"role": "user", "content": [{"type": "text", "text": "Fix the failing test in src/lib.rs."}]}));
            for step in 0..steps {
                messages.push(json!({"role": "assistant", "content": [
                    {"type": "reasoning", "text": format!("Step {step}: {}", "reasoning ".repeat(60))},
                    {"type": "tool-call", "toolCallId": id(step), "toolName": "bash", "input": {"cmd": "cargo test", "file": file(step)}}
                ]}));
                messages.push(json!({"role": "tool", "content": [
                    {"type": "tool-result", "toolCallId": id(step), "toolName": "bash", "output": {"type": "text", "value": failing_test_log(step)}}
                ]}));
            }
        }
    }
    messages
}

fn unique(step: usize) -> String {
    format!("call_{step}")
}

fn ctx(format: Format, messages: Vec<Value>) -> TierContext {
    TierContext::new(
        "s-agent",
        pressure(40, 0.5, 400.0, false),
        ContextInput::Messages {
            messages,
            format: FormatChoice::Fixed(format),
        },
    )
}

fn run_with(
    tier: Tier,
    format: Format,
    messages: Vec<Value>,
    options: &CompactOptions,
) -> TierResult {
    block_on(compact_with_tier(tier, &ctx(format, messages), options)).expect("compacts")
}

/// The index where the tail of the `keep` newest steps starts (each step is two messages here).
fn tail_start(messages: &[Value], keep: usize) -> usize {
    messages.len() - 2 * keep
}

/// Every `recall: ID` the output names.
fn recall_ids(output: &[Value]) -> Vec<String> {
    let text = serde_json::to_string(output).expect("serialises");
    text.match_indices("recall: ")
        .map(|(at, _)| text[at + 8..at + 21].to_string())
        .collect()
}

#[test]
fn a_single_prompt_run_compacts_in_every_format_and_leaves_the_tail() {
    for format in FORMATS {
        let input = run(format, 12, &unique);
        for tier in [Tier::Micro, Tier::TimeBased, Tier::Auto] {
            let result = run_with(tier, format, input.clone(), &unbatched());
            assert!(
                result.tokens_saved * 3 > result.before_tokens,
                "{tier} on {format:?} saved {} of {}",
                result.tokens_saved,
                result.before_tokens
            );
            let output = result.messages().expect("messages");
            let tail = tail_start(&input, 3);
            assert!(
                output.ends_with(&input[tail..]),
                "{tier} on {format:?}: tail altered"
            );
            assert_eq!(
                restore(&result.context, &result.archive),
                ContextData::Messages(input.clone()),
                "{tier} on {format:?}"
            );
            // Every stub names an entry of the archive.
            let ids = recall_ids(output);
            assert!(!ids.is_empty(), "{tier} on {format:?} names no recall id");
            for id in ids {
                assert!(
                    result.archive.iter().any(|entry| entry.id == id),
                    "{tier} on {format:?}: {id} is not in the archive"
                );
            }
        }
    }
}

#[test]
fn micro_stubs_keep_the_error_line_the_last_line_and_the_path() {
    let input = run(Format::OpenAi, 6, &unique);
    let result = run_with(Tier::Micro, Format::OpenAi, input, &unbatched());
    let stub = result.messages().unwrap()[3]["content"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        stub.starts_with("running 40 tests\ntest t ... ok"),
        "{stub}"
    );
    assert!(
        stub.contains("error[E0425]: cannot find value `x0` in src/lib.rs:0:9"),
        "{stub}"
    );
    assert!(
        stub.contains("test result: FAILED. 39 passed; 1 failed"),
        "{stub}"
    );
    let entry = &result
        .archive
        .iter()
        .find(|e| e.location == "messages[3].content")
        .unwrap();
    assert!(stub.ends_with(&format!(
        "[tool result body pruned: {} chars; recall: {}]",
        failing_test_log(0).chars().count(),
        entry.id
    )));
    assert!(stub.chars().count() * 2 <= failing_test_log(0).chars().count());
    assert_eq!(entry.content, json!(failing_test_log(0)));
    // micro leaves thinking alone; the tool input's long file is stubbed in place.
    let anthropic = run(Format::Anthropic, 6, &unique);
    let result = run_with(
        Tier::Micro,
        Format::Anthropic,
        anthropic.clone(),
        &unbatched(),
    );
    let call = &result.messages().unwrap()[1]["content"];
    assert_eq!(call[0], anthropic[1]["content"][0], "thinking untouched");
    assert_eq!(call[1]["input"]["cmd"], "cargo test");
    let file = call[1]["input"]["file"].as_str().unwrap();
    assert!(
        file.starts_with("// file 0\nlet a = 1;") && file.contains("[tool input pruned: "),
        "{file}"
    );
}

#[test]
fn excluded_tools_stay_whole() {
    for format in FORMATS {
        let input = run(format, 8, &unique);
        let mut options = unbatched();
        options.policy.exclude_tools = vec!["bash".to_string()];
        for tier in [Tier::Micro, Tier::TimeBased] {
            let result = run_with(tier, format, input.clone(), &options);
            assert_eq!(
                result.tokens_saved, 0,
                "{tier} on {format:?}: {}",
                result.reason
            );
            assert_eq!(result.messages().unwrap(), &input[..]);
        }
        options.policy.exclude_tools = vec!["memory".to_string()];
        assert!(run_with(Tier::Micro, format, input.clone(), &options).tokens_saved > 0);
    }
}

#[test]
fn keep_recent_steps_sets_the_tail() {
    let input = run(Format::OpenAi, 6, &unique);
    for keep in [1, 3, 6, 7] {
        let mut options = unbatched();
        options.policy.keep_recent_steps = keep;
        let result = run_with(Tier::Micro, Format::OpenAi, input.clone(), &options);
        let output = result.messages().unwrap();
        let whole = 2 * keep.min(6);
        assert!(
            output.ends_with(&input[input.len() - whole..]),
            "keep {keep}"
        );
        // Results outside the tail are stubbed: one per step before it.
        let stubbed = result
            .archive
            .iter()
            .filter(|e| e.kind == "tool_result")
            .count();
        assert_eq!(stubbed, 6 - keep.min(6), "keep {keep}");
    }
    let mut options = unbatched();
    options.policy.keep_recent_steps = 0;
    let error = block_on(compact_with_tier(
        Tier::Micro,
        &ctx(Format::OpenAi, input),
        &options,
    ))
    .unwrap_err();
    assert_eq!(
        error.to_string(),
        "policy.keepRecentSteps must be an integer >= 1, got 0"
    );
}

#[test]
fn reused_call_ids_pair_by_position() {
    for format in [Format::OpenAi, Format::AiSdk] {
        let reused = run(format, 10, &|_| "call_0".to_string());
        let fresh = run(format, 10, &unique);
        // The seed's rule counts code points: stubs whose recall ids differ (they name the call
        // id) save the same, which the heuristic, reading the ids' characters, need not.
        let options = CompactOptions {
            token_estimator: Some(tiered_compaction::tokens::TokenEstimator::Seed),
            ..unbatched()
        };
        for tier in [Tier::Micro, Tier::TimeBased, Tier::Auto] {
            let with_reuse = run_with(tier, format, reused.clone(), &options);
            let without = run_with(tier, format, fresh.clone(), &options);
            assert!(
                with_reuse.tokens_saved > 0,
                "{tier} on {format:?}: {}",
                with_reuse.reason
            );
            assert_eq!(
                with_reuse.tokens_saved, without.tokens_saved,
                "{tier} on {format:?}"
            );
            assert_eq!(
                restore(&with_reuse.context, &with_reuse.archive),
                ContextData::Messages(reused.clone())
            );
        }
    }
}

#[test]
fn thinking_outside_the_tail_is_archived_and_the_last_assistant_keeps_its_own() {
    for format in [Format::Anthropic, Format::AiSdk] {
        let input = run(format, 10, &unique);
        for tier in [Tier::TimeBased, Tier::Auto] {
            let result = run_with(tier, format, input.clone(), &unbatched());
            let thinking = result
                .archive
                .iter()
                .filter(|e| e.kind == "thinking")
                .count();
            assert!(thinking > 0, "{tier} on {format:?}: {}", result.reason);
            let output = result.messages().unwrap();
            let last = output
                .iter()
                .rposition(|m| m["role"] == "assistant")
                .unwrap();
            assert_eq!(output[last], input[input.len() - 2], "{tier} on {format:?}");
            // The calls stay with their ids.
            let calls = serde_json::to_string(output)
                .unwrap()
                .matches("call_")
                .count();
            assert!(calls >= 2, "{tier} on {format:?}");
        }
    }
}

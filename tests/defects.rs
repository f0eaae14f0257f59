//! One regression test per defect of the seed's implementation (SPEC §10). Each fails on the
//! seed's behaviour.

mod common;

use common::*;
use serde_json::{Value, json};
use tiered_compaction::{
    BudgetPressure, CompactOptions, ContextData, PolicyConfig, Tier, TokenCounter, compact,
    record_tier_event,
};

fn agent_session() -> Vec<Value> {
    let mut messages = vec![
        json!({"role": "system", "content": "You are a coding agent."}),
        json!({"role": "user", "content": "Fix the failing test in src/parser.rs. Never touch Cargo.toml."}),
    ];
    for i in 0..6 {
        messages.push(json!({"role": "assistant", "content": null, "tool_calls": [
            {"id": format!("c{i}"), "type": "function", "function": {"name": "bash", "arguments": format!("{{\"cmd\":\"cargo test step{i}\"}}")}}
        ]}));
        messages.push(json!({"role": "tool", "tool_call_id": format!("c{i}"), "content": format!("error: test step{i} failed at src/parser.rs:{i}\n{}", "log line\n".repeat(80))}));
        messages.push(json!({"role": "user", "content": format!("keep going, step {i}")}));
    }
    messages.push(json!({"role": "assistant", "content": "Latest answer: fixed."}));
    messages
}

#[test]
fn auto_calls_the_summariser_and_keeps_protected_content_regression() {
    // The seed replaced the whole context by a placeholder and never called its summariser.
    let summariser = FakeSummariser::new(Mode::Good);
    let ctx = messages_ctx(agent_session(), pressure(8, 0.8, 0.0, false));
    let result = run_tier(Tier::Auto, &ctx, Some(&summariser));
    assert_eq!(summariser.calls(), 1);
    let out = result.messages().unwrap();
    assert_eq!(out[0], agent_session()[0], "system prompt kept");
    assert_eq!(out[1], agent_session()[1], "task kept");
    assert_eq!(out.last(), agent_session().last(), "latest turn kept");
    let text = serde_json::to_string(out).unwrap();
    assert!(text.contains("[summary of earlier tool runs]"), "{text}");
    assert!(result.tokens_saved > 0);
}

#[test]
fn session_memory_summary_holds_the_summariser_text_regression() {
    let summariser = FakeSummariser::new(Mode::Good);
    let ctx = messages_ctx(agent_session(), pressure(8, 0.5, 0.0, true));
    let result = run_tier(Tier::SessionMemory, &ctx, Some(&summariser));
    let summary = result.summary.clone().unwrap();
    assert!(summary.starts_with("[session summary]\n"), "{summary}");
    assert!(summary.contains("Goal: continue the task"), "{summary}");
    assert!(
        summary.contains("Never touch Cargo.toml") || summary.contains("keep going"),
        "{summary}"
    );
}

#[test]
fn a_tier_never_grows_the_context_regression() {
    // The seed's auto replaced a 3-token context by a longer placeholder and reported 0 saved.
    for tier in [
        Tier::Micro,
        Tier::TimeBased,
        Tier::Auto,
        Tier::SessionMemory,
    ] {
        let ctx = text_ctx("tiny", pressure(3, 0.9, 500.0, false));
        let result = run_tier(tier, &ctx, None);
        assert!(result.after_tokens <= result.before_tokens, "{tier}");
        if result.tokens_saved == 0 {
            assert_eq!(result.context, ContextData::Text("tiny".into()), "{tier}");
        }
    }
}

#[test]
fn pairs_stay_intact_when_runs_are_replaced_regression() {
    let ctx = messages_ctx(agent_session(), pressure(8, 0.8, 400.0, false));
    for tier in [Tier::TimeBased, Tier::Auto, Tier::SessionMemory] {
        let result = run_tier(tier, &ctx, None);
        let out = result.messages().unwrap();
        let calls: Vec<&str> = out
            .iter()
            .flat_map(|m| m["tool_calls"].as_array().into_iter().flatten())
            .filter_map(|c| c["id"].as_str())
            .collect();
        let results: Vec<&str> = out
            .iter()
            .filter_map(|m| m["tool_call_id"].as_str())
            .collect();
        assert_eq!(
            calls, results,
            "{tier}: every call keeps its result and vice versa"
        );
    }
}

#[test]
fn a_nested_fence_does_not_end_the_tool_result_early_regression() {
    let body = format!(
        "```python\nprint('x')\n```\n{}",
        "tail of the log that must not escape\n".repeat(10)
    );
    let text = format!("```tool_result name=bash\n{body}\n```");
    let result = run_tier(
        Tier::Micro,
        &text_ctx(&text, pressure(2, 0.1, 0.0, false)),
        None,
    );
    let out = result.text().unwrap();
    // The seed ended the result at the nested fence, so the 10 log lines escaped pruning.
    assert!(
        out.matches("tail of the log that must not escape").count() <= 1,
        "{out}"
    );
    assert!(
        out.contains(&format!(
            "[tool result body pruned: {} chars]",
            body.chars().count()
        )),
        "{out}"
    );
}

#[test]
fn an_indented_age_tag_is_not_swallowed_by_the_stale_block_regression() {
    let text = "[age:9] old work\nold lines old lines old lines old lines\n  [age:1] fresh work the agent needs\n";
    let result = run_tier(
        Tier::TimeBased,
        &text_ctx(text, pressure(3, 0.2, 400.0, false)),
        None,
    );
    let out = result.text().unwrap();
    assert!(out.contains("[age:1] fresh work the agent needs"), "{out}");
    assert!(out.starts_with("[stale block pruned]"), "{out}");
}

#[test]
fn auto_does_not_summarise_its_own_summary_regression() {
    let summariser = FakeSummariser::new(Mode::Good);
    let ctx = messages_ctx(agent_session(), pressure(8, 0.8, 0.0, false));
    let first = run_tier(Tier::Auto, &ctx, Some(&summariser));
    let second = run_tier(Tier::Auto, &rerun_input(&ctx, &first), Some(&summariser));
    assert_eq!(
        summariser.calls(),
        1,
        "the second run must not summarise the summary"
    );
    assert_eq!(second.context, first.context);
}

struct WordCounter;
impl TokenCounter for WordCounter {
    fn count(&self, text: &str) -> u64 {
        text.split_whitespace().count() as u64
    }
}

#[test]
fn one_counter_measures_before_and_after_regression() {
    let text = format!("```tool_result name=bash\n{}\n```", "word ".repeat(300));
    let ctx = text_ctx(&text, pressure(2, 0.1, 0.0, false));
    let options = CompactOptions {
        counter: Some(&WordCounter),
        ..CompactOptions::default()
    };
    let result = block_on(compact(&ctx, &options)).unwrap();
    assert_eq!(result.before_tokens, WordCounter.count(&text));
    assert_eq!(
        result.after_tokens,
        WordCounter.count(result.text().unwrap())
    );
}

#[test]
fn thresholds_are_read_per_call_not_frozen_regression() {
    let text = format!("```tool_result name=bash\n{}\n```", "E".repeat(100));
    let ctx = text_ctx(&text, pressure(2, 0.1, 0.0, false));
    let default = block_on(compact(&ctx, &CompactOptions::default())).unwrap();
    assert_eq!(default.tokens_saved, 0);
    let options = CompactOptions {
        policy: PolicyConfig {
            micro_body_threshold_chars: 50,
            micro_keep_head_chars: 10,
            ..PolicyConfig::default()
        },
        ..CompactOptions::default()
    };
    let tuned = block_on(compact(&ctx, &options)).unwrap();
    assert!(tuned.tokens_saved > 0);
}

#[test]
fn invalid_pressure_is_an_error_not_a_tier_regression() {
    let e = BudgetPressure::new(2.0, f64::NAN, 0.0, false)
        .unwrap_err()
        .under("pressure");
    assert_eq!(
        e.to_string(),
        "pressure.contextPctUsed must be a finite number in [0, 1], got NaN"
    );
    assert!(BudgetPressure::new(-1.0, 0.1, 0.0, false).is_err());
    assert!(BudgetPressure::new(2.0, 0.1, f64::INFINITY, false).is_err());
}

#[test]
fn tier_and_cost_are_structured_trace_fields_regression() {
    let text = format!("```tool_result name=bash\n{}\n```", "C".repeat(900));
    let result = run_tier(
        Tier::Micro,
        &text_ctx(&text, pressure(2, 0.1, 0.0, false)),
        None,
    );
    let step = serde_json::Map::from_iter([("trace_id".to_string(), json!("t-1"))]);
    let line = record_tier_event(&result, &step, 1_700_000_000.5);
    assert!(!line.contains('\n'));
    let parsed: Value = serde_json::from_str(&line).unwrap();
    assert_eq!(parsed["type"], "compact");
    assert_eq!(parsed["compaction_tier"], "micro");
    assert_eq!(
        parsed["compaction_cost_estimate"].as_f64().unwrap(),
        result.cost_estimate
    );
    assert_eq!(parsed["compaction_tokens_before"], 232);
    assert_eq!(parsed["compaction_tokens_after"], 36);
    assert_eq!(parsed["tokens"], 196);
    assert_eq!(parsed["trace_id"], "t-1");
    assert_eq!(parsed["timestamp"], 1_700_000_000.5);
    let detail = parsed["detail"].as_str().unwrap();
    assert!(
        detail.contains("tier=micro") && detail.contains("cost_estimate=0.000029"),
        "{detail}"
    );
}

#[test]
fn correlation_ids_are_reproducible_and_distinct_regression() {
    let text = format!("```tool_result name=bash\n{}\n```", "C".repeat(900));
    let a = run_tier(
        Tier::Micro,
        &text_ctx(&text, pressure(2, 0.1, 0.0, false)),
        None,
    );
    let b = run_tier(
        Tier::Micro,
        &text_ctx(&text, pressure(2, 0.1, 0.0, false)),
        None,
    );
    let c = run_tier(
        Tier::Micro,
        &text_ctx(&text, pressure(3, 0.1, 0.0, false)),
        None,
    );
    assert_eq!(a.correlation_id, b.correlation_id);
    assert_ne!(a.correlation_id, c.correlation_id);
    assert_eq!(
        a.correlation_id.len(),
        "cmp-".len() + 32,
        "128 bits, not 32"
    );
}

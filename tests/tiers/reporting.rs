//! What a tier's result reports: token counts (one counter before and after), cost weights, the
//! trace line and correlation ids.

use crate::common::*;
use serde_json::{Value, json};
use tiered_compaction::{
    CompactOptions, TIER_COST_WEIGHT, Tier, TokenCounter, compact, estimate_tokens,
    record_tier_event,
};

#[test]
fn cost_weights_of_the_seed() {
    let weights: Vec<(&str, f64)> = TIER_COST_WEIGHT
        .iter()
        .map(|(t, w)| (t.as_str(), *w))
        .collect();
    assert_eq!(
        weights,
        [
            ("none", 0.0),
            ("micro", 0.05),
            ("time_based", 0.10),
            ("auto", 0.50),
            ("session_memory", 1.00)
        ]
    );
}

#[test]
fn estimate_tokens_of_the_seed() {
    assert_eq!(estimate_tokens(""), 0);
    assert_eq!(estimate_tokens("a"), 1);
    assert_eq!(estimate_tokens(&"a".repeat(40)), 10);
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

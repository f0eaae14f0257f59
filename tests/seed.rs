//! The seed's documented behaviour, with the seed's own numbers (SPEC §3, §5).

mod common;

use common::*;
use tiered_compaction::{
    CompactOptions, ContextData, PolicyConfig, TIER_COST_WEIGHT, Tier, compact, estimate_tokens,
    run_legacy_compaction, select_tier,
};

fn micro_example() -> String {
    format!("```tool_result name=bash\n{}\n```", "C".repeat(900))
}

#[test]
fn selection_table_of_the_seed() {
    let policy = PolicyConfig::default();
    let cases = [
        ((3, 0.70, 0.0, false), Tier::Auto),
        ((3, 0.10, 300.0, false), Tier::TimeBased),
        ((1, 0.30, 0.0, false), Tier::None),
        ((2, 0.10, 0.0, false), Tier::Micro),
        ((5, 0.00, 0.0, false), Tier::None),
        ((5, 0.99, 0.0, true), Tier::SessionMemory),
        ((5, 0.85, 400.0, false), Tier::Auto),
        ((3, 0.20, 400.0, false), Tier::TimeBased),
    ];
    for ((turn, pct, idle, complete), expected) in cases {
        let chosen = select_tier(&pressure(turn, pct, idle, complete), &policy);
        assert_eq!(
            chosen, expected,
            "turn {turn} pct {pct} idle {idle} complete {complete}"
        );
    }
}

#[test]
fn micro_collapses_the_900_char_body_232_to_36_tokens() {
    let ctx = text_ctx(&micro_example(), pressure(2, 0.1, 0.0, false));
    let result = block_on(compact(&ctx, &CompactOptions::default())).unwrap();
    assert_eq!(result.tier, Tier::Micro);
    assert_eq!(result.before_tokens, 232);
    assert_eq!(result.after_tokens, 36);
    assert_eq!(result.tokens_saved, 196);
    assert!(
        (result.cost_estimate - 0.0000294).abs() < 1e-12,
        "{}",
        result.cost_estimate
    );
    assert_eq!(
        result.context,
        ContextData::Text(format!(
            "```tool_result name=bash\n{}\n[tool result body pruned: 900 chars]\n```",
            "C".repeat(80)
        ))
    );
    assert_eq!(result.archive.len(), 1);
    assert_eq!(result.archive[0].kind, "tool_result");
    assert_eq!(
        result.archive[0].content,
        serde_json::json!("C".repeat(900))
    );
}

#[test]
fn micro_leaves_bodies_of_240_chars_and_collapses_241() {
    for (len, changed) in [(240, false), (241, true)] {
        let text = format!("```tool_result name=bash\n{}\n```", "D".repeat(len));
        let result = run_tier(
            Tier::Micro,
            &text_ctx(&text, pressure(2, 0.1, 0.0, false)),
            None,
        );
        assert_eq!(
            result.context != ContextData::Text(text.clone()),
            changed,
            "body of {len}"
        );
        assert_eq!(result.tokens_saved > 0, changed);
    }
}

#[test]
fn time_based_prunes_the_stale_block_85_to_14_tokens() {
    let text = format!(
        "[age:12] very old block\n{}\n\n[age:1] fresh block\nkept content here",
        "stale content ".repeat(20)
    );
    let ctx = text_ctx(&text, pressure(3, 0.2, 400.0, false));
    let result = block_on(compact(&ctx, &CompactOptions::default())).unwrap();
    assert_eq!(result.tier, Tier::TimeBased);
    assert_eq!(
        result.context,
        ContextData::Text("[stale block pruned]\n\n[age:1] fresh block\nkept content here".into())
    );
    assert_eq!((result.before_tokens, result.after_tokens), (85, 14));
}

#[test]
fn no_op_returns_the_context_unchanged_at_zero_cost() {
    let text = micro_example();
    let ctx = text_ctx(&text, pressure(1, 0.3, 0.0, false));
    let result = block_on(compact(&ctx, &CompactOptions::default())).unwrap();
    assert_eq!(result.tier, Tier::None);
    assert_eq!(result.context, ContextData::Text(text));
    assert_eq!(result.before_tokens, result.after_tokens);
    assert_eq!(result.tokens_saved, 0);
    assert_eq!(result.cost_estimate, 0.0);
    assert!(result.archive.is_empty());
}

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
fn legacy_shim_selects_auto_with_full_context_pressure() {
    let text = format!(
        "intro\n\n{}\n\nmore\n\n{}",
        micro_example(),
        micro_example()
    );
    let result = block_on(run_legacy_compaction(
        "s-legacy",
        &text,
        None,
        None,
        &CompactOptions::default(),
    ))
    .unwrap();
    assert_eq!(result.tier, Tier::Auto);
    assert!(
        result.reason.contains("context use 1 >= 0.7"),
        "{}",
        result.reason
    );
    assert!(result.after_tokens <= result.before_tokens);
}

#[test]
fn estimate_tokens_of_the_seed() {
    assert_eq!(estimate_tokens(""), 0);
    assert_eq!(estimate_tokens("a"), 1);
    assert_eq!(estimate_tokens(&"a".repeat(40)), 10);
}

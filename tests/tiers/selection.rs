//! Selecting a tier from the pressure and the policy: the seed's selection table, the no-op
//! tier, the legacy entry point, and invalid pressure refused.

use crate::common::*;
use crate::micro_example;
use tiered_compaction::{
    BudgetPressure, CompactOptions, ContextData, PolicyConfig, Tier, compact,
    run_legacy_compaction, select_tier,
};

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

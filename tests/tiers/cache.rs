//! Cache-aware compaction (SPEC §11): with a warm prompt cache, micro and time_based edit only
//! where the tokens saved over the expected remaining steps are worth more than rewriting the
//! cached prefix the edits invalidate; auto never waits; without cache facts nothing changes.

use super::agent_session;
use crate::common::*;
use tiered_compaction::config::CacheConfig;
use tiered_compaction::{
    BudgetPressure, CompactOptions, PolicyConfig, Tier, TierResult, compact_with_tier,
};

/// The agent session at turn 9 and 40 % use, `idle` seconds idle, with `cached` tokens cached
/// (on the counter's scale: no window size given).
fn warm_pressure(idle: f64, cached: Option<f64>) -> BudgetPressure {
    pressure(9, 0.4, idle, false)
        .with_cache(cached, None)
        .expect("valid cache facts")
}

fn run(tier: Tier, pressure: BudgetPressure, cache: CacheConfig) -> TierResult {
    let ctx = messages_ctx(agent_session(), pressure);
    let options = CompactOptions {
        policy: PolicyConfig {
            cache,
            ..PolicyConfig::default()
        },
        ..CompactOptions::default()
    };
    block_on(compact_with_tier(tier, &ctx, &options)).expect("compaction succeeds")
}

/// The whole context's tokens, as the seed's counter sees them.
fn context_tokens() -> f64 {
    let result = run(Tier::None, warm_pressure(0.0, None), CacheConfig::default());
    result.before_tokens as f64
}

fn steps(expected_remaining_steps: u64) -> CacheConfig {
    CacheConfig {
        expected_remaining_steps,
        ..CacheConfig::default()
    }
}

#[test]
fn without_cache_facts_nothing_changes_and_nothing_is_reported() {
    let plain = run(
        Tier::Micro,
        pressure(9, 0.4, 0.0, false),
        CacheConfig::default(),
    );
    assert!(plain.tokens_saved > 0);
    assert_eq!(plain.cache, None);
}

#[test]
fn a_warm_cache_defers_edits_worth_less_than_the_rewrite() {
    let cached = context_tokens();
    let result = run(Tier::Micro, warm_pressure(10.0, Some(cached)), steps(1));
    assert_eq!(result.tokens_saved, 0, "{}", result.reason);
    assert!(result.archive.is_empty());
    assert!(
        result.reason.contains("cache warm: deferred") && result.reason.contains("rewrite cost"),
        "{}",
        result.reason
    );
    let cache = result.cache.expect("a report");
    assert!(cache.warm);
    assert_eq!(cache.invalidated_tokens, 0, "nothing was edited");
}

#[test]
fn a_warm_cache_allows_edits_worth_more_than_the_rewrite() {
    let cached = context_tokens();
    let result = run(Tier::Micro, warm_pressure(10.0, Some(cached)), steps(100));
    let plain = run(Tier::Micro, pressure(9, 0.4, 10.0, false), steps(100));
    assert_eq!(result.tokens_saved, plain.tokens_saved);
    let cache = result.cache.expect("a report");
    assert!(cache.warm && cache.invalidated_tokens > 0);
    assert!(
        cache.expected_savings_usd > cache.rewrite_cost_usd,
        "{cache:?}"
    );
}

#[test]
fn at_the_ttl_the_cache_is_cold_and_every_edit_is_made() {
    let cached = context_tokens();
    let plain = run(Tier::Micro, pressure(9, 0.4, 300.0, false), steps(1));
    let at_ttl = run(Tier::Micro, warm_pressure(300.0, Some(cached)), steps(1));
    let just_before = run(Tier::Micro, warm_pressure(299.9, Some(cached)), steps(1));
    assert_eq!(at_ttl.context, plain.context);
    let cache = at_ttl.cache.expect("a report");
    assert!(!cache.warm);
    assert_eq!((cache.invalidated_tokens, cache.rewrite_cost_usd), (0, 0.0));
    assert_eq!(just_before.tokens_saved, 0, "{}", just_before.reason);
}

#[test]
fn zero_cached_tokens_is_a_cold_cache() {
    let plain = run(Tier::Micro, pressure(9, 0.4, 1.0, false), steps(1));
    let result = run(Tier::Micro, warm_pressure(1.0, Some(0.0)), steps(1));
    assert_eq!(result.context, plain.context);
    assert!(!result.cache.expect("a report").warm);
}

#[test]
fn equal_read_and_write_prices_make_a_rewrite_free() {
    let cached = context_tokens();
    let cache = CacheConfig {
        cache_read_per_1k: Some(0.001),
        cache_write_per_1k: Some(0.001),
        expected_remaining_steps: 1,
        ..CacheConfig::default()
    };
    let result = run(Tier::Micro, warm_pressure(10.0, Some(cached)), cache);
    assert!(result.tokens_saved > 0, "{}", result.reason);
    let report = result.cache.expect("a report");
    assert!(report.invalidated_tokens > 0);
    assert_eq!(report.rewrite_cost_usd, 0.0);
}

#[test]
fn only_the_edits_past_the_cached_prefix_are_taken_when_that_is_worth_more() {
    // Half the context cached: the stubs past it invalidate nothing and are free; those inside
    // it are not worth rewriting the rest of the prefix for a single remaining step.
    let cached = context_tokens() / 2.0;
    let plain = run(Tier::Micro, pressure(9, 0.4, 10.0, false), steps(1));
    let result = run(Tier::Micro, warm_pressure(10.0, Some(cached)), steps(1));
    assert!(
        result.tokens_saved > 0 && result.tokens_saved < plain.tokens_saved,
        "{} of {}: {}",
        result.tokens_saved,
        plain.tokens_saved,
        result.reason
    );
    assert!(result.reason.contains("deferred the"), "{}", result.reason);
    // What it took is a subset of what it would take without the cache: the later entries.
    let ids: Vec<&str> = plain.archive.iter().map(|e| e.location.as_str()).collect();
    let taken: Vec<&str> = result.archive.iter().map(|e| e.location.as_str()).collect();
    assert!(ids.ends_with(&taken), "{ids:?} vs {taken:?}");
}

#[test]
fn time_based_is_deferred_by_a_warm_cache_too() {
    let cached = context_tokens();
    let mut pressure = warm_pressure(10.0, Some(cached));
    pressure.turn_count = 30;
    let result = run(Tier::TimeBased, pressure, steps(1));
    assert_eq!(result.tokens_saved, 0, "{}", result.reason);
    assert!(
        result.reason.contains("cache warm: deferred"),
        "{}",
        result.reason
    );
}

#[test]
fn auto_is_never_deferred_and_reports_what_it_invalidated() {
    let cached = context_tokens();
    let result = run(Tier::Auto, warm_pressure(10.0, Some(cached)), steps(1));
    assert!(result.tokens_saved > 0, "{}", result.reason);
    let cache = result.cache.expect("a report");
    assert!(cache.warm && cache.invalidated_tokens > 0);
    assert!(cache.rewrite_cost_usd > 0.0);
}

#[test]
fn provider_tokens_are_put_on_the_counters_scale_by_the_window() {
    // The provider counts twice the tokens the seed's rule does: 0.4 of a window of
    // `2 × before / 0.4` tokens is the whole context, so all of it is cached.
    let before = context_tokens();
    let window = 2.0 * before / 0.4;
    let scaled = pressure(9, 0.4, 10.0, false)
        .with_cache(Some(2.0 * before), Some(window))
        .expect("valid");
    let result = run(Tier::Micro, scaled, steps(1));
    let direct = run(Tier::Micro, warm_pressure(10.0, Some(before)), steps(1));
    assert_eq!(result.context, direct.context);
    assert_eq!(result.reason, direct.reason);
}

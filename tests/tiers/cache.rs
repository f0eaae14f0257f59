//! Cache-aware compaction (SPEC §11): with a warm prompt cache, micro's next batch and
//! time_based's edits are made only when the tokens they save over the expected remaining calls
//! are worth more than rewriting the cached prefix after their first edit; auto never waits;
//! without cache facts nothing is deferred. These tests use micro unbatched (every step a batch
//! of its own), so the batch is every stub outside the tail; `batches.rs` tests the batches.

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
            cache: CacheConfig {
                batch_tokens: 0,
                ..cache
            },
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
        expected_remaining_steps: Some(expected_remaining_steps),
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
    // The report gives the batch that waits: what it would invalidate, cost and save.
    let cache = result.cache.expect("a report");
    assert!(cache.warm && cache.deferred, "{cache:?}");
    assert!(cache.invalidated_tokens > 0);
    assert!(cache.expected_savings_usd <= cache.rewrite_cost_usd);
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
        expected_remaining_steps: Some(1),
        ..CacheConfig::default()
    };
    let result = run(Tier::Micro, warm_pressure(10.0, Some(cached)), cache);
    assert!(result.tokens_saved > 0, "{}", result.reason);
    let report = result.cache.expect("a report");
    assert!(report.invalidated_tokens > 0);
    assert_eq!(report.rewrite_cost_usd, 0.0);
}

#[test]
fn a_deferred_batch_goes_whole_once_the_horizon_makes_it_pay() {
    // The horizon defaults to the calls so far (at least 10): the same batch that does not pay
    // at turn 9 pays later in a long session, and then every stub of it is made at once. Reads
    // are priced at a hundredth of a write, so ten calls of savings do not pay for the rewrite.
    let cached = context_tokens();
    let unset = CacheConfig {
        cache_read_per_1k: Some(0.000_03),
        cache_write_per_1k: Some(0.003_75),
        ..CacheConfig::default()
    };
    let plain = run(Tier::Micro, pressure(9, 0.4, 10.0, false), unset.clone());
    let early = run(
        Tier::Micro,
        warm_pressure(10.0, Some(cached)),
        unset.clone(),
    );
    assert!(early.cache.expect("a report").deferred, "{}", early.reason);
    let mut late_pressure = warm_pressure(10.0, Some(cached));
    late_pressure.turn_count = 100_000;
    let late = run(Tier::Micro, late_pressure, unset);
    assert_eq!(late.context, plain.context, "{}", late.reason);
    assert!(!late.cache.expect("a report").deferred);
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

//! [`CacheConfig`]: the prompt cache's lifetime and prices, `PolicyConfig.cache` (SPEC §11).

use super::setting::Kind;
use super::table::settings_table;

settings_table! {
    /// The provider's prompt cache, for the cache-aware deferral of micro and time_based. JS:
    /// `CacheConfig`.
    pub struct CacheConfig {
    /// Seconds a cached prefix lives without a call (Anthropic's default: 300).
    ttl_seconds: f64 = 300.0, "ttlSeconds", Kind::NonNegative;
    /// USD per 1k tokens read from the cache; unset: 0.1 × the context's `costPer1kTokens`
    /// (Anthropic's ratio).
    cache_read_per_1k: Option<f64> = None, "cacheReadPer1k", Kind::NonNegative;
    /// USD per 1k tokens written to the cache; unset: 1.25 × the context's `costPer1kTokens`
    /// (Anthropic's ratio, 5-minute cache).
    cache_write_per_1k: Option<f64> = None, "cacheWritePer1k", Kind::NonNegative;
    /// Model calls the session is expected to make after this one: how often a saved token
    /// would not be read again.
    expected_remaining_steps: u64 = 10, "expectedRemainingSteps", Kind::Integer { min: 0 };
    }
}

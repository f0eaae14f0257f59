//! [`CacheConfig`]: the prompt cache's lifetime and prices, `PolicyConfig.cache` (docs/design.md §11).

use super::setting::Kind;
use super::table::settings_table;

/// The least horizon of the cache model when `expectedRemainingSteps` is unset.
pub const MIN_REMAINING_STEPS: u64 = 10;

/// The default of `batchTokens` (see [`CacheConfig::batch_tokens`]).
pub const DEFAULT_BATCH_TOKENS: u64 = 5_000;

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
    /// would not be read again. Unset: the calls so far (`turnCount`), at least
    /// [`MIN_REMAINING_STEPS`] (a session that ran k calls is as likely as not to run k more).
    expected_remaining_steps: Option<u64> = None, "expectedRemainingSteps", Kind::Integer { min: 0 };
    /// Tokens a batch of new stubs must save before micro moves its stub frontier (and
    /// time_based likewise): each move rewrites the provider's cached prefix after its first
    /// edit, so stubs go in batches worth that rewrite, not one step at a time. 0: every step
    /// as soon as it leaves the protected tail. The default is chosen by the loop replay
    /// (`bench/loop-replay.mjs`, `bench/LOOP_REPLAY.md`).
    batch_tokens: u64 = DEFAULT_BATCH_TOKENS, "batchTokens", Kind::Integer { min: 0 };
    }
}

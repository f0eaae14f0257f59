//! The prompt-cache cost model (`docs/design.md`, "Cost"; docs/design.md §11). Providers bill a cached
//! prompt prefix at a fraction of the input price; an edit to message k throws away the cached
//! prefix from k on, and the next call pays to write it again. [`CacheModel`] prices that; the
//! tiers that may wait (`crate::tiers::deferral`) keep only the edits worth more than the
//! rewrite they cause, and every result reports what its edits did to the cache.

use crate::config::CacheConfig;
use crate::policy::pressure::BudgetPressure;
use crate::tokens::TokenCounter;
use crate::transcript::Transcript;
use serde::Serialize;

/// Anthropic's price of reading a cached prefix, as a share of the input price.
pub const DEFAULT_READ_RATIO: f64 = 0.1;
/// Anthropic's price of writing a prefix to the cache (5-minute lifetime), as a share of the
/// input price.
pub const DEFAULT_WRITE_RATIO: f64 = 1.25;

/// The cache facts of one call, on the counter's scale, and its prices (USD per 1k tokens).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CacheModel {
    /// The cache holds a prefix and has not expired (`idleSeconds < ttlSeconds`).
    pub warm: bool,
    /// Tokens of the cached prefix, on the counter's scale.
    pub cached_tokens: u64,
    /// USD per 1k tokens read from the cache.
    pub read_per_1k: f64,
    /// USD per 1k tokens written to the cache.
    pub write_per_1k: f64,
    /// How many more model calls the saved tokens will be read on.
    pub remaining_steps: u64,
}

impl CacheModel {
    /// The model of a call, or `None` when the host gave no `cachedTokens` (then nothing changes:
    /// docs/design.md §11, "without cache facts, behaviour is as without this section").
    /// `before_tokens` is the context's size by the call's counter, which puts the provider's
    /// figure on the counter's scale when the window size is known.
    pub fn of(
        pressure: &BudgetPressure,
        cache: &CacheConfig,
        input_per_1k: f64,
        before_tokens: u64,
    ) -> Option<Self> {
        let provider_cached = pressure.cached_tokens?;
        let provider_context = pressure
            .context_window_tokens
            .map(|window| pressure.context_pct_used * window)
            .filter(|tokens| *tokens > 0.0);
        let cached = match provider_context {
            Some(context) => provider_cached * before_tokens as f64 / context,
            None => provider_cached,
        };
        Some(Self {
            warm: provider_cached > 0.0 && pressure.idle_seconds < cache.ttl_seconds,
            cached_tokens: cached.round() as u64,
            read_per_1k: cache
                .cache_read_per_1k
                .unwrap_or(input_per_1k * DEFAULT_READ_RATIO),
            write_per_1k: cache
                .cache_write_per_1k
                .unwrap_or(input_per_1k * DEFAULT_WRITE_RATIO),
            remaining_steps: cache
                .expected_remaining_steps
                .unwrap_or(pressure.turn_count.max(crate::config::MIN_REMAINING_STEPS)),
        })
    }

    /// Cached tokens at or after `prefix_tokens` (the tokens before the first edit), which the
    /// next call writes again; none when the cache is cold (it would be written anyway).
    pub fn invalidated(&self, prefix_tokens: u64) -> u64 {
        if self.warm {
            self.cached_tokens.saturating_sub(prefix_tokens)
        } else {
            0
        }
    }

    /// What the next call pays for `invalidated` cached tokens being thrown away, `saved` of
    /// them by the edits, beyond reading them all again: the rest is written at the write price
    /// instead of read (the saved ones are written at no price at all). Never below zero.
    pub fn rewrite_cost(&self, invalidated: u64, saved: u64) -> f64 {
        let written = invalidated.saturating_sub(saved) as f64 * self.write_per_1k;
        let read = invalidated as f64 * self.read_per_1k;
        ((written - read) / 1000.0).max(0.0)
    }

    /// What saving `saved` tokens is worth: they are not read on any of the remaining steps.
    pub fn expected_savings(&self, saved: u64) -> f64 {
        saved as f64 / 1000.0 * self.read_per_1k * self.remaining_steps as f64
    }

    /// The report of an outcome whose first change is after `prefix_tokens` tokens and that
    /// saved `saved` tokens.
    pub fn report(&self, prefix_tokens: u64, saved: u64) -> CacheReport {
        let invalidated = if saved > 0 {
            self.invalidated(prefix_tokens)
        } else {
            0
        };
        CacheReport {
            warm: self.warm,
            invalidated_tokens: invalidated,
            rewrite_cost_usd: self.rewrite_cost(invalidated, saved),
            expected_savings_usd: self.expected_savings(saved),
            deferred: false,
        }
    }
}

/// What a compaction did to the prompt cache (`TierResult.cache`).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CacheReport {
    /// The cache was warm.
    pub warm: bool,
    /// Cached tokens the edits invalidated (0 when cold or nothing changed).
    pub invalidated_tokens: u64,
    /// What writing them again costs beyond reading them, in USD.
    pub rewrite_cost_usd: f64,
    /// What the tokens saved are worth over the expected remaining steps, in USD.
    pub expected_savings_usd: f64,
    /// The edits were deferred: the figures are the batch's that waits (it was not worth its
    /// rewrite yet), and nothing was invalidated.
    pub deferred: bool,
}

/// Tokens before each message of `transcript` (one more entry than messages: the total).
pub fn prefix_tokens(transcript: &Transcript, counter: &dyn TokenCounter) -> Vec<u64> {
    let mut total = 0u64;
    let totals = transcript.messages.iter().map(|message| {
        total += crate::transcript::counting::message_tokens(message, counter);
        total
    });
    std::iter::once(0).chain(totals).collect()
}

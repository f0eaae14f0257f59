//! The cache model as properties over generated conversations in every structured format
//! (SPEC §11): it never makes more edits than the tier makes without it, what it makes is the
//! tier's own later edits, and a cold cache defers nothing.

mod common;

use common::generate::{self, Conversation};
use common::*;
use proptest::prelude::*;
use serde_json::Value;
use tiered_compaction::config::CacheConfig;
use tiered_compaction::transcript::Format;
use tiered_compaction::{
    BudgetPressure, CompactOptions, ContextInput, FormatChoice, PolicyConfig, Tier, TierContext,
    TierResult, compact_with_tier,
};

fn render(format: Format, conversation: &Conversation) -> Vec<Value> {
    match format {
        Format::OpenAi => generate::openai(conversation),
        Format::Anthropic => generate::anthropic(conversation),
        Format::Responses => generate::responses(conversation),
        Format::Gemini => generate::gemini(conversation),
        _ => generate::ai_sdk(conversation),
    }
}

fn run(
    tier: Tier,
    format: Format,
    messages: &[Value],
    pressure: BudgetPressure,
    steps: u64,
) -> TierResult {
    let ctx = TierContext::new(
        "s-cache",
        pressure,
        ContextInput::Messages {
            messages: messages.to_vec(),
            format: FormatChoice::Fixed(format),
        },
    );
    let options = CompactOptions {
        policy: PolicyConfig {
            cache: CacheConfig {
                expected_remaining_steps: Some(steps),
                ..CacheConfig::default()
            },
            ..PolicyConfig::default()
        },
        ..CompactOptions::default()
    };
    checked(block_on(compact_with_tier(tier, &ctx, &options)).expect("compaction succeeds"))
}

fn locations(result: &TierResult) -> Vec<&str> {
    result.archive.iter().map(|e| e.location.as_str()).collect()
}

proptest! {
    #![proptest_config(common::cases::config(32))]

    #[test]
    fn never_more_edits_and_none_deferred_when_cold(
        conversation in generate::conversation(),
        format in common::cases::format(),
        tier in prop::sample::select(vec![Tier::Micro, Tier::TimeBased]),
        cached_share in 0.0f64..1.2,
        idle in prop::sample::select(vec![0.0, 120.0, 299.0, 300.0, 900.0]),
        steps in 0u64..30,
    ) {
        let messages = render(format, &conversation);
        let plain_pressure = pressure(40, 0.5, idle, false);
        let plain = run(tier, format, &messages, plain_pressure, steps);
        let cached = (plain.before_tokens as f64 * cached_share).round();
        let with_cache = plain_pressure.with_cache(Some(cached), None).expect("valid");
        let result = run(tier, format, &messages, with_cache, steps);
        let report = result.cache.expect("cache facts give a report");
        let (taken, all) = (locations(&result), locations(&plain));
        // Only the tier's own edits, and only its later ones (the prefix before them stays).
        prop_assert!(all.ends_with(&taken), "{all:?} vs {taken:?}");
        prop_assert!(result.tokens_saved <= plain.tokens_saved);
        if !report.warm {
            prop_assert!(idle >= 300.0 || cached == 0.0);
            prop_assert_eq!(&result.context, &plain.context);
            prop_assert_eq!(report.rewrite_cost_usd, 0.0);
        }
        if result.tokens_saved > 0 && report.warm {
            // A warm cache is only broken for more than it costs.
            prop_assert!(report.expected_savings_usd > report.rewrite_cost_usd, "{report:?}");
        }
    }
}

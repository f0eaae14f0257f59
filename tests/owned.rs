//! The owned entry points (`compact_owned`, `compact_with_tier_owned`, which the binding and the
//! body path use) give exactly what the borrowing ones give, and archive origins point at input
//! content equal to what the entry holds.

mod common;

use common::generate::{self, Conversation};
use common::*;
use proptest::prelude::*;
use serde_json::Value;
use tiered_compaction::api::result::{ArchiveOrigin, value_at};
use tiered_compaction::transcript::Format;
use tiered_compaction::{
    CompactOptions, ContextInput, FormatChoice, Summariser, Tier, TierContext, TierResult,
    compact_with_tier, compact_with_tier_owned,
};

fn render(format: Format, conversation: &Conversation) -> Vec<Value> {
    match format {
        Format::OpenAi => generate::openai(conversation),
        Format::Anthropic => generate::anthropic(conversation),
        Format::AiSdk => generate::ai_sdk(conversation),
        Format::Responses => generate::responses(conversation),
        Format::Gemini => generate::gemini(conversation),
        Format::Text => unreachable!("structured formats only"),
    }
}

fn both(
    tier: Tier,
    ctx: &TierContext,
    summariser: Option<&dyn Summariser>,
) -> (TierResult, TierResult) {
    let options = CompactOptions {
        summariser,
        ..CompactOptions::default()
    };
    let borrowed = checked(block_on(compact_with_tier(tier, ctx, &options)).expect("compacts"));
    let owned =
        checked(block_on(compact_with_tier_owned(tier, ctx.clone(), &options)).expect("compacts"));
    (borrowed, owned)
}

fn check(input: &[Value], result: &TierResult) -> Result<(), TestCaseError> {
    prop_assert_eq!(result.archive_origins.len(), result.archive.len());
    for (entry, origin) in result.archive.iter().zip(&result.archive_origins) {
        match origin {
            None => {}
            Some(ArchiveOrigin::Part { message, path }) => {
                prop_assert_eq!(value_at(&input[*message], path), Some(&entry.content));
            }
            Some(ArchiveOrigin::Messages(from)) => {
                let items = entry.content.as_array().expect("messages are an array");
                prop_assert_eq!(items.len(), from.len());
                for (item, from) in items.iter().zip(from) {
                    if let Some(at) = from {
                        prop_assert_eq!(item, &input[*at]);
                    }
                }
            }
        }
    }
    Ok(())
}

fn check_format(format: Format, conversation: &Conversation) -> Result<(), TestCaseError> {
    let input = render(format, conversation);
    let ctx = TierContext::new(
        "s-owned",
        pressure(4, 0.8, 400.0, false),
        ContextInput::Messages {
            messages: input.clone(),
            format: FormatChoice::Fixed(format),
        },
    );
    for tier in Tier::ALL {
        for mode in [None, Some(Mode::Good), Some(Mode::Long)] {
            let fake = mode.map(FakeSummariser::new);
            let summariser = fake.as_ref().map(|f| f as &dyn Summariser);
            let (borrowed, owned) = both(tier, &ctx, summariser);
            prop_assert_eq!(&owned, &borrowed, "{} owned != borrowed", tier);
            prop_assert_eq!(&owned.origins, &borrowed.origins);
            prop_assert_eq!(&owned.archive_origins, &borrowed.archive_origins);
            check(&input, &owned)?;
        }
    }
    Ok(())
}

proptest! {
    // 32 cases per format, as when each format had its own copy of the property.
    #![proptest_config(common::cases::per_format(32))]

    #[test]
    fn owned_equals_borrowed_in_every_format(
        conversation in generate::conversation(),
        format in common::cases::format(),
    ) {
        check_format(format, &conversation)?;
    }
}

//! Every tier on arbitrary JSON read as a messages list, with format detection and with each
//! format named: the adapters must refuse what they cannot read (never panic), and whatever they
//! accept must come out with every invariant of docs/design.md kept.
#![no_main]

use libfuzzer_sys::fuzz_target;
use serde_json::Value;
use tiered_compaction::FormatChoice;
use tiered_compaction::transcript::Format;
use tiered_compaction_fuzz::checks;

fuzz_target!(|data: &[u8]| {
    let Ok(messages) = serde_json::from_slice::<Vec<Value>>(data) else {
        return;
    };
    let choices = [
        FormatChoice::Auto,
        FormatChoice::Fixed(Format::OpenAi),
        FormatChoice::Fixed(Format::Anthropic),
        FormatChoice::Fixed(Format::AiSdk),
        FormatChoice::Fixed(Format::Responses),
        FormatChoice::Fixed(Format::Gemini),
    ];
    for choice in choices {
        for tier in checks::TIERS {
            checks::structured(&messages, choice, tier, None);
        }
    }
});

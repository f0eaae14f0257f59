//! Every tier on a generated conversation decoded from the fuzz bytes, rendered in the format
//! the bytes pick (OpenAI, Anthropic, AI SDK, the Responses API, Gemini), with the summariser
//! behaviour the bytes pick;
//! every invariant of `docs/design.md` is checked on every run.
#![no_main]

use arbitrary::Unstructured;
use libfuzzer_sys::fuzz_target;
use tiered_compaction::FormatChoice;
use tiered_compaction::transcript::Format;
use tiered_compaction_fuzz::common::generate;
use tiered_compaction_fuzz::{SUMMARISERS, checks, decode, summariser};

fuzz_target!(|data: &[u8]| {
    let mut u = Unstructured::new(data);
    let Ok(format) = u
        .choose(&[
            Format::OpenAi,
            Format::Anthropic,
            Format::AiSdk,
            Format::Responses,
            Format::Gemini,
        ])
        .copied()
    else {
        return;
    };
    let Ok(mode) = u.choose(&SUMMARISERS).copied() else {
        return;
    };
    let Ok(conversation) = decode::conversation(&mut u) else {
        return;
    };
    let messages = match format {
        Format::OpenAi => generate::openai(&conversation),
        Format::Anthropic => generate::anthropic(&conversation),
        Format::Responses => generate::responses(&conversation),
        Format::Gemini => generate::gemini(&conversation),
        _ => generate::ai_sdk(&conversation),
    };
    if std::env::var_os("TC_FUZZ_DUMP").is_some() {
        // Replaying a crash: print the input as JSON (for a regression test).
        eprintln!("format {format:?}, summariser {mode:?}");
        eprintln!("{}", serde_json::Value::Array(messages.clone()));
    }
    let fake = summariser(mode);
    for tier in checks::TIERS {
        let summariser = fake
            .as_ref()
            .map(|f| f as &dyn tiered_compaction::Summariser);
        checks::structured(&messages, FormatChoice::Fixed(format), tier, summariser);
    }
});

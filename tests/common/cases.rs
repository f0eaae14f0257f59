//! How many cases a property test runs, set up once for every proptest file: the file's default,
//! which keeps `cargo test` quick, or `PROPTEST_CASES` when set (to run more, or fewer), and the
//! structured formats a property draws from.

use proptest::prelude::*;
use proptest::test_runner::Config;
use tiered_compaction::transcript::Format;

/// The structured formats (flat text has its own properties).
pub const FORMATS: [Format; 5] = [
    Format::OpenAi,
    Format::Anthropic,
    Format::AiSdk,
    Format::Responses,
    Format::Gemini,
];

/// A config of `default` cases; `PROPTEST_CASES` overrides it.
pub fn config(default: u32) -> Config {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|cases| cases.parse().ok())
        .unwrap_or(default);
    Config {
        cases,
        ..Config::default()
    }
}

/// A config for a property that draws one of the [`FORMATS`] per case ([`format`]): `default`
/// cases (or `PROPTEST_CASES`) per format, as many as a copy of the property per format ran.
pub fn per_format(default: u32) -> Config {
    let mut config = config(default);
    config.cases *= FORMATS.len() as u32;
    config
}

/// One of the structured formats.
pub fn format() -> impl Strategy<Value = Format> {
    prop_oneof![
        Just(Format::OpenAi),
        Just(Format::Anthropic),
        Just(Format::AiSdk),
        Just(Format::Responses),
        Just(Format::Gemini),
    ]
}

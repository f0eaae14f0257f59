//! The format adapters' tests. `harness` runs every fixture case under `tests/fixtures/formats/`
//! (a folder per format, a folder per case: its input and what each operation gives); `gemini`
//! and `responses` run every tier on agent runs of those formats. Adding a format is one
//! adapter file, one line in `formats::registry` and a folder of fixtures (`tests/README.md`).

#[path = "../common/mod.rs"]
mod common;
mod gemini;
mod harness;
mod responses;

use common::restore::restore;
use common::{FakeSummariser, Mode, compact_late, unbatched};
use serde_json::Value;
use tiered_compaction::{CompactOptions, ContextData, Tier, TierResult};

#[test]
fn fixtures() {
    harness::run();
}

/// Runs every tier on `input` late in a session, without a summariser and with one that answers,
/// and hands each result to `check`.
fn every_tier(input: &[Value], mut check: impl FnMut(Tier, &TierResult)) {
    for tier in Tier::ALL {
        for summariser in [None, Some(FakeSummariser::new(Mode::Good))] {
            let options = CompactOptions {
                summariser: summariser.as_ref().map(|s| s as _),
                ..unbatched()
            };
            check(tier, &compact_late(tier, input, &options));
        }
    }
}

/// The output of a tier's `result` on `input`, after what holds for every result: it is in the
/// input's format (option name `format`), the archive restores the input, and it never grows.
fn output_of(format: &str, tier: Tier, input: &[Value], result: &TierResult) -> Vec<Value> {
    assert_eq!(result.format, format);
    assert_eq!(
        restore(&result.context, &result.archive),
        ContextData::Messages(input.to_vec()),
        "{tier} restores"
    );
    assert!(result.after_tokens <= result.before_tokens);
    result.messages().expect("messages").to_vec()
}

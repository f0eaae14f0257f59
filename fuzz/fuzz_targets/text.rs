//! Every tier on an arbitrary string as flat text (the seed's fences, `[age:N]` tags and media),
//! without a summariser and with one: never grows, nothing lost, idempotent, deterministic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tiered_compaction_fuzz::common::Mode;
use tiered_compaction_fuzz::{checks, summariser};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    for mode in [None, Some(Mode::Good)] {
        let fake = summariser(mode);
        for tier in checks::TIERS {
            let summariser = fake
                .as_ref()
                .map(|f| f as &dyn tiered_compaction::Summariser);
            checks::text(&text, tier, summariser);
        }
    }
});

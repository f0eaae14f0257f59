//! The edge-proxy path on arbitrary bytes: the first byte picks the pressure (and so the tier),
//! the rest is the request body. Refusals are fine; an accepted body must come out as JSON with
//! every field outside its message list (`messages`, a Responses `input`, Gemini `contents`)
//! unchanged and the invariants kept.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tiered_compaction::BudgetPressure;
use tiered_compaction_fuzz::checks;

/// (turn, context use, idle seconds, complete): selects none, micro, time_based, auto and
/// session_memory in turn.
const PRESSURES: [(f64, f64, f64, bool); 5] = [
    (1.0, 0.3, 0.0, false),
    (3.0, 0.2, 0.0, false),
    (3.0, 0.2, 400.0, false),
    (5.0, 0.85, 0.0, false),
    (5.0, 0.5, 0.0, true),
];

fuzz_target!(|data: &[u8]| {
    let Some((first, rest)) = data.split_first() else {
        return;
    };
    let Ok(body) = std::str::from_utf8(rest) else {
        return;
    };
    let (turn, pct, idle, complete) = PRESSURES[usize::from(*first) % PRESSURES.len()];
    let pressure = BudgetPressure::new(turn, pct, idle, complete).expect("valid pressure");
    checks::body(body, pressure);
});

//! A first timing of the core on a generated ~1 MB transcript (not a test; no assertions).
//! `cargo bench --bench core`. Peers are compared in `bench/` (JS, side by side).

use serde_json::{Value, json};
use std::time::Instant;
use tiered_compaction::{
    BudgetPressure, CompactOptions, ContextInput, FormatChoice, Tier, TierContext,
    compact_with_tier,
};

/// A deterministic OpenAI-format agent transcript of about `bytes` bytes.
fn transcript(bytes: usize) -> Vec<Value> {
    let mut messages = vec![
        json!({"role": "system", "content": "You are a coding agent."}),
        json!({"role": "user", "content": "Fix the build."}),
    ];
    let mut size = 0;
    let mut i = 0u64;
    while size < bytes {
        let output = format!("{}\n", "compiling crate foo v0.1.0 (src/lib.rs)")
            .repeat(1 + (i * 7919 % 200) as usize);
        size += output.len() + 200;
        messages.push(json!({"role": "assistant", "content": null, "tool_calls": [{"id": format!("c{i}"), "type": "function", "function": {"name": "bash", "arguments": "{\"cmd\":\"cargo build\"}"}}]}));
        messages.push(json!({"role": "tool", "tool_call_id": format!("c{i}"), "content": output}));
        if i % 5 == 4 {
            messages.push(json!({"role": "user", "content": format!("continue {i}")}));
        }
        i += 1;
    }
    messages.push(json!({"role": "user", "content": "last"}));
    messages
}

fn main() {
    let messages = transcript(1 << 20);
    let bytes = serde_json::to_string(&messages).map_or(0, |s| s.len());
    let pressure = BudgetPressure::new(10.0, 0.3, 0.0, false).expect("valid");
    for tier in [Tier::Micro, Tier::TimeBased, Tier::Auto] {
        let ctx = TierContext::new(
            "bench",
            pressure,
            ContextInput::Messages {
                messages: messages.clone(),
                format: FormatChoice::Auto,
            },
        );
        let mut times = Vec::new();
        for _ in 0..7 {
            let start = Instant::now();
            let result =
                pollster::block_on(compact_with_tier(tier, &ctx, &CompactOptions::default()))
                    .expect("compacts");
            times.push(start.elapsed().as_secs_f64() * 1000.0);
            std::hint::black_box(result);
        }
        times.sort_by(f64::total_cmp);
        println!(
            "{tier:>12} on {:.2} MB ({} messages): median {:.2} ms (min {:.2}, max {:.2})",
            bytes as f64 / 1e6,
            messages.len(),
            times[3],
            times[0],
            times[6]
        );
    }
}

//! Runs the body path (`compact_request_body`) on a request body file, `N` times, for a
//! native profile of the core: `valgrind --tool=callgrind` counts instructions repeatably on a
//! busy machine, where timings do not (bench/README.md, "Profiling the core natively").
//!
//! `cargo build --release --example profile_body`, then
//! `target/release/examples/profile_body BODY.json [N] [IDLE_SECONDS]`
//! (idle 0 selects micro on a long run, 400 time_based). `POLICY` in the environment, a JSON
//! policy object, is passed to every call: `POLICY='{"microBodyThresholdChars":2147483647}'`
//! leaves micro nothing to stub, so that a profile shows a call's cost before its edits.
use tiered_compaction::{BudgetPressure, CompactOptions, compact_request_body};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let path = args
        .get(1)
        .ok_or("usage: profile_body BODY.json [N] [IDLE_SECONDS]")?;
    let body = std::fs::read_to_string(path)?;
    let calls: usize = args.get(2).map_or(Ok(1), |s| s.parse())?;
    let idle: f64 = args.get(3).map_or(Ok(0.0), |s| s.parse())?;
    let mut options = CompactOptions::default();
    if let Ok(policy) = std::env::var("POLICY") {
        options.policy =
            tiered_compaction::PolicyConfig::from_json(&serde_json::from_str(&policy)?)?;
    }
    let start = std::time::Instant::now();
    for call in 0..calls {
        let pressure = BudgetPressure::new(300.0, 0.5, idle, false)?;
        let (out, result) = pollster::block_on(compact_request_body(
            &body, "profile", pressure, None, &options,
        ))?;
        if call == 0 {
            eprintln!(
                "{}: {} -> {} tokens, {} -> {} bytes",
                result.tier,
                result.before_tokens,
                result.after_tokens,
                body.len(),
                out.len()
            );
        }
    }
    let per_call = start.elapsed().as_secs_f64() * 1000.0 / calls.max(1) as f64;
    eprintln!("{per_call:.2} ms per call ({calls} calls)");
    Ok(())
}

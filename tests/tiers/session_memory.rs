//! session_memory: summarising the whole session. The summariser contract it shares with auto is
//! in `summariser.rs`.

use crate::agent_session;
use crate::common::*;
use tiered_compaction::Tier;

#[test]
fn session_memory_summary_holds_the_summariser_text_regression() {
    let summariser = FakeSummariser::new(Mode::Good);
    let ctx = messages_ctx(agent_session(), pressure(8, 0.5, 0.0, true));
    let result = run_tier(Tier::SessionMemory, &ctx, Some(&summariser));
    let summary = result.summary.clone().unwrap();
    assert!(summary.starts_with("[session summary]\n"), "{summary}");
    assert!(summary.contains("Goal: continue the task"), "{summary}");
    assert!(
        summary.contains("Never touch Cargo.toml") || summary.contains("keep going"),
        "{summary}"
    );
}

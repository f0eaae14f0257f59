//! auto: replacing earlier tool runs by a summary. The summariser contract it shares with
//! session_memory (requests, fallbacks, the loop guard) is in `summariser.rs`.

use crate::agent_session;
use crate::common::*;
use tiered_compaction::Tier;

#[test]
fn auto_calls_the_summariser_and_keeps_protected_content_regression() {
    // The seed replaced the whole context by a placeholder and never called its summariser.
    let summariser = FakeSummariser::new(Mode::Good);
    let ctx = messages_ctx(agent_session(), pressure(8, 0.8, 0.0, false));
    let result = run_tier(Tier::Auto, &ctx, Some(&summariser));
    assert_eq!(summariser.calls(), 1);
    let out = result.messages().unwrap();
    assert_eq!(out[0], agent_session()[0], "system prompt kept");
    assert_eq!(out[1], agent_session()[1], "task kept");
    assert_eq!(out.last(), agent_session().last(), "latest turn kept");
    let text = serde_json::to_string(out).unwrap();
    assert!(text.contains("[summary of earlier tool runs]"), "{text}");
    assert!(result.tokens_saved > 0);
}

#[test]
fn auto_does_not_summarise_its_own_summary_regression() {
    let summariser = FakeSummariser::new(Mode::Good);
    let ctx = messages_ctx(agent_session(), pressure(8, 0.8, 0.0, false));
    let first = run_tier(Tier::Auto, &ctx, Some(&summariser));
    let second = run_tier(Tier::Auto, &rerun_input(&ctx, &first), Some(&summariser));
    assert_eq!(
        summariser.calls(),
        1,
        "the second run must not summarise the summary"
    );
    assert_eq!(second.context, first.context);
}

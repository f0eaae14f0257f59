//! What every tier keeps: the context never grows, tool calls keep their results.

use crate::agent_session;
use crate::common::*;
use tiered_compaction::{ContextData, Tier};

#[test]
fn a_tier_never_grows_the_context_regression() {
    // The seed's auto replaced a 3-token context by a longer placeholder and reported 0 saved.
    for tier in [
        Tier::Micro,
        Tier::TimeBased,
        Tier::Auto,
        Tier::SessionMemory,
    ] {
        let ctx = text_ctx("tiny", pressure(3, 0.9, 500.0, false));
        let result = run_tier(tier, &ctx, None);
        assert!(result.after_tokens <= result.before_tokens, "{tier}");
        if result.tokens_saved == 0 {
            assert_eq!(result.context, ContextData::Text("tiny".into()), "{tier}");
        }
    }
}

#[test]
fn pairs_stay_intact_when_runs_are_replaced_regression() {
    let ctx = messages_ctx(agent_session(), pressure(8, 0.8, 400.0, false));
    for tier in [Tier::TimeBased, Tier::Auto, Tier::SessionMemory] {
        let result = run_tier(tier, &ctx, None);
        let out = result.messages().unwrap();
        let calls: Vec<&str> = out
            .iter()
            .flat_map(|m| m["tool_calls"].as_array().into_iter().flatten())
            .filter_map(|c| c["id"].as_str())
            .collect();
        let results: Vec<&str> = out
            .iter()
            .filter_map(|m| m["tool_call_id"].as_str())
            .collect();
        assert_eq!(
            calls, results,
            "{tier}: every call keeps its result and vice versa"
        );
    }
}

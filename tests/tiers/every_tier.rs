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

/// A host counter that counts a text it has seen twice before as 10,000 tokens more (a
/// tokenizer with a broken cache): micro checks each stub twice (its batch, its plan), the
/// engine counts it a third time and sees the context grow.
struct SecondLook(std::cell::RefCell<std::collections::HashMap<String, u32>>);

impl tiered_compaction::TokenCounter for SecondLook {
    fn count(&self, text: &str) -> u64 {
        let mut seen = self.0.borrow_mut();
        let looks = seen.entry(text.to_string()).or_default();
        *looks += 1;
        text.chars().count() as u64 / 4 + if *looks > 2 { 10_000 } else { 0 }
    }
}

#[test]
fn the_rule_check_fallback_is_named_in_the_reason_and_counted_in_warnings() {
    let ctx = messages_ctx(agent_session(), pressure(8, 0.3, 0.0, false));
    let counter = SecondLook(Default::default());
    let options = tiered_compaction::CompactOptions {
        counter: Some(&counter),
        ..unbatched()
    };
    let result = block_on(tiered_compaction::compact_with_tier(
        Tier::Micro,
        &ctx,
        &options,
    ))
    .expect("compacts");
    assert_eq!(result.messages().unwrap(), agent_session().as_slice());
    assert!(
        result
            .reason
            .contains("rule check failed: the result would grow the context"),
        "{}",
        result.reason
    );
    assert_eq!(result.rule_check_fallbacks(), 1, "{:?}", result.warnings);
    assert!(
        result.warnings[0].starts_with("rule check fallbacks: 1 (micro: the result would grow"),
        "{:?}",
        result.warnings
    );
    // A call whose result is used counts none.
    assert_eq!(run_tier(Tier::Micro, &ctx, None).rule_check_fallbacks(), 0);
}

/// A short chat: the task, a long answer, then short exchanges (what the property tests found
/// once the fallback counted).
fn short_chat(format: tiered_compaction::transcript::Format) -> Vec<serde_json::Value> {
    use crate::common::generate::{self, Conversation, Step, Turn};
    let turn = |answer: &str| Turn {
        user: "plain words ".into(),
        image: None,
        binary: false,
        steps: vec![Step::Say(answer.into())],
        age_tag: None,
    };
    let mut turns = vec![turn(&"cut \u{e03d} here ".repeat(18))];
    turns.extend((0..3).map(|_| turn("plain words ")));
    let conversation = Conversation {
        system: "plain words ".into(),
        turns,
        extras: false,
    };
    match format {
        tiered_compaction::transcript::Format::Anthropic => generate::anthropic(&conversation),
        _ => generate::openai(&conversation),
    }
}

#[test]
fn a_digest_that_needs_a_role_bridge_is_not_made_when_the_bridge_outgrows_it_regression() {
    // Anthropic: a digest between the task and an assistant message needs a bridge message to
    // keep roles alternating; a digest a few tokens shorter than its stretch plus the bridge
    // grew the context, and only the engine's fallback caught it.
    let format = tiered_compaction::transcript::Format::Anthropic;
    let messages = short_chat(format);
    let mut ctx = messages_ctx(messages.clone(), pressure(4, 0.8, 400.0, false));
    // Text-only Anthropic messages read as the AI SDK's too: named, not detected.
    ctx.input = tiered_compaction::ContextInput::Messages {
        messages: messages.clone(),
        format: tiered_compaction::FormatChoice::Fixed(format),
    };
    let result = run_tier(Tier::Auto, &ctx, None);
    assert!(result.after_tokens <= result.before_tokens);
    assert_eq!(
        result.messages().unwrap(),
        messages.as_slice(),
        "{}",
        result.reason
    );
}

#[test]
fn a_session_digest_longer_than_the_session_folds_nothing_regression() {
    // The structural digest of a short session (headings, provenance, each directive) can be
    // longer than the session: it was applied and only the engine's fallback caught it.
    let messages = short_chat(tiered_compaction::transcript::Format::OpenAi)[..3].to_vec();
    let result = run_tier(
        Tier::SessionMemory,
        &messages_ctx(messages.clone(), pressure(4, 0.8, 0.0, true)),
        None,
    );
    assert_eq!(
        result.messages().unwrap(),
        messages.as_slice(),
        "{}",
        result.reason
    );
    assert!(
        result.reason.contains("nothing folded"),
        "{}",
        result.reason
    );
    // The host still gets the summary to store.
    assert!(
        result
            .summary
            .as_deref()
            .is_some_and(|s| s.starts_with("[session summary]"))
    );
}

#[test]
fn a_summary_leaves_room_for_the_messages_that_keep_roles_alternating_regression() {
    // Found by tests/invariants.rs with 150 cases: in Anthropic and Gemini, a summary whose
    // earlier stretch needs a pointer and which itself needs a bridge was measured without them
    // and grew the context (117 -> 126 tokens); only the engine's fallback caught it.
    use crate::common::generate::{self, Call, Conversation, Step, Turn};
    use tiered_compaction::transcript::Format;
    let turn = |user: String, image: Option<String>, steps: Vec<Step>| Turn {
        user,
        image,
        binary: false,
        steps,
        age_tag: None,
    };
    let long_line = format!("{}\r\n", "y".repeat(79));
    let conversation = Conversation {
        system: "plain words ".into(),
        turns: vec![
            turn(
                "plain words ".into(),
                None,
                vec![
                    Step::Say("error: failed to compile\n".repeat(3)),
                    Step::Say(long_line.clone()),
                    Step::Say("plain words https://example.com/x plain words https://example.com/x error: failed to compile\n".into()),
                ],
            ),
            turn(
                long_line,
                Some("iVBORw0KGgo".repeat(60)),
                vec![
                    Step::Calls(
                        None,
                        vec![Call {
                            name: "bash".into(),
                            arguments: "{\"arg\":\"\"}".into(),
                            output: "plain words ".into(),
                            is_error: false,
                        }],
                    ),
                    Step::Say("plain words ".into()),
                ],
            ),
            turn("plain words ".into(), None, vec![Step::Say("plain words ".into())]),
        ],
        extras: false,
    };
    for (format, messages) in [
        (Format::Anthropic, generate::anthropic(&conversation)),
        (Format::Gemini, generate::gemini(&conversation)),
    ] {
        let ctx = tiered_compaction::TierContext::new(
            "s-prop",
            pressure(4, 0.8, 400.0, false),
            tiered_compaction::ContextInput::Messages {
                messages,
                format: tiered_compaction::FormatChoice::Fixed(format),
            },
        );
        let fake = FakeSummariser::new(Mode::Good);
        // The media goes first; auto on its own output then folds the older conversation.
        let first = run_tier(Tier::Auto, &ctx, Some(&fake));
        let again = run_tier(Tier::Auto, &rerun_input(&ctx, &first), Some(&fake));
        assert!(
            again.after_tokens <= again.before_tokens,
            "{format:?}: {}",
            again.reason
        );
    }
}

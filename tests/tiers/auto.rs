//! auto: working to a budget (`autoTargetPct`, by the pressure's own measure), cheapest
//! reductions first — stubs, media, thinking, then the oldest tool runs, then older
//! conversation — on agent runs, plain chats and flat text. The summariser contract it shares
//! with session_memory (requests, fallbacks, the loop guard) is in `summariser.rs`.

use crate::agent_session;
use crate::common::generate::{self, Call, Conversation, Step, Turn};
use crate::common::restore::restore;
use crate::common::*;
use serde_json::Value;
use tiered_compaction::formats::read_messages;
use tiered_compaction::transcript::{Format, Role};
use tiered_compaction::{
    CompactOptions, ContextData, ContextInput, FormatChoice, Tier, TierContext, TierResult,
    compact_with_tier, run_legacy_compaction,
};

const FORMATS: [Format; 3] = [Format::OpenAi, Format::Anthropic, Format::AiSdk];

/// Runs auto on `ctx` with `summariser` and a target of `target`.
fn auto_to(
    ctx: &TierContext,
    summariser: Option<&dyn tiered_compaction::Summariser>,
    target: f64,
) -> TierResult {
    let mut options = CompactOptions {
        summariser,
        ..CompactOptions::default()
    };
    options.policy.auto_target_pct = target;
    block_on(compact_with_tier(Tier::Auto, ctx, &options)).expect("compacts")
}

/// The share of the window the result is at, by the pressure's own measure.
fn projected(ctx: &TierContext, result: &TierResult) -> f64 {
    ctx.pressure.context_pct_used * result.after_tokens as f64 / result.before_tokens as f64
}

/// A plain chat of `exchanges` exchanges: a short question, a long answer; `directive` puts a
/// user message of its own in place of question `at`.
fn chat(exchanges: usize, directive: Option<(usize, &str)>) -> Conversation {
    let turns = (0..exchanges)
        .map(|i| Turn {
            user: match directive {
                Some((at, words)) if at == i => words.to_string(),
                _ => format!("Question {i}: how should the parser treat input {i}?"),
            },
            image: None,
            binary: false,
            steps: vec![Step::Say(format!(
                "Answer {i}: {}",
                "The parser reads the tokens one by one and keeps its state small. ".repeat(9)
            ))],
            age_tag: None,
        })
        .collect();
    Conversation {
        system: "You are a helpful assistant.".into(),
        turns,
        extras: false,
    }
}

/// A single-prompt agent run of `steps` steps: long test logs, the newest three short.
fn agent_run(steps: usize) -> Conversation {
    let steps = (0..steps)
        .map(|i| {
            let output = if i + 3 >= steps {
                format!("ok {i}")
            } else {
                format!(
                    "running 40 tests\n{}error[E0425]: cannot find value `x` in src/lib.rs\ntest result: FAILED\n",
                    "test t ... ok\n".repeat(60)
                )
            };
            Step::Calls(
                None,
                vec![Call {
                    name: "bash".into(),
                    arguments: format!("{{\"cmd\":\"cargo test {i}\"}}"),
                    output,
                    is_error: false,
                }],
            )
        })
        .collect();
    Conversation {
        system: "You are a coding agent.".into(),
        turns: vec![Turn {
            user: "Fix the failing test in src/lib.rs.".into(),
            image: None,
            binary: false,
            steps,
            age_tag: None,
        }],
        extras: false,
    }
}

fn render(format: Format, conversation: &Conversation) -> Vec<Value> {
    match format {
        Format::OpenAi => generate::openai(conversation),
        Format::Anthropic => generate::anthropic(conversation),
        _ => generate::ai_sdk(conversation),
    }
}

fn ctx_of(format: Format, messages: Vec<Value>, pct: f64) -> TierContext {
    TierContext::new(
        "s-budget",
        pressure(9, pct, 0.0, false),
        ContextInput::Messages {
            messages,
            format: FormatChoice::Fixed(format),
        },
    )
}

/// Every text of the output, in the internal model (JSON escapes undone).
fn texts(format: Format, result: &TierResult) -> String {
    match &result.context {
        ContextData::Text(text) => text.clone(),
        ContextData::Messages(messages) => read_messages(messages, format)
            .expect("output reads back")
            .messages
            .iter()
            .flat_map(|m| &m.blocks)
            .map(|b| b.text.to_string())
            .collect::<Vec<_>>()
            .join("\n"),
    }
}

/// Anthropic's rule: roles alternate, the first message from the user.
fn assert_alternates(messages: &[Value], what: &str) {
    let roles: Vec<&str> = messages.iter().filter_map(|m| m["role"].as_str()).collect();
    assert_eq!(roles.first(), Some(&"user"), "{what}: {roles:?}");
    for pair in roles.windows(2) {
        assert_ne!(pair[0], pair[1], "{what}: {roles:?}");
    }
}

#[test]
fn auto_calls_the_summariser_and_keeps_protected_content_regression() {
    // The seed replaced the whole context by a placeholder and never called its summariser.
    // Here stubs bring the session to 0.39 of the window: a target of 0.2 needs the runs.
    let summariser = FakeSummariser::new(Mode::Good);
    let ctx = messages_ctx(agent_session(), pressure(8, 0.8, 0.0, false));
    let result = auto_to(&ctx, Some(&summariser), 0.2);
    assert_eq!(summariser.calls(), 1);
    let out = result.messages().unwrap();
    assert_eq!(out[0], agent_session()[0], "system prompt kept");
    assert_eq!(out[1], agent_session()[1], "task kept");
    assert_eq!(out.last(), agent_session().last(), "latest turn kept");
    let text = serde_json::to_string(out).unwrap();
    assert!(text.contains("[summary of earlier "), "{text}");
    assert!(result.tokens_saved > 0);
}

#[test]
fn auto_does_not_summarise_its_own_summary_regression() {
    let summariser = FakeSummariser::new(Mode::Good);
    let ctx = messages_ctx(agent_session(), pressure(8, 0.8, 0.0, false));
    let first = auto_to(&ctx, Some(&summariser), 0.2);
    let second = auto_to(&rerun_input(&ctx, &first), Some(&summariser), 0.2);
    assert_eq!(
        summariser.calls(),
        1,
        "the second run must not summarise the summary: {}",
        second.reason
    );
    assert_eq!(second.context, first.context);
}

#[test]
fn cheap_reductions_that_meet_the_target_call_no_summariser() {
    let summariser = FakeSummariser::new(Mode::Good);
    let ctx = messages_ctx(agent_session(), pressure(8, 0.8, 0.0, false));
    let result = run_tier(Tier::Auto, &ctx, Some(&summariser));
    assert_eq!(summariser.calls(), 0);
    assert!(
        result
            .reason
            .ends_with("; target 0.5 met after stubs (0.8 -> 0.4)"),
        "{}",
        result.reason
    );
    assert!(result.archive.iter().all(|e| e.kind == "tool_result"));
    assert!(projected(&ctx, &result) <= 0.5);
}

#[test]
fn forced_auto_under_the_target_makes_only_model_free_reductions() {
    for pct in [0.0, 0.3, 0.5] {
        let summariser = FakeSummariser::new(Mode::Good);
        let conversation = agent_run(12);
        let ctx = ctx_of(
            Format::Anthropic,
            render(Format::Anthropic, &conversation),
            pct,
        );
        let result = run_tier(Tier::Auto, &ctx, Some(&summariser));
        assert_eq!(summariser.calls(), 0, "{pct}");
        assert!(result.tokens_saved > 0, "{pct}: {}", result.reason);
        assert!(
            result
                .archive
                .iter()
                .all(|e| ["tool_result", "tool_input", "media", "thinking"].contains(&e.kind)),
            "{pct}: no digest either"
        );
        assert!(
            result.reason.contains(
                "at or under target 0.5 already: model-free reductions only, no summariser"
            ),
            "{}",
            result.reason
        );
    }
}

#[test]
fn the_budget_is_reached_on_agent_runs_and_chats_in_every_format() {
    for format in FORMATS {
        for (what, conversation) in [("agent run", agent_run(20)), ("chat", chat(30, None))] {
            for mode in [None, Some(Mode::Good)] {
                let fake = mode.map(FakeSummariser::new);
                let summariser = fake
                    .as_ref()
                    .map(|f| f as &dyn tiered_compaction::Summariser);
                let input = render(format, &conversation);
                let ctx = ctx_of(format, input.clone(), 0.9);
                let result = run_tier(Tier::Auto, &ctx, summariser);
                let label = format!("{what} in {format:?} with {mode:?}");
                assert!(
                    projected(&ctx, &result) <= 0.5,
                    "{label}: {}",
                    result.reason
                );
                assert!(
                    result.reason.contains("target 0.5 met after"),
                    "{label}: {}",
                    result.reason
                );
                assert!(fake.as_ref().is_none_or(|f| f.calls() <= 1), "{label}");
                assert_eq!(
                    restore(&result.context, &result.archive),
                    ContextData::Messages(input.clone()),
                    "{label}"
                );
                let output = result.messages().unwrap();
                assert!(
                    output.ends_with(&input[input.len() - 5..]),
                    "{label}: tail kept"
                );
                if format == Format::Anthropic {
                    assert_alternates(output, &label);
                }
            }
        }
    }
}

#[test]
fn a_30_exchange_chat_at_0_9_saves_with_one_summariser_call() {
    let summariser = FakeSummariser::new(Mode::Good);
    let input = render(Format::OpenAi, &chat(30, None));
    let ctx = ctx_of(Format::OpenAi, input.clone(), 0.9);
    let result = run_tier(Tier::Auto, &ctx, Some(&summariser));
    assert_eq!(summariser.calls(), 1);
    assert!(projected(&ctx, &result) <= 0.5, "{}", result.reason);
    assert!(
        result.reason.contains("piece(s) of older conversation by one summary; target 0.5 met after older conversation (0.9 -> 0."),
        "{}",
        result.reason
    );
    let request = summariser.requests.borrow()[0].clone();
    // The oldest exchanges only, never the system prompt or the task.
    assert!(request.transcript.contains("Answer 0:"));
    assert!(!request.transcript.contains("Question 0:"));
    assert!(!request.transcript.contains("Answer 29:"));
    let out = result.messages().unwrap();
    assert_eq!(out[..2], input[..2], "system prompt and task");
    let summary = out[2]["content"].as_str().unwrap();
    assert!(
        summary.starts_with("[summary of earlier conversation] covers "),
        "{summary}"
    );
    // Every directive folded in is carried verbatim.
    for item in &request.must_keep {
        assert!(summary.contains(item.as_str()), "lost {item}");
    }
}

#[test]
fn flat_text_without_tool_blocks_is_reduced() {
    let text = generate::flat_text(&chat(30, None));
    assert!(!text.contains("```"));
    for mode in [None, Some(Mode::Good)] {
        let fake = mode.map(FakeSummariser::new);
        let summariser = fake
            .as_ref()
            .map(|f| f as &dyn tiered_compaction::Summariser);
        let ctx = text_ctx(&text, pressure(9, 0.9, 0.0, false));
        let result = run_tier(Tier::Auto, &ctx, summariser);
        assert!(
            projected(&ctx, &result) <= 0.5,
            "{mode:?}: {}",
            result.reason
        );
        assert!(
            result.reason.contains("met after older conversation"),
            "{}",
            result.reason
        );
        let out = result.text().unwrap();
        let marker = match mode {
            None => "[digest of earlier conversation]",
            Some(_) => "[summary of earlier conversation] covers",
        };
        assert!(out.starts_with(marker), "{out}");
        assert!(
            out.ends_with(&text[text.len() - 2000..]),
            "the newest text stays"
        );
        assert_eq!(
            restore(&result.context, &result.archive),
            ContextData::Text(text.clone())
        );
        // Its own output at its own pressure: nothing more to do.
        let again = run_tier(
            Tier::Auto,
            &TierContext {
                pressure: pressure(9, projected(&ctx, &result), 0.0, false),
                ..rerun_input(&ctx, &result)
            },
            summariser,
        );
        assert_eq!(again.context, result.context, "{}", again.reason);
        assert!(fake.as_ref().is_none_or(|f| f.calls() == 1));
    }
}

#[test]
fn legacy_compaction_reduces_plain_text_above_the_target() {
    let text = generate::flat_text(&chat(12, None));
    let result = block_on(run_legacy_compaction(
        "s-legacy",
        &text,
        None,
        None,
        &CompactOptions::default(),
    ))
    .unwrap();
    assert_eq!(result.tier, Tier::Auto);
    assert!(
        result.after_tokens * 2 <= result.before_tokens,
        "{} -> {}: {}",
        result.before_tokens,
        result.after_tokens,
        result.reason
    );
    assert!(
        result
            .reason
            .contains("target 0.5 met after older conversation (1 -> 0."),
        "{}",
        result.reason
    );
    // Any text: hundreds of short paragraphs, or one long line with no paragraph at all.
    for text in [
        (0..300)
            .map(|i| format!("User: hi {i}\n\nAssistant: hello {i}\n\n"))
            .collect::<String>(),
        "word ".repeat(4000),
    ] {
        let result = block_on(run_legacy_compaction(
            "s-legacy",
            &text,
            None,
            None,
            &CompactOptions::default(),
        ))
        .unwrap();
        assert!(
            result.after_tokens * 2 <= result.before_tokens,
            "{}",
            result.reason
        );
        assert_eq!(
            restore(&result.context, &result.archive),
            ContextData::Text(text)
        );
    }
}

#[test]
fn a_long_directive_survives_verbatim_in_the_digest_and_in_must_keep() {
    let directive = format!(
        "{}Never rename public items!!!",
        "Keep every public signature as it is. ".repeat(26)
    );
    assert_eq!(directive.chars().count(), 1016);
    for format in FORMATS {
        let input = render(format, &chat(30, Some((3, &directive))));
        let ctx = ctx_of(format, input.clone(), 0.9);
        let digested = run_tier(Tier::Auto, &ctx, None);
        let text = texts(format, &digested);
        assert!(
            text.contains(&format!("user: {directive}")),
            "{format:?}: {}",
            digested.reason
        );
        assert!(text.contains("[digest of earlier conversation]"));

        let fake = FakeSummariser::new(Mode::Good);
        let summarised = run_tier(Tier::Auto, &ctx, Some(&fake));
        let request = fake.requests.borrow()[0].clone();
        assert!(
            request.must_keep.contains(&directive),
            "{format:?}: {:?}",
            request.must_keep
        );
        assert!(
            texts(format, &summarised).contains(&directive),
            "{format:?}"
        );
    }
}

#[test]
fn summariser_faults_still_fall_back_to_the_structural_digest() {
    for mode in [Mode::Reject, Mode::Empty, Mode::Long, Mode::NotString] {
        let fake = FakeSummariser::new(mode);
        let input = render(Format::Anthropic, &chat(30, None));
        let ctx = ctx_of(Format::Anthropic, input.clone(), 0.9);
        let result = run_tier(Tier::Auto, &ctx, Some(&fake));
        assert_eq!(fake.calls(), 1, "{mode:?}");
        assert!(result.degraded, "{mode:?}");
        assert!(result.warnings[0].ends_with("used the structural digest instead"));
        let text = texts(Format::Anthropic, &result);
        assert!(
            text.contains("[digest of earlier conversation]"),
            "{mode:?}"
        );
        assert!(!text.contains("model overloaded"));
        assert!(result.tokens_saved > 0);
        assert_alternates(result.messages().unwrap(), &format!("{mode:?}"));
        assert_eq!(
            restore(&result.context, &result.archive),
            ContextData::Messages(input)
        );
    }
}

#[test]
fn the_reason_says_where_auto_stopped_and_why() {
    // Nothing outside protected content: auto says it could not get there.
    let input = render(Format::OpenAi, &chat(2, None));
    let ctx = ctx_of(Format::OpenAi, input, 0.9);
    let result = run_tier(Tier::Auto, &ctx, None);
    assert!(
        result.reason.ends_with(
            "stopped after older conversation: nothing more can go (0.9 -> 0.9, target 0.5)"
        ),
        "{}",
        result.reason
    );
    // A target of 0.8 at 0.9: the stubs are enough.
    let ctx = ctx_of(Format::OpenAi, render(Format::OpenAi, &agent_run(12)), 0.9);
    let result = auto_to(&ctx, None, 0.8);
    assert!(
        result
            .reason
            .contains("; target 0.8 met after stubs (0.9 -> 0."),
        "{}",
        result.reason
    );
    // An agent run whose stubs are not enough goes on to its oldest runs, and no further.
    let result = auto_to(&ctx, None, 0.2);
    assert!(
        result
            .reason
            .contains("by structural digests; target 0.2 met after tool runs (0.9 -> 0."),
        "{}",
        result.reason
    );
    let user_words = read_messages(result.messages().unwrap(), Format::OpenAi)
        .unwrap()
        .messages
        .iter()
        .filter(|m| m.role == Role::User)
        .count();
    assert_eq!(user_words, 1, "the task stays");
}

#[test]
fn a_folded_summary_between_two_user_messages_leaves_a_pointer_in_anthropic() {
    // Our earlier summary stands between the task and the newest user words; the new summary
    // folds it in. Removing it would put two user messages side by side: a pointer stays.
    let call = |id: &str| serde_json::json!({"role": "assistant", "content": [{"type": "tool_use", "id": id, "name": "bash", "input": {"cmd": "make"}}]});
    let result = |id: &str| serde_json::json!({"role": "user", "content": [{"type": "tool_result", "tool_use_id": id, "content": format!("error: build {id} failed in src/{id}.rs\n{}", "ok\n".repeat(60))}]});
    let input = vec![
        serde_json::json!({"role": "user", "content": "Fix the build."}),
        serde_json::json!({"role": "assistant", "content": "[summary of earlier tool runs] covers 100 tokens\nThe build was broken."}),
        serde_json::json!({"role": "user", "content": "Go on, please."}),
        call("a"),
        result("a"),
        call("b"),
        result("b"),
        call("c"),
        result("c"),
        serde_json::json!({"role": "assistant", "content": "Done."}),
    ];
    let fake = FakeSummariser::new(Mode::Good);
    let ctx = ctx_of(Format::Anthropic, input.clone(), 0.9);
    let mut options = CompactOptions {
        summariser: Some(&fake),
        ..CompactOptions::default()
    };
    options.policy.keep_recent_steps = 1;
    let result = block_on(compact_with_tier(Tier::Auto, &ctx, &options)).unwrap();
    assert_eq!(fake.calls(), 1, "{}", result.reason);
    let output = result.messages().unwrap();
    assert_alternates(output, "folded summary");
    assert_eq!(
        output[1]["content"][0]["text"],
        "[folded into the summary below]"
    );
    assert!(texts(Format::Anthropic, &result).contains("[summary of earlier tool runs] covers "));
    assert_eq!(
        restore(&result.context, &result.archive),
        ContextData::Messages(input)
    );
}

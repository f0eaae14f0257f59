//! The user's own words through the summarising tiers (issue 29, points 1 to 4): a directive an
//! earlier summary or digest carried passes into every later one verbatim; time_based leaves
//! the library's summaries and digests whole; session_memory carries a task of any length; and
//! "verbatim" is byte for byte, leading whitespace included.

use crate::common::generate::{self, Conversation, Step, Turn};
use crate::common::*;
use serde_json::Value;
use tiered_compaction::formats::read_messages;
use tiered_compaction::transcript::Format;
use tiered_compaction::{
    CompactOptions, ContextInput, FormatChoice, Summariser, Tier, TierContext, TierResult,
    compact_with_tier,
};

const FORMATS: [Format; 3] = [Format::OpenAi, Format::Anthropic, Format::AiSdk];

/// Round `i` of a chat: the user's rule, then a long answer.
fn round(i: usize, rule: &str) -> Turn {
    Turn {
        user: rule.to_string(),
        image: None,
        binary: false,
        steps: vec![Step::Say(format!(
            "Understood, rule {i} noted. {}",
            "The parser reads the tokens one by one and keeps its state small. ".repeat(12)
        ))],
        age_tag: None,
    }
}

fn rule(i: usize) -> String {
    format!("Rule {i}: never edit file_{i}.ts.")
}

/// A chat of rounds `rounds`, each the user's rule and a long answer.
fn rules_chat(rounds: std::ops::Range<usize>) -> Conversation {
    Conversation {
        system: "You are a careful coding agent.".into(),
        turns: rounds.map(|i| round(i, &rule(i))).collect(),
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

fn ctx(format: Format, messages: Vec<Value>, pct: f64, idle: f64, complete: bool) -> TierContext {
    TierContext::new(
        "s-directives",
        pressure(9, pct, idle, complete),
        ContextInput::Messages {
            messages,
            format: FormatChoice::Fixed(format),
        },
    )
}

/// Every text of the output, JSON escapes undone.
fn texts(format: Format, result: &TierResult) -> String {
    let messages = result.messages().expect("messages in, messages out");
    read_messages(messages, format)
        .expect("output reads back")
        .messages
        .iter()
        .flat_map(|m| &m.blocks)
        .map(|b| b.text.to_string())
        .collect::<Vec<_>>()
        .join("\n")
}

/// The rules among `rules` the output no longer holds.
fn lost(format: Format, result: &TierResult, rules: impl IntoIterator<Item = usize>) -> Vec<usize> {
    let text = texts(format, result);
    rules
        .into_iter()
        .filter(|i| !text.contains(&rule(*i)))
        .collect()
}

/// The first call's output with `more` rounds appended, at the pressure it honestly stands at:
/// the window is the first call's (`before` at `pct`), the tokens are the new context's.
fn extended(
    format: Format,
    first: &TierResult,
    pct: f64,
    more: &Conversation,
) -> (Vec<Value>, f64) {
    let mut messages = first.messages().expect("messages").to_vec();
    // The appended rounds without their system prompt.
    messages.extend(render(format, more).into_iter().skip(
        usize::from(format != Format::Anthropic), // Anthropic keeps its system prompt outside
    ));
    let window = first.before_tokens as f64 / pct;
    let none = run_tier(
        Tier::None,
        &ctx(format, messages.clone(), 0.1, 0.0, false),
        None,
    );
    let honest = (none.before_tokens as f64 / window).min(1.0);
    (messages, honest)
}

fn auto(ctx: &TierContext, summariser: Option<&dyn Summariser>) -> TierResult {
    let options = CompactOptions {
        summariser,
        ..CompactOptions::default()
    };
    block_on(compact_with_tier(Tier::Auto, ctx, &options)).expect("compacts")
}

#[test]
fn a_second_summary_keeps_the_directives_the_first_one_carried() {
    for format in FORMATS {
        let fake = FakeSummariser::new(Mode::Good);
        let first = auto(
            &ctx(format, render(format, &rules_chat(0..10)), 0.9, 0.0, false),
            Some(&fake),
        );
        assert_eq!(fake.calls(), 1, "{format:?}: {}", first.reason);
        assert_eq!(
            lost(format, &first, 0..10),
            Vec::<usize>::new(),
            "{format:?}"
        );

        let (messages, honest) = extended(format, &first, 0.9, &rules_chat(10..20));
        let second = auto(&ctx(format, messages, honest, 0.0, false), Some(&fake));
        assert_eq!(fake.calls(), 2, "{format:?}: {}", second.reason);
        // Rule 0 is the task: auto keeps it whole in place, never in a summary.
        let request = fake.requests.borrow()[1].clone();
        let missing: Vec<usize> = (1..10)
            .filter(|i| !request.must_keep.contains(&rule(*i)))
            .collect();
        assert_eq!(
            missing,
            Vec::<usize>::new(),
            "{format:?}: {:?}",
            request.must_keep
        );
        assert_eq!(
            lost(format, &second, 0..20),
            Vec::<usize>::new(),
            "{format:?}"
        );

        // A third call without a summariser digests what is left, the summary's directives too.
        let (messages, honest) = extended(format, &second, honest, &rules_chat(20..30));
        let third = auto(&ctx(format, messages, honest, 0.0, false), None);
        assert_eq!(
            lost(format, &third, 0..30),
            Vec::<usize>::new(),
            "{format:?}: {}",
            third.reason
        );
    }
}

#[test]
fn a_digest_and_a_refused_summary_keep_the_directives_an_earlier_summary_carried() {
    for format in FORMATS {
        let good = FakeSummariser::new(Mode::Good);
        let first = auto(
            &ctx(format, render(format, &rules_chat(0..10)), 0.9, 0.0, false),
            Some(&good),
        );
        let (messages, honest) = extended(format, &first, 0.9, &rules_chat(10..20));
        // The summariser's answer is refused: the structural digests carry the rules.
        let long = FakeSummariser::new(Mode::Long);
        let second = auto(&ctx(format, messages, honest, 0.0, false), Some(&long));
        assert!(second.degraded, "{format:?}: {}", second.reason);
        assert_eq!(
            lost(format, &second, 0..20),
            Vec::<usize>::new(),
            "{format:?}"
        );
    }
}

#[test]
fn session_memory_keeps_the_directives_an_earlier_summary_or_digest_carried() {
    for format in FORMATS {
        for summarised in [true, false] {
            let good = FakeSummariser::new(Mode::Good);
            let summariser = summarised.then_some(&good as &dyn Summariser);
            let first = auto(
                &ctx(format, render(format, &rules_chat(0..10)), 0.9, 0.0, false),
                summariser,
            );
            assert_eq!(
                lost(format, &first, 0..10),
                Vec::<usize>::new(),
                "{format:?}"
            );
            let (messages, _) = extended(format, &first, 0.9, &rules_chat(10..12));
            let fake = FakeSummariser::new(Mode::Good);
            for with in [None, Some(&fake as &dyn Summariser)] {
                let done = run_tier(
                    Tier::SessionMemory,
                    &ctx(format, messages.clone(), 0.5, 0.0, true),
                    with,
                );
                let summary = done.summary.clone().unwrap_or_default();
                let missing: Vec<usize> =
                    (0..12).filter(|i| !summary.contains(&rule(*i))).collect();
                assert_eq!(
                    missing,
                    Vec::<usize>::new(),
                    "{format:?} first summarised {summarised}, session summariser {}: {summary}",
                    with.is_some()
                );
            }
            let request = fake.requests.borrow()[0].clone();
            let missing: Vec<usize> = (0..12)
                .filter(|i| !request.must_keep.contains(&rule(*i)))
                .collect();
            assert_eq!(
                missing,
                Vec::<usize>::new(),
                "{format:?}: {:?}",
                request.must_keep
            );
        }
    }
}

#[test]
fn time_based_leaves_an_auto_digest_and_its_directives_whole() {
    for format in FORMATS {
        for summarised in [false, true] {
            let good = FakeSummariser::new(Mode::Good);
            let summariser = summarised.then_some(&good as &dyn Summariser);
            let first = auto(
                &ctx(format, render(format, &rules_chat(0..10)), 0.9, 0.0, false),
                summariser,
            );
            let ours: Vec<Value> = first
                .messages()
                .expect("messages")
                .iter()
                .filter(|m| {
                    m.to_string().contains("[digest of earlier")
                        || m.to_string().contains("[summary of earlier")
                })
                .cloned()
                .collect();
            assert!(!ours.is_empty(), "{format:?}: {}", first.reason);
            // Seven short rounds later, idle for ten minutes.
            let short = Conversation {
                system: String::new(),
                turns: (0..7)
                    .map(|i| Turn {
                        steps: vec![Step::Say(format!("ok {i}"))],
                        ..round(100 + i, &format!("next {i}"))
                    })
                    .collect(),
                extras: false,
            };
            let (messages, _) = extended(format, &first, 0.9, &short);
            let pruned = run_tier(
                Tier::TimeBased,
                &ctx(format, messages, 0.3, 600.0, false),
                None,
            );
            let output = pruned.messages().expect("messages");
            for message in &ours {
                assert!(
                    output.contains(message),
                    "{format:?} (summarised {summarised}): our text was pruned: {}",
                    pruned.reason
                );
            }
            assert_eq!(
                lost(format, &pruned, 0..10),
                Vec::<usize>::new(),
                "{format:?}"
            );
        }
    }
}

#[test]
fn time_based_leaves_a_flat_text_digest_whole() {
    let digest = "[digest of earlier conversation]\n- the parser was rewritten\n- tests pass";
    let text = format!(
        "[age:12] very old block\n{}\n\n{digest}\n\n[age:1] fresh block\nkept content here",
        "stale content ".repeat(20)
    );
    let result = run_tier(
        Tier::TimeBased,
        &text_ctx(&text, pressure(3, 0.2, 400.0, false)),
        None,
    );
    let out = result.text().expect("text");
    assert!(out.contains(digest), "{out}");
    assert!(out.starts_with("[stale block pruned]"), "{out}");
}

/// A task longer than a directive: 2,400 characters of the user's specification.
fn long_task() -> String {
    let mut task = String::from("Build the importer exactly as specified below.\n");
    for i in 0..60 {
        task.push_str(&format!(
            "  {i:02}. Column {i} maps to field_{i}; keep it.\n"
        ));
    }
    task.truncate(task.trim_end().len());
    assert!(task.chars().count() > 2_000, "{}", task.chars().count());
    task
}

#[test]
fn session_memory_with_a_summariser_carries_a_long_task() {
    let task = long_task();
    for format in FORMATS {
        let mut chat = rules_chat(0..6);
        chat.turns[0].user = task.clone();
        let fake = FakeSummariser::new(Mode::Good);
        let result = run_tier(
            Tier::SessionMemory,
            &ctx(format, render(format, &chat), 0.5, 0.0, true),
            Some(&fake),
        );
        assert!(!result.degraded, "{format:?}: {:?}", result.warnings);
        let request = fake.requests.borrow()[0].clone();
        assert!(
            request.must_keep.contains(&task),
            "{format:?}: {:?}",
            request.must_keep
        );
        let summary = result.summary.clone().unwrap_or_default();
        assert!(summary.contains(&task), "{format:?}: {summary}");
        assert!(texts(format, &result).contains(&task), "{format:?}");
    }
}

/// A directive that is an indented snippet, after a blank line: the snippet's indentation is
/// part of it.
const SNIPPET: &str = "    fn parse(input: &str) -> Result<Ast> {\n        todo!()\n    }";

#[test]
fn directives_keep_their_leading_whitespace_byte_for_byte() {
    let words = format!("\n{SNIPPET}\n");
    for format in FORMATS {
        let mut chat = rules_chat(0..10);
        chat.turns[2].user = words.clone();
        let input = render(format, &chat);
        // The digest.
        let digested = auto(&ctx(format, input.clone(), 0.9, 0.0, false), None);
        assert!(
            texts(format, &digested).contains(&format!("\n{SNIPPET}\n")),
            "{format:?}: {}",
            texts(format, &digested)
        );
        // mustKeep and the summary.
        let fake = FakeSummariser::new(Mode::Good);
        let summarised = auto(&ctx(format, input.clone(), 0.9, 0.0, false), Some(&fake));
        let request = fake.requests.borrow()[0].clone();
        assert!(
            request.must_keep.iter().any(|item| item == SNIPPET),
            "{format:?}: {:?}",
            request.must_keep
        );
        assert!(texts(format, &summarised).contains(SNIPPET), "{format:?}");
        // The session summary, with and without a summariser.
        for with in [None, Some(&fake as &dyn Summariser)] {
            let done = run_tier(
                Tier::SessionMemory,
                &ctx(format, input.clone(), 0.5, 0.0, true),
                with,
            );
            let summary = done.summary.clone().unwrap_or_default();
            assert!(summary.contains(SNIPPET), "{format:?}: {summary}");
        }
    }
}

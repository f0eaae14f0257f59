//! The six invariants (`docs/design.md`) as properties over generated conversations, in each structured
//! format, for every tier, with and without a summariser; and the flat-text properties (never
//! grows, idempotent, nothing lost).

mod common;

use common::generate::{self, Conversation};
use common::restore::restore;
use common::*;
use proptest::prelude::*;
use serde_json::Value;
use tiered_compaction::formats::read_messages;
use tiered_compaction::transcript::pairing::{misplaced_results, paired_ids};
use tiered_compaction::transcript::{Format, Role, Transcript};
use tiered_compaction::{
    ContextData, ContextInput, FormatChoice, Summariser, Tier, TierContext, TierResult,
};

const TIERS: [Tier; 5] = [
    Tier::None,
    Tier::Micro,
    Tier::TimeBased,
    Tier::Auto,
    Tier::SessionMemory,
];

fn render(format: Format, conversation: &Conversation) -> Vec<Value> {
    match format {
        Format::OpenAi => generate::openai(conversation),
        Format::Anthropic => generate::anthropic(conversation),
        Format::AiSdk => generate::ai_sdk(conversation),
        Format::Text => unreachable!("text is checked separately"),
    }
}

fn ctx(format: Format, messages: Vec<Value>) -> TierContext {
    let mut ctx = TierContext::new(
        "s-prop",
        pressure(4, 0.8, 400.0, false),
        ContextInput::Messages {
            messages,
            format: FormatChoice::Fixed(format),
        },
    );
    // Binary images cross as host-value placeholders (generated for the AI SDK).
    ctx.host_values = Some(tiered_compaction::host_value::HostValueKey::new(
        generate::HOST_VALUE_NONCE,
    ));
    ctx
}

/// Host-value placeholders never leak into what the library writes: a string of the output or
/// the archive that mentions one is one, whole (the binding puts the host's object back), and
/// a cut never ends between CR and LF.
fn check_host_values_and_cuts(result: &TierResult) -> Result<(), TestCaseError> {
    let key = tiered_compaction::host_value::HostValueKey::new(generate::HOST_VALUE_NONCE);
    let mut stack: Vec<&Value> = Vec::new();
    if let tiered_compaction::ContextData::Messages(messages) = &result.context {
        stack.extend(messages);
    }
    stack.extend(result.archive.iter().map(|entry| &entry.content));
    while let Some(value) = stack.pop() {
        match value {
            Value::String(text) if key.mentions(text) => {
                prop_assert!(key.parse(text).is_some(), "leaked placeholder: {:?}", text);
            }
            Value::Array(items) => stack.extend(items),
            Value::Object(fields) => stack.extend(fields.values()),
            _ => {}
        }
    }
    for entry in &result.archive {
        prop_assert!(
            !key.mentions(&entry.replacement),
            "leaked: {:?}",
            entry.replacement
        );
        if let Value::String(body) = &entry.content {
            let shared = body
                .chars()
                .zip(entry.replacement.chars())
                .take_while(|(a, b)| a == b)
                .map(|(a, _)| a.len_utf8())
                .sum::<usize>();
            let split = body[..shared].ends_with('\r') && body[shared..].starts_with('\n');
            prop_assert!(!split, "a cut between CR and LF: {:?}", entry.replacement);
        }
    }
    Ok(())
}

/// Indices of user messages holding the user's own words (not only tool results).
fn user_word_indices(transcript: &Transcript) -> Vec<usize> {
    (0..transcript.messages.len())
        .filter(|i| transcript.messages[*i].has_user_words())
        .collect()
}

fn check_structured(
    format: Format,
    input: &[Value],
    tier: Tier,
    summariser: Option<&dyn Summariser>,
) -> Result<(), TestCaseError> {
    let context = ctx(format, input.to_vec());
    let result = run_tier(tier, &context, summariser);
    check_host_values_and_cuts(&result)?;
    let output = result
        .messages()
        .expect("messages in, messages out")
        .to_vec();
    let before = read_messages(input, format).expect("generated input is valid");
    // 1. Provider-valid: reads back, pairs kept or removed together, results follow calls,
    //    no empty content.
    let after = read_messages(&output, format)
        .map_err(|e| TestCaseError::fail(format!("output unreadable: {e}")))?;
    let paired_after = paired_ids(&after);
    let ids_after: Vec<&str> = after
        .messages
        .iter()
        .flat_map(|m| &m.blocks)
        .filter_map(|b| b.tool_id())
        .collect();
    for id in paired_ids(&before) {
        prop_assert!(
            !ids_after.contains(&id.as_str()) || paired_after.contains(&id),
            "{tier}: pair {id} split"
        );
    }
    prop_assert!(
        misplaced_results(&after).is_empty(),
        "{tier}: misplaced results {:?}",
        misplaced_results(&after)
    );
    for (i, message) in after.messages.iter().enumerate() {
        prop_assert!(
            message.blocks.iter().any(|b| !b.text.is_empty()),
            "{tier}: message {i} empty"
        );
    }
    // 2. Lossless: the input comes back from output + archive; untouched messages are equal.
    prop_assert_eq!(
        restore(&result.context, &result.archive),
        ContextData::Messages(input.to_vec()),
        "{} restore",
        tier
    );
    //    Messages reported as unchanged copies are equal to the input message they name.
    prop_assert_eq!(result.origins.len(), output.len());
    for (k, origin) in result.origins.iter().enumerate() {
        if let Some(i) = origin {
            prop_assert!(
                output[k] == input[*i],
                "{tier}: output {k} is not input {i}"
            );
        }
    }
    // 3. Never grows.
    prop_assert!(result.after_tokens <= result.before_tokens, "{tier}: grew");
    // 4. Protected content.
    let system: Vec<&Value> = input
        .iter()
        .filter(|m| matches!(m["role"].as_str(), Some("system" | "developer")))
        .collect();
    for message in &system {
        prop_assert!(output.contains(message), "{tier}: system prompt altered");
    }
    //    The protected tail: from the start of the third-newest step (an assistant message starts
    //    a step; all steps when there are fewer) to the end, plus the newest user words.
    let assistants: Vec<usize> = (0..before.messages.len())
        .filter(|i| before.messages[*i].role == Role::Assistant)
        .collect();
    let tail_start = match assistants.len().checked_sub(3) {
        Some(k) => assistants[k],
        None => assistants.first().copied().unwrap_or(input.len()),
    };
    let users = user_word_indices(&before);
    if tier == Tier::SessionMemory {
        // The system prompts and one user message with the session summary (or the input).
        let is_summary = |m: &Value| {
            [&m["content"], &m["content"][0]["text"]].iter().any(|c| {
                c.as_str()
                    .is_some_and(|c| c.starts_with("[session summary]"))
            })
        };
        if let Some(summary) = output.iter().find(|m| is_summary(m)) {
            prop_assert_eq!(&summary["role"], "user");
            prop_assert_eq!(
                output.len(),
                system.len() + 1,
                "{} keeps the system prompts and the summary",
                tier
            );
        }
    } else {
        prop_assert!(
            output.ends_with(&input[tail_start..]),
            "{tier}: protected tail altered"
        );
    }
    let task_kept = tier != Tier::SessionMemory;
    if let (Some(first), Some(last), true) = (users.first(), users.last(), task_kept) {
        prop_assert!(output.contains(&input[*first]), "{tier}: task altered");
        prop_assert!(
            output.contains(&input[*last]),
            "{tier}: newest user words altered"
        );
        if matches!(tier, Tier::Micro | Tier::TimeBased) {
            for i in &users {
                prop_assert!(output.contains(&input[*i]), "{tier}: user words altered");
            }
        }
    }
    // 5. Idempotent.
    let again = run_tier(tier, &common::rerun_input(&context, &result), summariser);
    prop_assert_eq!(&again.context, &result.context, "{} not idempotent", tier);
    // 6. Deterministic.
    let twice = run_tier(tier, &context, summariser);
    prop_assert_eq!(&twice.context, &result.context);
    prop_assert_eq!(&twice.correlation_id, &result.correlation_id);
    Ok(())
}

fn check_all_tiers(format: Format, conversation: &Conversation) -> Result<(), TestCaseError> {
    let input = render(format, conversation);
    for tier in TIERS {
        check_structured(format, &input, tier, None)?;
        let good = FakeSummariser::new(Mode::Good);
        check_structured(format, &input, tier, Some(&good))?;
        let failing = FakeSummariser::new(Mode::Long);
        check_structured(format, &input, tier, Some(&failing))?;
    }
    Ok(())
}

proptest! {
    // 48 cases per format keep `cargo test` quick; PROPTEST_CASES=N runs more.
    #![proptest_config(ProptestConfig {
        cases: std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(48),
        ..ProptestConfig::default()
    })]

    #[test]
    fn openai_invariants(conversation in generate::conversation()) {
        check_all_tiers(Format::OpenAi, &conversation)?;
    }

    #[test]
    fn anthropic_invariants(conversation in generate::conversation()) {
        check_all_tiers(Format::Anthropic, &conversation)?;
    }

    #[test]
    fn ai_sdk_invariants(conversation in generate::conversation()) {
        check_all_tiers(Format::AiSdk, &conversation)?;
    }

    #[test]
    fn flat_text_never_grows_is_idempotent_and_loses_nothing(conversation in generate::conversation()) {
        let text = generate::flat_text(&conversation);
        for tier in TIERS {
            for mode in [None, Some(Mode::Good), Some(Mode::Reject)] {
                let fake = mode.map(FakeSummariser::new);
                let summariser = fake.as_ref().map(|f| f as &dyn Summariser);
                let context = text_ctx(&text, pressure(4, 0.8, 400.0, false));
                let result: TierResult = run_tier(tier, &context, summariser);
                prop_assert!(result.after_tokens <= result.before_tokens);
                prop_assert_eq!(restore(&result.context, &result.archive), ContextData::Text(text.clone()), "{} restore", tier);
                let again = run_tier(tier, &common::rerun_input(&context, &result), summariser);
                prop_assert_eq!(&again.context, &result.context, "{} not idempotent", tier);
            }
        }
    }
}

//! The six invariants (`docs/design.md`) as properties over generated conversations, in each structured
//! format (OpenAI, Anthropic, AI SDK, the Responses API, Gemini), for every tier, with and without
//! a summariser; the same conversations broken (orphan results, calls left unanswered, reused and
//! duplicate ids, runs of one Anthropic or Gemini role), which every tier repairs first; and the
//! flat-text properties (never grows, idempotent, nothing lost).

mod common;

use common::generate::{self, Break, Conversation};
use common::provider::{self, contains, named_messages};
use common::restore::restore;
use common::*;
use proptest::prelude::*;
use serde_json::Value;
use tiered_compaction::formats::read_messages;
use tiered_compaction::summary::directives;
use tiered_compaction::transcript::pairing::{misplaced_results, paired_ids};
use tiered_compaction::transcript::{BlockKind, Format, Role, Transcript};
use tiered_compaction::{
    ContextData, ContextInput, FormatChoice, Summariser, Tier, TierContext, TierResult,
};

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
    ctx.host_values = Some(tiered_compaction::api::host_value::HostValueKey::new(
        generate::HOST_VALUE_NONCE,
    ));
    ctx
}

/// Host-value placeholders never leak into what the library writes: a string of the output or
/// the archive that mentions one is one, whole (the binding puts the host's object back), and
/// a cut never ends between CR and LF.
fn check_host_values_and_cuts(result: &TierResult) -> Result<(), TestCaseError> {
    let key = tiered_compaction::api::host_value::HostValueKey::new(generate::HOST_VALUE_NONCE);
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

/// The user's words of `message`: its content but the tool results (which an Anthropic user
/// message carries beside them, and which a tier may stub).
fn words(message: &Value) -> Vec<&Value> {
    if let Value::Array(parts) = &message["parts"] {
        return parts
            .iter()
            .filter(|part| part.get("functionResponse").is_none())
            .collect();
    }
    match &message["content"] {
        Value::Array(parts) => parts
            .iter()
            .filter(|part| !matches!(part["type"].as_str(), Some("tool_result" | "tool-result")))
            .collect(),
        content => vec![content],
    }
}

/// Whether some message of `output` has `message`'s role and its words, unchanged.
fn keeps_words(output: &[Value], message: &Value) -> bool {
    output
        .iter()
        .any(|m| m["role"] == message["role"] && words(m) == words(message))
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
    prop_assert_eq!(
        provider::problems(format, input),
        vec![],
        "generated input is valid"
    );
    //    Valid input is not repaired.
    prop_assert!(
        result.archive.iter().all(|entry| entry.kind != "repair")
            && result.warnings.iter().all(|w| !w.starts_with("repair: ")),
        "{tier}: valid input repaired: {:?}",
        result.warnings
    );
    prop_assert_eq!(
        provider::problems(format, &output),
        vec![],
        "{} output valid",
        tier
    );
    prop_assert_eq!(
        provider::reasoning_problems(input, &output),
        vec![],
        "{} reasoning items kept with what follows them",
        tier
    );
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
    //    a step, but for an output item right after another: one model call of the Responses
    //    API; all steps when there are fewer) to the end, plus the newest user words.
    let assistants: Vec<usize> = (0..before.messages.len())
        .filter(|i| {
            let message = &before.messages[*i];
            let continues = message.output_item
                && *i > 0
                && before.messages[*i - 1].role == Role::Assistant
                && before.messages[*i - 1].output_item;
            message.role == Role::Assistant && !continues
        })
        .collect();
    let tail_start = match assistants.len().checked_sub(3) {
        Some(k) => assistants[k],
        None => assistants.first().copied().unwrap_or(input.len()),
    };
    let users = user_word_indices(&before);
    if tier == Tier::SessionMemory {
        // The system prompts and one user message with the session summary (or the input).
        let is_summary = |m: &Value| {
            [
                &m["content"],
                &m["content"][0]["text"],
                &m["parts"][0]["text"],
            ]
            .iter()
            .any(|c| {
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
            keeps_words(&output, &input[*last]),
            "{tier}: newest user words altered"
        );
        if matches!(tier, Tier::Micro | Tier::TimeBased) {
            for i in &users {
                prop_assert!(
                    keeps_words(&output, &input[*i]),
                    "{tier}: user words altered"
                );
            }
        }
    }
    // 5. Idempotent.
    check_idempotent(tier, &context, &result, summariser)?;
    // 6. Deterministic.
    let twice = run_tier(tier, &context, summariser);
    prop_assert_eq!(&twice.context, &result.context);
    prop_assert_eq!(&twice.correlation_id, &result.correlation_id);
    Ok(())
}

/// Invariant 5: the same tier on its own output changes nothing. auto works to a budget of the
/// window by the pressure's own measure, so its output is at `contextPctUsed × after / before`,
/// what the host then reports: at that pressure, an output that met the target gets only the
/// model-free reductions (no summariser call, no summary of a summary) and is then a fixed point;
/// one that could not reach it because nothing more could go is left as it is. At the old
/// pressure auto may take more, but never grows the context nor loses anything.
fn check_idempotent(
    tier: Tier,
    context: &TierContext,
    result: &TierResult,
    summariser: Option<&dyn Summariser>,
) -> Result<(), TestCaseError> {
    let rerun = common::rerun_input(context, result);
    if tier != Tier::Auto {
        let again = run_tier(tier, &rerun, summariser);
        prop_assert_eq!(&again.context, &result.context, "{} not idempotent", tier);
        return Ok(());
    }
    let pct = context.pressure.context_pct_used * result.after_tokens as f64
        / result.before_tokens.max(1) as f64;
    let at_its_pressure = TierContext {
        pressure: pressure(4, pct, 400.0, false),
        ..rerun.clone()
    };
    let counting = Counting::new(summariser);
    let again = run_tier(tier, &at_its_pressure, counting.get());
    if pct <= 0.5 {
        prop_assert_eq!(counting.calls(), 0, "a summariser call under the target");
        prop_assert!(
            again
                .archive
                .iter()
                .all(|e| ["tool_result", "tool_input", "media", "thinking"].contains(&e.kind)),
            "more than model-free reductions under the target: {}",
            again.reason
        );
        let fixed = run_tier(
            tier,
            &common::rerun_input(&at_its_pressure, &again),
            summariser,
        );
        prop_assert_eq!(
            &fixed.context,
            &again.context,
            "auto: no fixed point under the target"
        );
    } else if !result.reason.contains("it saved less than estimated") {
        // Short of the target because nothing more could go, or the loop guard held a summary
        // back: the same again. (A summary longer than estimated leaves more to do.)
        prop_assert_eq!(
            &again.context,
            &result.context,
            "auto not idempotent at its output's pressure: {} (first: {})",
            again.reason,
            result.reason
        );
    }
    let more = run_tier(tier, &rerun, summariser);
    prop_assert!(
        more.after_tokens <= more.before_tokens,
        "auto grew on a rerun"
    );
    prop_assert_eq!(
        restore(&more.context, &more.archive),
        result.context.clone(),
        "auto rerun restore"
    );
    Ok(())
}

/// Invariant 1 on broken input: every tier's output is provider-valid; everything the input
/// breaks the rules with is in a "repair" archive entry and named in a warning; restore gives
/// the input back; the output needs no repair again; the same call gives the same output.
fn check_broken(
    format: Format,
    input: &[Value],
    tier: Tier,
    summariser: Option<&dyn Summariser>,
) -> Result<(), TestCaseError> {
    let found = provider::problems(format, input);
    let context = ctx(format, input.to_vec());
    let result = run_tier(tier, &context, summariser);
    let output = result.messages().expect("messages in, messages out");
    prop_assert_eq!(
        provider::problems(format, output),
        vec![],
        "{} output valid",
        tier
    );
    prop_assert_eq!(
        provider::reasoning_problems(input, output),
        vec![],
        "{} reasoning items kept with what follows them",
        tier
    );
    let repairs: Vec<&Value> = result
        .archive
        .iter()
        .filter(|entry| entry.kind == "repair")
        .map(|entry| &entry.content)
        .collect();
    let warnings: Vec<&String> = result
        .warnings
        .iter()
        .filter(|w| w.starts_with("repair: "))
        .collect();
    prop_assert_eq!(
        repairs.is_empty(),
        found.is_empty(),
        "{} repairs iff broken",
        tier
    );
    for problem in &found {
        // A role run is repaired by a merge, or by the removal of its neighbour.
        let order = problem.id.is_none();
        let at = problem.message;
        let neighbours = if order {
            at.saturating_sub(1)..at + 1
        } else {
            at..at + 1
        };
        let archived = repairs.iter().any(|content| {
            neighbours
                .clone()
                .any(|i| contains(content, if order { &input[i] } else { &problem.value }))
        });
        prop_assert!(archived, "{tier}: {problem:?} not in a repair entry");
        let named = warnings.iter().any(|w| {
            named_messages(w).iter().any(|i| neighbours.contains(i))
                && problem
                    .id
                    .as_ref()
                    .is_none_or(|id| w.contains(&format!("(id {id:?})")))
        });
        prop_assert!(named, "{tier}: {problem:?} not named in {warnings:?}");
    }
    prop_assert_eq!(
        restore(&result.context, &result.archive),
        ContextData::Messages(input.to_vec()),
        "{} restore",
        tier
    );
    prop_assert!(result.after_tokens <= result.before_tokens, "{tier}: grew");
    let again = run_tier(tier, &common::rerun_input(&context, &result), summariser);
    prop_assert!(
        again.archive.iter().all(|entry| entry.kind != "repair"),
        "{tier}: its own output repaired again"
    );
    check_idempotent(tier, &context, &result, summariser)?;
    let twice = run_tier(tier, &context, summariser);
    prop_assert_eq!(&twice.context, &result.context);
    prop_assert_eq!(&twice.warnings, &result.warnings);
    Ok(())
}

fn check_broken_tiers(
    format: Format,
    conversation: &Conversation,
    breaks: &[Break],
    split_roles: bool,
) -> Result<(), TestCaseError> {
    let rendered = match format {
        Format::Anthropic if split_roles => generate::anthropic_steps(conversation),
        Format::Gemini if split_roles => generate::gemini_steps(conversation),
        _ => generate::render(format, conversation),
    };
    let name = tiered_compaction::formats::registry::name(format);
    let input = generate::broken(name, rendered, breaks);
    for tier in Tier::ALL {
        check_broken(format, &input, tier, None)?;
        let good = FakeSummariser::new(Mode::Good);
        check_broken(format, &input, tier, Some(&good))?;
    }
    Ok(())
}

fn check_all_tiers(format: Format, conversation: &Conversation) -> Result<(), TestCaseError> {
    let input = generate::render(format, conversation);
    for tier in Tier::ALL {
        check_structured(format, &input, tier, None)?;
        let good = FakeSummariser::new(Mode::Good);
        check_structured(format, &input, tier, Some(&good))?;
        let failing = FakeSummariser::new(Mode::Long);
        check_structured(format, &input, tier, Some(&failing))?;
    }
    Ok(())
}

/// Every text of `output` (JSON escapes undone), and the input's user words it no longer holds
/// as a message: a directive must be found whole in the text (a summary or a digest).
fn lost_directives(format: Format, input: &[Value], output: &[Value]) -> Vec<String> {
    let after = read_messages(output, format).expect("reads");
    let text: String = after
        .messages
        .iter()
        .flat_map(|m| &m.blocks)
        .map(|b| b.text.to_string())
        .collect::<Vec<_>>()
        .join("\n");
    let before = read_messages(input, format).expect("reads");
    let mut lost = Vec::new();
    for (i, message) in before.messages.iter().enumerate() {
        if !message.has_user_words() || output.contains(&input[i]) {
            continue;
        }
        for block in message.blocks.iter().filter(|b| b.kind == BlockKind::Text) {
            // Byte for byte: the first line's indentation is part of the directive.
            let words = directives::words(&block.text);
            if directives::is_directive(words) && !text.contains(words) {
                lost.push(words.to_string());
            }
        }
    }
    lost
}

/// auto works to its budget: at 0.9 it either meets the target of 0.5 (and the projection
/// agrees) or says where it stopped and why; `reachable` inputs always meet it. Directives
/// survive in full; Anthropic roles keep alternating.
fn check_budget(format: Format, input: &[Value], reachable: bool) -> Result<(), TestCaseError> {
    for mode in [None, Some(Mode::Good), Some(Mode::Long)] {
        let fake = mode.map(FakeSummariser::new);
        let summariser = fake.as_ref().map(|f| f as &dyn Summariser);
        let context = TierContext {
            pressure: pressure(4, 0.9, 0.0, false),
            ..ctx(format, input.to_vec())
        };
        let result = run_tier(Tier::Auto, &context, summariser);
        let projected = 0.9 * result.after_tokens as f64 / result.before_tokens.max(1) as f64;
        if result.reason.contains("target 0.5 met after") {
            prop_assert!(projected <= 0.5, "{}", result.reason);
        } else {
            prop_assert!(
                result.reason.contains("; stopped after "),
                "{}",
                result.reason
            );
        }
        prop_assert!(
            !reachable || projected <= 0.5,
            "{mode:?}: {}",
            result.reason
        );
        prop_assert!(fake.as_ref().is_none_or(|f| f.calls() <= 1));
        let output = result.messages().expect("messages");
        let lost = lost_directives(format, input, output);
        prop_assert!(lost.is_empty(), "{mode:?} lost directives {lost:?}");
        if format == Format::Anthropic && alternates(input) {
            prop_assert!(alternates(output), "{mode:?}: roles no longer alternate");
        }
    }
    Ok(())
}

/// Anthropic's rule: roles alternate, the first message from the user.
fn alternates(messages: &[Value]) -> bool {
    let roles: Vec<&Value> = messages.iter().map(|m| &m["role"]).collect();
    roles.first().is_none_or(|role| *role == "user") && roles.windows(2).all(|w| w[0] != w[1])
}

proptest! {
    // 48 cases keep `cargo test` quick; PROPTEST_CASES=N runs more.
    #![proptest_config(common::cases::config(48))]

    #[test]
    fn chats_and_agent_runs_keep_the_invariants_and_reach_the_budget(
        conversation in prop_oneof![generate::chat(), generate::agent_run()]
    ) {
        let reachable = conversation.turns.len() == 1;
        for format in [Format::OpenAi, Format::Anthropic, Format::AiSdk] {
            check_all_tiers(format, &conversation)?;
            check_budget(format, &generate::render(format, &conversation), reachable)?;
        }
    }

    #[test]
    fn flat_text_without_tool_blocks_is_reduced_to_the_budget(conversation in generate::chat()) {
        let text = generate::flat_text(&conversation);
        for mode in [None, Some(Mode::Good), Some(Mode::Reject)] {
            let fake = mode.map(FakeSummariser::new);
            let summariser = fake.as_ref().map(|f| f as &dyn Summariser);
            let context = text_ctx(&text, pressure(4, 0.9, 0.0, false));
            let result = run_tier(Tier::Auto, &context, summariser);
            let projected = 0.9 * result.after_tokens as f64 / result.before_tokens.max(1) as f64;
            if result.reason.contains("met after") {
                prop_assert!(projected <= 0.5, "{}", result.reason);
            } else {
                prop_assert!(result.reason.contains("; stopped after "), "{}", result.reason);
            }
            // Sections of any size go whole: a text that is not all one short paragraph is
            // reduced.
            if text.chars().count() > 4 * 2_000 {
                prop_assert!(result.tokens_saved > 0, "{mode:?}: {}", result.reason);
            }
            prop_assert_eq!(restore(&result.context, &result.archive), ContextData::Text(text.clone()));
            check_idempotent(Tier::Auto, &TierContext { pressure: pressure(4, 0.9, 0.0, false), ..context.clone() }, &result, summariser)?;
        }
    }

    #[test]
    fn flat_text_never_grows_is_idempotent_and_loses_nothing(conversation in generate::conversation()) {
        let text = generate::flat_text(&conversation);
        for tier in Tier::ALL {
            for mode in [None, Some(Mode::Good), Some(Mode::Reject)] {
                let fake = mode.map(FakeSummariser::new);
                let summariser = fake.as_ref().map(|f| f as &dyn Summariser);
                let context = text_ctx(&text, pressure(4, 0.8, 400.0, false));
                let result: TierResult = run_tier(tier, &context, summariser);
                prop_assert!(result.after_tokens <= result.before_tokens);
                prop_assert_eq!(restore(&result.context, &result.archive), ContextData::Text(text.clone()), "{} restore", tier);
                check_idempotent(tier, &context, &result, summariser)?;
            }
        }
    }
}

proptest! {
    // 48 cases per format, as when each format had its own copy of these properties.
    #![proptest_config(common::cases::per_format(48))]

    #[test]
    fn every_format_keeps_the_invariants(
        conversation in generate::conversation(),
        format in common::cases::format(),
    ) {
        check_all_tiers(format, &conversation)?;
    }

    #[test]
    fn broken_input_is_repaired_in_every_format(
        conversation in generate::conversation(),
        breaks in generate::breaks(),
        split_roles in any::<bool>(),
        format in common::cases::format(),
    ) {
        // Roles split into runs of one side only where they must alternate.
        let split_roles = split_roles && matches!(format, Format::Anthropic | Format::Gemini);
        check_broken_tiers(format, &conversation, &breaks, split_roles)?;
    }
}

//! The invariants of `docs/design.md`, checked on one run of one tier (the same checks as
//! `tests/invariants.rs`, written for inputs that need not be clean: a property the input already
//! breaks — a tool result without its call, an empty message — only has to not get worse).
//! Each check panics with the tier, the format and what broke.

use crate::common::{block_on, checked};
use crate::common::restore::restore;
use serde_json::Value;
use tiered_compaction::formats::read_messages;
use tiered_compaction::transcript::pairing::{misplaced_results, paired_ids};
use tiered_compaction::transcript::{BlockKind, Format, Role, Transcript};
use tiered_compaction::{
    BudgetPressure, CompactOptions, CompactionError, ContextData, ContextInput, FormatChoice,
    Summariser, Tier, TierContext, TierResult, compact_request_body, compact_with_tier,
};

/// Every tier, cheapest first.
pub const TIERS: [Tier; 5] = [
    Tier::None,
    Tier::Micro,
    Tier::TimeBased,
    Tier::Auto,
    Tier::SessionMemory,
];

/// The pressure the structured and text checks run under (tiers are forced; the pressure only
/// feeds correlation ids and the summary request).
pub fn pressure() -> BudgetPressure {
    BudgetPressure::new(4.0, 0.8, 400.0, false).expect("valid pressure")
}

/// Where a result leaves the pressure: auto works to a budget by the pressure's own measure, so
/// its output stands at `contextPctUsed × after / before` (what the host then reports); other
/// tiers' rerun is at the same pressure.
fn settled(pressure: BudgetPressure, tier: Tier, result: &TierResult) -> BudgetPressure {
    if tier != Tier::Auto {
        return pressure;
    }
    let pct = pressure.context_pct_used * result.after_tokens as f64
        / result.before_tokens.max(1) as f64;
    BudgetPressure {
        context_pct_used: pct.clamp(0.0, 1.0),
        ..pressure
    }
}

/// Runs `tier` on `ctx`. Panics when the engine fell back to the input because the tier's result
/// broke a rule (the input is repaired first, so that is the tier's defect, which the checks of
/// the output alone would not see: the fallback's output keeps every rule).
pub fn run(
    tier: Tier,
    ctx: &TierContext,
    summariser: Option<&dyn Summariser>,
) -> Result<TierResult, CompactionError> {
    let options = CompactOptions {
        summariser,
        ..CompactOptions::default()
    };
    block_on(compact_with_tier(tier, ctx, &options)).map(checked)
}

fn messages_ctx(messages: Vec<Value>, format: FormatChoice) -> TierContext {
    let mut ctx = TierContext::new(
        "s-fuzz",
        pressure(),
        ContextInput::Messages { messages, format },
    );
    // Generated AI SDK images may be binary data the host keeps (host-value placeholders).
    ctx.host_values = Some(tiered_compaction::api::host_value::HostValueKey::new(
        crate::common::generate::HOST_VALUE_NONCE,
    ));
    ctx
}

/// The format a result says it is in.
pub fn format_of(result: &TierResult) -> Format {
    match FormatChoice::parse(result.format) {
        Ok(FormatChoice::Fixed(format)) => format,
        other => panic!(
            "result format {:?} is not a format: {other:?}",
            result.format
        ),
    }
}

/// Checks `tier` on structured `input` read as `choice`. An input the library refuses is fine
/// (it must refuse, not panic); an accepted one must give an output that keeps every invariant.
pub fn structured(
    input: &[Value],
    choice: FormatChoice,
    tier: Tier,
    summariser: Option<&dyn Summariser>,
) {
    let ctx = messages_ctx(input.to_vec(), choice);
    let Ok(result) = run(tier, &ctx, summariser) else {
        return;
    };
    let format = format_of(&result);
    let output = match &result.context {
        ContextData::Messages(messages) => messages.clone(),
        ContextData::Text(_) => panic!("{tier}: messages in, text out"),
    };
    read_messages(input, format)
        .unwrap_or_else(|e| panic!("{tier}: input accepted as {format:?} but unreadable: {e}"));
    // Broken input is repaired before any tier runs (removals and merges into the archive, kind
    // "repair"): what the tier must keep is measured against the repaired input, which is what
    // tier `none` gives.
    let repaired = result.archive.iter().any(|entry| entry.kind == "repair");
    let base: Vec<Value> = if repaired {
        let none = run(
            Tier::None,
            &messages_ctx(input.to_vec(), FormatChoice::Fixed(format)),
            None,
        )
        .unwrap_or_else(|e| panic!("{tier} {format:?}: repaired input refused by none: {e}"));
        none.messages().expect("messages in, messages out").to_vec()
    } else {
        input.to_vec()
    };
    let before = read_messages(&base, format)
        .unwrap_or_else(|e| panic!("{tier} {format:?}: repaired input unreadable: {e}"));
    // 1. Provider-valid: the output reads back in its format; pairs are kept or removed
    //    together; no result is newly separated from its call; no new empty message.
    let after = read_messages(&output, format)
        .unwrap_or_else(|e| panic!("{tier} {format:?}: output unreadable: {e}"));
    check_pairs(tier, &before, &after);
    // The Responses API's reasoning items: unaltered, before what followed them.
    if format == Format::Responses {
        let broken = crate::common::provider::reasoning_problems(&base, &output);
        assert!(broken.is_empty(), "{tier} {format:?}: {broken:?}");
    }
    for (index, message) in after.messages.iter().enumerate() {
        if message.blocks.iter().all(|b| b.text.is_empty()) {
            assert!(
                output.get(index).is_some_and(|m| input.contains(m)),
                "{tier} {format:?}: message {index} left empty"
            );
        }
    }
    // 2. Lossless: the input comes back from output + archive; a host value's placeholder is
    //    never cut or quoted into what the library writes (the binding puts the host's object
    //    back only for a whole one).
    let key =
        tiered_compaction::api::host_value::HostValueKey::new(crate::common::generate::HOST_VALUE_NONCE);
    // (Unless the input's own text already holds the marker: the binding's nonce is random per
    // call, fuzzed text may hold this fixed one.)
    let quoted = input
        .iter()
        .any(|message| key.mentions(&message.to_string()));
    let mut written: Vec<&Value> = if quoted {
        Vec::new()
    } else {
        output.iter().collect()
    };
    if !quoted {
        written.extend(result.archive.iter().map(|entry| &entry.content));
    }
    while let Some(value) = written.pop() {
        match value {
            Value::String(text) => assert!(
                !key.mentions(text) || key.parse(text).is_some(),
                "{tier} {format:?}: a host value's placeholder leaked: {text:?}"
            ),
            Value::Array(items) => written.extend(items),
            Value::Object(fields) => written.extend(fields.values()),
            _ => {}
        }
    }
    for entry in result.archive.iter().filter(|_| !quoted) {
        assert!(
            !key.mentions(&entry.replacement),
            "{tier} {format:?}: a host value's placeholder leaked: {:?}",
            entry.replacement
        );
    }
    assert!(
        restore(&result.context, &result.archive) == ContextData::Messages(input.to_vec()),
        "{tier} {format:?}: input not recoverable from output + archive"
    );
    // 3. Never grows.
    assert!(
        result.after_tokens <= result.before_tokens,
        "{tier} {format:?}: grew {} -> {}",
        result.before_tokens,
        result.after_tokens
    );
    // 4. Protected content (of the repaired input).
    check_protected(tier, format, &base, &output, &before);
    // 5. Idempotent, reading the output in the format it came out in.
    // (auto: at the pressure its output stands at, one more pass of model-free reductions at
    // most, then a fixed point; `tests/invariants.rs` says why.)
    let rerun = |messages: Vec<Value>, pressure: BudgetPressure| {
        let mut ctx = messages_ctx(messages, FormatChoice::Fixed(format));
        ctx.pressure = pressure;
        run(tier, &ctx, summariser)
            .unwrap_or_else(|e| panic!("{tier} {format:?}: output refused on a second run: {e}"))
    };
    let at = settled(pressure(), tier, &result);
    let again = rerun(output.clone(), at);
    let fixed = if tier == Tier::Auto {
        let Some(again_output) = again.messages() else {
            panic!("{tier} {format:?}: messages in, text out");
        };
        rerun(again_output.to_vec(), settled(at, tier, &again))
    } else {
        again.clone()
    };
    assert!(
        fixed.context == again.context && (tier == Tier::Auto || again.context == result.context),
        "{tier} {format:?}: not idempotent"
    );
    // 6. Deterministic.
    let twice = run(tier, &ctx, summariser).expect("accepted once, accepted twice");
    assert!(
        twice.context == result.context && twice.correlation_id == result.correlation_id,
        "{tier} {format:?}: not deterministic"
    );
}

fn check_pairs(tier: Tier, before: &Transcript, after: &Transcript) {
    let paired_after = paired_ids(after);
    let ids_after: Vec<&str> = after
        .messages
        .iter()
        .flat_map(|m| &m.blocks)
        .filter_map(|b| b.tool_id())
        .collect();
    for id in paired_ids(before) {
        assert!(
            !ids_after.contains(&id.as_str()) || paired_after.contains(&id),
            "{tier}: pair {id:?} split"
        );
    }
    let misplaced_before = misplaced_results(before);
    for id in misplaced_results(after) {
        assert!(
            misplaced_before.contains(&id),
            "{tier}: result {id:?} separated from its call"
        );
    }
}

fn check_protected(
    tier: Tier,
    format: Format,
    input: &[Value],
    output: &[Value],
    before: &Transcript,
) {
    for message in input
        .iter()
        .filter(|m| matches!(m["role"].as_str(), Some("system" | "developer")))
    {
        assert!(
            output.contains(message),
            "{tier} {format:?}: system prompt altered"
        );
    }
    if before.messages.len() != input.len() {
        return; // transcript indices are not input indices
    }
    let users: Vec<usize> = (0..before.messages.len())
        .filter(|i| before.messages[*i].has_user_words())
        .collect();
    // The protected tail: from the third-newest assistant message (each starts a step but an
    // output item right after another, one model call of the Responses API; all steps when there
    // are fewer) to the end.
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
    let tail = match assistants.len().checked_sub(3) {
        Some(k) => assistants[k],
        None => assistants.first().copied().unwrap_or(input.len()),
    };
    // session_memory folds the whole conversation into one user message after the system
    // prompts (checked above): there is no tail or task left to keep.
    if tier == Tier::SessionMemory {
        return;
    }
    assert!(
        output.ends_with(&input[tail..]),
        "{tier} {format:?}: protected tail altered"
    );
    let (Some(first), Some(_)) = (users.first(), users.last()) else {
        return;
    };
    // micro and time_based edit blocks in place (the message count stays): a tool result that
    // shares a user message with the user's words may be stubbed, the words may not (protected
    // content "every piece of text the user wrote"; see RELIABILITY.md, finding 2).
    let after = matches!(tier, Tier::Micro | Tier::TimeBased)
        .then(|| read_messages(output, format).ok())
        .flatten()
        .filter(|after| after.messages.len() == before.messages.len());
    let kept = |index: usize| match &after {
        Some(after) => words(before, index) == words(after, index),
        None => output.contains(&input[index]),
    };
    // auto may move messages (a digest replaces a range), and stubs tool results outside the tail
    // as micro does, also those sharing the task's message (Anthropic): the task's own words must
    // still be in some message, unchanged.
    let task_words_kept = || {
        read_messages(output, format).is_ok_and(|after| {
            (0..after.messages.len()).any(|at| words(&after, at) == words(before, *first))
        })
    };
    assert!(
        kept(*first) || (tier == Tier::Auto && task_words_kept()),
        "{tier} {format:?}: task altered"
    );
    if matches!(tier, Tier::Micro | Tier::TimeBased) {
        for index in &users {
            assert!(
                kept(*index),
                "{tier} {format:?}: user words of message {index} altered"
            );
        }
    }
}

/// The user's own words in message `index`: its blocks other than tool results and their parts.
fn words<'t, 'a>(
    transcript: &'t Transcript<'a>,
    index: usize,
) -> Vec<(&'t BlockKind<'a>, &'t str)> {
    transcript.messages[index]
        .blocks
        .iter()
        .filter(|b| !matches!(b.kind, BlockKind::ToolResult { .. }) && !b.is_nested())
        .map(|b| (&b.kind, &*b.text))
        .collect()
}

/// Checks `tier` on flat `text`: never grows, nothing lost, idempotent, deterministic.
pub fn text(text: &str, tier: Tier, summariser: Option<&dyn Summariser>) {
    let ctx = TierContext::new("s-fuzz", pressure(), ContextInput::Text(text.to_string()));
    let result =
        run(tier, &ctx, summariser).unwrap_or_else(|e| panic!("{tier}: text refused: {e}"));
    let Some(output) = result.text() else {
        panic!("{tier}: text in, messages out");
    };
    assert!(
        result.after_tokens <= result.before_tokens,
        "{tier} text: grew {} -> {}",
        result.before_tokens,
        result.after_tokens
    );
    assert!(
        restore(&result.context, &result.archive) == ContextData::Text(text.to_string()),
        "{tier} text: input not recoverable from output + archive"
    );
    let rerun = |text: &str, pressure: BudgetPressure| {
        let ctx = TierContext::new("s-fuzz", pressure, ContextInput::Text(text.to_string()));
        run(tier, &ctx, summariser)
            .unwrap_or_else(|e| panic!("{tier} text: output refused on a second run: {e}"))
    };
    let at = settled(pressure(), tier, &result);
    let again = rerun(output, at);
    let fixed = match (tier, again.text()) {
        (Tier::Auto, Some(again_text)) => rerun(again_text, settled(at, tier, &again)),
        _ => again.clone(),
    };
    assert!(
        fixed.context == again.context && (tier == Tier::Auto || again.context == result.context),
        "{tier} text: not idempotent"
    );
    let twice = run(tier, &ctx, summariser).expect("accepted once, accepted twice");
    assert!(
        twice.context == result.context && twice.correlation_id == result.correlation_id,
        "{tier} text: not deterministic"
    );
}

/// Checks the request-body path on `body` under `pressure`: a refused body is fine; an accepted
/// one comes out as JSON with the same fields outside `messages` (byte for byte when nothing
/// changed), messages recoverable from output + archive, never grown, and stable on a rerun.
pub fn body(body: &str, pressure: BudgetPressure) {
    let options = CompactOptions::default();
    let Ok((out, result)) = block_on(compact_request_body(
        body, "s-fuzz", pressure, None, &options,
    )) else {
        return;
    };
    let result = checked(result);
    let tier = result.tier;
    // An accepted body serde_json cannot hold as a value (a number beyond f64 outside the list,
    // which the body path passes through as its bytes): the output keeps those bytes, so it
    // cannot be held either, and there is nothing to compare as values.
    if serde_json::from_str::<Value>(body).is_err() {
        assert!(
            serde_json::from_str::<Value>(&out).is_err(),
            "{tier}: a body serde_json cannot hold came out as one it can"
        );
        return;
    }
    let parse = |text: &str| -> serde_json::Map<String, Value> {
        match serde_json::from_str(text) {
            Ok(Value::Object(map)) => map,
            other => panic!("{tier}: body not a JSON object: {other:?}"),
        }
    };
    let mut input = parse(body);
    let mut output = parse(&out);
    let key = tiered_compaction::formats::registry::list_key(format_of(&result));
    let input_messages = input.remove(key).expect("accepted body has its list");
    let output_messages = output.remove(key).expect("output body has its list");
    assert!(input == output, "{tier}: fields outside {key} changed");
    if input_messages.is_string() {
        // A plain-string Responses input: one user message, nothing to compact.
        assert!(out == body, "{tier}: a plain-string input changed");
        return;
    }
    let ContextData::Messages(result_messages) = &result.context else {
        panic!("{tier}: body messages came back as text");
    };
    assert!(
        output_messages == Value::Array(result_messages.clone()),
        "{tier}: body messages differ from the result's"
    );
    if input_messages == output_messages {
        assert!(
            out == body,
            "{tier}: unchanged messages but the body changed"
        );
    }
    let Value::Array(input_messages) = input_messages else {
        panic!("messages is an array");
    };
    assert!(
        restore(&result.context, &result.archive) == ContextData::Messages(input_messages),
        "{tier} body: input not recoverable from output + archive"
    );
    assert!(
        result.after_tokens <= result.before_tokens,
        "{tier} body: grew"
    );
    let rerun = |body: &str, pressure: BudgetPressure| {
        block_on(compact_request_body(
            body, "s-fuzz", pressure, None, &options,
        ))
        .map(|(out, result)| (out, checked(result)))
        .unwrap_or_else(|e| panic!("{tier} body: output refused on a second run: {e}"))
    };
    let at = settled(pressure, tier, &result);
    let again = rerun(&out, at);
    if tier == Tier::Auto {
        let fixed = rerun(&again.0, settled(at, again.1.tier, &again.1));
        assert!(fixed.0 == again.0, "{tier} body: not idempotent");
    } else {
        assert!(again.0 == out, "{tier} body: not idempotent");
    }
    let twice = block_on(compact_request_body(
        body, "s-fuzz", pressure, None, &options,
    ))
    .expect("accepted once, accepted twice");
    assert!(twice.0 == out, "{tier} body: not deterministic");
}

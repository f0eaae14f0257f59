//! Elided input (long strings passed as placeholders, see `tiered_compaction::elision`) gives the
//! same result as the same input read whole, once the placeholders left in the result are put
//! back; where the facts cannot stand for the text, the core refuses (and the binding reads the
//! strings whole). Proptest over generated conversations in every format, plus the refusals.

mod common;

use common::generate::{self, Conversation};
use common::*;
use proptest::prelude::*;
use serde_json::{Value, json};
use tiered_compaction::elision::{self, ElisionKey};
use tiered_compaction::tokens::TokenEstimator;
use tiered_compaction::transcript::Format;
use tiered_compaction::{
    CompactOptions, CompactionError, ContextInput, FormatChoice, Tier, TierContext, TierResult,
};

const NONCE: &str = "t3st";

/// What the JS binding's replacer does: each string of more than `elision::MIN_CHARS` code
/// points becomes a placeholder with the head and tail windows counted in UTF-16 units.
fn elide(value: &mut Value, keep_head_chars: usize, originals: &mut Vec<String>) {
    match value {
        Value::String(text) if text.chars().count() > elision::MIN_CHARS => {
            let chars = text.chars().count();
            let head = units_prefix(text, elision::head_units(keep_head_chars));
            let tail = units_suffix(text, elision::TAIL_UNITS);
            let crlf = u8::from(text.contains("\r\n"));
            let placeholder = format!(
                "{head}\u{0}{NONCE}:{}:{chars}:{crlf}:{tail}",
                originals.len()
            );
            originals.push(std::mem::replace(text, placeholder));
        }
        Value::Array(items) => items
            .iter_mut()
            .for_each(|item| elide(item, keep_head_chars, originals)),
        Value::Object(fields) => fields
            .values_mut()
            .for_each(|item| elide(item, keep_head_chars, originals)),
        _ => {}
    }
}

fn units_prefix(text: &str, units: usize) -> &str {
    let mut used = 0;
    for (at, c) in text.char_indices() {
        used += c.len_utf16();
        if used > units {
            return &text[..at];
        }
    }
    text
}

fn units_suffix(text: &str, units: usize) -> &str {
    let mut used = 0;
    for (at, c) in text.char_indices().rev() {
        used += c.len_utf16();
        if used > units {
            return &text[at + c.len_utf8()..];
        }
    }
    text
}

/// Puts the originals back where placeholders were left (what the binding does on output).
fn put_back(value: &mut Value, key: &ElisionKey, originals: &[String]) {
    match value {
        Value::String(text) => {
            if let Some(read) = key.parse(text) {
                *text = originals[read.index].clone();
            }
        }
        Value::Array(items) => items
            .iter_mut()
            .for_each(|item| put_back(item, key, originals)),
        Value::Object(fields) => fields
            .values_mut()
            .for_each(|item| put_back(item, key, originals)),
        _ => {}
    }
}

fn render(format: Format, conversation: &Conversation) -> Vec<Value> {
    match format {
        Format::OpenAi => generate::openai(conversation),
        Format::Anthropic => generate::anthropic(conversation),
        Format::Responses => generate::responses(conversation),
        Format::Gemini => generate::gemini(conversation),
        _ => generate::ai_sdk(conversation),
    }
}

fn ctx(format: Format, messages: Vec<Value>, elided: bool) -> TierContext {
    let mut ctx = TierContext::new(
        "s-elision",
        pressure(4, 0.8, 400.0, false),
        ContextInput::Messages {
            messages,
            format: FormatChoice::Fixed(format),
        },
    );
    ctx.elision = elided.then(|| ElisionKey::new(NONCE));
    ctx
}

/// The options of these tests: a tier reads long strings by their facts only when it counts by
/// the seed's rule, named (structured messages count by the heuristic by default, which reads
/// every character).
fn seed_rule() -> CompactOptions<'static> {
    CompactOptions {
        token_estimator: Some(TokenEstimator::Seed),
        ..unbatched()
    }
}

fn run(
    tier: Tier,
    ctx: &TierContext,
    options: &CompactOptions<'_>,
) -> Result<TierResult, CompactionError> {
    block_on(tiered_compaction::compact_with_tier(tier, ctx, options)).map(checked)
}

/// Runs `tier` whole and elided; returns whether the elided run was taken (not refused).
fn same_either_way(
    tier: Tier,
    format: Format,
    messages: Vec<Value>,
) -> Result<bool, TestCaseError> {
    let options = seed_rule();
    let keep = options.policy.micro_keep_head_chars;
    let whole = run(tier, &ctx(format, messages.clone(), false), &options).expect("valid input");
    let mut elided_messages = Value::Array(messages);
    let mut originals = Vec::new();
    elide(&mut elided_messages, keep, &mut originals);
    let Value::Array(elided_messages) = elided_messages else {
        unreachable!()
    };
    let outcome = run(tier, &ctx(format, elided_messages, true), &options);
    let mut result = match outcome {
        Ok(result) => result,
        Err(error) => {
            prop_assert!(
                error.problem.contains("elided"),
                "unexpected refusal {error}"
            );
            return Ok(false);
        }
    };
    let key = ElisionKey::new(NONCE);
    if let tiered_compaction::ContextData::Messages(messages) = &mut result.context {
        messages
            .iter_mut()
            .for_each(|m| put_back(m, &key, &originals));
    }
    for entry in &mut result.archive {
        put_back(&mut entry.content, &key, &originals);
    }
    prop_assert_eq!(result, whole);
    Ok(!originals.is_empty())
}

proptest! {
    // 48 cases keep `cargo test` quick; PROPTEST_CASES=N runs more.
    #![proptest_config(ProptestConfig {
        cases: std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(48),
        ..ProptestConfig::default()
    })]

    #[test]
    fn elided_input_compacts_as_whole_input(
        conversation in generate::conversation(),
        format in prop_oneof![Just(Format::OpenAi), Just(Format::Anthropic), Just(Format::AiSdk), Just(Format::Responses), Just(Format::Gemini)],
    ) {
        let messages = render(format, &conversation);
        for tier in [Tier::None, Tier::Micro, Tier::TimeBased] {
            same_either_way(tier, format, messages.clone())?;
        }
    }

    #[test]
    fn elided_bodies_compact_as_whole_bodies(
        conversation in generate::conversation(),
        format in prop_oneof![Just(Format::OpenAi), Just(Format::Anthropic), Just(Format::AiSdk), Just(Format::Responses), Just(Format::Gemini)],
    ) {
        for pressure in [pressure(2, 0.1, 0.0, false), pressure(6, 0.5, 0.0, false), pressure(6, 0.5, 400.0, false)] {
            body_both_ways(format, render(format, &conversation), pressure);
        }
    }
}

fn long_log(lines: usize) -> String {
    "error: build failed at src/lib.rs:12\n".repeat(lines)
}

fn session(tool_output: &str) -> Vec<Value> {
    json!([
        { "role": "system", "content": "You are a coding agent." },
        { "role": "user", "content": "Fix the build." },
        { "role": "assistant", "content": null, "tool_calls": [
            { "id": "c1", "type": "function", "function": { "name": "bash", "arguments": "{\"cmd\":\"make\"}" } }
        ] },
        { "role": "tool", "tool_call_id": "c1", "content": tool_output },
        { "role": "assistant", "content": "Looking at the log." },
        { "role": "user", "content": "Go on." }
    ])
    .as_array()
    .cloned()
    .expect("an array")
}

#[test]
fn none_reads_long_tool_outputs_by_their_facts_and_stub_writers_read_them_whole() {
    for output in [
        long_log(60),
        "é🦀\r\n".repeat(600),
        format!("{}{}", "x".repeat(3000), " ".repeat(10)),
    ] {
        let taken = same_either_way(Tier::None, Format::OpenAi, session(&output)).expect("same");
        assert!(taken, "the elided run was refused for {:?}", &output[..20]);
        // micro and time_based keep the lines that matter of the whole body in their stubs:
        // elided input is refused, and the binding reads it whole.
        for tier in [Tier::Micro, Tier::TimeBased] {
            let taken = same_either_way(tier, Format::OpenAi, session(&output)).expect("same");
            assert!(!taken, "{tier} took elided input");
        }
    }
}

#[test]
fn facts_that_cannot_decide_are_refused() {
    let key = ElisionKey::new(NONCE);
    let cases = [
        // A head of whitespace only: an age tag could follow.
        format!("{}\u{0}{NONCE}:0:5000:0:tail", " ".repeat(200)),
        // An age tag cut by the head's end.
        format!("[age:{}\u{0}{NONCE}:0:5000:0:tail", "1".repeat(200)),
        // A pruned-body marker that may begin before the tail.
        format!("head text\u{0}{NONCE}:0:5000:0: 12 chars]"),
        // Two placeholders joined.
        format!("a\u{0}{NONCE}:0:5000:0:x\nb\u{0}{NONCE}:1:5000:0:y"),
    ];
    for text in cases {
        let mut messages = session("short");
        messages[4] = json!({ "role": "assistant", "content": text });
        let outcome = run(
            Tier::None,
            &ctx(Format::OpenAi, messages, true),
            &seed_rule(),
        );
        let error = outcome.expect_err("refused");
        assert_eq!(error.path, "messages[4]");
        assert!(error.problem.contains("elided"), "{error}");
        assert!(key.mentions(&text));
    }
    // A placeholder as a tool-call id.
    let mut messages = session("short");
    messages[2]["tool_calls"][0]["id"] = json!(format!("id\u{0}{NONCE}:0:5000:0:x"));
    let outcome = run(
        Tier::None,
        &ctx(Format::OpenAi, messages, true),
        &seed_rule(),
    );
    assert!(outcome.expect_err("refused").problem.contains("elided"));
}

#[test]
fn content_reading_modes_refuse_elided_input() {
    let mut messages = Value::Array(session(&long_log(60)));
    elide(&mut messages, 80, &mut Vec::new());
    let Value::Array(messages) = messages else {
        unreachable!()
    };
    let elided = ctx(Format::OpenAi, messages, true);
    // Summaries, digests and stubs read the whole text.
    for tier in [
        Tier::Auto,
        Tier::SessionMemory,
        Tier::Micro,
        Tier::TimeBased,
    ] {
        let error = run(tier, &elided, &seed_rule()).expect_err("refused");
        assert_eq!(error.path, "messages");
        assert!(error.problem.contains("reads whole"), "{error}");
    }
    let heuristic = CompactOptions {
        token_estimator: Some(TokenEstimator::Heuristic),
        ..seed_rule()
    };
    assert!(run(Tier::None, &elided, &heuristic).is_err());
    assert!(run(Tier::None, &elided, &seed_rule()).is_ok());
}

/// The seed's rule as a host counter: the same counts, media included (as base64 text), but a
/// host counter reads texts whole.
struct SeedAsHost;

impl tiered_compaction::tokens::TokenCounter for SeedAsHost {
    fn count(&self, text: &str) -> u64 {
        tiered_compaction::tokens::estimate_tokens(text)
    }

    fn count_media(&self, block: &tiered_compaction::transcript::Block<'_>) -> Option<u64> {
        Some(block.tokens(&tiered_compaction::SeedRule::default()))
    }
}

fn body_both_ways(
    format: Format,
    messages: Vec<Value>,
    pressure: tiered_compaction::BudgetPressure,
) {
    let key = tiered_compaction::formats::registry::list_key(format);
    let mut request = json!({ "model": "m", "max_tokens": 100, key: messages });
    if format == Format::Anthropic {
        request["system"] = json!("You are a coding agent.");
    }
    let body = serde_json::to_string_pretty(&request).expect("serialises");
    let whole_options = CompactOptions {
        counter: Some(&SeedAsHost),
        ..seed_rule()
    };
    let run = |options: &CompactOptions<'_>| {
        block_on(tiered_compaction::compact_request_body(
            &body, "s-body", pressure, None, options,
        ))
    };
    let (elided_body, elided) = run(&seed_rule()).expect("compacts");
    let (whole_body, whole) = run(&whole_options).expect("compacts");
    assert_eq!(elided, whole);
    assert_eq!(elided_body, whole_body);
}

#[test]
fn a_body_keeps_the_values_of_its_long_strings() {
    // Escapes the parser would write differently (`\/`, `\u00e9`) stay as they were.
    let output = format!("{}\\/path\\u00e9", "x".repeat(2000));
    let body = format!(
        r#"{{"model":"m","messages":[{{"role":"user","content":"Fix it."}},{{"role":"assistant","content":null,"tool_calls":[{{"id":"c1","type":"function","function":{{"name":"bash","arguments":"{{}}"}}}}]}},{{"role":"tool","tool_call_id":"c1","content":"{output}","note":"{output}"}},{{"role":"assistant","content":"ok"}},{{"role":"user","content":"next"}}]}}"#
    );
    // The newest step ("ok") is the protected tail; the tool result is outside it.
    let mut options = seed_rule();
    options.policy.keep_recent_steps = 1;
    let (new_body, result) = block_on(tiered_compaction::compact_request_body(
        &body,
        "s",
        pressure(6, 0.5, 0.0, false),
        None,
        &options,
    ))
    .expect("compacts");
    assert_eq!(result.tier, Tier::Micro);
    // micro reads the body whole (its stub keeps lines of the whole output), so the edited
    // message is written anew: its other strings keep their value, not their escapes.
    let expected: String = serde_json::from_str(&format!("\"{output}\"")).expect("decodes");
    let parsed: Value = serde_json::from_str(&new_body).expect("valid JSON");
    assert_eq!(
        parsed["messages"][2]["note"],
        Value::String(expected.clone())
    );
    assert_eq!(result.archive[0].content, Value::String(expected));
}

/// A coding agent's session: the tool call writes a long file (its text is the serialised input,
/// which holds the placeholder escaped) and the tool's long output is collapsed.
fn writes_a_file(format: Format) -> Vec<Value> {
    let file = format!(
        "# Notes\n\n{}\"quoted\" \\ done\n",
        "Line of the file.\n".repeat(150)
    );
    let output = long_log(60);
    match format {
        Format::Anthropic => json!([
            { "role": "user", "content": "Write the notes, then build." },
            { "role": "assistant", "content": [
                { "type": "tool_use", "id": "t1", "name": "Write", "input": { "file_path": "NOTES.md", "content": file } }
            ] },
            { "role": "user", "content": [{ "type": "tool_result", "tool_use_id": "t1", "content": output }] },
            { "role": "assistant", "content": [{ "type": "text", "text": "Written." }] },
            { "role": "user", "content": "Go on." }
        ]),
        _ => json!([
            { "role": "user", "content": [{ "type": "text", "text": "Write the notes, then build." }] },
            { "role": "assistant", "content": [
                { "type": "tool-call", "toolCallId": "t1", "toolName": "Write", "input": { "file_path": "NOTES.md", "content": file } }
            ] },
            { "role": "tool", "content": [
                { "type": "tool-result", "toolCallId": "t1", "toolName": "Write", "output": { "type": "text", "value": output } }
            ] },
            { "role": "user", "content": [{ "type": "text", "text": "Go on." }] }
        ]),
    }
    .as_array()
    .cloned()
    .expect("an array")
}

/// What the elided read needs of a placeholder inside a serialised tool input.
#[derive(Debug)]
struct Originals(Vec<String>);

impl elision::ElidedStrings for Originals {
    fn original(&self, index: usize) -> Option<String> {
        self.0.get(index).cloned()
    }
}

#[test]
fn a_long_tool_input_is_read_whole_and_nothing_else() {
    for format in [Format::Anthropic, Format::AiSdk] {
        let messages = writes_a_file(format);
        let whole = run(
            Tier::None,
            &ctx(format, messages.clone(), false),
            &seed_rule(),
        )
        .expect("valid");
        let mut elided = Value::Array(messages);
        let mut originals = Vec::new();
        elide(&mut elided, 80, &mut originals);
        let Value::Array(elided) = elided else {
            unreachable!()
        };
        assert_eq!(originals.len(), 2, "the file and the output are elided");
        let strings = Originals(originals.clone());
        let options = CompactOptions {
            elided_strings: Some(&strings),
            ..seed_rule()
        };
        let mut result =
            run(Tier::None, &ctx(format, elided.clone(), true), &options).expect("taken");
        let key = ElisionKey::new(NONCE);
        if let tiered_compaction::ContextData::Messages(messages) = &mut result.context {
            messages
                .iter_mut()
                .for_each(|m| put_back(m, &key, &originals));
        }
        result
            .archive
            .iter_mut()
            .for_each(|e| put_back(&mut e.content, &key, &originals));
        assert_eq!(result, whole);
        // Without the strings the placeholder in the input cannot be read: refused.
        let refused = run(Tier::None, &ctx(format, elided, true), &seed_rule());
        assert!(refused.expect_err("refused").problem.contains("elided"));
        body_both_ways(format, writes_a_file(format), pressure(6, 0.5, 0.0, false));
    }
}

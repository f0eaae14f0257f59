//! Repair of broken input (`docs/design.md`, "Invariants", 1): in every tier, `none` included,
//! what breaks the provider's rules is removed into the archive (kind "repair") or, for a run of
//! one Anthropic role, merged; each repair is one warning line; `restore` gives the input back.

use crate::common::restore::restore;
use crate::common::*;
use serde_json::{Value, json};
use tiered_compaction::edge::restore::restore_body;
use tiered_compaction::{
    ContextData, ContextInput, FormatChoice, Tier, TierContext, TierResult, compact_request_body,
};

fn ctx(format: &str, messages: Vec<Value>) -> TierContext {
    let format = tiered_compaction::formats::registry::by_name(format).expect("a format");
    TierContext::new(
        "s-repair",
        pressure(4, 0.8, 400.0, false),
        ContextInput::Messages {
            messages,
            format: FormatChoice::Fixed(format),
        },
    )
}

fn list(value: Value) -> Vec<Value> {
    value.as_array().cloned().expect("a list")
}

fn openai_call(id: &str) -> Value {
    json!({"id": id, "type": "function", "function": {"name": "bash", "arguments": "{\"cmd\":\"ls\"}"}})
}

fn tool_use(id: &str) -> Value {
    json!({"type": "tool_use", "id": id, "name": "bash", "input": {"cmd": "ls"}})
}

fn tool_result(id: &str) -> Value {
    json!({"type": "tool_result", "tool_use_id": id, "content": "src/lib.rs"})
}

/// The input comes back from the result, exactly.
fn assert_restores(input: &[Value], result: &TierResult) {
    assert_eq!(
        restore(&result.context, &result.archive),
        ContextData::Messages(input.to_vec()),
        "{}: restore gives the input back",
        result.tier
    );
}

/// The archive's repair entries, each a removed or merged range holding input messages.
fn repair_entries(result: &TierResult) -> Vec<&tiered_compaction::ArchiveEntry> {
    result
        .archive
        .iter()
        .filter(|entry| entry.kind == "repair")
        .collect()
}

#[test]
fn an_openai_orphan_tool_message_is_removed_in_tier_none() {
    let input = list(json!([
        {"role": "system", "content": "be brief"},
        {"role": "user", "content": "fix it"},
        {"role": "tool", "tool_call_id": "call_9", "content": "a result nobody asked for"},
        {"role": "assistant", "content": "done"}
    ]));
    let result = run_tier(Tier::None, &ctx("openai", input.clone()), None);
    let output = result.messages().expect("messages");
    assert_eq!(output, [&input[..2], &input[3..]].concat());
    assert_eq!(result.archive.len(), 1);
    let entry = &result.archive[0];
    assert_eq!(entry.kind, "repair");
    assert_eq!(entry.location, "messages[2]");
    assert_eq!(entry.content, json!([input[2]]));
    assert_eq!(entry.replacement, "");
    assert_eq!(
        result.warnings,
        [
            "repair: removed the tool result at messages[2] (id \"call_9\"): no call with its id comes before it"
        ]
    );
    assert!(
        result.reason.contains("repaired the input"),
        "{}",
        result.reason
    );
    assert_eq!(result.cost_estimate, 0.0);
    assert_restores(&input, &result);
    // The repaired output is valid: the next call changes nothing.
    let again = run_tier(
        Tier::None,
        &rerun_input(&ctx("openai", input), &result),
        None,
    );
    assert!(again.archive.is_empty() && again.warnings.is_empty());
}

#[test]
fn valid_input_is_not_repaired_reused_openai_ids_included() {
    let input = list(json!([
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": null, "tool_calls": [openai_call("call_0")]},
        {"role": "tool", "tool_call_id": "call_0", "content": "one"},
        {"role": "assistant", "content": null, "tool_calls": [openai_call("call_0")]},
        {"role": "tool", "tool_call_id": "call_0", "content": "two"},
        {"role": "assistant", "content": null, "tool_calls": [openai_call("call_1")]}
    ]));
    let result = run_tier(Tier::None, &ctx("openai", input.clone()), None);
    assert_eq!(result.messages().expect("messages"), &input[..]);
    assert!(result.archive.is_empty());
    assert!(result.warnings.is_empty());
    assert_eq!(
        result.reason,
        "forced none; no compaction: context unchanged"
    );
}

#[test]
fn an_unanswered_call_leaves_its_message_the_answered_ones_stay() {
    let input = list(json!([
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": "two reads", "tool_calls": [openai_call("a"), openai_call("b")]},
        {"role": "tool", "tool_call_id": "a", "content": "A"},
        {"role": "assistant", "content": "", "tool_calls": [openai_call("c")]},
        {"role": "assistant", "content": "only text", "tool_calls": [openai_call("d")]},
        {"role": "user", "content": "next"},
        {"role": "assistant", "content": null, "tool_calls": [openai_call("e")]}
    ]));
    let result = run_tier(Tier::None, &ctx("openai", input.clone()), None);
    let output = result.messages().expect("messages");
    assert_eq!(
        output,
        [
            input[0].clone(),
            json!({"role": "assistant", "content": "two reads", "tool_calls": [openai_call("a")]}),
            input[2].clone(),
            // Every call gone: `tool_calls` goes too (the API refuses an empty list).
            json!({"role": "assistant", "content": "only text"}),
            input[5].clone(),
            // The last message's call is the host's next action.
            input[6].clone(),
        ]
    );
    assert_eq!(
        result.warnings,
        [
            "repair: removed the tool call at messages[1] (id \"b\"): it has no result and later messages follow it",
            "repair: removed the tool call at messages[3] (id \"c\"): it has no result and later messages follow it",
            "repair: removed messages[3]: the repairs left it with blank text only",
            "repair: removed the tool call at messages[4] (id \"d\"): it has no result and later messages follow it",
        ]
    );
    let locations: Vec<&str> = result
        .archive
        .iter()
        .map(|entry| entry.location.as_str())
        .collect();
    assert_eq!(locations, ["messages[1]", "messages[3]", "messages[4]"]);
    assert_eq!(
        result.archive[0].replacement,
        "messages[1] without the tool call \"b\""
    );
    assert_restores(&input, &result);
}

#[test]
fn anthropic_runs_of_one_role_are_merged_and_restored() {
    let input = list(json!([
        {"role": "user", "content": "first"},
        {"role": "user", "content": [{"type": "text", "text": "second", "cache_control": {"type": "ephemeral"}}]},
        {"role": "assistant", "content": [tool_use("t1")]},
        {"role": "user", "content": [tool_result("t1")]},
        {"role": "user", "content": "and now?"},
        {"role": "assistant", "content": "ok"}
    ]));
    let result = run_tier(Tier::None, &ctx("anthropic", input.clone()), None);
    let output = result.messages().expect("messages");
    assert_eq!(
        output,
        [
            json!({"role": "user", "content": [
                {"type": "text", "text": "first"},
                {"type": "text", "text": "second", "cache_control": {"type": "ephemeral"}}
            ]}),
            input[2].clone(),
            json!({"role": "user", "content": [tool_result("t1"), {"type": "text", "text": "and now?"}]}),
            input[5].clone(),
        ]
    );
    assert_eq!(
        result.warnings,
        [
            "repair: merged messages[0..2] into one user message: roles must alternate, and these are user messages in a row",
            "repair: merged messages[3..5] into one user message: roles must alternate, and these are user messages in a row",
        ]
    );
    let entries = repair_entries(&result);
    assert_eq!(entries.len(), 2);
    assert_eq!(entries[0].content, json!(input[0..2]));
    assert_eq!(
        entries[0].replacement,
        "messages[0..2] merged into one message"
    );
    assert_restores(&input, &result);
}

#[test]
fn an_anthropic_duplicate_tool_use_id_goes_with_its_result() {
    let input = list(json!([
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": [tool_use("toolu_1")]},
        {"role": "user", "content": [tool_result("toolu_1")]},
        {"role": "assistant", "content": [{"type": "text", "text": "once more"}, tool_use("toolu_1")]},
        {"role": "user", "content": [tool_result("toolu_1"), {"type": "text", "text": "keep going"}]},
        {"role": "assistant", "content": "done"}
    ]));
    let result = run_tier(Tier::None, &ctx("anthropic", input.clone()), None);
    let output = result.messages().expect("messages");
    assert_eq!(
        output,
        [
            input[0].clone(),
            input[1].clone(),
            input[2].clone(),
            json!({"role": "assistant", "content": [{"type": "text", "text": "once more"}]}),
            json!({"role": "user", "content": [{"type": "text", "text": "keep going"}]}),
            input[5].clone(),
        ]
    );
    assert_eq!(
        result.warnings,
        [
            "repair: removed the tool call at messages[3] (id \"toolu_1\"): the call at messages[1] has the same id, and ids must be unique",
            "repair: removed the tool result at messages[4] (id \"toolu_1\"): it answers a duplicate call",
        ]
    );
    assert_restores(&input, &result);
}

#[test]
fn anthropic_messages_before_the_first_user_message_are_removed() {
    let input = list(json!([
        {"role": "assistant", "content": [tool_use("t0")]},
        {"role": "user", "content": [tool_result("t0"), {"type": "text", "text": "the task"}]},
        {"role": "assistant", "content": "ok"}
    ]));
    let result = run_tier(Tier::None, &ctx("anthropic", input.clone()), None);
    assert_eq!(
        result.messages().expect("messages"),
        [
            json!({"role": "user", "content": [{"type": "text", "text": "the task"}]}),
            input[2].clone()
        ]
    );
    assert_eq!(result.warnings.len(), 2);
    assert!(result.warnings[0].contains("before the first user message"));
    assert!(result.warnings[1].contains("(id \"t0\")"));
    assert_restores(&input, &result);
}

#[test]
fn an_ai_sdk_orphan_part_leaves_its_tool_message() {
    let input = list(json!([
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": [{"type": "tool-call", "toolCallId": "a", "toolName": "bash", "input": {}}]},
        {"role": "tool", "content": [
            {"type": "tool-result", "toolCallId": "a", "toolName": "bash", "output": {"type": "text", "value": "ok"}},
            {"type": "tool-result", "toolCallId": "ghost", "toolName": "bash", "output": {"type": "text", "value": "?"}}
        ]},
        {"role": "assistant", "content": "done"}
    ]));
    let result = run_tier(Tier::None, &ctx("ai-sdk", input.clone()), None);
    let output = result.messages().expect("messages");
    assert_eq!(
        output[2],
        json!({"role": "tool", "content": [input[2]["content"][0]]})
    );
    assert_eq!(
        result.warnings,
        [
            "repair: removed the tool result at messages[2] (id \"ghost\"): no call with its id comes before it"
        ]
    );
    assert_restores(&input, &result);
}

/// A broken OpenAI agent session: an orphan, a call left unanswered, long logs to compact.
fn broken_session() -> Vec<Value> {
    let mut messages = crate::agent_session();
    messages.insert(
        3,
        json!({"role": "tool", "tool_call_id": "gone", "content": "orphan ".repeat(50)}),
    );
    messages.insert(
        6,
        json!({"role": "assistant", "content": null, "tool_calls": [openai_call("never")]}),
    );
    messages
}

#[test]
fn every_tier_repairs_first_and_restores_the_input() {
    let input = broken_session();
    for tier in Tier::ALL {
        let context = ctx("openai", input.clone());
        let result = run_tier(tier, &context, None);
        let entries = repair_entries(&result);
        assert_eq!(entries.len(), 2, "{tier}");
        assert_eq!(result.archive[..2].iter().collect::<Vec<_>>(), entries);
        assert!(
            result
                .warnings
                .iter()
                .filter(|w| w.starts_with("repair: "))
                .count()
                >= 2,
            "{tier}: {:?}",
            result.warnings
        );
        let output = result.messages().expect("messages");
        let text = serde_json::to_string(output).expect("serialises");
        assert!(
            !text.contains("\"gone\"") && !text.contains("\"never\""),
            "{tier}"
        );
        assert!(result.after_tokens <= result.before_tokens, "{tier}");
        assert_restores(&input, &result);
        // A chain: the next call on this output has nothing to repair and restores step by step.
        let next = run_tier(Tier::Micro, &rerun_input(&context, &result), None);
        assert!(repair_entries(&next).is_empty(), "{tier}");
        let back = restore(&next.context, &next.archive);
        assert_eq!(back, result.context, "{tier}");
        assert_eq!(
            restore(&back, &result.archive),
            ContextData::Messages(input.clone())
        );
    }
}

#[test]
fn a_reverted_tier_keeps_the_repair() {
    let input = broken_session();
    let mut options = unbatched();
    // No summary can save 99 %: auto's result is refused, the repaired input is returned.
    options.policy.min_reduction = 0.99;
    let result = block_on(tiered_compaction::compact_with_tier(
        Tier::Auto,
        &ctx("openai", input.clone()),
        &options,
    ))
    .expect("compacts");
    assert!(
        result.reason.contains("input returned repaired"),
        "{}",
        result.reason
    );
    assert_eq!(result.archive.len(), 2);
    assert!(result.archive.iter().all(|entry| entry.kind == "repair"));
    assert_restores(&input, &result);
}

#[test]
fn flat_text_has_nothing_to_repair() {
    let text = "```tool_result name=bash\nno call anywhere\n```\n\nuser: hi";
    let result = run_tier(
        Tier::None,
        &text_ctx(text, pressure(1, 0.1, 0.0, false)),
        None,
    );
    assert_eq!(result.context, ContextData::Text(text.into()));
    assert!(result.archive.is_empty() && result.warnings.is_empty());
}

fn openai_body(log: &str) -> String {
    format!(
        r#"{{ "model": "gpt-4o", "temperature": 0.20,
  "messages": [
    {{"role": "system", "content": "be brief"}},
    {{"role": "user",   "content": "caf\u00e9 {log}"}},
    {{"role": "tool", "tool_call_id": "call_9", "content": "orphan {log}"}},
    {{"role": "assistant", "content": "done"}}
  ],
  "stream": true }}"#
    )
}

#[test]
fn the_request_body_path_repairs_and_keeps_the_bytes_around() {
    // Short strings (read whole) and long ones (read by their facts, tier none).
    for log in ["", &"x".repeat(3000)] {
        let body = openai_body(log);
        let (out, result) = block_on(compact_request_body(
            &body,
            "s-edge",
            pressure(1, 0.0, 0.0, false),
            None,
            &unbatched(),
        ))
        .expect("compacts");
        assert_eq!(result.tier, Tier::None);
        assert_eq!(result.warnings.len(), 1, "{:?}", result.warnings);
        let start = body.find("\"messages\"").expect("messages");
        assert_eq!(out[..start], body[..start], "bytes before the list");
        assert!(out.ends_with("],\n  \"stream\": true }"), "{out}");
        assert!(out.contains(&format!(
            r#"{{"role": "user",   "content": "caf\u00e9 {log}"}}"#
        )));
        assert!(!out.contains("call_9"));
        let parsed: Value = serde_json::from_str(&out).expect("JSON");
        assert_eq!(parsed["messages"].as_array().map(Vec::len), Some(3));
        let restored = restore_body(&out, &result.archive).expect("restores");
        let restored: Value = serde_json::from_str(&restored).expect("JSON");
        let original: Value = serde_json::from_str(&body).expect("JSON");
        assert_eq!(restored, original);
    }
}

#[test]
fn a_warm_cache_never_defers_the_repair() {
    let input = broken_session();
    let cached = run_tier(Tier::None, &ctx("openai", input.clone()), None).before_tokens as f64;
    let warm = pressure(9, 0.4, 10.0, false)
        .with_cache(Some(cached), None)
        .expect("valid cache facts");
    let context = TierContext {
        pressure: warm,
        ..ctx("openai", input.clone())
    };
    let mut options = unbatched();
    // One step left: micro's own edits are not worth the rewrite and wait.
    options.policy.cache.expected_remaining_steps = Some(1);
    let result = block_on(tiered_compaction::compact_with_tier(
        Tier::Micro,
        &context,
        &options,
    ))
    .expect("compacts");
    assert!(
        result.reason.contains("cache warm: deferred"),
        "{}",
        result.reason
    );
    assert_eq!(repair_entries(&result).len(), result.archive.len());
    assert_eq!(result.archive.len(), 2);
    let cache = result.cache.expect("cache facts reported");
    assert!(cache.invalidated_tokens > 0, "{cache:?}");
    assert_restores(&input, &result);
}

//! Regression tests for what the fuzz targets (`fuzz/`, `scripts/fuzz.sh`) found, one per
//! finding, each reduced by hand from the crashing input to the smallest conversation that
//! shows it. RELIABILITY.md lists them with their fixes.

mod common;

use common::restore::restore;
use common::*;
use serde_json::{Value, json};
use tiered_compaction::{ContextData, ContextInput, FormatChoice, Tier, TierContext};

fn detected_ctx(messages: Vec<Value>) -> TierContext {
    TierContext::new(
        "s-fuzz",
        pressure(4, 0.8, 400.0, false),
        ContextInput::Messages {
            messages,
            format: FormatChoice::Auto,
        },
    )
}

/// fuzz `structured` (AI SDK, auto, summariser answering a non-string): an agent message that
/// starts with our run-summary heading *and* carries a tool call was listed twice for the
/// summary, once as an earlier summary and once inside its run. The two edits overlapped: the
/// archive held the message twice, so the input could not be rebuilt from output + archive.
#[test]
fn regression_summary_heading_on_a_tool_call_message_is_archived_once() {
    let messages = vec![
        json!({"role": "system", "content": "be brief"}),
        json!({"role": "user", "content": "fix the build"}),
        json!({"role": "assistant", "content": "[summary of earlier tool runs] covers 10 tokens\nnotes",
               "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "bash", "arguments": "{}"}}]}),
        json!({"role": "tool", "tool_call_id": "c1", "content": "LOG".repeat(80)}),
        json!({"role": "assistant", "content": "done"}),
        json!({"role": "user", "content": "next"}),
    ];
    let ctx = detected_ctx(messages.clone());
    for mode in [Mode::Good, Mode::NotString] {
        let fake = FakeSummariser::new(mode);
        // The newest step ("done") is the protected tail; the run before it is summarised.
        let result = run_tier_keeping(Tier::Auto, &ctx, Some(&fake), 1);
        let removed: usize = result
            .archive
            .iter()
            .map(|entry| entry.content.as_array().map_or(1, Vec::len))
            .sum();
        assert_eq!(removed, 2, "{mode:?}: {:?}", result.archive);
        assert_eq!(
            restore(&result.context, &result.archive),
            ContextData::Messages(messages.clone()),
            "{mode:?}"
        );
    }
}

/// fuzz `messages_json` (Anthropic, micro): micro collapses a tool result that shares a user
/// message with the user's words (Anthropic carries both in `user` messages), even when that
/// message is the task. The user's words stay; the agent's tool output is collapsed. This pins
/// the block-level reading of the protected-content invariant that the fuzz checks use (RELIABILITY.md, finding 2).
#[test]
fn regression_micro_keeps_user_words_beside_a_collapsed_tool_result() {
    let long = "result line\n".repeat(40);
    let messages = vec![
        json!({"role": "user", "content": "fix the build"}),
        json!({"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "bash", "input": {}}]}),
        json!({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "t1", "content": long},
            {"type": "text", "text": "also check the docs"}
        ]}),
        json!({"role": "assistant", "content": [{"type": "text", "text": "ok"}]}),
        json!({"role": "user", "content": "next"}),
    ];
    let ctx = detected_ctx(messages.clone());
    // The newest step ("ok") is the protected tail; the tool result is outside it.
    let result = run_tier_keeping(Tier::Micro, &ctx, None, 1);
    let output = result.messages().expect("messages");
    assert_eq!(
        output[2]["content"][1],
        json!({"type": "text", "text": "also check the docs"})
    );
    assert!(
        output[2]["content"][0]["content"]
            .as_str()
            .expect("collapsed body")
            .ends_with(&format!(
                "[tool result body pruned: 480 chars; recall: {}]",
                result.archive[0].id
            ))
    );
    assert_eq!(
        restore(&result.context, &result.archive),
        ContextData::Messages(messages)
    );
}

/// fuzz `body` (AI SDK, auto): once auto replaced the tool run, the only `tool` message left
/// (an AI SDK 6 approval response) carried no evidence of its format, so reading the output
/// with format detection (the default, and the only way on the request-body path) took it for
/// OpenAI and refused it: `messages[3].tool_call_id is required`.
#[test]
fn regression_ai_sdk_output_is_detected_as_ai_sdk_again() {
    let messages = vec![
        json!({"role": "system", "content": "be brief"}),
        json!({"role": "user", "content": [{"type": "text", "text": "deploy it"}]}),
        json!({"role": "assistant", "content": [{"type": "tool-call", "toolCallId": "c1", "toolName": "deploy", "input": {}}]}),
        json!({"role": "tool", "content": [{"type": "tool-result", "toolCallId": "c1", "toolName": "deploy",
               "output": {"type": "text", "value": "LOG".repeat(80)}}]}),
        json!({"role": "tool", "content": [{"type": "tool-approval-response", "approvalId": "a1", "approved": true}]}),
        json!({"role": "user", "content": [{"type": "text", "text": "next"}]}),
    ];
    let ctx = detected_ctx(messages);
    let result = run_tier(Tier::Auto, &ctx, None);
    assert_eq!(result.format, "ai-sdk");
    let again = run_tier(Tier::Auto, &rerun_input(&ctx, &result), None);
    assert_eq!(again.format, "ai-sdk");
    assert_eq!(again.context, result.context);
}

/// fuzz `text` (session_memory): the digest's "last agent note" is put on one line, which
/// joined `![a` and `b](data:,QUJD)` from two lines into a markdown image with a data-URI
/// target. Read back, the summary split into prose and media, and a second run summarised it
/// again (not idempotent).
#[test]
fn regression_flat_summary_quoting_a_split_data_image_stays_one_block() {
    let text = format!(
        "[age:3] fix the bug please\n\n{}\n[age:1] I looked at it ![a\nb](data:,QUJD) done",
        "a long stretch of agent prose ".repeat(40)
    );
    let ctx = text_ctx(&text, pressure(4, 0.8, 400.0, false));
    let result = run_tier(Tier::SessionMemory, &ctx, None);
    assert!(result.tokens_saved > 0);
    let again = run_tier(Tier::SessionMemory, &rerun_input(&ctx, &result), None);
    assert_eq!(again.context, result.context);
}

/// fuzz `structured` (finding 2, decided): the task message is protected whole, so micro leaves
/// even a long tool result inside it alone (protected content: the first user message is never altered).
/// (The fuzzer's list began with the assistant's call, which Anthropic refuses and the repair
/// now removes with its result; a session summary before it keeps the case valid.)
#[test]
fn regression_micro_leaves_the_task_message_whole() {
    let long = "result line\n".repeat(40);
    let messages = vec![
        json!({"role": "user", "content": "[session summary]\nearlier work"}),
        json!({"role": "assistant", "content": [{"type": "tool_use", "id": "t0", "name": "bash", "input": {}}]}),
        json!({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "t0", "content": long},
            {"type": "text", "text": "this is the task"}
        ]}),
        json!({"role": "assistant", "content": [{"type": "text", "text": "ok"}]}),
        json!({"role": "user", "content": "next"}),
    ];
    let result = run_tier(Tier::Micro, &detected_ctx(messages.clone()), None);
    assert_eq!(result.messages().expect("messages"), &messages[..]);
    assert_eq!(result.tokens_saved, 0);
}

/// fuzz `text` (session_memory): the digest's "last agent note" started a line with the note's
/// own first words; a note that is one of our markers' lines (here an earlier run summary's
/// heading, a block of its own in flat text) was read back as a block of its own, so the summary
/// was not one message any more and a second run summarised it again (not idempotent). Such a line
/// is quoted like a tag (`markers::inert_in_flat_text`).
#[test]
fn regression_flat_summary_quoting_a_marker_stays_one_block() {
    for marker in [
        "[summary of earlier tool runs]",
        "[stale block pruned]",
        "[session summary]",
    ] {
        let text = format!(
            "[age:3] fix the bug please\n{}\nassistant: ok\n{marker} covers 397 tokens, then it passed",
            "a long stretch of agent prose ".repeat(40)
        );
        let ctx = text_ctx(&text, pressure(4, 0.8, 400.0, false));
        let result = run_tier(Tier::SessionMemory, &ctx, None);
        assert!(result.tokens_saved > 0, "{marker}");
        let again = run_tier(Tier::SessionMemory, &rerun_input(&ctx, &result), None);
        assert_eq!(again.context, result.context, "{marker}");
    }
}

/// fuzz `body` (Anthropic, time_based): a stale assistant text part became a stub, and its
/// archive entry named the part (`messages[i].content[0]`) while holding only its text, so
/// `restore` put a bare string where the part had been. Locations now follow the removed path
/// (`messages[i].content[0].text`).
#[test]
fn regression_a_stubbed_text_part_restores_as_a_part() {
    let long = format!(
        "{}\nerror: the pool is exhausted in src/db/pool.ts",
        "Pool state: ok. ".repeat(40)
    );
    let mut messages = vec![json!({"role": "user", "content": "Why does the pool run dry?"})];
    for step in 0..9 {
        messages.push(json!({"role": "assistant", "content": [
            {"type": "text", "text": long.clone()},
            {"type": "tool_use", "id": format!("t{step}"), "name": "bash", "input": {}}
        ]}));
        messages.push(json!({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": format!("t{step}"), "content": "ok"}
        ]}));
    }
    let result = run_tier(Tier::TimeBased, &detected_ctx(messages.clone()), None);
    let text_entry = result
        .archive
        .iter()
        .find(|entry| entry.kind == "turn")
        .expect("a stale text was stubbed");
    assert!(
        text_entry.location.ends_with(".content[0].text"),
        "{}",
        text_entry.location
    );
    assert_eq!(
        restore(&result.context, &result.archive),
        ContextData::Messages(messages)
    );
}

//! Properties of the structured-message adapters, through the public API: arbitrary JSON never
//! panics a reader or detection, and any set of block edits a tier may plan keeps untouched
//! messages equal, unknown fields intact, and the output readable again.

mod common;

use proptest::prelude::*;
use serde_json::{Value, json};
use tiered_compaction::formats::{apply_messages, detect::detect, read_messages};
use tiered_compaction::plan::{ArchiveKind, Edit};
use tiered_compaction::transcript::{BlockKind, Format};

const FORMATS: [Format; 3] = [Format::OpenAi, Format::Anthropic, Format::AiSdk];

/// JSON values biased towards message-like shapes, so readers get past their first checks.
fn json_value() -> impl Strategy<Value = Value> {
    let key = prop::sample::select(vec![
        "role",
        "content",
        "type",
        "text",
        "tool_calls",
        "tool_call_id",
        "id",
        "function",
        "name",
        "arguments",
        "tool_use_id",
        "input",
        "source",
        "data",
        "url",
        "image_url",
        "output",
        "value",
        "toolCallId",
        "toolName",
        "image",
        "mediaType",
        "is_error",
        "result",
    ]);
    let word = prop::sample::select(vec![
        "user",
        "assistant",
        "system",
        "tool",
        "developer",
        "text",
        "image",
        "image_url",
        "tool_use",
        "tool_result",
        "tool-call",
        "tool-result",
        "content",
        "media",
        "json",
        "error-text",
        "base64",
        "url",
        "data:image/png;base64,AA",
        "https://x",
        "[age:3] x",
        "",
    ]);
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i32>().prop_map(|n| json!(n)),
        word.prop_map(|w| json!(w)),
        "[a-z\"\\\\\u{e9}\u{1F600} ]{0,6}".prop_map(Value::String),
    ];
    leaf.prop_recursive(5, 64, 6, move |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
            prop::collection::vec((key.clone(), inner), 0..6).prop_map(|fields| {
                Value::Object(
                    fields
                        .into_iter()
                        .map(|(k, v)| (k.to_string(), v))
                        .collect(),
                )
            }),
        ]
    })
}

proptest! {
    #![proptest_config(common::cases::config(512))]

    #[test]
    fn readers_and_detection_never_panic(messages in prop::collection::vec(json_value(), 0..6)) {
        let _ = detect(&messages);
        for format in FORMATS {
            if let Err(error) = read_messages(&messages, format) {
                prop_assert!(error.path.starts_with("messages["), "{error}");
            }
        }
    }
}

/// One realistic conversation per format: tool runs with results, media, unknown fields.
fn conversation(format: Format) -> Vec<Value> {
    let value = match format {
        Format::OpenAi => json!([
            {"role": "system", "content": "s"},
            {"role": "user", "content": [{"type": "text", "text": "task"},
                {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}, "custom": 1}]},
            {"role": "assistant", "content": null, "tool_calls": [
                {"id": "a", "type": "function", "function": {"name": "f", "arguments": "{}"}},
                {"id": "b", "type": "function", "function": {"name": "g", "arguments": "{}"}}]},
            {"role": "tool", "tool_call_id": "a", "content": "result a", "extra": [1]},
            {"role": "tool", "tool_call_id": "b", "content": [{"type": "text", "text": "result b"}]},
            {"role": "assistant", "content": "done", "meta": {"k": "v"}},
            {"role": "user", "content": "next"}
        ]),
        Format::Anthropic => json!([
            {"role": "user", "content": [{"type": "text", "text": "task", "cache_control": {"type": "ephemeral"}},
                {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "AAAA"}}]},
            {"role": "assistant", "content": [{"type": "thinking", "thinking": "t", "signature": "s"},
                {"type": "tool_use", "id": "a", "name": "f", "input": {}},
                {"type": "tool_use", "id": "b", "name": "g", "input": {"x": 1}}]},
            {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "a", "content": "result a", "cache_control": {"type": "ephemeral"}},
                {"type": "tool_result", "tool_use_id": "b", "is_error": true, "content": [
                    {"type": "text", "text": "result b"},
                    {"type": "image", "source": {"type": "base64", "media_type": "image/jpeg", "data": "BBBB"}}]}]},
            {"role": "assistant", "content": "done"},
            {"role": "user", "content": "next"}
        ]),
        _ => json!([
            {"role": "system", "content": "s"},
            {"role": "user", "content": [{"type": "text", "text": "task"},
                {"type": "file", "data": "AAAA", "mediaType": "application/pdf", "providerOptions": {"p": 1}}]},
            {"role": "assistant", "content": [{"type": "reasoning", "text": "r"},
                {"type": "tool-call", "toolCallId": "a", "toolName": "f", "input": {}},
                {"type": "tool-call", "toolCallId": "b", "toolName": "g", "input": {}}]},
            {"role": "tool", "content": [
                {"type": "tool-result", "toolCallId": "a", "toolName": "f", "output": {"type": "json", "value": {"n": 1}}},
                {"type": "tool-result", "toolCallId": "b", "toolName": "g", "output": {"type": "content", "value": [
                    {"type": "text", "text": "result b"}, {"type": "media", "data": "BBBB", "mediaType": "image/png"}]}}]},
            {"role": "assistant", "content": [{"type": "text", "text": "done"}]},
            {"role": "user", "content": "next"}
        ]),
    };
    match value {
        Value::Array(messages) => messages,
        _ => Vec::new(),
    }
}

/// Every (message, block) a tier may replace: tool results and media, but never media nested in
/// a result that is also replaced (the result's new body already drops it).
fn replaceable(format: Format) -> Vec<(usize, usize, ArchiveKind)> {
    let messages = conversation(format);
    let transcript = read_messages(&messages, format).expect("sample reads");
    let mut found = Vec::new();
    for (message_index, message) in transcript.messages.iter().enumerate() {
        for (block_index, block) in message.blocks.iter().enumerate() {
            let kind = match block.kind {
                BlockKind::ToolResult { .. } => ArchiveKind::ToolResult,
                BlockKind::Media { .. } => ArchiveKind::Media,
                _ => continue,
            };
            found.push((message_index, block_index, kind));
        }
    }
    found
}

proptest! {
    #![proptest_config(common::cases::config(256))]

    #[test]
    fn block_edits_keep_everything_else(
        format in prop_oneof![Just(Format::OpenAi), Just(Format::Anthropic), Just(Format::AiSdk)],
        picks in prop::collection::vec(any::<bool>(), 8),
        text in "[a-z \\[\\]:]{0,12}",
    ) {
        let messages = conversation(format);
        let transcript = read_messages(&messages, format).expect("sample reads");
        let mut edits = Vec::new();
        for (pick, (message, block, kind)) in picks.iter().zip(replaceable(format)) {
            let nested = transcript.messages[message].blocks[block].is_nested();
            let parent_edited = nested && edits.iter().any(|edit| matches!(edit,
                Edit::ReplaceBlock { message: m, kind: ArchiveKind::ToolResult, .. } if *m == message));
            if *pick && !parent_edited {
                edits.push(Edit::ReplaceBlock { message, block, text: text.clone(), kind });
            }
        }
        let applied = apply_messages(&messages, &transcript, &edits).expect("applies");
        prop_assert_eq!(applied.output.len(), messages.len());
        prop_assert_eq!(applied.archive.len(), edits.len());
        for (index, (before, after)) in messages.iter().zip(&applied.output).enumerate() {
            let edited = edits.iter().any(|edit| edit.first_message() == index);
            if !edited {
                prop_assert_eq!(before, after);
            }
            // Fields of the message other than its content never change.
            for (key, value) in before.as_object().into_iter().flatten() {
                if key != "content" {
                    prop_assert_eq!(Some(value), after.get(key));
                }
            }
        }
        let reread = read_messages(&applied.output, format).expect("output reads back");
        prop_assert_eq!(detect(&applied.output).expect("detects"), format);
        for edit in &edits {
            if let Edit::ReplaceBlock { message, block, kind: ArchiveKind::ToolResult, .. } = edit {
                let id = transcript.messages[*message].blocks[*block].tool_id();
                let result = reread.messages[*message].blocks.iter().find(|b| b.tool_id() == id);
                prop_assert_eq!(result.map(|b| &*b.text), Some(text.as_str()));
            }
        }
        prop_assert_eq!(
            tiered_compaction::transcript::pairing::paired_ids(&reread),
            tiered_compaction::transcript::pairing::paired_ids(&transcript)
        );
    }
}

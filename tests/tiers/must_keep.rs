//! `mustKeep`, as a summariser receives it: the user's directives first and in full, then error
//! lines, file paths, URLs and identifiers, each kind with its fair share; repeats that differ
//! only in numbers count once; the list's size follows `targetTokens`.

use crate::common::*;
use serde_json::{Value, json};
use tiered_compaction::{SummaryRequest, Tier};

/// A 1,016-character directive (the length the issue reported cut to 300).
fn long_directive() -> String {
    let mut words = String::from("Never push to main; ");
    while words.chars().count() < 1016 {
        words.push_str("always run the full suite and quote its summary line. ");
    }
    words
        .chars()
        .take(1016)
        .collect::<String>()
        .trim()
        .to_string()
}

/// A run whose first tool output repeats one error 60 times with different numbers, then names
/// `files` files, three URLs and an identifier; `padding` filler lines per later output grow
/// what is summarised without adding items.
fn flooded_session(files: usize, padding: usize) -> Vec<Value> {
    let flood: String = (0..60)
        .map(|n| {
            format!(
                "Error: timeout after {} ms (request {:08x})\n",
                1000 + n,
                n * 7919
            )
        })
        .collect();
    let paths: String = (0..files)
        .map(|n| format!("M src/module_{n}/handler.rs\n"))
        .collect();
    let outputs = [
        flood,
        paths,
        "see https://docs.rs/serde and https://example.com/issue/7 and https://nodejs.org/api\n"
            .to_string(),
        "the fix is in `parse_config` and `Loader::open`\n".to_string(),
    ];
    let mut messages = vec![
        json!({"role": "system", "content": "You are a coding agent."}),
        json!({"role": "user", "content": long_directive()}),
    ];
    for (i, output) in outputs.iter().enumerate() {
        let id = format!("c{i}");
        messages.push(json!({"role": "assistant", "content": null, "tool_calls": [
            {"id": id, "type": "function", "function": {"name": "bash", "arguments": "{\"cmd\":\"make\"}"}}
        ]}));
        let body = format!("{output}{}", "building target ...\n".repeat(padding));
        messages.push(json!({"role": "tool", "tool_call_id": id, "content": body}));
    }
    messages.push(json!({"role": "assistant", "content": "Done."}));
    messages
}

/// The request `session_memory` sends for `messages`.
fn request_for(messages: Vec<Value>) -> SummaryRequest {
    let fake = FakeSummariser::new(Mode::Good);
    let ctx = messages_ctx(messages, pressure(9, 0.5, 0.0, true));
    run_tier(Tier::SessionMemory, &ctx, Some(&fake));
    fake.requests.into_inner().remove(0)
}

/// Tokens as the library counts a structured context's text (its default estimator).
fn tokens(item: &str) -> u64 {
    tiered_compaction::TokenCounter::count(&tiered_compaction::tokens::Estimator, item)
}

#[test]
fn directives_come_first_and_whole() {
    let request = request_for(flooded_session(20, 5));
    assert_eq!(request.must_keep[0], long_directive());
    assert_eq!(request.must_keep[0].chars().count(), 1016);
}

#[test]
fn a_flood_of_one_error_counts_once_and_leaves_room_for_every_kind() {
    let request = request_for(flooded_session(20, 5));
    let items = &request.must_keep[1..];
    let timeouts = items
        .iter()
        .filter(|item| item.starts_with("Error: timeout"))
        .count();
    assert_eq!(timeouts, 1, "{items:?}");
    assert!(
        items.iter().any(|item| item.starts_with("https://")),
        "{items:?}"
    );
    assert!(items.iter().any(|item| item == "parse_config"), "{items:?}");
    let paths = items.iter().filter(|item| item.ends_with(".rs")).count();
    assert!(paths >= 10, "only {paths} paths: {items:?}");
    // Fair order: the first round holds one of each kind present, the flood's error first.
    assert!(items[0].starts_with("Error: timeout"), "{items:?}");
    assert!(items[1].ends_with("handler.rs"), "{items:?}");
    assert!(items[2].starts_with("https://"), "{items:?}");
    assert_eq!(items[3], "parse_config");
}

#[test]
fn the_list_follows_the_target_size() {
    let small = request_for(flooded_session(400, 0));
    let large = request_for(flooded_session(400, 400));
    assert!(large.target_tokens > small.target_tokens);
    assert!(
        large.must_keep.len() > small.must_keep.len(),
        "{} items for a target of {}, {} for {}",
        small.must_keep.len(),
        small.target_tokens,
        large.must_keep.len(),
        large.target_tokens
    );
    for request in [&small, &large] {
        // Besides the directive, items take at most half the target (one token per separator).
        let spent: u64 = request.must_keep[1..].iter().map(|i| tokens(i) + 1).sum();
        assert!(
            spent <= request.target_tokens / 2,
            "{spent} > {} / 2",
            request.target_tokens
        );
        // And the list is not cut short while there is room: the next file would not fit.
        assert!(spent + 8 > request.target_tokens / 2 || request.must_keep.len() > 400);
    }
}

#[test]
fn different_files_with_digits_are_different_items() {
    let request = request_for(flooded_session(3, 0));
    for n in 0..3 {
        let path = format!("src/module_{n}/handler.rs");
        assert!(
            request.must_keep.contains(&path),
            "{path}: {:?}",
            request.must_keep
        );
    }
}

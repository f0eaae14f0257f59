//! The edge-proxy path: a provider request body in, the same body out with only `messages`
//! compacted; every byte outside the edited messages is unchanged.

mod common;

use common::*;
use tiered_compaction::{Tier, compact_request_body};

fn anthropic_body() -> String {
    let log = "x".repeat(2000);
    format!(
        r#"{{ "model" : "claude-sonnet-4-5",  "max_tokens": 1024.50,
  "system": [{{"type":"text","text":"You are terse.","cache_control":{{"type":"ephemeral"}}}}],
  "metadata": {{"user_id": "u-1", "f": 0.30000000000000004}},
  "messages": [
    {{"role":"user","content":"Fix the bug in src/app.rs"}},
    {{"role":"assistant","content":[{{"type":"tool_use","id":"t1","name":"bash","input":{{"cmd":"cargo test"}}}}]}},
    {{"role":"user","content":[{{"type":"tool_result","tool_use_id":"t1","content":"{log}","cache_control":{{"type":"ephemeral"}}}}]}},
    {{"role":"assistant","content":"Fixed."}},
    {{"role":"user","content":"now make it fast"}}
  ],
  "stream": true, "tools": [{{"name":"bash","input_schema":{{"type":"object"}}}}] }}"#
    )
}

#[test]
fn micro_rewrites_only_the_collapsed_tool_result() {
    let body = anthropic_body();
    // Two steps; the newest one is the protected tail.
    let mut options = unbatched();
    options.policy.keep_recent_steps = 1;
    // The saving below is the seed's rule's (2,000 characters are 500 tokens).
    options.token_estimator = Some(tiered_compaction::tokens::TokenEstimator::Seed);
    let (out, result) = block_on(compact_request_body(
        &body,
        "s-edge",
        pressure(3, 0.2, 0.0, false),
        None,
        &options,
    ))
    .unwrap();
    assert_eq!(result.tier, Tier::Micro);
    assert_eq!(result.format, "anthropic");
    assert!(result.tokens_saved > 400);
    let messages_at = body.find("\"messages\"").unwrap();
    assert_eq!(
        &out[..messages_at],
        &body[..messages_at],
        "bytes before messages unchanged"
    );
    // From the array's closing bracket on (whitespace inside the array may be normalised).
    let tail = &body[body.find("],\n  \"stream\"").unwrap()..];
    assert!(out.ends_with(tail), "bytes after messages unchanged");
    assert!(out.contains(r#"{"role":"user","content":"Fix the bug in src/app.rs"}"#));
    let stub = &result.archive[0];
    assert!(out.contains(&format!(
        "[tool result body pruned: 2000 chars; recall: {}]",
        stub.id
    )));
    assert!(out.contains(r#""cache_control":{"type":"ephemeral"}"#));
    let parsed: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(parsed["messages"].as_array().unwrap().len(), 5);
}

#[test]
fn an_unchanged_body_comes_back_byte_for_byte() {
    let body = anthropic_body();
    let (out, result) = block_on(compact_request_body(
        &body,
        "s-edge",
        pressure(1, 0.2, 0.0, false),
        None,
        &unbatched(),
    ))
    .unwrap();
    assert_eq!(result.tier, Tier::None);
    assert_eq!(out, body);
}

/// Found by the body fuzz target: a number beyond `f64` outside the list is valid JSON that
/// serde_json cannot hold as a value; the body path passes it through as its bytes.
#[test]
fn a_number_beyond_f64_outside_the_list_passes_through_as_its_bytes() {
    let body =
        r#"{"model":"m","max_tokens":99999e551614,"messages":[{"role":"user","content":"hi"}]}"#;
    assert!(serde_json::from_str::<serde_json::Value>(body).is_err());
    let (out, result) = block_on(compact_request_body(
        body,
        "s-edge",
        pressure(1, 0.2, 0.0, false),
        None,
        &unbatched(),
    ))
    .unwrap();
    assert_eq!(result.tier, Tier::None);
    assert_eq!(out, body);
}

#[test]
fn bad_bodies_name_the_problem() {
    let p = pressure(3, 0.2, 0.0, false);
    let error = block_on(compact_request_body(
        "{\"model\": 1,",
        "s",
        p,
        None,
        &unbatched(),
    ))
    .unwrap_err();
    assert!(
        error.to_string().starts_with("body is not valid JSON"),
        "{error}"
    );
    let error = block_on(compact_request_body(
        "{\"model\": 1}",
        "s",
        p,
        None,
        &unbatched(),
    ))
    .unwrap_err();
    assert_eq!(
        error.to_string(),
        "body.messages is required (or body.input for the OpenAI Responses API, body.contents for Gemini)"
    );
}

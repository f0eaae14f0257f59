//! Bad input is refused with an error naming the field path; nothing panics.

mod common;

use common::*;
use serde_json::json;
use tiered_compaction::{
    BudgetPressure, CompactOptions, ContextInput, ErrorKind, FormatChoice, PolicyConfig, Tier,
    TierContext, compact, compact_with_tier,
};

fn messages_error(messages: serde_json::Value, format: FormatChoice) -> String {
    let ctx = TierContext::new(
        "s",
        pressure(2, 0.1, 0.0, false),
        ContextInput::Messages {
            messages: messages.as_array().unwrap().clone(),
            format,
        },
    );
    block_on(compact_with_tier(
        Tier::Micro,
        &ctx,
        &CompactOptions::default(),
    ))
    .unwrap_err()
    .to_string()
}

#[test]
fn pressure_fields_are_named() {
    let cases = [
        (
            json!({"turnCount": 1, "contextPctUsed": 2, "idleSeconds": 0, "sessionComplete": false}),
            "contextPctUsed must be a finite number in [0, 1], got 2",
        ),
        (
            json!({"turnCount": 1, "contextPctUsed": 0.5, "idleSeconds": -3, "sessionComplete": false}),
            "idleSeconds must be a finite number >= 0, got -3",
        ),
        (
            json!({"turnCount": 1.5, "contextPctUsed": 0.5, "idleSeconds": 0, "sessionComplete": false}),
            "turnCount must be an integer >= 0, got 1.5",
        ),
        (
            json!({"turnCount": 1, "contextPctUsed": 0.5, "idleSeconds": 0, "sessionComplete": 1}),
            "sessionComplete must be a boolean, got number",
        ),
        (
            json!({"turnCount": "1", "contextPctUsed": 0.5, "idleSeconds": 0, "sessionComplete": true}),
            "turnCount must be a number, got string",
        ),
    ];
    for (value, expected) in cases {
        let error = BudgetPressure::from_json(&value)
            .unwrap_err()
            .under("pressure");
        assert_eq!(error.to_string(), format!("pressure.{expected}"));
    }
}

#[test]
fn message_content_errors_name_the_index() {
    let message = messages_error(
        json!([
            {"role": "system", "content": "s"},
            {"role": "user", "content": "task"},
            {"role": "assistant", "content": "ok"},
            {"role": "user", "content": 42}
        ]),
        FormatChoice::Fixed(tiered_compaction::transcript::Format::OpenAi),
    );
    assert!(
        message.starts_with("messages[3].content: expected string or array of parts"),
        "{message}"
    );
}

#[test]
fn message_role_errors_name_the_index() {
    let message = messages_error(
        json!([{"role": "user", "content": "hi"}, {"role": "bot", "content": "x"}]),
        FormatChoice::Auto,
    );
    assert!(message.starts_with("messages[1].role"), "{message}");
}

#[test]
fn non_object_messages_are_refused() {
    let message = messages_error(
        json!([{"role": "user", "content": "hi"}, "oops"]),
        FormatChoice::Auto,
    );
    assert!(message.starts_with("messages[1]"), "{message}");
}

#[test]
fn policy_errors_name_the_option() {
    let ctx = text_ctx("hello", pressure(2, 0.1, 0.0, false));
    let options = CompactOptions {
        policy: PolicyConfig {
            micro_keep_head_chars: 500,
            ..PolicyConfig::default()
        },
        ..CompactOptions::default()
    };
    let error = block_on(compact(&ctx, &options)).unwrap_err();
    assert_eq!(error.kind, ErrorKind::Range);
    assert!(
        error
            .to_string()
            .starts_with("policy.microKeepHeadChars must not exceed"),
        "{error}"
    );
}

#[test]
fn negative_price_is_refused() {
    let mut ctx = text_ctx("hello", pressure(2, 0.1, 0.0, false));
    ctx.cost_per_1k_tokens = -1.0;
    let error = block_on(compact(&ctx, &CompactOptions::default())).unwrap_err();
    assert_eq!(
        error.to_string(),
        "costPer1kTokens must be a finite number >= 0, got -1"
    );
}

#[test]
fn unknown_tier_and_format_names_are_refused() {
    assert!(
        Tier::parse("mega", "tier")
            .unwrap_err()
            .to_string()
            .starts_with("tier must be one of")
    );
    assert!(
        FormatChoice::parse("xml")
            .unwrap_err()
            .to_string()
            .starts_with("format must be one of")
    );
}

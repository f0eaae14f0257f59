//! Input limits: oversized and pathologically nested inputs are refused with a `RangeError`
//! naming the field and the limit, never a stack overflow or an abort. Deep values are built and
//! dropped iteratively here, because serde_json's own `Drop` recurses (see `limits`' docs and
//! `recursive_drop_overflows_where_documented`).

mod common;

use common::*;
use proptest::prelude::*;
use serde_json::{Map, Value, json};
use tiered_compaction::api::limits::{self, Limits};
use tiered_compaction::{
    CompactOptions, ContextInput, ErrorKind, FormatChoice, PolicyConfig, Tier, TierContext,
    compact, compact_request_body, compact_with_tier, run_legacy_compaction,
};

/// `levels` containers around a string, built without recursion.
fn nested(levels: usize, objects: bool) -> Value {
    let mut value = Value::String("deep".into());
    for _ in 0..levels {
        value = if objects {
            let mut map = Map::new();
            map.insert("k".into(), value);
            Value::Object(map)
        } else {
            Value::Array(vec![value])
        };
    }
    value
}

fn deep_messages(levels: usize, objects: bool) -> Vec<Value> {
    vec![
        json!({"role": "user", "content": "fix it"}),
        json!({"role": "assistant", "content": "looking"}),
        json!({"role": "user", "content": "more"}),
        json!({"role": "assistant", "content": "ok"}),
        deep_user_message(nested(levels, objects)),
    ]
}

/// `{"role": "user", "metadata": {...}, "content": content}`, built by hand: `json!` would pass
/// `content` through `serde_json::to_value`, which recurses.
fn deep_user_message(content: Value) -> Value {
    let mut message = Map::new();
    message.insert("role".into(), json!("user"));
    message.insert("metadata".into(), json!({"a": 1}));
    message.insert("content".into(), content);
    Value::Object(message)
}

fn messages_ctx_of(messages: Vec<Value>) -> TierContext {
    TierContext::new(
        "s-limits",
        pressure(3, 0.8, 0.0, false),
        ContextInput::Messages {
            messages,
            format: FormatChoice::Auto,
        },
    )
}

/// Frees a context whose messages may be deep, without serde_json's recursive drop.
fn dispose(ctx: TierContext) {
    if let ContextInput::Messages { messages, .. } = ctx.input {
        messages.into_iter().for_each(limits::drop_iteratively);
    }
}

fn limited(max_input_bytes: usize, max_nesting_depth: usize) -> CompactOptions<'static> {
    CompactOptions {
        policy: PolicyConfig {
            max_input_bytes,
            max_nesting_depth,
            ..PolicyConfig::default()
        },
        ..CompactOptions::default()
    }
}

#[test]
fn ten_thousand_levels_are_refused_by_every_entry_point() {
    for objects in [false, true] {
        let ctx = messages_ctx_of(deep_messages(10_000, objects));
        let options = CompactOptions::default();
        let errors = [
            block_on(compact(&ctx, &options)).unwrap_err(),
            block_on(compact_with_tier(Tier::Micro, &ctx, &options)).unwrap_err(),
            block_on(compact_with_tier(Tier::None, &ctx, &options)).unwrap_err(),
            block_on(compact_with_tier(Tier::SessionMemory, &ctx, &options)).unwrap_err(),
        ];
        for error in errors {
            assert_eq!(error.kind, ErrorKind::Range);
            assert_eq!(
                error.to_string(),
                "messages[4].content: nesting deeper than 64 levels (maxNestingDepth)"
            );
        }
        dispose(ctx);
    }
}

#[test]
fn a_hundred_thousand_levels_are_measured_without_recursion() {
    let value = nested(100_000, true);
    assert_eq!(limits::depth(&value), 100_000);
    assert_eq!(limits::json_len(&value), 100_000 * 6 + 6);
    limits::drop_iteratively(value);
}

#[test]
fn depth_is_counted_from_the_message() {
    // A message object is level 1; its content array 2; a part 3; the part's input 4.
    let anthropic = json!({"role": "assistant", "content": [
        {"type": "tool_use", "id": "t", "name": "bash", "input": {"cmd": ["ls"]}}
    ]});
    assert_eq!(limits::depth(&anthropic), 5);
    let messages = vec![json!({"role": "user", "content": "go"}), anthropic];
    assert!(
        limited(1 << 20, 5)
            .policy
            .limits()
            .check_messages(&messages)
            .is_ok()
    );
    let error = limited(1 << 20, 4)
        .policy
        .limits()
        .check_messages(&messages)
        .unwrap_err();
    assert_eq!(
        error.to_string(),
        "messages[1].content: nesting deeper than 4 levels (maxNestingDepth)"
    );
    // Odd keys are quoted, array roots indexed, and the first too-deep child is named.
    let odd = json!({"a b": [[[1]]], "z": [[[[2]]]]});
    let error = limited(1 << 20, 3)
        .policy
        .limits()
        .check_messages(&[odd])
        .unwrap_err();
    assert_eq!(error.path, "messages[0][\"a b\"]");
    let error = limited(1 << 20, 1)
        .policy
        .limits()
        .check_messages(&[json!([1, [2]])])
        .unwrap_err();
    assert_eq!(error.path, "messages[0][1]");
    // An empty container counts as a level too.
    assert!(
        limited(1 << 20, 2)
            .policy
            .limits()
            .check_messages(&[json!({"a": {"b": {}}})])
            .is_err()
    );
}

#[test]
fn a_50_mb_string_is_refused() {
    let text = "a".repeat(50 * 1024 * 1024);
    let ctx = text_ctx(&text, pressure(3, 0.8, 0.0, false));
    let error = block_on(compact(&ctx, &CompactOptions::default())).unwrap_err();
    assert_eq!(error.kind, ErrorKind::Range);
    assert_eq!(
        error.to_string(),
        "text: 52428800 bytes exceeds maxInputBytes 33554432"
    );
    let error = block_on(compact(&ctx, &limited(16 * 1024 * 1024, 64))).unwrap_err();
    assert_eq!(
        error.to_string(),
        "text: 52428800 bytes exceeds maxInputBytes 16777216"
    );
    let error = block_on(run_legacy_compaction(
        "s",
        &text,
        None,
        None,
        &CompactOptions::default(),
    ))
    .unwrap_err();
    assert_eq!(error.path, "text");
    // The same string as a tool result inside messages: counted as JSON.
    let messages = vec![
        json!({"role": "user", "content": "read it"}),
        json!({"role": "tool", "tool_call_id": "c", "content": text}),
    ];
    let ctx = messages_ctx_of(messages);
    let error = block_on(compact(&ctx, &CompactOptions::default())).unwrap_err();
    assert_eq!(
        error.to_string(),
        format!(
            "messages: {} bytes as JSON exceeds maxInputBytes 33554432",
            serde_json::to_string(ctx_messages(&ctx)).unwrap().len()
        )
    );
}

fn ctx_messages(ctx: &TierContext) -> &[Value] {
    match &ctx.input {
        ContextInput::Messages { messages, .. } => messages,
        ContextInput::Text(_) => panic!("messages expected"),
    }
}

#[test]
fn inputs_at_the_limit_pass() {
    let text = "b".repeat(1000);
    let ctx = text_ctx(&text, pressure(3, 0.2, 0.0, false));
    assert!(block_on(compact(&ctx, &limited(1000, 1))).is_ok());
    assert!(block_on(compact(&ctx, &limited(999, 1))).is_err());
    let messages = vec![json!({"role": "user", "content": "hi"})];
    let exact = serde_json::to_string(&messages).unwrap().len();
    let ctx = messages_ctx_of(messages);
    assert!(block_on(compact(&ctx, &limited(exact, 1))).is_ok());
    let error = block_on(compact(&ctx, &limited(exact - 1, 1))).unwrap_err();
    assert_eq!(
        error.to_string(),
        format!(
            "messages: {exact} bytes as JSON exceeds maxInputBytes {}",
            exact - 1
        )
    );
}

#[test]
fn limits_themselves_are_validated() {
    let ctx = text_ctx("hello", pressure(2, 0.1, 0.0, false));
    let error = block_on(compact(&ctx, &limited(0, 64))).unwrap_err();
    assert_eq!(error.kind, ErrorKind::Range);
    assert_eq!(
        error.to_string(),
        "policy.maxInputBytes must be an integer >= 1, got 0"
    );
    let error = block_on(compact(&ctx, &limited(10, 0))).unwrap_err();
    assert_eq!(error.path, "policy.maxNestingDepth");
}

#[test]
fn limits_are_policy_options() {
    let policy =
        PolicyConfig::from_json(&json!({"maxInputBytes": 1000, "maxNestingDepth": 3})).unwrap();
    assert_eq!(
        policy.limits(),
        Limits {
            max_input_bytes: 1000,
            max_nesting_depth: 3
        }
    );
    assert_eq!(
        PolicyConfig::from_json(&json!({})).unwrap().limits(),
        Limits::default()
    );
    for (options, message) in [
        (
            json!({"maxInputBytes": 0}),
            "maxInputBytes must be an integer >= 1, got 0",
        ),
        (
            json!({"maxNestingDepth": 0}),
            "maxNestingDepth must be an integer >= 1, got 0",
        ),
    ] {
        let error = PolicyConfig::from_json(&options).unwrap_err();
        assert_eq!(error.kind, ErrorKind::Range);
        assert_eq!(error.to_string(), message);
    }
    for options in [
        json!({"maxInputBytes": 1.5}),
        json!({"maxInputBytes": -1}),
        json!({"maxNestingDepth": "64"}),
        json!({"maxInputBytes": 1e12}),
    ] {
        let error = PolicyConfig::from_json(&options).unwrap_err();
        assert!(
            error.path == "maxInputBytes" || error.path == "maxNestingDepth",
            "{error}"
        );
    }
}

#[test]
fn a_deep_body_is_refused_by_the_parser_naming_the_body() {
    let deep = format!("{}1{}", "[".repeat(10_000), "]".repeat(10_000));
    let body = format!("{{\"messages\":[{{\"role\":\"user\",\"content\":{deep}}}]}}");
    let error = block_on(compact_request_body(
        &body,
        "s",
        pressure(3, 0.2, 0.0, false),
        None,
        &CompactOptions::default(),
    ))
    .unwrap_err();
    // serde_json stops at 128 levels: valid JSON, too deep to read, so a range error (a JS
    // RangeError) naming the body, with the parser's words.
    assert_eq!(error.kind, ErrorKind::Range);
    assert_eq!(error.path, "body");
    assert!(
        error
            .to_string()
            .starts_with("body: nesting deeper than 128 levels (recursion limit exceeded"),
        "{error}"
    );
}

#[test]
fn a_body_within_the_parser_limit_meets_the_depth_limit() {
    // 100 levels: serde_json reads it (its limit is 128), the engine refuses it (64).
    let deep = format!("{}1{}", "[".repeat(100), "]".repeat(100));
    let body = format!("{{\"messages\":[{{\"role\":\"user\",\"content\":{deep}}}]}}");
    let error = block_on(compact_request_body(
        &body,
        "s",
        pressure(3, 0.2, 0.0, false),
        None,
        &CompactOptions::default(),
    ))
    .unwrap_err();
    assert_eq!(error.kind, ErrorKind::Range);
    assert!(
        error
            .to_string()
            .ends_with("messages[0].content: nesting deeper than 64 levels (maxNestingDepth)"),
        "{error}"
    );
}

#[test]
fn a_50_mb_body_is_refused() {
    let log = "x".repeat(50 * 1024 * 1024);
    let body = format!(
        "{{\"model\":\"m\",\"messages\":[{{\"role\":\"user\",\"content\":\"go\"}},{{\"role\":\"tool\",\"tool_call_id\":\"c\",\"content\":\"{log}\"}}]}}"
    );
    let error = block_on(compact_request_body(
        &body,
        "s",
        pressure(3, 0.2, 0.0, false),
        None,
        &CompactOptions::default(),
    ))
    .unwrap_err();
    assert_eq!(error.kind, ErrorKind::Range);
    assert!(
        error.to_string().contains("exceeds maxInputBytes 33554432"),
        "{error}"
    );
}

/// Message lists whose source text is shorter than what serde_json writes back: numbers in their
/// short forms (`1E3` is written `1000.0`, `-0` is `-0.0`), beside escapes and whitespace that
/// shrink.
const GROWING_SOURCES: [&str; 3] = [
    r#"[{"role":"user","content":"go","n":[1E3,-0,5e-324,1E+300,7E22,0.1E1]}]"#,
    r#"[ {"role":"user","content":"\u0041\/\ud83d\udc69","content":"kept"} , {"n":1E3} ]"#,
    r#"[{"n":[1E1,2E2,3E3,4E4,5E5,6E6,7E7,8E8,9E9]}]"#,
];

#[test]
fn a_list_read_from_text_is_settled_by_its_text_only_when_that_bounds_it() {
    for source in GROWING_SOURCES {
        let messages: Vec<Value> = serde_json::from_str(source).unwrap();
        let exact = serde_json::to_string(&messages).unwrap().len();
        for max_input_bytes in [exact - 1, exact, source.len(), source.len() + 40] {
            let limits = Limits {
                max_input_bytes,
                max_nesting_depth: 64,
            };
            let read_from = limits.check_messages_read_from(&messages, Some(source.len()));
            assert_eq!(
                read_from.map_err(|e| e.to_string()),
                limits.check_messages(&messages).map_err(|e| e.to_string()),
                "{source} at {max_input_bytes}"
            );
        }
    }
    // The first and last grow: their text fits a limit their JSON does not.
    let grown: Vec<Value> = serde_json::from_str(GROWING_SOURCES[2]).unwrap();
    assert!(serde_json::to_string(&grown).unwrap().len() > GROWING_SOURCES[2].len());
}

#[test]
fn a_body_whose_numbers_grow_past_the_limit_is_refused() {
    // The body fits maxInputBytes; its messages, written back as JSON, do not.
    let numbers = vec!["1E3"; 100].join(",");
    let body =
        format!(r#"{{"model":"m","messages":[{{"role":"user","content":"go","n":[{numbers}]}}]}}"#);
    let messages = &serde_json::from_str::<Value>(&body).unwrap()["messages"];
    let exact = serde_json::to_string(messages).unwrap().len();
    let max = body.len() + 10;
    assert!(exact > max, "{exact} <= {max}");
    let policy = PolicyConfig::from_json(&json!({ "maxInputBytes": max })).unwrap();
    let options = CompactOptions {
        policy,
        ..CompactOptions::default()
    };
    let error = block_on(compact_request_body(
        &body,
        "s",
        pressure(1, 0.2, 0.0, false),
        None,
        &options,
    ))
    .unwrap_err();
    assert_eq!(
        error.to_string(),
        format!("messages: {exact} bytes as JSON exceeds maxInputBytes {max}")
    );
}

/// Run in a child process by `recursive_drop_overflows_where_documented`: drops a value of
/// `TC_PROBE_LEVELS` nested objects the ordinary (recursive) way on a 2 MiB thread.
#[test]
#[ignore = "a probe run in a child process; it is meant to crash"]
fn probe_recursive_drop() {
    let Some(levels) = std::env::var("TC_PROBE_LEVELS")
        .ok()
        .and_then(|v| v.parse().ok())
    else {
        return;
    };
    std::thread::Builder::new()
        .stack_size(2 * 1024 * 1024)
        .spawn(move || drop(nested(levels, true)))
        .expect("thread")
        .join()
        .expect("joined");
}

/// The hazard `limits::drop_iteratively` exists for, measured: in a debug build, dropping 10,000
/// levels of nested objects the ordinary way overflows a 2 MiB thread stack and aborts the
/// process; 1,000 levels do not. (Release builds go further; the check is debug-only.)
#[test]
fn recursive_drop_overflows_where_documented() {
    if !cfg!(debug_assertions) {
        return;
    }
    let probe = |levels: usize| {
        std::process::Command::new(std::env::current_exe().expect("test binary"))
            .args([
                "--exact",
                "probe_recursive_drop",
                "--ignored",
                "--nocapture",
            ])
            .env("TC_PROBE_LEVELS", levels.to_string())
            .output()
            .expect("child runs")
    };
    assert!(probe(1_000).status.success());
    let deep = probe(10_000);
    assert!(!deep.status.success());
    assert!(
        String::from_utf8_lossy(&deep.stderr).contains("overflowed its stack"),
        "{}",
        String::from_utf8_lossy(&deep.stderr)
    );
    // The same depth, dropped through the library, is fine on this (2 MiB) test thread.
    limits::drop_iteratively(nested(10_000, true));
}

fn any_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        any::<u64>().prop_map(|n| json!(n)),
        any::<f64>()
            .prop_filter("finite", |x| x.is_finite())
            .prop_map(|x| json!(x)),
        any::<String>().prop_map(Value::String),
        "[\"\\\\\u{0}-\u{1f}\u{7f}\u{e9}\u{2028}👩\u{200d}👦]{0,8}".prop_map(Value::String),
    ];
    leaf.prop_recursive(6, 64, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::vec((any::<String>(), inner), 0..6)
                .prop_map(|fields| Value::Object(fields.into_iter().collect())),
        ]
    })
}

fn depth_recursive(value: &Value) -> usize {
    match value {
        Value::Array(items) => 1 + items.iter().map(depth_recursive).max().unwrap_or(0),
        Value::Object(fields) => 1 + fields.values().map(depth_recursive).max().unwrap_or(0),
        _ => 0,
    }
}

proptest! {
    #![proptest_config(common::cases::config(256))]

    #[test]
    fn json_len_is_the_serialised_length(value in any_json()) {
        prop_assert_eq!(limits::json_len(&value), serde_json::to_string(&value).unwrap().len());
        prop_assert_eq!(limits::depth(&value), depth_recursive(&value));
    }

    #[test]
    fn a_list_read_from_its_pretty_text_is_settled_as_measured(
        messages in prop::collection::vec(any_json(), 0..5),
    ) {
        let source = serde_json::to_string_pretty(&messages).unwrap();
        let exact = serde_json::to_string(&messages).unwrap().len();
        // `exact` is at least 2 (`[]`), so every limit here is valid.
        for max_input_bytes in [exact - 1, exact, source.len()] {
            let limits = Limits { max_input_bytes, max_nesting_depth: usize::MAX };
            prop_assert_eq!(
                limits.check_messages_read_from(&messages, Some(source.len())).map_err(|e| e.to_string()),
                limits.check_messages(&messages).map_err(|e| e.to_string())
            );
        }
    }

    #[test]
    fn messages_size_is_the_serialised_length(messages in prop::collection::vec(any_json(), 0..5)) {
        let exact = serde_json::to_string(&messages).unwrap().len();
        let fits = Limits { max_input_bytes: exact, max_nesting_depth: usize::MAX };
        prop_assert!(fits.check_messages(&messages).is_ok());
        let short = Limits { max_input_bytes: exact - 1, ..fits };
        // Over the limit, the error gives the exact size, whichever bounds were replaced.
        prop_assert_eq!(
            short.check_messages(&messages).unwrap_err().to_string(),
            format!("messages: {exact} bytes as JSON exceeds maxInputBytes {}", exact - 1)
        );
    }
}

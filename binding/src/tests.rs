//! Binding tests (wasm-bindgen-test): the JS-visible shape of every export — camelCase keys,
//! omitted optional fields, error classes with `code` and `path`, the summariser request.
//! Run in Node and in headless Chromium by `scripts/wasm-tests.mjs` (see there why they live in
//! the binding rather than in `tests/`).

use super::*;
use js_sys::{Array, Function, JSON, Object, Reflect};
use wasm_bindgen::JsCast;
use wasm_bindgen_test::wasm_bindgen_test;

/// Evaluates a JS expression (object literals with NaN, functions, promises).
fn js(expression: &str) -> JsValue {
    Function::new_no_args(&format!("return ({expression});"))
        .call0(&JsValue::UNDEFINED)
        .expect("test expression evaluates")
}

fn get(object: &JsValue, key: &str) -> JsValue {
    Reflect::get(object, &JsValue::from_str(key)).expect("readable")
}

fn keys(object: &JsValue) -> Vec<String> {
    Object::keys(object.unchecked_ref::<Object>())
        .iter()
        .map(|key| key.as_string().expect("string key"))
        .collect()
}

fn pressure(turn: f64, pct: f64, idle: f64, complete: bool) -> JsValue {
    let [turn, pct, idle] = [turn, pct, idle].map(compaction::error::describe_number);
    js(&format!(
        "{{ turnCount: {turn}, contextPctUsed: {pct}, idleSeconds: {idle}, sessionComplete: {complete} }}"
    ))
}

/// Asserts `error` is a real `Error` of class `class` with `message`, `code` and `path`.
fn assert_error(error: &JsValue, class: &str, message: &str, code: &str, path: &str) {
    let as_error = error
        .dyn_ref::<js_sys::Error>()
        .expect("an Error object, not a string");
    assert_eq!(String::from(as_error.name()), class);
    assert_eq!(String::from(as_error.message()), message);
    assert_eq!(get(error, "code").as_string().as_deref(), Some(code));
    assert_eq!(get(error, "path").as_string().as_deref(), Some(path));
}

const TEXT_CONTEXT: &str = r#"{
    sessionId: "s-1",
    pressure: { turnCount: 3, contextPctUsed: 0.2, idleSeconds: 0, sessionComplete: false },
    text: "```tool_result name=bash\n" + "C".repeat(900) + "\n```"
}"#;

#[wasm_bindgen_test]
fn select_tier_returns_the_wire_name() {
    let cases = [
        ((3.0, 0.70, 0.0, false), "auto"),
        ((3.0, 0.1, 300.0, false), "time_based"),
        ((1.0, 0.3, 0.0, false), "none"),
        ((2.0, 0.1, 0.0, false), "micro"),
        ((5.0, 0.99, 0.0, true), "session_memory"),
    ];
    for ((turn, pct, idle, complete), tier) in cases {
        let chosen = select_tier(pressure(turn, pct, idle, complete), JsValue::UNDEFINED).unwrap();
        assert_eq!(chosen, tier);
    }
}

#[wasm_bindgen_test]
fn select_tier_reads_policy_in_camel_case() {
    let policy = js("{ autoContextPct: 0.5, costWeights: { auto: 0.25 } }");
    assert_eq!(
        select_tier(pressure(3.0, 0.5, 0.0, false), policy).unwrap(),
        "auto"
    );
}

#[wasm_bindgen_test]
fn nan_pressure_is_a_range_error_naming_the_field() {
    let error = select_tier(pressure(1.0, f64::NAN, 0.0, false), JsValue::UNDEFINED).unwrap_err();
    assert_error(
        &error,
        "RangeError",
        "pressure.contextPctUsed must be a finite number in [0, 1], got NaN",
        "ERR_TC_OUT_OF_RANGE",
        "pressure.contextPctUsed",
    );
    let error =
        select_tier(pressure(1.0, 0.1, f64::INFINITY, false), JsValue::UNDEFINED).unwrap_err();
    assert_error(
        &error,
        "RangeError",
        "pressure.idleSeconds must be a finite number >= 0, got Infinity",
        "ERR_TC_OUT_OF_RANGE",
        "pressure.idleSeconds",
    );
}

#[wasm_bindgen_test]
fn wrong_types_are_type_errors() {
    let error = select_tier(
        js(r#"{ turnCount: 1, contextPctUsed: 0.1, idleSeconds: 0, sessionComplete: "yes" }"#),
        JsValue::UNDEFINED,
    )
    .unwrap_err();
    assert_error(
        &error,
        "TypeError",
        "pressure.sessionComplete must be a boolean, got string",
        "ERR_TC_INVALID_TYPE",
        "pressure.sessionComplete",
    );
    let error = select_tier(JsValue::NULL, JsValue::UNDEFINED).unwrap_err();
    assert_error(
        &error,
        "TypeError",
        "pressure must be an object, got null",
        "ERR_TC_INVALID_TYPE",
        "pressure",
    );
    let error = estimate_tokens(JsValue::from_f64(3.0), JsValue::UNDEFINED).unwrap_err();
    assert_error(
        &error,
        "TypeError",
        "text must be a string, got number",
        "ERR_TC_INVALID_TYPE",
        "text",
    );
}

#[wasm_bindgen_test]
fn unknown_policy_keys_are_named() {
    let error = select_tier(
        pressure(1.0, 0.1, 0.0, false),
        js("{ autoContextPCT: 0.5 }"),
    )
    .unwrap_err();
    let message = String::from(error.unchecked_ref::<js_sys::Error>().message());
    assert!(
        message.starts_with("policy.autoContextPCT is not a known field"),
        "{message}"
    );
    assert_eq!(
        get(&error, "path").as_string().as_deref(),
        Some("policy.autoContextPCT")
    );
    let error = select_tier(
        pressure(1.0, 0.1, 0.0, false),
        js("{ costWeights: { timeBased: 1 } }"),
    )
    .unwrap_err();
    assert_eq!(
        get(&error, "path").as_string().as_deref(),
        Some("policy.costWeights.timeBased")
    );
    let error =
        select_tier(pressure(1.0, 0.1, 0.0, false), js("{ microMinTurn: 1.5 }")).unwrap_err();
    assert_error(
        &error,
        "RangeError",
        "policy.microMinTurn must be an integer in [0, 9007199254740991], got 1.5",
        "ERR_TC_OUT_OF_RANGE",
        "policy.microMinTurn",
    );
}

#[wasm_bindgen_test]
fn estimate_tokens_follows_the_seed_rule() {
    assert_eq!(
        estimate_tokens(JsValue::from_str(""), JsValue::UNDEFINED).unwrap(),
        0.0
    );
    assert_eq!(
        estimate_tokens(JsValue::from_str("abc"), JsValue::UNDEFINED).unwrap(),
        1.0
    );
    assert_eq!(
        estimate_tokens(js(r#""a".repeat(40)"#), JsValue::UNDEFINED).unwrap(),
        10.0
    );
}

#[wasm_bindgen_test]
fn cost_weight_table_is_keyed_by_tier() {
    let table = tier_cost_weight_table();
    assert_eq!(
        keys(&table),
        ["none", "micro", "time_based", "auto", "session_memory"]
    );
    assert_eq!(get(&table, "time_based").as_f64(), Some(0.10));
}

#[wasm_bindgen_test]
async fn bad_context_rejects_with_named_fields() {
    let both = js(
        r#"{ sessionId: "s", pressure: { turnCount: 1, contextPctUsed: 0, idleSeconds: 0, sessionComplete: false }, text: "a", messages: [] }"#,
    );
    let error = compact(both, JsValue::UNDEFINED).await.unwrap_err();
    assert_error(
        &error,
        "TypeError",
        "ctx must have exactly one of messages or text, got both",
        "ERR_TC_INVALID_TYPE",
        "ctx",
    );
    let typo = js(r#"{ sessionID: "s" }"#);
    let error = compact(typo, JsValue::UNDEFINED).await.unwrap_err();
    assert_eq!(
        get(&error, "path").as_string().as_deref(),
        Some("sessionID")
    );
    let error = compact(js(TEXT_CONTEXT), js("{ timeoutMs: -1 }"))
        .await
        .unwrap_err();
    assert_error(
        &error,
        "RangeError",
        "options.timeoutMs must be a finite number in [0, 2147483647], got -1",
        "ERR_TC_OUT_OF_RANGE",
        "options.timeoutMs",
    );
    let error = compact(js(TEXT_CONTEXT), js(r#"{ summarise: "yes" }"#))
        .await
        .unwrap_err();
    assert_eq!(
        String::from(error.unchecked_ref::<js_sys::Error>().message()),
        "options.summarise must be a function, got string"
    );
    let error = compact_with_tier(
        JsValue::from_str("huge"),
        js(TEXT_CONTEXT),
        JsValue::UNDEFINED,
    )
    .await
    .unwrap_err();
    assert_eq!(get(&error, "path").as_string().as_deref(), Some("tier"));
    let error = run_legacy_compaction(
        JsValue::from_str("s"),
        JsValue::from_str("text"),
        js("{ contextPctUsed: 2 }"),
    )
    .await
    .unwrap_err();
    assert_eq!(
        get(&error, "path").as_string().as_deref(),
        Some("opts.contextPctUsed")
    );
    let error = compact_request_body(JsValue::from_str("{}"), JsValue::UNDEFINED)
        .await
        .unwrap_err();
    assert_error(
        &error,
        "TypeError",
        "options must be an object, got undefined",
        "ERR_TC_INVALID_TYPE",
        "options",
    );
}

/// Every key of every object reachable from `value` is camelCase (no `_`).
fn assert_camel_case(value: &JsValue, at: &str) {
    if let Some(array) = value.dyn_ref::<Array>() {
        for (index, item) in array.iter().enumerate() {
            assert_camel_case(&item, &format!("{at}[{index}]"));
        }
    } else if value.is_object() && !value.is_function() {
        for key in keys(value) {
            assert!(!key.contains('_'), "{at}.{key} is not camelCase");
            assert_camel_case(&get(value, &key), &format!("{at}.{key}"));
        }
    }
}

#[wasm_bindgen_test]
async fn text_result_has_the_documented_shape() {
    let result = compact(js(TEXT_CONTEXT), JsValue::UNDEFINED).await.unwrap();
    assert_eq!(
        keys(&result),
        [
            "tier",
            "text",
            "beforeTokens",
            "afterTokens",
            "tokensSaved",
            "costEstimate",
            "correlationId",
            "reason",
            "archive",
            "format"
        ]
    );
    assert_eq!(get(&result, "tier").as_string().as_deref(), Some("micro"));
    assert_eq!(get(&result, "beforeTokens").as_f64(), Some(232.0));
    assert_eq!(get(&result, "afterTokens").as_f64(), Some(36.0));
    let archive = get(&result, "archive");
    let entry = get(&archive, "0");
    assert_eq!(
        keys(&entry),
        ["id", "kind", "content", "location", "replacement"]
    );
    assert_eq!(
        get(&entry, "kind").as_string().as_deref(),
        Some("tool_result")
    );
    assert_camel_case(&result, "result");
}

#[wasm_bindgen_test]
async fn summariser_gets_a_camel_case_request_and_usage_comes_back() {
    let seen = Array::new();
    let store = js(r#"(seen) => (request) => {
        seen.push(request);
        return Promise.resolve({ summary: "short", usage: { inputTokens: 10, outputTokens: 2, costUsd: 0.001 } });
    }"#)
    .unchecked_into::<Function>()
    .call1(&JsValue::UNDEFINED, &seen)
    .unwrap();
    let options = Object::new();
    Reflect::set(&options, &"summarise".into(), &store).unwrap();
    let context = js(r#"{
        sessionId: "s-2",
        pressure: { turnCount: 9, contextPctUsed: 0.5, idleSeconds: 0, sessionComplete: true },
        text: "[age:3] " + "a long old discussion of the build. ".repeat(60)
    }"#);
    let result = compact(context, options.into()).await.unwrap();
    assert_eq!(
        get(&result, "tier").as_string().as_deref(),
        Some("session_memory")
    );
    assert_eq!(seen.length(), 1);
    let request = seen.get(0);
    assert_eq!(
        keys(&request),
        [
            "tier",
            "sessionId",
            "correlationId",
            "instructions",
            "transcript",
            "messages",
            "targetTokens",
            "mustKeep",
            "signal"
        ]
    );
    assert_eq!(
        get(&request, "sessionId").as_string().as_deref(),
        Some("s-2")
    );
    assert_eq!(
        get(&get(&request, "signal"), "aborted").as_bool(),
        Some(false)
    );
    let usage = get(&result, "summariserUsage");
    assert_eq!(keys(&usage), ["inputTokens", "outputTokens", "costUsd"]);
    assert!(get(&result, "summary").as_string().is_some());
    assert_camel_case(&result, "result");
}

#[wasm_bindgen_test]
async fn a_throwing_counter_rejects_naming_the_option() {
    let options = js(r#"{ countTokens: () => { throw new Error("tokenizer down"); } }"#);
    let error = compact(js(TEXT_CONTEXT), options).await.unwrap_err();
    assert_error(
        &error,
        "TypeError",
        "options.countTokens threw: tokenizer down",
        "ERR_TC_CALLBACK",
        "options.countTokens",
    );
    let cause = get(&error, "cause");
    assert_eq!(
        String::from(cause.unchecked_ref::<js_sys::Error>().message()),
        "tokenizer down"
    );
    let options = js(r#"{ countTokens: () => -1 }"#);
    let error = compact(js(TEXT_CONTEXT), options).await.unwrap_err();
    assert_error(
        &error,
        "TypeError",
        "options.countTokens must return an integer >= 0, got -1",
        "ERR_TC_INVALID_TYPE",
        "options.countTokens",
    );
}

#[wasm_bindgen_test]
async fn trace_line_round_trips_a_result() {
    let result = compact(js(TEXT_CONTEXT), JsValue::UNDEFINED).await.unwrap();
    let line = record_tier_event(result, js(r#"{ timestamp: 12.5, traceId: "t-1" }"#)).unwrap();
    assert!(!line.contains('\n'));
    let step = JSON::parse(&line).unwrap();
    assert_eq!(get(&step, "type").as_string().as_deref(), Some("compact"));
    assert_eq!(get(&step, "timestamp").as_f64(), Some(12.5));
    assert_eq!(get(&step, "traceId").as_string().as_deref(), Some("t-1"));
    assert_eq!(
        get(&step, "compaction_tier").as_string().as_deref(),
        Some("micro")
    );
    let error =
        record_tier_event(js("{ tier: 'micro', text: 'x' }"), JsValue::UNDEFINED).unwrap_err();
    assert_error(
        &error,
        "TypeError",
        "result.costEstimate is required",
        "ERR_TC_INVALID_TYPE",
        "result.costEstimate",
    );
}

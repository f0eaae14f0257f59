//! Gemini `contents` in every tier: an agent run as Google's ADK stores it (thought summaries,
//! thought signatures on calls, calls paired by id or by name and order, `functionResponse`
//! bodies under `output` / `result`), checked on the wire by `common/provider.rs`; where a stub
//! goes in a `functionResponse`; the role order repaired; the request-body path (`contents` +
//! `systemInstruction`); detection; the recall tool.

use crate::common::provider::{self, gemini_problems};
use crate::common::*;
use serde_json::{Value, json};
use tiered_compaction::transcript::Format;
use tiered_compaction::{Tier, TierResult, compact_request_body};

/// An ADK-style run: the task with a screenshot, then per step a model content (a thought
/// summary, a call carrying the step's thought signature, and every third step a second,
/// parallel call of the same tool without an id) and a user content with the responses.
fn run(steps: usize) -> Vec<Value> {
    let mut contents = vec![json!({"role": "user", "parts": [
        {"text": "Fix the failing test in src/lib.rs."},
        {"inlineData": {"mimeType": "image/png", "data": "iVBORw0KGgo".repeat(300)}}
    ]})];
    for step in 0..steps {
        let mut calls = vec![json!({
            "functionCall": {"id": format!("c{step}"), "name": "run_tests", "args": {"path": "src", "file": format!("// {step}\n{}", "let a = 1;\n".repeat(60))}},
            "thoughtSignature": format!("sig-{step}")
        })];
        let mut responses = vec![
            json!({"functionResponse": {"id": format!("c{step}"), "name": "run_tests", "response": {"result": failing_test_log(step)}}}),
        ];
        if step % 3 == 0 {
            calls.push(json!({"functionCall": {"name": "read_file", "args": {"path": "a.rs"}}}));
            calls.push(json!({"functionCall": {"name": "read_file", "args": {"path": "b.rs"}}}));
            responses.push(json!({"functionResponse": {"name": "read_file", "response": {"output": format!("// a.rs\n{}", "fn a() {}\n".repeat(50))}}}));
            responses.push(json!({"functionResponse": {"name": "read_file", "response": {"output": format!("// b.rs\n{}", "fn b() {}\n".repeat(50))}}}));
        }
        let mut parts = vec![
            json!({"text": format!("Step {step}: {}", "thinking ".repeat(40)), "thought": true}),
        ];
        parts.extend(calls);
        contents.push(json!({"role": "model", "parts": parts}));
        contents.push(json!({"role": "user", "parts": responses}));
    }
    contents.push(json!({"role": "model", "parts": [{"text": "Fixed: x was renamed."}]}));
    contents
}

/// Every part of `output` that carries a thought signature carries it where the input had it:
/// on a call that is still that call, or on the text that took the place of its part.
fn signatures_stay(input: &[Value], output: &[Value]) {
    let signed = |contents: &[Value]| -> Vec<(String, Value)> {
        contents
            .iter()
            .flat_map(|content| content["parts"].as_array().into_iter().flatten())
            .filter_map(|part| {
                Some((
                    part.get("thoughtSignature")?.as_str()?.to_string(),
                    part.clone(),
                ))
            })
            .collect()
    };
    let before = signed(input);
    for (signature, part) in signed(output) {
        let (_, original) = before
            .iter()
            .find(|(s, _)| *s == signature)
            .expect("a signature of the input");
        match original.get("functionCall") {
            Some(call) => {
                assert_eq!(part["functionCall"]["name"], call["name"]);
                assert_eq!(part["functionCall"]["id"], call["id"]);
            }
            None => assert!(part.get("text").is_some()),
        }
    }
}

/// What holds for every tier's output: the provider takes it, it restores, and signatures stay.
fn check(tier: Tier, input: &[Value], result: &TierResult) -> Vec<Value> {
    let output = crate::output_of("gemini", tier, input, result);
    assert_eq!(gemini_problems(&output), vec![], "{tier}");
    signatures_stay(input, &output);
    output
}

#[test]
fn every_tier_keeps_the_contents_valid() {
    let input = run(10);
    assert_eq!(gemini_problems(&input), vec![]);
    crate::every_tier(&input, |tier, result| {
        let output = check(tier, &input, result);
        if tier != Tier::SessionMemory {
            assert_eq!(
                output[0]["parts"][0], input[0]["parts"][0],
                "{tier}: the task"
            );
            // The protected tail: the three newest steps (a model content and its answer).
            let tail = input.len() - 5;
            assert!(output.ends_with(&input[tail..]), "{tier}: tail");
        }
    });
}

#[test]
fn micro_stubs_each_response_where_its_body_was() {
    let input = run(10);
    let result = compact_late(Tier::Micro, &input, &unbatched());
    let output = check(Tier::Micro, &input, &result);
    assert_eq!(output.len(), input.len());
    // Step 0: a `result` body, then two `output` bodies paired by name and order.
    let responses = output[2]["parts"].as_array().unwrap();
    let first = responses[0]["functionResponse"]["response"]["result"]
        .as_str()
        .unwrap();
    assert!(
        first.contains("error[E0425]: cannot find value `x0`"),
        "{first}"
    );
    assert!(first.contains("[tool result body pruned:"), "{first}");
    assert_eq!(responses[0]["functionResponse"]["id"], "c0");
    for response in &responses[1..] {
        let body = response["functionResponse"]["response"]["output"]
            .as_str()
            .unwrap();
        assert!(body.contains("[tool result body pruned:"), "{body}");
    }
    let locations: Vec<&str> = result.archive.iter().map(|e| e.location.as_str()).collect();
    assert!(locations.contains(&"messages[2].parts[0].functionResponse.response.result"));
    assert!(locations.contains(&"messages[2].parts[1].functionResponse.response.output"));
    assert!(locations.contains(&"messages[1].parts[1].functionCall.args"));
    // The call keeps its id, name and signature; its args stay an object, the file stubbed in it.
    let call = &output[1]["parts"][1];
    assert_eq!(call["thoughtSignature"], "sig-0");
    assert_eq!(call["functionCall"]["id"], "c0");
    assert!(
        call["functionCall"]["args"]["file"]
            .as_str()
            .unwrap()
            .contains("[tool input pruned:")
    );
    assert_eq!(
        output[1]["parts"][0], input[1]["parts"][0],
        "thoughts are not micro's"
    );
}

#[test]
fn time_based_archives_thoughts_and_auto_strips_media() {
    let input = run(10);
    let result = compact_late(Tier::TimeBased, &input, &unbatched());
    let output = check(Tier::TimeBased, &input, &result);
    let thought = &output[1]["parts"][0];
    assert!(
        thought["text"]
            .as_str()
            .unwrap()
            .starts_with("[thinking archived"),
        "{thought}"
    );
    assert!(thought.get("thought").is_none(), "the marker is plain text");
    assert!(
        result
            .archive
            .iter()
            .any(|e| e.kind == "thinking" && e.content == input[1]["parts"][0])
    );
    let result = compact_late(Tier::Auto, &input, &unbatched());
    check(Tier::Auto, &input, &result);
    // The task's screenshot is in a protected message; in another user message it goes.
    let mut later = input.clone();
    let last = later.len() - 1;
    later.insert(
        last,
        json!({"role": "user", "parts": [{"text": "Here is the log."},
        {"inlineData": {"mimeType": "image/png", "data": "iVBORw0KGgo".repeat(300)}}]}),
    );
    later.insert(
        last + 1,
        json!({"role": "model", "parts": [{"text": "Looking."}]}),
    );
    later.push(json!({"role": "user", "parts": [{"text": "And?"}]}));
    later.push(json!({"role": "model", "parts": [{"text": "Done."}]}));
    for step in 0..3 {
        later.push(json!({"role": "user", "parts": [{"text": format!("More {step}")}]}));
        later.push(json!({"role": "model", "parts": [{"text": "Ok."}]}));
    }
    // A low target, so that auto goes past micro's stubs to the media (issue 15's budget).
    let mut options = unbatched();
    options.policy.auto_target_pct = 0.05;
    let result = compact_late(Tier::Auto, &later, &options);
    let output = check(Tier::Auto, &later, &result);
    let placeholder = output
        .iter()
        .flat_map(|c| c["parts"].as_array().into_iter().flatten())
        .filter_map(|p| p["text"].as_str())
        .find(|t| t.contains("[media removed: image/png"));
    // (At this target the stripped image's message is then digested too: the placeholder is
    // in the digest.)
    assert!(placeholder.is_some(), "{output:?}");
    assert!(result.archive.iter().any(|e| e.kind == "media"));
}

#[test]
fn session_memory_is_one_user_content() {
    let input = run(6);
    let result = compact_late(Tier::SessionMemory, &input, &unbatched());
    let output = check(Tier::SessionMemory, &input, &result);
    assert_eq!(output.len(), 1);
    assert_eq!(output[0]["role"], "user");
    let summary = output[0]["parts"][0]["text"].as_str().unwrap();
    assert!(summary.starts_with("[session summary]"));
    assert!(summary.contains("Fix the failing test in src/lib.rs."));
}

#[test]
fn a_stub_in_a_response_without_one_string_body() {
    let big = "row,".repeat(400);
    let contents = vec![
        json!({"role": "user", "parts": [{"text": "List it."}]}),
        json!({"role": "model", "parts": [{"functionCall": {"name": "query", "args": {}}}]}),
        json!({"role": "user", "parts": [{"functionResponse": {"name": "query", "response": {"rows": [big.clone(), big], "count": 2}}}]}),
        json!({"role": "model", "parts": [{"functionCall": {"name": "query", "args": {}}}]}),
        json!({"role": "user", "parts": [{"functionResponse": {"name": "query", "response": {"stdout": failing_test_log(1), "exit_code": 1}}}]}),
        json!({"role": "model", "parts": [{"text": "a"}]}),
        json!({"role": "user", "parts": [{"text": "b"}]}),
        json!({"role": "model", "parts": [{"text": "c"}]}),
        json!({"role": "user", "parts": [{"text": "d"}]}),
        json!({"role": "model", "parts": [{"text": "e"}]}),
    ];
    let result = compact_late(Tier::Micro, &contents, &unbatched());
    let output = check(Tier::Micro, &contents, &result);
    let whole = &output[2]["parts"][0]["functionResponse"]["response"];
    assert_eq!(whole.as_object().map(|o| o.len()), Some(1));
    assert!(
        whole["output"]
            .as_str()
            .unwrap()
            .contains("[tool result body pruned:")
    );
    let only = &output[4]["parts"][0]["functionResponse"]["response"];
    assert_eq!(only["exit_code"], 1, "the other fields stay");
    assert!(only["stdout"].as_str().unwrap().contains("error[E0425]"));
    assert!(
        only["stdout"]
            .as_str()
            .unwrap()
            .contains("[tool result body pruned:")
    );
}

#[test]
fn the_role_order_and_the_pairing_are_repaired() {
    let input = vec![
        json!({"role": "model", "parts": [{"text": "Hello, I am ready."}]}),
        json!({"role": "user", "parts": [{"text": "Read a.rs."}]}),
        json!({"role": "model", "parts": [{"functionCall": {"name": "read_file", "args": {"path": "a.rs"}}}]}),
        json!({"role": "model", "parts": [{"functionCall": {"name": "read_file", "args": {"path": "b.rs"}}}]}),
        json!({"role": "user", "parts": [{"functionResponse": {"name": "read_file", "response": {"output": "fn a() {}"}}}]}),
        json!({"role": "user", "parts": [{"functionResponse": {"name": "ghost", "response": {"output": "?"}}}, {"text": "Go on."}]}),
        json!({"parts": [{"text": "(a role-less content is the user's)"}]}),
        json!({"role": "model", "parts": [{"text": "Done."}]}),
    ];
    assert_ne!(gemini_problems(&input), vec![]);
    for tier in Tier::ALL {
        let result = compact_late(tier, &input, &unbatched());
        check(tier, &input, &result);
        let warnings = result.warnings.join("\n");
        assert!(
            warnings
                .contains("repair: removed messages[0]: it comes before the first user message"),
            "{tier}: {warnings}"
        );
        assert!(
            warnings.contains(
                "repair: removed the tool result at messages[5] (id \"ghost (no call)\")"
            ),
            "{tier}: {warnings}"
        );
        // The two model contents are one turn: its one response answers the first call, and
        // the second content, left without its call, goes (so no model run is left to merge).
        assert!(warnings.contains("repair: removed the tool call at messages[3] (id \"read_file#1\"): it has no result"), "{tier}: {warnings}");
        assert!(
            !warnings.contains("into one assistant message"),
            "{tier}: {warnings}"
        );
        assert!(
            warnings.contains("repair: merged messages[4..7] into one user message"),
            "{tier}: {warnings}"
        );
        assert!(
            result
                .archive
                .iter()
                .all(|e| e.kind != "repair" || !e.content.is_null())
        );
    }
}

#[test]
fn a_request_body_keeps_every_byte_outside_its_contents() {
    let contents = run(8);
    let request = format!(
        "{{\n  \"systemInstruction\": {{\"parts\": [{{\"text\": \"You are a coding agent.\"}}]}},\n  \"contents\": {},\n  \"tools\": [{{\"functionDeclarations\": [{{\"name\": \"run_tests\"}}]}}],\n  \"generationConfig\": {{\"thinkingConfig\": {{\"includeThoughts\": true}}}}\n}}",
        serde_json::to_string(&contents).unwrap()
    );
    let (out, result) = block_on(compact_request_body(
        &request,
        "s",
        pressure(3, 0.4, 0.0, false),
        None,
        &unbatched(),
    ))
    .expect("compacts");
    assert_eq!(result.tier, Tier::Micro);
    assert_eq!(result.format, "gemini");
    let at = request.find("\"contents\"").unwrap();
    assert_eq!(out[..at], request[..at], "systemInstruction unchanged");
    let after = request.find(",\n  \"tools\"").unwrap();
    assert!(out.ends_with(&request[after..]));
    let parsed: Value = serde_json::from_str(&out).expect("JSON");
    assert_eq!(
        gemini_problems(parsed["contents"].as_array().unwrap()),
        vec![]
    );
    assert!(result.tokens_saved > 0);
    let restored = tiered_compaction::edge::restore::restore_body(&out, &result.archive).unwrap();
    assert_eq!(restored, request);
}

#[test]
fn detection_and_the_recall_tool() {
    let input = run(2);
    assert_eq!(
        compact_late(Tier::None, &input, &unbatched()).format,
        "gemini"
    );
    assert_eq!(
        provider::problems(Format::Gemini, &input),
        gemini_problems(&input)
    );
    let tool = tiered_compaction::archive::recall::recall_tool_definition(Format::Gemini).unwrap();
    assert_eq!(
        tool,
        json!({"name": "recall_archived", "description": tiered_compaction::archive::recall::TOOL_DESCRIPTION,
               "parameters": {"type": "object", "properties": {"id": {"type": "string",
                 "description": "The id named after `recall:` in a pruned result, e.g. a3f9c1b2e07d4."}},
                 "required": ["id"]}})
    );
}

//! The OpenAI Responses API's `input` items in every tier: an agent run as Codex and the Agents
//! SDK store it (encrypted `reasoning` items before the calls they led to, `function_call` and
//! `function_call_output` items, other items passed through), checked on the wire by
//! `common/provider.rs`; the request-body path (`input` + `instructions`, a plain-string
//! `input`, `previous_response_id`); repair; detection; the recall tool.

use crate::common::provider::{self, reasoning_problems};
use crate::common::*;
use serde_json::{Value, json};
use tiered_compaction::transcript::Format;
use tiered_compaction::{Tier, TierResult, compact_request_body};

fn reasoning(step: usize) -> Value {
    json!({"type": "reasoning", "id": format!("rs_{step}"), "summary": [],
           "encrypted_content": format!("gAAAAB{step}{}", "Zx9".repeat(120))})
}

/// A Codex-style run: the developer's instructions, the task, then per step a reasoning item,
/// a `function_call` (writing a long file) and its output; a web search in step 2; the model's
/// last answer.
fn run(steps: usize) -> Vec<Value> {
    let file = |step: usize| format!("// file {step}\n{}", "let a = 1;\n".repeat(60));
    let mut items = vec![
        json!({"role": "developer", "content": "You are a coding agent."}),
        json!({"role": "user", "content": [{"type": "input_text", "text": "Fix the failing test in src/lib.rs."}]}),
    ];
    for step in 0..steps {
        items.push(reasoning(step));
        if step == 2 {
            items.push(
                json!({"type": "web_search_call", "id": "ws_2", "status": "completed",
                              "action": {"type": "search", "query": "E0425"}}),
            );
        }
        let arguments = json!({"cmd": "cargo test", "file": file(step)}).to_string();
        items.push(json!({"type": "function_call", "id": format!("fc_{step}"), "call_id": format!("call_{step}"),
                          "name": "shell", "arguments": arguments, "status": "completed"}));
        items.push(json!({"type": "function_call_output", "call_id": format!("call_{step}"), "output": failing_test_log(step)}));
    }
    items.push(reasoning(steps));
    items.push(json!({"type": "message", "id": "msg_last", "role": "assistant", "status": "completed",
                      "content": [{"type": "output_text", "text": "Fixed: x was renamed.", "annotations": []}]}));
    items
}

/// What holds for every tier's output: the provider takes it, reasoning items are untouched and
/// still before what followed them, the input comes back, and the output is the input's format.
fn check(tier: Tier, input: &[Value], result: &TierResult) -> Vec<Value> {
    let output = crate::output_of("responses", tier, input, result);
    assert_eq!(
        provider::problems(Format::Responses, &output),
        vec![],
        "{tier}"
    );
    assert_eq!(reasoning_problems(input, &output), vec![], "{tier}");
    output
}

#[test]
fn every_tier_keeps_the_items_valid_and_the_reasoning_with_its_call() {
    let input = run(10);
    crate::every_tier(&input, |tier, result| {
        let output = check(tier, &input, result);
        assert_eq!(output[0], input[0], "{tier}: the developer's instructions");
        if tier != Tier::SessionMemory {
            assert_eq!(output[1], input[1], "{tier}: the task");
            // The protected tail: the three newest model calls, each reasoning + call +
            // output (the last one reasoning + message).
            let tail = input.len() - 8;
            assert!(output.ends_with(&input[tail..]), "{tier}: tail");
        }
    });
}

#[test]
fn micro_stubs_outputs_and_long_arguments_in_place() {
    let input = run(10);
    let result = compact_late(Tier::Micro, &input, &unbatched());
    let output = check(Tier::Micro, &input, &result);
    assert_eq!(output.len(), input.len(), "no item comes or goes");
    let stubbed: Vec<&Value> = output
        .iter()
        .filter(|item| item["type"] == "function_call_output")
        .filter(|item| {
            item["output"]
                .as_str()
                .is_some_and(|o| o.contains("[tool result body pruned:"))
        })
        .collect();
    assert_eq!(
        stubbed.len(),
        8,
        "the outputs outside the three newest steps"
    );
    let first = stubbed[0]["output"].as_str().unwrap_or_default();
    assert!(
        first.contains("error[E0425]: cannot find value `x0` in src/lib.rs:0:9"),
        "{first}"
    );
    let entry = result
        .archive
        .iter()
        .find(|e| e.kind == "tool_result")
        .expect("an entry");
    assert_eq!(entry.location, "messages[4].output");
    assert!(first.contains(&format!("recall: {}", entry.id)));
    // The call keeps its ids and stays a JSON string, its long file stubbed inside.
    let call = output
        .iter()
        .find(|item| item["call_id"] == "call_0" && item["type"] == "function_call")
        .unwrap();
    assert_eq!(call["id"], "fc_0");
    let arguments: Value = serde_json::from_str(call["arguments"].as_str().unwrap()).expect("JSON");
    assert_eq!(arguments["cmd"], "cargo test");
    assert!(
        arguments["file"]
            .as_str()
            .unwrap()
            .contains("[tool input pruned:")
    );
    // Reasoning items and the web search are untouched, each where it was.
    for (index, item) in input.iter().enumerate() {
        if item["type"] == "reasoning" || item["type"] == "web_search_call" {
            assert_eq!(output[index], *item);
        }
    }
}

#[test]
fn time_based_prunes_stale_steps_and_leaves_reasoning_whole() {
    let mut input = run(10);
    // A long answer in an old step, after its reasoning item.
    input.insert(4, reasoning(99));
    input.insert(5, json!({"type": "message", "id": "msg_old", "role": "assistant", "status": "completed",
                           "content": [{"type": "output_text", "text": "Plan: ".repeat(100), "annotations": [{"type": "url_citation", "start_index": 0, "end_index": 4, "url": "https://x", "title": "x"}]}]}));
    let result = compact_late(Tier::TimeBased, &input, &unbatched());
    let output = check(Tier::TimeBased, &input, &result);
    assert_eq!(output.len(), input.len());
    let old = &output[5];
    assert_eq!(old["id"], "msg_old");
    let text = old["content"][0]["text"].as_str().unwrap();
    assert!(text.starts_with("[stale block pruned"), "{text}");
    assert_eq!(
        old["content"][0]["annotations"],
        json!([]),
        "annotations go with the text"
    );
    assert_eq!(
        output[4], input[4],
        "its reasoning item stays, right before it"
    );
    assert!(
        result.archive.iter().all(|entry| entry.kind != "thinking"),
        "reasoning is opaque"
    );
    assert!(output[2..].iter().any(|item| {
        item["output"]
            .as_str()
            .is_some_and(|o| o.starts_with("[stale block pruned"))
    }));
}

#[test]
fn auto_archives_reasoning_only_with_the_run_it_belongs_to() {
    let input = run(10);
    // A low target, so that auto goes past micro's stubs to the runs (issue 15's budget).
    let mut options = unbatched();
    options.policy.auto_target_pct = 0.05;
    let result = compact_late(Tier::Auto, &input, &options);
    let output = check(Tier::Auto, &input, &result);
    let runs: Vec<&Value> = result
        .archive
        .iter()
        .filter(|e| e.kind == "run")
        .map(|e| &e.content)
        .collect();
    assert!(!runs.is_empty());
    let archived: Vec<&Value> = runs
        .iter()
        .flat_map(|run| run.as_array().into_iter().flatten())
        .collect();
    // Each archived call (its arguments stubbed first, by micro's pass) went with the reasoning
    // item before it.
    for item in &archived {
        if item["type"] == "function_call" {
            let mut before = input
                .iter()
                .position(|i| i["call_id"] == item["call_id"] && i["type"] == "function_call")
                .expect("an input call");
            // Back over the model's other items of the call (a web search) to its reasoning.
            while input[before - 1]["type"] == "web_search_call" {
                before -= 1;
            }
            assert_eq!(input[before - 1]["type"], "reasoning");
            assert!(
                archived.contains(&&input[before - 1]),
                "the reasoning before {} went with it",
                item["call_id"]
            );
        }
    }
    assert!(archived.iter().any(|item| item["type"] == "reasoning"));
    assert!(
        archived
            .iter()
            .any(|item| item["type"] == "web_search_call"),
        "passed through into the run"
    );
    let digest = output.iter().find(|item| {
        item["content"]
            .as_str()
            .is_some_and(|c| c.starts_with("[digest of earlier tool runs]"))
    });
    let digest = digest.expect("a digest");
    assert_eq!(digest["type"], "message");
    assert_eq!(digest["role"], "assistant");
}

#[test]
fn session_memory_leaves_the_instructions_and_one_user_message() {
    let input = run(6);
    let result = compact_late(Tier::SessionMemory, &input, &unbatched());
    let output = check(Tier::SessionMemory, &input, &result);
    assert_eq!(output.len(), 2);
    assert_eq!(output[0], input[0]);
    assert_eq!(output[1]["type"], "message");
    assert_eq!(output[1]["role"], "user");
    let summary = output[1]["content"].as_str().unwrap();
    assert!(summary.starts_with("[session summary]"));
    assert!(
        summary.contains("Fix the failing test in src/lib.rs."),
        "the task verbatim"
    );
}

#[test]
fn a_model_call_of_several_items_is_one_step() {
    // One model call: reasoning, a message and two parallel calls, then their outputs.
    let mut input = run(4);
    let at = input.len() - 2;
    input.splice(at..at, [
        reasoning(50),
        json!({"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "Two checks.", "annotations": []}]}),
        json!({"type": "function_call", "call_id": "p1", "name": "shell", "arguments": "{}"}),
        json!({"type": "function_call", "call_id": "p2", "name": "shell", "arguments": "{}"}),
        json!({"type": "function_call_output", "call_id": "p1", "output": failing_test_log(50)}),
        json!({"type": "function_call_output", "call_id": "p2", "output": failing_test_log(51)}),
    ]);
    let mut options = unbatched();
    options.policy.keep_recent_steps = 2;
    let result = compact_late(Tier::Micro, &input, &options);
    let output = check(Tier::Micro, &input, &result);
    // The two newest steps: the parallel call (6 items) and the last answer (2 items).
    assert!(output.ends_with(&input[input.len() - 8..]));
    assert_ne!(
        output[input.len() - 9],
        input[input.len() - 9],
        "the step before them is stubbed"
    );
}

#[test]
fn broken_input_is_repaired_with_reasoning_going_with_its_call() {
    let input = vec![
        json!({"role": "user", "content": "Go."}),
        json!({"type": "function_call_output", "call_id": "ghost", "output": "lost"}),
        reasoning(1),
        json!({"type": "function_call", "id": "fc_1", "call_id": "c1", "name": "shell", "arguments": "{}"}),
        json!({"role": "user", "content": "Why no output?"}),
        reasoning(2),
        json!({"type": "function_call", "call_id": "c2", "name": "shell", "arguments": "{}"}),
        json!({"type": "function_call", "call_id": "c3", "name": "shell", "arguments": "{}"}),
    ];
    for tier in Tier::ALL {
        let result = compact_late(tier, &input, &unbatched());
        let output = check(tier, &input, &result);
        assert_eq!(
            result.warnings,
            [
                "repair: removed the tool result at messages[1] (id \"ghost\"): no call with its id comes before it",
                "repair: removed messages[2]: it must stay with the item after it, which the repairs removed",
                "repair: removed the tool call at messages[3] (id \"c1\"): it has no result and later messages follow it",
            ],
            "{tier}"
        );
        if tier != Tier::SessionMemory {
            // The calls of the last model call are the host's next action.
            assert_eq!(output[output.len() - 3..], input[5..], "{tier}");
        }
    }
    // A valid input is left alone.
    let valid = run(3);
    let result = compact_late(Tier::None, &valid, &unbatched());
    assert!(result.archive.is_empty() && result.warnings.is_empty());
}

#[test]
fn items_without_a_type_and_detection() {
    let input = vec![
        json!({"role": "system", "content": "Be brief."}),
        json!({"role": "user", "content": "Weather?"}),
        json!({"type": "function_call", "call_id": "w", "name": "weather", "arguments": "{\"city\":\"Paris\"}"}),
        json!({"type": "function_call_output", "call_id": "w", "output": [{"type": "input_text", "text": "sunny"}]}),
        json!({"role": "assistant", "content": "Sunny."}),
    ];
    let result = compact_late(Tier::Micro, &input, &unbatched());
    assert_eq!(result.format, "responses");
    assert_eq!(result.messages().unwrap(), input.as_slice());
    // Without a typed item, a plain list is read as Chat Completions (valid either way).
    let plain = compact_late(Tier::None, &input[..2], &unbatched());
    assert_eq!(plain.format, "openai");
}

fn body(items: &[Value], extra: &str) -> String {
    format!(
        "{{\"model\": \"gpt-5\",\n \"instructions\": \"You are a coding agent.\\nBe terse.\",{extra}\n \"input\": {},\n \"store\": false, \"include\": [\"reasoning.encrypted_content\"],\n \"tools\": [{{\"type\": \"function\", \"name\": \"shell\", \"parameters\": {{}}}}]}}",
        serde_json::to_string(items).expect("serialises")
    )
}

#[test]
fn a_request_body_keeps_every_byte_outside_its_input() {
    let items = run(8);
    let request = body(&items, "");
    let (out, result) = block_on(compact_request_body(
        &request,
        "s-body",
        pressure(3, 0.4, 0.0, false),
        None,
        &unbatched(),
    ))
    .expect("compacts");
    assert_eq!(result.tier, Tier::Micro);
    assert_eq!(result.format, "responses");
    let at = request.find("\"input\"").unwrap();
    assert_eq!(
        out[..at],
        request[..at],
        "instructions and the rest before input"
    );
    let after = request.find(",\n \"store\"").unwrap();
    assert!(out.ends_with(&request[after..]));
    let parsed: Value = serde_json::from_str(&out).expect("JSON");
    let output = parsed["input"].as_array().unwrap();
    assert_eq!(provider::problems(Format::Responses, output), vec![]);
    assert_eq!(reasoning_problems(&items, output), vec![]);
    assert!(result.tokens_saved > 0);
    let restored =
        tiered_compaction::edge::restore::restore_body(&out, &result.archive).expect("restores");
    assert_eq!(restored, request, "a compact list comes back byte for byte");
}

#[test]
fn a_plain_string_input_is_one_user_message_with_nothing_to_compact() {
    let request = r#"{"model":"gpt-5","instructions":"Be terse.","input":"Summarise this repository in one line."}"#;
    for (turn, complete) in [(1, false), (5, false), (5, true)] {
        let (out, result) = block_on(compact_request_body(
            request,
            "s",
            pressure(turn, 0.9, 900.0, complete),
            None,
            &unbatched(),
        ))
        .expect("compacts");
        assert_eq!(out, request);
        assert_eq!(result.tier, Tier::None);
        assert_eq!(
            result.reason,
            "body.input is a plain string (one user message): nothing to compact"
        );
        assert!(result.before_tokens > 0);
        assert_eq!(
            tiered_compaction::edge::restore::restore_body(&out, &result.archive).unwrap(),
            request
        );
    }
}

#[test]
fn with_previous_response_id_outputs_answer_stored_calls() {
    // The calls these outputs answer live in the stored response: only `input` is compacted.
    let mut items: Vec<Value> = (0..8)
        .map(|step| json!({"type": "function_call_output", "call_id": format!("stored_{step}"), "output": failing_test_log(step)}))
        .collect();
    items.push(json!({"role": "user", "content": "And now?"}));
    let stateful = body(&items, "\n \"previous_response_id\": \"resp_123\",");
    for (tier_pressure, tier) in [
        (pressure(3, 0.4, 0.0, false), Tier::Micro),
        (pressure(3, 0.9, 0.0, false), Tier::Auto),
        (pressure(3, 0.4, 0.0, true), Tier::SessionMemory),
    ] {
        let (out, result) = block_on(compact_request_body(
            &stateful,
            "s",
            tier_pressure,
            None,
            &unbatched(),
        ))
        .expect("compacts");
        assert_eq!(result.tier, tier);
        assert!(
            result.warnings.is_empty(),
            "{tier}: no output is an orphan: {:?}",
            result.warnings
        );
        let parsed: Value = serde_json::from_str(&out).expect("JSON");
        let output = parsed["input"].as_array().unwrap();
        let kept: Vec<&Value> = output
            .iter()
            .filter(|item| item["type"] == "function_call_output")
            .map(|item| &item["call_id"])
            .collect();
        assert_eq!(kept.len(), 8, "{tier}: every stored call keeps its output");
    }
    // The same items without a stored conversation are orphans, repaired away.
    let stateless = body(&items, "");
    let (out, result) = block_on(compact_request_body(
        &stateless,
        "s",
        pressure(3, 0.4, 0.0, false),
        None,
        &unbatched(),
    ))
    .expect("compacts");
    assert_eq!(result.warnings.len(), 8);
    let parsed: Value = serde_json::from_str(&out).expect("JSON");
    assert_eq!(parsed["input"].as_array().map(Vec::len), Some(1));
}

#[test]
fn body_errors_name_the_list() {
    let error = block_on(compact_request_body(
        r#"{"model":"m","input":{"role":"user"}}"#,
        "s",
        pressure(1, 0.1, 0.0, false),
        None,
        &unbatched(),
    ))
    .unwrap_err();
    assert_eq!(
        error.to_string(),
        "body.input: expected an array, got object"
    );
    let error = block_on(compact_request_body(
        r#"{"input":[{"role":"tool","tool_call_id":"c","content":"x"}]}"#,
        "s",
        pressure(1, 0.1, 0.0, false),
        None,
        &unbatched(),
    ))
    .unwrap_err();
    assert_eq!(
        error.to_string(),
        "input[0].tool_call_id: \"tool_call_id\" is OpenAI, whose list is body.messages, not body.input"
    );
}

#[test]
fn the_recall_tool_is_a_responses_function_tool() {
    let tool =
        tiered_compaction::archive::recall::recall_tool_definition(Format::Responses).unwrap();
    assert_eq!(
        tool,
        json!({"type": "function", "name": "recall_archived", "description": tiered_compaction::archive::recall::TOOL_DESCRIPTION,
               "parameters": tiered_compaction::archive::recall::input_schema(), "strict": true})
    );
}

//! Generated agent conversations for property tests: an abstract conversation (system prompt,
//! turns of user words and agent steps with parallel tool calls, long and short outputs, base64
//! images, unknown fields, hard Unicode, CRLF), rendered into each structured wire format.

use proptest::prelude::*;
use serde_json::{Value, json};

/// One tool call and its result.
#[derive(Debug, Clone)]
pub struct Call {
    pub name: String,
    pub arguments: String,
    pub output: String,
    pub is_error: bool,
}

/// One step of the agent inside a turn.
#[derive(Debug, Clone)]
pub enum Step {
    /// Assistant prose.
    Say(String),
    /// An assistant message with optional preface text and parallel tool calls.
    Calls(Option<String>, Vec<Call>),
}

/// One turn: the user's words (maybe with a screenshot) and the agent's steps.
#[derive(Debug, Clone)]
pub struct Turn {
    pub user: String,
    pub image: Option<String>,
    /// The image is binary data the host keeps (AI SDK: a host-value placeholder, see
    /// `tiered_compaction::api::host_value`), not a base64 string.
    pub binary: bool,
    pub steps: Vec<Step>,
    pub age_tag: Option<u64>,
}

/// A whole conversation.
#[derive(Debug, Clone)]
pub struct Conversation {
    pub system: String,
    pub turns: Vec<Turn>,
    /// Add unknown fields (cache_control, ids, metadata) to some messages and parts.
    pub extras: bool,
}

fn hard_text() -> impl Strategy<Value = String> {
    let pieces = prop_oneof![
        Just("plain words ".to_string()),
        Just("emoji 👩‍👩‍👧‍👦 and 🇯🇵 ".to_string()),
        Just("日本語のテキスト ".to_string()),
        Just("e\u{301}\u{302} combining ".to_string()),
        Just("line\r\nbreak ".to_string()),
        Just("src/lib.rs ".to_string()),
        Just("error: failed to compile\n".to_string()),
        Just("https://example.com/x ".to_string()),
        // Lone surrogates as they cross from JS (binding/src/surrogates.rs: one private-use
        // character each): a high one left by cutting an emoji, a low one, both in a row.
        Just("cut \u{E03D} here ".to_string()),
        Just("\u{E600}tail \u{E03D}\u{E600} ".to_string()),
        // CR LF where micro cuts its head (80 characters) and at a line end.
        Just(format!("{}\r\n", "y".repeat(79))),
        "[a-z ]{1,12}",
    ];
    prop::collection::vec(pieces, 1..6).prop_map(|v| v.concat())
}

fn output() -> impl Strategy<Value = String> {
    prop_oneof![
        hard_text(),
        (hard_text(), 10usize..60).prop_map(|(t, n)| t.repeat(n)),
        (1usize..3000).prop_map(|n| "log line ok\n".repeat(n / 12 + 1)),
    ]
}

fn call() -> impl Strategy<Value = Call> {
    (
        prop_oneof![Just("bash"), Just("read_file"), Just("web_fetch")],
        "[a-z/._ ]{0,30}",
        output(),
        prop::bool::weighted(0.15),
    )
        .prop_map(|(name, arg, output, is_error)| Call {
            name: name.to_string(),
            arguments: json!({ "arg": arg }).to_string(),
            output,
            is_error,
        })
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        hard_text().prop_map(Step::Say),
        (
            prop::option::of(hard_text()),
            prop::collection::vec(call(), 1..4)
        )
            .prop_map(|(text, calls)| Step::Calls(text, calls)),
    ]
}

fn turn() -> impl Strategy<Value = Turn> {
    (
        hard_text(),
        prop::option::weighted(
            0.15,
            (200usize..3000).prop_map(|n| "iVBORw0KGgo".repeat(n / 11)),
        ),
        prop::collection::vec(step(), 0..5),
        prop::option::weighted(0.2, 0u64..12),
        any::<bool>(),
    )
        .prop_map(|(user, image, steps, age_tag, binary)| Turn {
            user,
            image,
            binary,
            steps,
            age_tag,
        })
}

/// Conversations of 1 to 9 turns.
pub fn conversation() -> impl Strategy<Value = Conversation> {
    (
        hard_text(),
        prop::collection::vec(turn(), 1..10),
        any::<bool>(),
    )
        .prop_map(|(system, turns, extras)| Conversation {
            system,
            turns,
            extras,
        })
}

fn tag(text: &str, age: Option<u64>) -> String {
    match age {
        Some(age) => format!("[age:{age}] {text}"),
        None => text.to_string(),
    }
}

/// Tool-call ids unique within the conversation.
fn ids(conversation: &Conversation) -> impl FnMut() -> String {
    let _ = conversation;
    let mut next = 0;
    move || {
        next += 1;
        format!("call_{next}")
    }
}

/// OpenAI Chat Completions messages.
pub fn openai(c: &Conversation) -> Vec<Value> {
    let mut next_id = ids(c);
    let mut out = vec![json!({"role": "system", "content": c.system})];
    for turn in &c.turns {
        let mut user = match &turn.image {
            None => json!({"role": "user", "content": turn.user}),
            Some(data) => json!({"role": "user", "content": [
                {"type": "text", "text": turn.user},
                {"type": "image_url", "image_url": {"url": format!("data:image/png;base64,{data}")}}
            ]}),
        };
        if c.extras {
            user["name"] = json!("alice");
        }
        out.push(user);
        for step in &turn.steps {
            match step {
                Step::Say(text) => {
                    out.push(json!({"role": "assistant", "content": tag(text, turn.age_tag)}))
                }
                Step::Calls(text, calls) => {
                    let calls: Vec<(String, &Call)> =
                        calls.iter().map(|call| (next_id(), call)).collect();
                    let mut message = json!({
                        "role": "assistant",
                        "content": text.as_ref().map(|t| tag(t, turn.age_tag)),
                        "tool_calls": calls.iter().map(|(id, call)| json!({
                            "id": id, "type": "function",
                            "function": {"name": call.name, "arguments": call.arguments}
                        })).collect::<Vec<_>>(),
                    });
                    if c.extras {
                        message["refusal"] = Value::Null;
                    }
                    out.push(message);
                    for (id, call) in calls {
                        out.push(
                            json!({"role": "tool", "tool_call_id": id, "content": call.output}),
                        );
                    }
                }
            }
        }
    }
    out
}

/// Anthropic Messages API messages (the system prompt travels outside the list).
pub fn anthropic(c: &Conversation) -> Vec<Value> {
    alternating(anthropic_steps(c))
}

/// Anthropic messages one per step and turn, as an agent may store them: a turn's words after
/// the tool results before them, and consecutive steps, are then runs of one role, which the
/// provider refuses (the repair merges them).
pub fn anthropic_steps(c: &Conversation) -> Vec<Value> {
    let mut next_id = ids(c);
    let mut out = Vec::new();
    for turn in &c.turns {
        let mut text = json!({"type": "text", "text": turn.user});
        if c.extras {
            text["cache_control"] = json!({"type": "ephemeral"});
        }
        let mut content = vec![text];
        if let Some(data) = &turn.image {
            content.push(json!({"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": data}}));
        }
        out.push(json!({"role": "user", "content": content}));
        for step in &turn.steps {
            match step {
                Step::Say(text) => out.push(json!({"role": "assistant", "content": [{"type": "text", "text": tag(text, turn.age_tag)}]})),
                Step::Calls(text, calls) => {
                    let calls: Vec<(String, &Call)> = calls.iter().map(|call| (next_id(), call)).collect();
                    let mut content: Vec<Value> = text.iter().map(|t| json!({"type": "text", "text": tag(t, turn.age_tag)})).collect();
                    content.extend(calls.iter().map(|(id, call)| json!({
                        "type": "tool_use", "id": id, "name": call.name,
                        "input": serde_json::from_str::<Value>(&call.arguments).unwrap_or(Value::Null)
                    })));
                    out.push(json!({"role": "assistant", "content": content}));
                    let results: Vec<Value> = calls.iter().map(|(id, call)| {
                        let mut result = json!({"type": "tool_result", "tool_use_id": id, "content": call.output});
                        if call.is_error {
                            result["is_error"] = json!(true);
                        }
                        result
                    }).collect();
                    out.push(json!({"role": "user", "content": results}));
                }
            }
        }
    }
    out
}

/// The nonce of the host-value placeholders the generated AI SDK messages hold.
pub const HOST_VALUE_NONCE: &str = "prop";

/// A binary value of `bytes` bytes as the JS binding hands it over.
pub fn binary_placeholder(bytes: usize) -> String {
    format!(
        "\u{0}{HOST_VALUE_NONCE}#{bytes}:b:{bytes}:{}",
        "ab".repeat(32)
    )
}

/// `messages` with each run of one role merged into one message, as a valid Anthropic list has
/// them (a turn's user words join the tool results before them; consecutive steps of the agent
/// make one assistant message).
fn alternating(messages: Vec<Value>) -> Vec<Value> {
    let mut out: Vec<Value> = Vec::with_capacity(messages.len());
    for message in messages {
        match out.last_mut() {
            Some(last) if last["role"] == message["role"] => {
                if let (Some(parts), Some(more)) = (
                    last["content"].as_array_mut(),
                    message["content"].as_array(),
                ) {
                    parts.extend(more.iter().cloned());
                }
            }
            _ => out.push(message),
        }
    }
    out
}

/// Vercel AI SDK `ModelMessage`s.
pub fn ai_sdk(c: &Conversation) -> Vec<Value> {
    let mut next_id = ids(c);
    let mut out = vec![json!({"role": "system", "content": c.system})];
    for turn in &c.turns {
        let mut content = vec![json!({"type": "text", "text": turn.user})];
        if let Some(data) = &turn.image {
            let image = if turn.binary {
                binary_placeholder(data.len() / 4 * 3)
            } else {
                data.clone()
            };
            content.push(json!({"type": "image", "image": image, "mediaType": "image/png"}));
        }
        let mut user = json!({"role": "user", "content": content});
        if c.extras {
            user["providerOptions"] = json!({"anthropic": {"cacheControl": {"type": "ephemeral"}}});
        }
        out.push(user);
        for step in &turn.steps {
            match step {
                Step::Say(text) => out.push(json!({"role": "assistant", "content": [{"type": "text", "text": tag(text, turn.age_tag)}]})),
                Step::Calls(text, calls) => {
                    let calls: Vec<(String, &Call)> = calls.iter().map(|call| (next_id(), call)).collect();
                    let mut content: Vec<Value> = text.iter().map(|t| json!({"type": "text", "text": tag(t, turn.age_tag)})).collect();
                    content.extend(calls.iter().map(|(id, call)| json!({
                        "type": "tool-call", "toolCallId": id, "toolName": call.name,
                        "input": serde_json::from_str::<Value>(&call.arguments).unwrap_or(Value::Null)
                    })));
                    out.push(json!({"role": "assistant", "content": content}));
                    let results: Vec<Value> = calls.iter().map(|(id, call)| json!({
                        "type": "tool-result", "toolCallId": id, "toolName": call.name,
                        "output": {"type": if call.is_error { "error-text" } else { "text" }, "value": call.output}
                    })).collect();
                    out.push(json!({"role": "tool", "content": results}));
                }
            }
        }
    }
    out
}

/// An encrypted reasoning item, opaque to the library (its text is the model's own).
fn reasoning(n: usize) -> Value {
    json!({
        "type": "reasoning", "id": format!("rs_{n}"), "summary": [],
        "encrypted_content": format!("gAAAAB{}", "q8Z".repeat(40 + n % 7))
    })
}

/// OpenAI Responses API input items: the system prompt as a developer message, user messages
/// (plain `{ role, content }` or typed with `input_text` / `input_image` parts), and per step
/// an optional `reasoning` item (with `extras`), the model's message, its `function_call`s and
/// their `function_call_output`s, with now and then a `web_search_call` passed through.
pub fn responses(c: &Conversation) -> Vec<Value> {
    let mut next_id = ids(c);
    let mut items = 0;
    let mut item = || {
        items += 1;
        items
    };
    let mut out = vec![json!({"role": "developer", "content": c.system})];
    for turn in &c.turns {
        out.push(match &turn.image {
            None if !c.extras => json!({"role": "user", "content": turn.user}),
            None => json!({"type": "message", "role": "user", "content": [{"type": "input_text", "text": turn.user}]}),
            Some(data) => json!({"role": "user", "content": [
                {"type": "input_text", "text": turn.user},
                {"type": "input_image", "image_url": format!("data:image/png;base64,{data}"), "detail": "auto"}
            ]}),
        });
        for step in &turn.steps {
            if c.extras {
                out.push(reasoning(item()));
            }
            let say = |text: &str, n: usize| {
                json!({"type": "message", "id": format!("msg_{n}"), "role": "assistant", "status": "completed",
                       "content": [{"type": "output_text", "text": tag(text, turn.age_tag), "annotations": []}]})
            };
            match step {
                Step::Say(text) => out.push(say(text, item())),
                Step::Calls(text, calls) => {
                    if let Some(text) = text {
                        out.push(say(text, item()));
                    }
                    if c.extras && calls.len() > 1 {
                        out.push(json!({"type": "web_search_call", "id": format!("ws_{}", item()),
                                        "status": "completed", "action": {"type": "search", "query": "docs"}}));
                    }
                    let calls: Vec<(String, &Call)> =
                        calls.iter().map(|call| (next_id(), call)).collect();
                    for (id, call) in &calls {
                        out.push(json!({"type": "function_call", "id": format!("fc_{}", item()), "call_id": id,
                                        "name": call.name, "arguments": call.arguments, "status": "completed"}));
                    }
                    for (id, call) in &calls {
                        out.push(json!({"type": "function_call_output", "call_id": id, "output": call.output}));
                    }
                }
            }
        }
    }
    out
}

/// Gemini contents, one per turn and step, as an agent may store them: consecutive contents of
/// one side (a turn's words after the responses before them, consecutive steps of the model)
/// are runs Gemini refuses (the repair merges them). With `extras`, thoughts, thought
/// signatures and call ids.
pub fn gemini_steps(c: &Conversation) -> Vec<Value> {
    let mut next_id = ids(c);
    let mut out = Vec::new();
    for turn in &c.turns {
        let mut parts = vec![json!({"text": turn.user})];
        if let Some(data) = &turn.image {
            parts.push(json!({"inlineData": {"mimeType": "image/png", "data": data}}));
        }
        out.push(json!({"role": "user", "parts": parts}));
        for step in &turn.steps {
            let mut parts = Vec::new();
            if c.extras {
                parts.push(json!({"text": "Thinking about the next step.", "thought": true}));
            }
            match step {
                Step::Say(text) => parts.push(json!({"text": tag(text, turn.age_tag)})),
                Step::Calls(text, calls) => {
                    if let Some(text) = text {
                        parts.push(json!({"text": tag(text, turn.age_tag)}));
                    }
                    let calls: Vec<(String, &Call)> =
                        calls.iter().map(|call| (next_id(), call)).collect();
                    for (id, call) in &calls {
                        let mut function = json!({"name": call.name,
                            "args": serde_json::from_str::<Value>(&call.arguments).unwrap_or(Value::Null)});
                        if c.extras {
                            function["id"] = json!(id);
                        }
                        parts.push(json!({"functionCall": function}));
                    }
                    if c.extras {
                        if let Some(first) =
                            parts.iter_mut().find(|p| p.get("functionCall").is_some())
                        {
                            first["thoughtSignature"] = json!("CiQBjz1rX3Ns");
                        }
                    }
                    out.push(json!({"role": "model", "parts": parts}));
                    let responses: Vec<Value> = calls
                        .iter()
                        .map(|(id, call)| {
                            let key = if call.is_error { "error" } else { "output" };
                            let mut response =
                                json!({"name": call.name, "response": {key: call.output}});
                            if c.extras {
                                response["id"] = json!(id);
                            }
                            json!({"functionResponse": response})
                        })
                        .collect();
                    out.push(json!({"role": "user", "parts": responses}));
                    continue;
                }
            }
            out.push(json!({"role": "model", "parts": parts}));
        }
    }
    out
}

/// Gemini contents with each run of one side merged into one content, as Gemini needs them.
pub fn gemini(c: &Conversation) -> Vec<Value> {
    let mut out: Vec<Value> = Vec::new();
    for content in gemini_steps(c) {
        match out.last_mut() {
            Some(last) if last["role"] == content["role"] => {
                if let (Some(parts), Some(more)) =
                    (last["parts"].as_array_mut(), content["parts"].as_array())
                {
                    parts.extend(more.iter().cloned());
                }
            }
            _ => out.push(content),
        }
    }
    out
}

/// The seed's flat text: prose, ```tool_result fences and [age:N] tags.
pub fn flat_text(c: &Conversation) -> String {
    let mut out = String::new();
    for turn in &c.turns {
        if let Some(age) = turn.age_tag {
            out.push_str(&format!("[age:{age}] "));
        }
        out.push_str(&turn.user);
        out.push_str("\n\n");
        for step in &turn.steps {
            match step {
                Step::Say(text) => {
                    out.push_str(text);
                    out.push_str("\n\n");
                }
                Step::Calls(_, calls) => {
                    for call in calls {
                        out.push_str(&format!(
                            "```tool_result name={}\n{}\n```\n\n",
                            call.name, call.output
                        ));
                    }
                }
            }
        }
        if let Some(data) = &turn.image {
            out.push_str(&format!("![screenshot](data:image/png;base64,{data})\n\n"));
        }
    }
    out
}

/// Plain chats without tools: 2 to 12 exchanges of the user's words and one answer each, so
/// that Anthropic roles alternate.
pub fn chat() -> impl Strategy<Value = Conversation> {
    let exchange = (hard_text(), (hard_text(), 1usize..30)).prop_map(|(user, (answer, n))| Turn {
        user,
        image: None,
        binary: false,
        steps: vec![Step::Say(answer.repeat(n))],
        age_tag: None,
    });
    (hard_text(), prop::collection::vec(exchange, 2..13)).prop_map(|(system, turns)| Conversation {
        system,
        turns,
        extras: false,
    })
}

/// Single-prompt agent runs of 12 to 24 steps, one call each: long outputs, then the newest
/// three steps short (the protected tail is small, so the budget is within reach).
pub fn agent_run() -> impl Strategy<Value = Conversation> {
    let long = (hard_text(), 60usize..120).prop_map(|(text, n)| text.repeat(n));
    (hard_text(), prop::collection::vec((call(), long), 9..22)).prop_map(|(task, calls)| {
        let short = |i: usize| Call {
            name: "bash".into(),
            arguments: json!({ "arg": i }).to_string(),
            output: format!("ok {i}"),
            is_error: false,
        };
        let steps = calls
            .into_iter()
            .map(|(call, output)| Call { output, ..call })
            .chain((0..3).map(short))
            .map(|call| Step::Calls(None, vec![call]))
            .collect();
        Conversation {
            system: "You are a coding agent.".into(),
            turns: vec![Turn {
                user: task,
                image: None,
                binary: false,
                steps,
                age_tag: None,
            }],
            extras: false,
        }
    })
}

/// A way to break a valid message list.
#[derive(Debug, Clone)]
pub enum Break {
    /// A tool result whose id no call has, inserted before message `at` (modulo the length + 1).
    Orphan(usize),
    /// The `n`-th tool result (modulo their number) taken out: its call is left unanswered.
    DropResult(usize),
    /// The `n`-th call (modulo their number) and its results given the first call's id:
    /// positional reuse in OpenAI and the AI SDK (a broken pairing only where both calls are in
    /// one message), a duplicate id in Anthropic.
    ReuseId(usize),
}

/// One to three breaks.
pub fn breaks() -> impl Strategy<Value = Vec<Break>> {
    prop::collection::vec(
        prop_oneof![
            any::<usize>().prop_map(Break::Orphan),
            any::<usize>().prop_map(Break::DropResult),
            any::<usize>().prop_map(Break::ReuseId),
        ],
        1..4,
    )
}

/// `messages` of `format` ("openai", "anthropic", "ai-sdk", "responses", "gemini") with
/// `breaks` made, in order.
pub fn broken(format: &str, mut messages: Vec<Value>, breaks: &[Break]) -> Vec<Value> {
    for (n, brk) in breaks.iter().enumerate() {
        match brk {
            Break::Orphan(at) => {
                let at = at % (messages.len() + 1);
                messages.insert(at, orphan(format, &format!("ghost_{n}")));
            }
            Break::DropResult(nth) => drop_result(&mut messages, *nth),
            Break::ReuseId(nth) => reuse_id(&mut messages, *nth, format),
        }
    }
    messages
}

fn orphan(format: &str, id: &str) -> Value {
    match format {
        "responses" => {
            json!({"type": "function_call_output", "call_id": id, "output": "output of a lost call"})
        }
        "gemini" => json!({"role": "user", "parts": [
            {"functionResponse": {"name": id, "response": {"output": "output of a lost call"}}}
        ]}),
        "openai" => json!({"role": "tool", "tool_call_id": id, "content": "output of a lost call"}),
        "anthropic" => json!({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": id, "content": "output of a lost call"}
        ]}),
        _ => json!({"role": "tool", "content": [
            {"type": "tool-result", "toolCallId": id, "toolName": "bash",
             "output": {"type": "text", "value": "output of a lost call"}}
        ]}),
    }
}

fn is_result(part: &Value) -> bool {
    matches!(part["type"].as_str(), Some("tool_result" | "tool-result"))
        || part.get("functionResponse").is_some()
}

/// Takes out the `nth` tool result (an OpenAI tool message or a Responses output item, or a
/// result part: its message goes when it has no other part).
fn drop_result(messages: &mut Vec<Value>, nth: usize) {
    let mut places = Vec::new();
    for (index, message) in messages.iter().enumerate() {
        if message["role"] == "tool" && message["tool_call_id"].is_string()
            || message["type"] == "function_call_output"
        {
            places.push((index, None));
        }
        let parts = message["content"]
            .as_array()
            .or(message["parts"].as_array());
        for (part, value) in parts.into_iter().flatten().enumerate() {
            if is_result(value) {
                places.push((index, Some(part)));
            }
        }
    }
    if places.is_empty() {
        return;
    }
    match places[nth % places.len()] {
        (index, None) => {
            messages.remove(index);
        }
        (index, Some(part)) => {
            let list = if messages[index].get("parts").is_some() {
                "parts"
            } else {
                "content"
            };
            let empty = match messages[index][list].as_array_mut() {
                Some(parts) => {
                    parts.remove(part);
                    parts.is_empty()
                }
                None => false,
            };
            if empty {
                messages.remove(index);
            }
        }
    }
}

/// The fields that hold tool ids in `format`: a Responses item's `id` names the item, not a call.
fn id_keys(format: &str) -> &'static [&'static str] {
    match format {
        "responses" => &["call_id"],
        _ => &["id", "tool_call_id", "tool_use_id", "toolCallId"],
    }
}

/// Every tool id in `value`, in order.
fn tool_ids(value: &Value, keys: &[&str], out: &mut Vec<String>) {
    match value {
        Value::Object(fields) => {
            for (key, item) in fields {
                match item {
                    Value::String(id) if keys.contains(&key.as_str()) => out.push(id.clone()),
                    _ => tool_ids(item, keys, out),
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|item| tool_ids(item, keys, out)),
        _ => {}
    }
}

/// Gives the `nth` distinct tool id (not the first) the first one's value, everywhere.
fn reuse_id(messages: &mut [Value], nth: usize, format: &str) {
    let keys = id_keys(format);
    let mut ids = Vec::new();
    for message in messages.iter() {
        tool_ids(message, keys, &mut ids);
    }
    let mut distinct: Vec<String> = Vec::new();
    for id in ids {
        if !distinct.contains(&id) {
            distinct.push(id);
        }
    }
    if distinct.len() < 2 {
        return;
    }
    let from = distinct[1 + nth % (distinct.len() - 1)].clone();
    let to = distinct[0].clone();
    for message in messages.iter_mut() {
        rename(message, &from, &to, keys);
    }
}

fn rename(value: &mut Value, from: &str, to: &str, keys: &[&str]) {
    match value {
        Value::Object(fields) => {
            for (key, item) in fields.iter_mut() {
                match item {
                    Value::String(id) if keys.contains(&key.as_str()) && id == from => {
                        *id = to.to_string();
                    }
                    _ => rename(item, from, to, keys),
                }
            }
        }
        Value::Array(items) => items
            .iter_mut()
            .for_each(|item| rename(item, from, to, keys)),
        _ => {}
    }
}

/// `conversation` in `format`'s wire shape (flat text has its own, [`flat_text`]).
pub fn render(
    format: tiered_compaction::transcript::Format,
    conversation: &Conversation,
) -> Vec<Value> {
    use tiered_compaction::transcript::Format;
    match format {
        Format::OpenAi => openai(conversation),
        Format::Anthropic => anthropic(conversation),
        Format::AiSdk => ai_sdk(conversation),
        Format::Responses => responses(conversation),
        Format::Gemini => gemini(conversation),
        Format::Text => unreachable!("flat text is rendered by flat_text"),
    }
}

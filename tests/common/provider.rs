//! What a provider refuses in a message list, checked on the wire JSON itself (not through the
//! library's reading of it): a tool result without a call before it (a result answers the newest
//! call of its id), a second result for a call, a call left without a result that later messages
//! follow, an Anthropic `tool_use` id used twice, Anthropic roles that do not alternate or do
//! not start with the user, and a message with empty content. The Responses API
//! ([`problems`] with `Format::Responses`): every `function_call` answered after it (the calls
//! of the last model call excepted), no orphan output, no `reasoning` item last; and, against
//! the input ([`reasoning_problems`]), every reasoning item unaltered and still right before the
//! item it preceded. Gemini ([`gemini_problems`]): user and model alternate, the user first,
//! every `functionCall` answered in the next content (by id where both have one, else by name
//! and order), no response without a call in the content before it, no empty content.

use serde_json::Value;
use std::collections::{HashMap, HashSet};
use tiered_compaction::transcript::Format;

/// One thing the provider would refuse.
#[derive(Debug, Clone, PartialEq)]
pub struct Problem {
    /// What is wrong.
    pub what: &'static str,
    /// The message it is in.
    pub message: usize,
    /// The tool id, for a call or a result.
    pub id: Option<String>,
    /// The offending value: the call or result part (an OpenAI tool message), or the message.
    pub value: Value,
}

enum Tool<'v> {
    Call(&'v str, &'v Value),
    Result(&'v str, &'v Value),
}

/// The tool calls and results of `message`, in order.
fn tools(format: Format, message: &Value) -> Vec<Tool<'_>> {
    let parts = message["content"].as_array().map_or(&[][..], Vec::as_slice);
    match format {
        Format::OpenAi => {
            let mut out = Vec::new();
            if message["role"] == "tool" {
                if let Some(id) = message["tool_call_id"].as_str() {
                    out.push(Tool::Result(id, message));
                }
            }
            for call in message["tool_calls"].as_array().into_iter().flatten() {
                if let Some(id) = call["id"].as_str() {
                    out.push(Tool::Call(id, call));
                }
            }
            out
        }
        Format::Anthropic => parts
            .iter()
            .filter_map(|part| match part["type"].as_str() {
                Some("tool_use") => Some(Tool::Call(part["id"].as_str()?, part)),
                Some("tool_result") => Some(Tool::Result(part["tool_use_id"].as_str()?, part)),
                _ => None,
            })
            .collect(),
        Format::AiSdk => parts
            .iter()
            .filter_map(|part| match part["type"].as_str() {
                Some("tool-call") => Some(Tool::Call(part["toolCallId"].as_str()?, part)),
                Some("tool-result") => Some(Tool::Result(part["toolCallId"].as_str()?, part)),
                _ => None,
            })
            .collect(),
        Format::Responses => match (message["type"].as_str(), message["call_id"].as_str()) {
            (Some("function_call" | "custom_tool_call"), Some(id)) => vec![Tool::Call(id, message)],
            (Some("function_call_output" | "custom_tool_call_output"), Some(id)) => {
                vec![Tool::Result(id, message)]
            }
            _ => Vec::new(),
        },
        Format::Gemini | Format::Text => Vec::new(),
    }
}

/// Whether a Responses item is the model's output (an item of a model call): any item but a
/// message of another role than the assistant's, an `..._output` and a `..._response`.
fn model_item(item: &Value) -> bool {
    match item["type"].as_str() {
        None | Some("message") => item["role"] == "assistant",
        Some(kind) => !kind.ends_with("_output") && !kind.ends_with("_response"),
    }
}

struct Call<'v> {
    message: usize,
    id: &'v str,
    value: &'v Value,
    answered: bool,
    duplicate: bool,
}

/// Everything the provider of `format` would refuse in `messages`.
pub fn problems(format: Format, messages: &[Value]) -> Vec<Problem> {
    if format == Format::Gemini {
        return gemini_problems(messages);
    }
    let mut found = Vec::new();
    let mut problem = |what, message, id: Option<&str>, value: &Value| {
        found.push(Problem {
            what,
            message,
            id: id.map(str::to_string),
            value: value.clone(),
        })
    };
    let unique = format == Format::Anthropic;
    let mut calls: Vec<Call> = Vec::new();
    let mut newest: HashMap<&str, usize> = HashMap::new();
    let mut seen: HashSet<&str> = HashSet::new();
    for (index, message) in messages.iter().enumerate() {
        for tool in tools(format, message) {
            match tool {
                Tool::Call(id, value) => {
                    let duplicate = unique && !seen.insert(id);
                    if duplicate {
                        problem("duplicate id", index, Some(id), value);
                    }
                    newest.insert(id, calls.len());
                    calls.push(Call {
                        message: index,
                        id,
                        value,
                        answered: false,
                        duplicate,
                    });
                }
                Tool::Result(id, value) => match newest.get(id).map(|&at| &mut calls[at]) {
                    None => problem("orphan result", index, Some(id), value),
                    Some(call) if call.duplicate => {
                        problem("result of a duplicate", index, Some(id), value)
                    }
                    Some(call) if call.answered => problem("second result", index, Some(id), value),
                    Some(call) => call.answered = true,
                },
            }
        }
        let has_calls = message["tool_calls"]
            .as_array()
            .is_some_and(|c| !c.is_empty());
        // A Responses item other than a message has no content.
        let item = format == Format::Responses
            && !matches!(message["type"].as_str(), None | Some("message"));
        let empty = !has_calls
            && !item
            && match &message["content"] {
                Value::String(text) => text.is_empty(),
                Value::Array(parts) => parts.is_empty(),
                _ => true,
            };
        if empty {
            problem("empty content", index, None, message);
        }
        if format == Format::Anthropic {
            let role = &message["role"];
            if index == 0 && role != "user" {
                problem("first message not the user's", index, None, message);
            }
            if index > 0 && messages[index - 1]["role"] == *role {
                problem("same role twice", index, None, message);
            }
        }
    }
    let mut last = messages.len().saturating_sub(1);
    if format == Format::Responses {
        // The last model call is every model item that ends the list.
        while last > 0 && model_item(&messages[last]) && model_item(&messages[last - 1]) {
            last -= 1;
        }
        if let Some(item) = messages.last().filter(|item| item["type"] == "reasoning") {
            problem(
                "reasoning without a following item",
                messages.len() - 1,
                None,
                item,
            );
        }
    }
    for call in calls {
        if !call.answered && !call.duplicate && call.message < last {
            problem("unanswered call", call.message, Some(call.id), call.value);
        }
    }
    found
}

/// What identifies a Responses item across a compaction that may edit it in place: its type,
/// role, call id and id.
fn identity(item: &Value) -> (Value, Value, Value, Value) {
    (
        item["type"].clone(),
        item["role"].clone(),
        item["call_id"].clone(),
        item["id"].clone(),
    )
}

/// Reasoning items of a Responses `input` the `output` of a compaction broke: one that came out
/// altered, or without the item it preceded right after it, and an item that lost the reasoning
/// item before it.
pub fn reasoning_problems(input: &[Value], output: &[Value]) -> Vec<Problem> {
    let mut found = Vec::new();
    for (index, item) in output.iter().enumerate() {
        if item["type"] != "reasoning" {
            continue;
        }
        let copies = input.iter().filter(|original| *original == item).count();
        if copies > 1 {
            // An item the input holds twice (one id used twice, which the API refuses anyway):
            // which copy followed what is ambiguous.
            continue;
        }
        let Some(at) = input.iter().position(|original| original == item) else {
            found.push(Problem {
                what: "reasoning item altered",
                message: index,
                id: None,
                value: item.clone(),
            });
            continue;
        };
        // What followed it, unless that was not the model's (an orphan output another break put
        // there, which the repair takes out).
        let before = input
            .get(at + 1)
            .filter(|next| model_item(next))
            .map(identity);
        // A follower the repair took out (a call left unanswered) may give way to another item
        // of the same model call.
        let gone = before
            .as_ref()
            .is_some_and(|before| !output.iter().any(|item| identity(item) == *before));
        let next_is_model = output.get(index + 1).is_some_and(model_item);
        if before.is_some()
            && output.get(index + 1).map(identity) != before
            && !(gone && next_is_model)
        {
            found.push(Problem {
                what: "reasoning item parted from the item after it",
                message: index,
                id: None,
                value: item.clone(),
            });
        }
    }
    for (at, item) in input.iter().enumerate() {
        let Some(follower) = input.get(at + 1) else {
            continue;
        };
        if item["type"] != "reasoning" || follower["type"] == "reasoning" || !model_item(follower) {
            continue;
        }
        // A model item with its own id that a reasoning item preceded keeps it (the API refuses
        // a `function_call` without its reasoning item).
        let id = identity(follower);
        if id.3.is_null() {
            continue;
        }
        // An id the input uses twice (which the API refuses anyway) makes the items ambiguous.
        if input.iter().filter(|other| identity(other) == id).count() > 1 {
            continue;
        }
        if let Some(index) = output.iter().position(|kept| identity(kept) == id) {
            if index == 0 || output[index - 1] != *item {
                found.push(Problem {
                    what: "item without the reasoning item before it",
                    message: index,
                    id: None,
                    value: output[index].clone(),
                });
            }
        }
    }
    found
}

/// The side a Gemini content stands on: the model's, or the user's (no role, `user`,
/// `function`).
fn gemini_side(content: &Value) -> &'static str {
    if content["role"] == "model" {
        "model"
    } else {
        "user"
    }
}

/// The `functionCall`s or `functionResponse`s (`field`) of a content: name and id.
fn gemini_tools<'v>(content: &'v Value, field: &str) -> Vec<(&'v str, Option<&'v str>, &'v Value)> {
    content["parts"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|part| {
            let tool = part.get(field)?;
            let id = tool["id"].as_str().filter(|id| !id.is_empty());
            Some((tool["name"].as_str().unwrap_or_default(), id, part))
        })
        .collect()
}

/// Everything Gemini would refuse in `contents`. Calls and responses are matched turn by turn,
/// a turn being a run of contents of one side (a run is refused on its own, as "same role twice").
pub fn gemini_problems(contents: &[Value]) -> Vec<Problem> {
    let mut found = Vec::new();
    // Gemini calls have no ids of their own to name: the name is kept in `value`.
    let mut problem = |what, message, value: &Value| {
        found.push(Problem {
            what,
            message,
            id: None,
            value: value.clone(),
        })
    };
    for (index, content) in contents.iter().enumerate() {
        if content["parts"].as_array().is_none_or(Vec::is_empty) {
            problem("empty content", index, content);
        }
        if index == 0 && gemini_side(content) != "user" {
            problem("first message not the user's", index, content);
        }
        if index > 0 && gemini_side(&contents[index - 1]) == gemini_side(content) {
            problem("same role twice", index, content);
        }
    }
    // Turns: (side, first content, one past the last).
    let mut turns: Vec<(&str, usize, usize)> = Vec::new();
    for (index, content) in contents.iter().enumerate() {
        match turns.last_mut() {
            Some((side, _, end)) if *side == gemini_side(content) => *end = index + 1,
            _ => turns.push((gemini_side(content), index, index + 1)),
        }
    }
    let tools = |range: (usize, usize), field: &str| -> Vec<(usize, &str, Option<&str>, &Value)> {
        (range.0..range.1)
            .flat_map(|index| {
                gemini_tools(&contents[index], field)
                    .into_iter()
                    .map(move |(name, id, part)| (index, name, id, part))
            })
            .collect()
    };
    for (turn, (side, start, end)) in turns.iter().enumerate() {
        if *side != "user" {
            continue;
        }
        let calls = match turn.checked_sub(1).map(|before| turns[before]) {
            Some((_, call_start, call_end)) => tools((call_start, call_end), "functionCall"),
            None => Vec::new(),
        };
        let mut answered = vec![false; calls.len()];
        for (index, name, id, part) in tools((*start, *end), "functionResponse") {
            let by_id = id
                .and_then(|id| (0..calls.len()).find(|&k| !answered[k] && calls[k].2 == Some(id)));
            let by_name = || {
                (0..calls.len()).find(|&k| {
                    !answered[k] && calls[k].1 == name && (id.is_none() || calls[k].2.is_none())
                })
            };
            match by_id.or_else(by_name) {
                Some(k) => answered[k] = true,
                None => problem("orphan result", index, part),
            }
        }
        for (k, (index, _, _, part)) in calls.iter().enumerate() {
            if !answered[k] {
                problem("unanswered call", *index, part);
            }
        }
    }
    found
}
/// Whether `needle` is `haystack` or inside it.
pub fn contains(haystack: &Value, needle: &Value) -> bool {
    haystack == needle
        || match haystack {
            Value::Array(items) => items.iter().any(|item| contains(item, needle)),
            Value::Object(fields) => fields.values().any(|item| contains(item, needle)),
            _ => false,
        }
}

/// The message indices a warning names: `messages[a]` or each of `messages[a..b]`.
pub fn named_messages(warning: &str) -> Vec<usize> {
    let mut named = Vec::new();
    for piece in warning.split("messages[").skip(1) {
        let Some(inner) = piece.split(']').next() else {
            continue;
        };
        let number = |text: &str| text.parse::<usize>().ok();
        match inner.split_once("..") {
            Some((a, b)) => {
                if let (Some(a), Some(b)) = (number(a), number(b)) {
                    named.extend(a..b);
                }
            }
            None => named.extend(number(inner)),
        }
    }
    named
}

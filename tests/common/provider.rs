//! What a provider refuses in a message list, checked on the wire JSON itself (not through the
//! library's reading of it): a tool result without a call before it (a result answers the newest
//! call of its id), a second result for a call, a call left without a result that later messages
//! follow, an Anthropic `tool_use` id used twice, Anthropic roles that do not alternate or do
//! not start with the user, and a message with empty content.

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
        Format::Text => Vec::new(),
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
        let empty = !has_calls
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
    let last = messages.len().saturating_sub(1);
    for call in calls {
        if !call.answered && !call.duplicate && call.message < last {
            problem("unanswered call", call.message, Some(call.id), call.value);
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

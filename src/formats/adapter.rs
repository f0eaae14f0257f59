//! What an adapter declares: how a structured format reads, writes and is recognised
//! ([`Structured`]), and its registration ([`Adapter`]). `registry` lists the adapters.

use super::evidence::Seen;
use super::json::WireWriter;
use crate::error::Result;
use crate::transcript::{Format, Message, Transcript};
use serde_json::Value;

/// A message's fields that detection looks at, read in one pass over the message (a hash lookup
/// each was most of detection's time): each the field of its name, `item_type` the `type`;
/// `role` and `type` only when strings.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct MessageFields<'v> {
    pub role: Option<&'v str>,
    pub tool_calls: Option<&'v Value>,
    pub tool_call_id: Option<&'v Value>,
    pub content: Option<&'v Value>,
    pub item_type: Option<&'v str>,
    pub call_id: Option<&'v Value>,
    pub parts: Option<&'v Value>,
}

/// Where a format's evidence in a message's fields goes: the field, and what was seen in words.
pub(crate) type Found<'a> = &'a mut dyn FnMut(&'static str, &'static str);

/// How a structured format reads, writes and is recognised.
pub(crate) struct Structured {
    /// Reads message `index` into the internal model; errors name `<list_key>[index]...`.
    pub read_message: for<'v> fn(&'v Value, usize) -> Result<Message<'v>>,
    /// Writes a plan's edits back into messages of the format.
    pub writer: &'static (dyn WireWriter + Sync),
    /// Evidence from a message's own fields, each given to `found`.
    pub message_evidence: fn(&MessageFields<'_>, found: Found<'_>),
    /// Evidence from a content part of type `part_type` (only this format has such a part).
    pub part_evidence: for<'v> fn(&'v str, &Value) -> Option<Seen<'v>>,
    /// A tool definition in the format's own shape, from its name, description and input schema.
    pub tool_definition: fn(&str, &str, Value) -> Value,
    /// Every tool call needs an id of its own (Anthropic). OpenAI and the AI SDK pair a result
    /// with the newest call of its id before it, so an id used again (`call_0`) is valid there.
    pub unique_tool_ids: bool,
    /// A request body's list may be a plain string, one user message (the Responses API's
    /// `input`).
    pub string_list: bool,
    /// Pairs the list's tool calls and results where the format pairs them by their places
    /// (Gemini without ids): sets the results' ids from the whole list, after every read.
    pub link: Option<fn(&mut Transcript<'_>, &[&Value])>,
}

/// One registered format.
pub(crate) struct Adapter {
    /// The variant the internal model records.
    pub format: Format,
    /// The `format` option's value (`"openai"`).
    pub name: &'static str,
    /// The name in an error message (`"OpenAI"`).
    pub label: &'static str,
    /// The field of a request body (and the start of error paths) holding the message list.
    pub list_key: &'static str,
    /// Reader, writer and detection; `None` for flat text.
    pub structured: Option<Structured>,
}

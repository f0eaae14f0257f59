//! Every wire format, registered once: its option name, the name people use for it, the key of
//! its message list in a request body, and — for the structured ones — its reader, its writer
//! and the evidence that detects it. A new format is one adapter file that declares its
//! `Adapter` plus one line in `ADAPTERS` (and a variant of [`Format`]).

use super::detect::{Field, Seen};
use super::json::Writer;
use crate::error::{CompactionError, Result};
use crate::transcript::{Format, Message};
use serde_json::Value;

/// A message's fields that detection looks at, read in one pass over the message (a hash lookup
/// each was most of detection's time).
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct MessageFields<'v> {
    /// `role`, when a string.
    pub role: Option<&'v str>,
    /// `tool_calls`.
    pub tool_calls: Option<&'v Value>,
    /// `tool_call_id`.
    pub tool_call_id: Option<&'v Value>,
    /// `content`.
    pub content: Option<&'v Value>,
}

/// How a structured format reads, writes and is recognised.
pub(crate) struct Structured {
    /// Reads message `index` into the internal model; errors name `<list_key>[index]...`.
    pub read_message: for<'v> fn(&'v Value, usize) -> Result<Message<'v>>,
    /// Writes a plan's edits back into messages of the format.
    pub writer: &'static (dyn Writer + Sync),
    /// Evidence from a message's own fields, each given to `found` with where it was seen and
    /// what.
    pub message_evidence: fn(&MessageFields<'_>, found: &mut dyn FnMut(Field, Seen<'static>)),
    /// Evidence from a content part of type `part_type` (only this format has such a part).
    pub part_evidence: for<'v> fn(&'v str, &Value) -> Option<Seen<'v>>,
    /// A tool definition in the format's own shape, from its name, description and input schema.
    pub tool_definition: fn(&str, &str, Value) -> Value,
    /// Every tool call needs an id of its own (Anthropic). OpenAI and the AI SDK pair a result
    /// with the newest call of its id before it, so an id used again (`call_0`) is valid there.
    pub unique_tool_ids: bool,
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

/// Flat text: the seed's conventions, read by [`super::text`], not a message list.
static TEXT: Adapter = Adapter {
    format: Format::Text,
    name: "text",
    label: "text",
    list_key: "text",
    structured: None,
};

/// Every format, structured ones in detection order (the first is the default of a plain list).
pub(crate) static ADAPTERS: [&Adapter; 4] = [
    &super::openai::ADAPTER,
    &super::anthropic::ADAPTER,
    &super::ai_sdk::ADAPTER,
    &TEXT,
];

/// The registration of `format`.
pub(crate) fn adapter(format: Format) -> &'static Adapter {
    ADAPTERS
        .iter()
        .copied()
        .find(|adapter| adapter.format == format)
        .unwrap_or(&TEXT)
}

/// The reader and writer of a structured `format`; flat text is an error.
pub(crate) fn structured(format: Format) -> Result<&'static Structured> {
    adapter(format).structured.as_ref().ok_or_else(|| {
        CompactionError::type_error("format", "\"text\" needs a text context, not messages")
    })
}

/// Whether `format` needs every tool call to have an id of its own (see
/// [`Structured::unique_tool_ids`]; flat text has no ids).
pub(crate) fn unique_tool_ids(format: Format) -> bool {
    structured(format).is_ok_and(|structured| structured.unique_tool_ids)
}

/// The structured formats, in detection order.
pub(crate) fn structured_adapters() -> impl Iterator<Item = (&'static Adapter, &'static Structured)>
{
    ADAPTERS
        .iter()
        .filter_map(|adapter| Some((*adapter, adapter.structured.as_ref()?)))
}

/// The format whose option name is `name`.
pub fn by_name(name: &str) -> Option<Format> {
    ADAPTERS
        .iter()
        .find(|adapter| adapter.name == name)
        .map(|adapter| adapter.format)
}

/// Every option name, quoted and comma-separated, as error messages list them
/// (`"openai", "anthropic", "ai-sdk", "text"`).
pub fn quoted_names() -> String {
    let names: Vec<String> = ADAPTERS
        .iter()
        .map(|adapter| format!("{:?}", adapter.name))
        .collect();
    names.join(", ")
}

/// Whether `format` needs user and assistant messages to alternate, the first from the user
/// (its writer says so: Anthropic). A tier that removes messages checks it.
pub fn alternates(format: Format) -> bool {
    adapter(format)
        .structured
        .as_ref()
        .is_some_and(|structured| structured.writer.alternates())
}

/// The option name of `format` (`"ai-sdk"`).
pub fn name(format: Format) -> &'static str {
    adapter(format).name
}

/// The name people use for `format` (`"AI SDK"`).
pub fn label(format: Format) -> &'static str {
    adapter(format).label
}

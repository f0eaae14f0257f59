//! Every wire format, registered once: its option name, the name people use for it, the key of
//! its message list in a request body, and — for the structured ones — its reader, its writer
//! and the evidence that detects it. A new format is one adapter file (for a structured one:
//! `LIST_KEY`, `read_message`, `WRITER`, `message_evidence`, `part_evidence`,
//! `tool_definition`) plus one line in `ADAPTERS` (and a variant of [`Format`]), and a folder of
//! fixtures in `tests/fixtures/formats/` (`tests/README.md`).

pub(crate) use super::adapter::{Adapter, MessageFields, Structured};
use crate::error::{CompactionError, Result};
use crate::transcript::{Format, Transcript};
use serde_json::Value;

/// Flat text: the seed's conventions, read by [`super::text`], not a message list.
static TEXT: Adapter = Adapter {
    format: Format::Text,
    name: "text",
    label: "text",
    list_key: "text",
    structured: None,
};

/// The registration of a structured format from its adapter module (which declares what the
/// module docs list) and what sets the format apart: its variant, option name and label, then
/// any [`Structured`] field that is not the default (`unique_tool_ids: true`).
macro_rules! structured {
    ($module:ident, $format:ident, $name:literal, $label:literal $(, $field:ident: $value:expr)*) => {
        Adapter {
            format: Format::$format,
            name: $name,
            label: $label,
            list_key: super::$module::LIST_KEY,
            structured: Some(Structured {
                $($field: $value,)*
                ..Structured {
                    read_message: super::$module::read_message,
                    writer: &super::$module::WRITER,
                    message_evidence: super::$module::message_evidence,
                    part_evidence: super::$module::part_evidence,
                    tool_definition: super::$module::tool_definition,
                    unique_tool_ids: false,
                    string_list: false,
                    link: None,
                }
            }),
        }
    };
}

/// Every format, structured ones in detection order (the first is the default of a plain list).
pub(crate) static ADAPTERS: [&Adapter; 6] = [
    &structured!(openai, OpenAi, "openai", "OpenAI"),
    &structured!(anthropic, Anthropic, "anthropic", "Anthropic", unique_tool_ids: true),
    &structured!(ai_sdk, AiSdk, "ai-sdk", "AI SDK"),
    &structured!(responses, Responses, "responses", "OpenAI Responses", string_list: true),
    &structured!(gemini, Gemini, "gemini", "Gemini", link: Some(super::gemini::link)),
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

/// Sets the ids of `transcript`'s tool results where its format pairs them by place (see
/// [`Structured::link`]); `messages` are the values it was read from.
pub(crate) fn link(transcript: &mut Transcript<'_>, messages: &[&Value]) {
    if let Some(link) = structured(transcript.format).ok().and_then(|it| it.link) {
        link(transcript, messages);
    }
}

/// The distinct keys of the structured formats' message lists, in registration order
/// (`messages`, `input`, `contents`): what a request body's list is found by.
pub(crate) fn list_keys() -> impl Iterator<Item = &'static str> {
    let mut keys: Vec<&'static str> = Vec::new();
    for (adapter, _) in structured_adapters() {
        if !keys.contains(&adapter.list_key) {
            keys.push(adapter.list_key);
        }
    }
    keys.into_iter()
}

/// The structured formats whose list has the key `key`.
pub(crate) fn with_list_key(key: &str) -> impl Iterator<Item = &'static Adapter> + '_ {
    structured_adapters()
        .map(|(adapter, _)| adapter)
        .filter(move |adapter| adapter.list_key == key)
}

/// The format whose option name is `name`.
pub fn by_name(name: &str) -> Option<Format> {
    ADAPTERS
        .iter()
        .find(|adapter| adapter.name == name)
        .map(|adapter| adapter.format)
}

/// Every option name, quoted and comma-separated, as error messages list them
/// (`"openai", "anthropic", "ai-sdk", "responses", "gemini", "text"`).
pub fn quoted_names() -> String {
    let names: Vec<String> = ADAPTERS.iter().map(|it| format!("{:?}", it.name)).collect();
    names.join(", ")
}

/// Whether `format` needs user and assistant messages to alternate, the first from the user
/// (its writer says so: Anthropic). A tier that removes messages checks it.
pub fn alternates(format: Format) -> bool {
    structured(format).is_ok_and(|structured| structured.writer.alternates())
}

/// The option name of `format` (`"ai-sdk"`).
pub fn name(format: Format) -> &'static str {
    adapter(format).name
}

/// The key of `format`'s list in a request body (`"messages"`, `"input"`, `"contents"`).
pub fn list_key(format: Format) -> &'static str {
    adapter(format).list_key
}

/// The name people use for `format` (`"AI SDK"`).
pub fn label(format: Format) -> &'static str {
    adapter(format).label
}

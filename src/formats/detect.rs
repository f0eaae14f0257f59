//! Which wire format a `messages` array is in.
//!
//! Detection looks for positive evidence only: a part type, field or role that exists in one
//! format and not the others. The first piece of evidence decides; a later piece that points
//! elsewhere is an error naming both places, because guessing would make one of the readers
//! mangle the other's messages. Plain `{role, content: string}` lists are valid in OpenAI,
//! Anthropic, the AI SDK and the Responses API and are read as OpenAI (the most common host
//! format, and the reader that accepts the widest set of roles).

use super::common::Path;
pub(crate) use super::evidence::{Field, Seen};
use super::registry::{self, MessageFields};
use crate::error::{CompactionError, Result};
use crate::transcript::Format;
use serde_json::Value;

/// Detects the format of structured messages from their roles, fields and part types.
///
/// An empty list, or one without any format-specific evidence, is OpenAI. Contradictory
/// evidence is a type error at the field that contradicts the first evidence found.
pub fn detect(messages: &[Value]) -> Result<Format> {
    Ok(first_evidence(messages)?.map_or(Format::OpenAi, |evidence| evidence.format))
}

/// One piece of format-specific evidence: which format, where, and what was seen. Where and what
/// are written out only when an error names them (formatting them for every message cost about
/// 4 % of a request-body call).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Evidence<'v> {
    /// The format the evidence points to.
    pub format: Format,
    /// Index of the message it was found in.
    pub message: usize,
    /// Where in the message it was found.
    field: Field,
    /// What was seen.
    what: Seen<'v>,
}

impl Evidence<'_> {
    /// Field path of the evidence in the list `list_key` (`messages[5].content[0].type`).
    fn path_in(&self, list_key: &'static str) -> String {
        let message = Path::Message(list_key, self.message);
        match self.field {
            Field::Named(field) => message.field(field).to_string(),
            Field::PartType(part) => message.item("content", part).field("type").to_string(),
        }
    }

    /// What was seen, quoted (`"tool_use"`).
    fn what(&self) -> String {
        match self.what {
            Seen::Words(words) => words.to_string(),
            Seen::PartType(part_type) => format!("{part_type:?}"),
        }
    }

    /// The error for evidence of a format whose list has another key than `list_key`, the key
    /// of the request body's list it was found in.
    pub(crate) fn in_list(&self, list_key: &'static str) -> CompactionError {
        CompactionError::type_error(
            self.path_in(list_key),
            format!(
                ": {} is {}, whose list is body.{}, not body.{list_key}",
                self.what(),
                format_name(self.format),
                registry::adapter(self.format).list_key
            ),
        )
    }

    /// The error for `self` contradicting `first` (paths in the list of `first`'s format).
    pub(crate) fn contradicts(&self, first: &Evidence) -> CompactionError {
        CompactionError::type_error(
            self.path_in(registry::adapter(first.format).list_key),
            format!(
                ": {} is {} but {} is {}",
                self.what(),
                format_name(self.format),
                Path::Message(registry::adapter(first.format).list_key, first.message),
                format_name(first.format)
            ),
        )
    }
}

/// The first piece of evidence in `messages`, after checking that no later one contradicts it.
pub(crate) fn first_evidence(messages: &[Value]) -> Result<Option<Evidence<'_>>> {
    let mut first: Option<Evidence> = None;
    let mut found = Vec::new();
    for (index, message) in messages.iter().enumerate() {
        found.clear();
        message_evidence(message, index, &mut found);
        for evidence in found.drain(..) {
            match &first {
                None => first = Some(evidence),
                Some(seen) if seen.format != evidence.format => {
                    return Err(evidence.contradicts(seen));
                }
                Some(_) => {}
            }
        }
    }
    Ok(first)
}

/// The name a person would use for a format in an error message.
pub(crate) fn format_name(format: Format) -> &'static str {
    registry::label(format)
}

/// Evidence found in one message, in field order, pushed onto `out`. Malformed messages give
/// none: the reader reports them with a better message than detection could.
fn message_evidence<'v>(message: &'v Value, index: usize, out: &mut Vec<Evidence<'v>>) {
    let Some(object) = message.as_object() else {
        return;
    };
    let mut fields = MessageFields::default();
    for (name, value) in object {
        match name.as_str() {
            "role" => fields.role = value.as_str(),
            "tool_calls" => fields.tool_calls = Some(value),
            "tool_call_id" => fields.tool_call_id = Some(value),
            "content" => fields.content = Some(value),
            "type" => fields.item_type = value.as_str(),
            "call_id" => fields.call_id = Some(value),
            "parts" => fields.parts = Some(value),
            _ => {}
        }
    }
    for (adapter, structured) in registry::structured_adapters() {
        (structured.message_evidence)(&fields, &mut |field, what| {
            out.push(Evidence {
                format: adapter.format,
                message: index,
                field: Field::Named(field),
                what: Seen::Words(what),
            })
        });
    }
    let Some(parts) = fields.content.and_then(Value::as_array) else {
        return;
    };
    for (part_index, part) in parts.iter().enumerate() {
        let Some(part_type) = part.get("type").and_then(Value::as_str) else {
            continue;
        };
        for (adapter, structured) in registry::structured_adapters() {
            if let Some(what) = (structured.part_evidence)(part_type, part) {
                out.push(Evidence {
                    format: adapter.format,
                    message: index,
                    field: Field::PartType(part_index),
                    what,
                });
                break;
            }
        }
    }
}

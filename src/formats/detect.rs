//! Which wire format a `messages` array is in.
//!
//! Detection looks for positive evidence only: a part type, field or role that exists in one
//! format and not the others. The first piece of evidence decides; a later piece that points
//! elsewhere is an error naming both places, because guessing would make one of the readers
//! mangle the other's messages. Plain `{role, content: string}` lists are valid in OpenAI,
//! Anthropic, the AI SDK and the Responses API and are read as OpenAI (the most common host
//! format, and the reader that accepts the widest set of roles).

use super::common::message_path;
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
    /// Field path of the evidence (`messages[5].content[0].type`) in a list of `format`.
    fn path(&self, format: Format) -> String {
        self.path_in(registry::adapter(format).list_key)
    }

    /// Field path of the evidence in the list `list_key`.
    fn path_in(&self, list_key: &'static str) -> String {
        let message = message_path(list_key, self.message);
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
            self.path(first.format),
            format!(
                ": {} is {} but {} is {}",
                self.what(),
                format_name(self.format),
                message_path(registry::adapter(first.format).list_key, first.message),
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
                field,
                what,
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::common::{content_location, data_uri_media_type, role_of, text_part};
    use crate::transcript::Role;
    use serde_json::json;

    fn detect_one(messages: Value) -> Result<Format> {
        match messages {
            Value::Array(messages) => detect(&messages),
            _ => panic!("test input must be an array"),
        }
    }

    #[test]
    fn detection_table() {
        let cases: Vec<(&str, Value, Format)> = vec![
            ("empty", json!([]), Format::OpenAi),
            (
                "plain strings",
                json!([{"role":"user","content":"hi"},{"role":"assistant","content":"yo"}]),
                Format::OpenAi,
            ),
            (
                "openai tool_calls",
                json!([{"role":"assistant","content":null,"tool_calls":[]}]),
                Format::OpenAi,
            ),
            (
                "openai tool message",
                json!([{"role":"tool","tool_call_id":"c1","content":"ok"}]),
                Format::OpenAi,
            ),
            (
                "openai developer",
                json!([{"role":"developer","content":"x"}]),
                Format::OpenAi,
            ),
            (
                "openai image_url",
                json!([{"role":"user","content":[{"type":"image_url","image_url":{"url":"https://x"}}]}]),
                Format::OpenAi,
            ),
            (
                "openai input_audio",
                json!([{"role":"user","content":[{"type":"input_audio","input_audio":{"data":"AA","format":"wav"}}]}]),
                Format::OpenAi,
            ),
            (
                "anthropic tool_use",
                json!([{"role":"user","content":"go"},{"role":"assistant","content":[{"type":"tool_use","id":"t","name":"n","input":{}}]}]),
                Format::Anthropic,
            ),
            (
                "anthropic thinking",
                json!([{"role":"assistant","content":[{"type":"thinking","thinking":"hm","signature":"s"}]}]),
                Format::Anthropic,
            ),
            (
                "anthropic image",
                json!([{"role":"user","content":[{"type":"image","source":{"type":"url","url":"https://x"}}]}]),
                Format::Anthropic,
            ),
            (
                "ai-sdk tool-call",
                json!([{"role":"assistant","content":[{"type":"tool-call","toolCallId":"c","toolName":"n","input":{}}]}]),
                Format::AiSdk,
            ),
            (
                "ai-sdk tool role",
                json!([{"role":"tool","content":[{"type":"tool-result","toolCallId":"c","toolName":"n","output":{"type":"text","value":"x"}}]}]),
                Format::AiSdk,
            ),
            (
                "ai-sdk reasoning",
                json!([{"role":"assistant","content":[{"type":"reasoning","text":"hm"}]}]),
                Format::AiSdk,
            ),
            (
                "ai-sdk image",
                json!([{"role":"user","content":[{"type":"image","image":"AAAA"}]}]),
                Format::AiSdk,
            ),
            (
                "ai-sdk file",
                json!([{"role":"user","content":[{"type":"file","data":"AAAA","mediaType":"application/pdf"}]}]),
                Format::AiSdk,
            ),
            (
                "text parts only",
                json!([{"role":"user","content":[{"type":"text","text":"hi"}]}]),
                Format::OpenAi,
            ),
            (
                "malformed messages are left to the reader",
                json!(["x", 3, {"role":"user","content":[{"type":"tool_result","tool_use_id":"t"}]}]),
                Format::Anthropic,
            ),
        ];
        for (name, messages, expected) in cases {
            assert_eq!(detect_one(messages), Ok(expected), "{name}");
        }
    }

    #[test]
    fn contradiction_names_both_places() {
        let messages = json!([
            {"role":"system","content":"s"},
            {"role":"user","content":"u"},
            {"role":"assistant","content":null,"tool_calls":[{"id":"c","type":"function","function":{"name":"f","arguments":"{}"}}]},
            {"role":"tool","tool_call_id":"c","content":"ok"},
            {"role":"user","content":"u2"},
            {"role":"assistant","content":[{"type":"tool_use","id":"t","name":"n","input":{}}]}
        ]);
        let error = detect_one(messages).unwrap_err();
        assert_eq!(
            error.to_string(),
            "messages[5].content[0].type: \"tool_use\" is Anthropic but messages[2] is OpenAI"
        );
        assert_eq!(error.kind, crate::error::ErrorKind::Type);
    }

    #[test]
    fn contradiction_inside_one_message() {
        let messages = json!([
            {"role":"user","content":[{"type":"tool-result","toolCallId":"c","toolName":"n","output":{"type":"text","value":"x"}},
                                     {"type":"tool_result","tool_use_id":"c"}]}
        ]);
        assert_eq!(
            detect_one(messages).unwrap_err().to_string(),
            "messages[0].content[1].type: \"tool_result\" is Anthropic but messages[0] is AI SDK"
        );
    }

    #[test]
    fn role_errors_list_the_roles() {
        let roles = [("user", Role::User), ("assistant", Role::Assistant)];
        let object = json!({"role": "bot"});
        let object = object.as_object().unwrap();
        assert_eq!(
            role_of(object, &message_path("messages", 3), &roles)
                .unwrap_err()
                .to_string(),
            "messages[3].role: expected one of \"user\", \"assistant\", got \"bot\""
        );
        let object = json!({"content": "x"});
        assert_eq!(
            role_of(
                object.as_object().unwrap(),
                &message_path("messages", 0),
                &roles
            )
            .unwrap_err()
            .to_string(),
            "messages[0].role: expected one of \"user\", \"assistant\", got undefined"
        );
        let object = json!({"role": 7});
        assert_eq!(
            role_of(
                object.as_object().unwrap(),
                &message_path("messages", 0),
                &roles
            )
            .unwrap_err()
            .to_string(),
            "messages[0].role: expected one of \"user\", \"assistant\", got number"
        );
    }

    #[test]
    fn data_uris() {
        assert_eq!(
            data_uri_media_type("data:image/png;base64,AAA"),
            Some("image/png")
        );
        assert_eq!(
            data_uri_media_type("data:text/plain,hi"),
            Some("text/plain")
        );
        assert_eq!(data_uri_media_type("data:;base64,AAA"), None);
        assert_eq!(data_uri_media_type("https://x/y.png"), None);
        assert_eq!(data_uri_media_type("data:nothing"), None);
    }

    #[test]
    fn text_part_carries_cache_and_provider_fields() {
        let part = json!({"type":"image","source":{},"cache_control":{"type":"ephemeral"},
                          "providerOptions":{"a":1},"custom":true});
        assert_eq!(
            text_part(&part, "gone"),
            json!({"type":"text","text":"gone","cache_control":{"type":"ephemeral"},"providerOptions":{"a":1}})
        );
    }

    #[test]
    fn locations() {
        assert_eq!(
            content_location("messages", 3, &[], ".content"),
            "messages[3].content"
        );
        assert_eq!(
            content_location("messages", 3, &[1], ".content"),
            "messages[3].content[1]"
        );
        assert_eq!(
            content_location("messages", 3, &[1, 0], ".content"),
            "messages[3].content[1].content[0]"
        );
        assert_eq!(
            content_location("messages", 3, &[0, 1], ".output.value"),
            "messages[3].content[0].output.value[1]"
        );
    }
}

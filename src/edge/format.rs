//! A request body's format: its list key's one format, or among those sharing the key
//! (`messages`), the messages' evidence and the body's Anthropic-only top-level fields.

use super::layout::BodyLayout;
use crate::error::{CompactionError, Result};
use crate::formats::detect::{Evidence, first_evidence, format_name};
use crate::formats::registry;
use crate::transcript::Format;
use serde_json::Value;

/// The format of a body laid out as `layout` whose list holds `messages`: the one format of its
/// list key (`input`, `contents`); else evidence in the messages wins, and a top-level `system`
/// makes a plain list Anthropic and contradicts OpenAI evidence (Chat Completions has no
/// top-level system; the AI SDK's call options have one, so AI SDK evidence is compatible with
/// it). Evidence of a format whose list has another key is an error naming both.
pub(crate) fn format_for(layout: &BodyLayout, messages: &[Value]) -> Result<Format> {
    // Looked for once: the evidence is most of a format's cost on a long list.
    let evidence = first_evidence(messages)?;
    if let Some(evidence) = &evidence {
        let key = registry::adapter(evidence.format).list_key;
        if key != layout.list_key {
            return Err(evidence.in_list(layout.list_key));
        }
    }
    let mut formats = registry::with_list_key(layout.list_key);
    match (formats.next(), formats.next()) {
        (Some(only), None) => Ok(only.format),
        _ => format_of_evidence(layout.anthropic_field, evidence),
    }
}

/// The format of a `messages` list whose first format-specific evidence is `evidence`, given the
/// Anthropic-only top-level field the request has, if any.
fn format_of_evidence(field: Option<&str>, evidence: Option<Evidence<'_>>) -> Result<Format> {
    match (field, evidence) {
        (Some(field), Some(evidence)) if evidence.format == Format::OpenAi => {
            Err(CompactionError::type_error(
                format!("body.{field}"),
                format!(
                    ": a top-level \"{field}\" is Anthropic but messages[{}] is {}",
                    evidence.message,
                    format_name(evidence.format)
                ),
            ))
        }
        (_, Some(evidence)) => Ok(evidence.format),
        (Some(_), None) => Ok(Format::Anthropic),
        (None, None) => Ok(Format::OpenAi),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The format of a body with the top-level members `fields` (each followed by a comma) and
    /// the list `key` holding `messages`.
    fn format_of(fields: &str, key: &str, messages: &[Value]) -> Result<Format> {
        let list = serde_json::to_string(messages).expect("serialises");
        let body = format!("{{{fields}\"{key}\":{list}}}");
        let laid_out =
            super::super::layout::layout_with(&body, &crate::api::limits::Limits::default(), false)
                .expect("valid")
                .0;
        format_for(&laid_out, messages)
    }

    #[test]
    fn request_formats() {
        let plain = vec![json!({"role":"user","content":"hi"})];
        let openai = vec![json!({"role":"assistant","content":null,"tool_calls":[]})];
        let anthropic =
            vec![json!({"role":"user","content":[{"type":"tool_result","tool_use_id":"t"}]})];
        let ai_sdk = vec![json!({"role":"assistant","content":[{"type":"reasoning","text":"r"}]})];
        let (system, none) = ("\"system\":\"s\",", "\"model\":\"m\",");
        let messages = |fields, list: &[Value]| format_of(fields, "messages", list);
        assert_eq!(messages(none, &plain), Ok(Format::OpenAi));
        assert_eq!(messages(system, &plain), Ok(Format::Anthropic));
        assert_eq!(messages(none, &anthropic), Ok(Format::Anthropic));
        assert_eq!(messages(system, &anthropic), Ok(Format::Anthropic));
        assert_eq!(messages(system, &ai_sdk), Ok(Format::AiSdk));
        assert_eq!(messages(none, &openai), Ok(Format::OpenAi));
        assert_eq!(
            messages(system, &openai).unwrap_err().to_string(),
            "body.system: a top-level \"system\" is Anthropic but messages[0] is OpenAI"
        );
        let bedrock = "\"anthropic_version\":\"bedrock-2023-05-31\",";
        assert_eq!(messages(bedrock, &plain), Ok(Format::Anthropic));
        // A list key of one format settles it; evidence of another format's list is refused.
        assert_eq!(format_of(none, "contents", &[]), Ok(Format::Gemini));
        assert_eq!(format_of(none, "input", &plain), Ok(Format::Responses));
        assert!(format_of(none, "input", &anthropic).is_err());
    }
}

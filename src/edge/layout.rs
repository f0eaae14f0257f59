//! A request body checked and laid out before its messages are read ([`BodyLayout`]): the
//! errors of reading it whole, in the same order and with serde_json's words, from one pass of
//! [`scan`] over a valid body.

use super::scan;
use super::span::{MessagesSpan, scanner_disagrees};
use crate::error::{CompactionError, Result};
use crate::formats::registry;
use serde_json::Value;

/// A request body checked and measured, before its messages are read: where they are, and the
/// top-level field that makes a plain list Anthropic. Nothing of the body is copied, so a caller
/// can let the body go and read each message on its own ([`parse_message`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct BodyLayout {
    /// The message list and its elements (a plain string list: the string, its one element).
    pub span: MessagesSpan,
    /// The list's key (`messages`, `input`, `contents`).
    pub list_key: &'static str,
    /// The list is a plain string, one user message (a Responses `input`).
    pub string_list: bool,
    /// `system` or `anthropic_version`, when the body has one.
    pub anthropic_field: Option<&'static str>,
    /// The body continues a conversation the provider stores ([`scan::Scan::server_history`]).
    pub server_history: bool,
}

/// Checks `body` against the limits and as JSON and finds its messages (one pass,
/// [`scan::scan`]): the errors of reading it whole, in the same order, with serde_json's words.
/// With `parse`, the messages are read as values on the way when serde_json reads them all (a
/// plain string list's are not).
pub(crate) fn layout_with(
    body: &str,
    limits: &crate::api::limits::Limits,
    parse: bool,
) -> Result<(BodyLayout, Option<Vec<Value>>)> {
    // Refuse an oversized body before parsing it (the engine checks `messages` again, as JSON).
    limits.validate().map_err(|e| e.under("policy"))?;
    limits.check_text("body", body)?;
    let top = scan::scan(body, parse).ok_or_else(|| refusal(body))?;
    let (Some((array, mut elements)), Some(list_key)) = (top.messages, top.list_key) else {
        return Err(CompactionError::type_error(
            "body.messages",
            "is required (or body.input for the OpenAI Responses API, body.contents for Gemini)",
        ));
    };
    let first = body.as_bytes().get(array.start).copied();
    let string_list = first == Some(b'"')
        && registry::with_list_key(list_key)
            .any(|adapter| adapter.structured.as_ref().is_some_and(|s| s.string_list));
    if string_list {
        elements = vec![array.clone()];
    } else if first != Some(b'[') {
        return Err(CompactionError::type_error(
            format!("body.{list_key}"),
            format!(": expected an array, got {}", type_at(first)),
        ));
    }
    let layout = BodyLayout {
        span: MessagesSpan { array, elements },
        list_key,
        string_list,
        anthropic_field: top.anthropic_field,
        server_history: top.server_history,
    };
    Ok((layout, top.values.filter(|_| !string_list)))
}

/// Why the pass gave up on `body`: serde_json's error, or the body is not an object (or is
/// nested too deep for the parser).
fn refusal(body: &str) -> CompactionError {
    if let Err(error) = serde_json::from_str::<serde::de::IgnoredAny>(body) {
        return body_error(error);
    }
    let first = body.trim_start().as_bytes().first().copied();
    if first != Some(b'{') {
        return CompactionError::type_error(
            "body",
            format!(": expected a JSON object, got {}", type_at(first)),
        );
    }
    match serde_json::from_str::<Value>(body) {
        Err(error) => body_error(error),
        Ok(_) => scanner_disagrees(),
    }
}

/// One message's JSON text (an element of a body [`layout_with`] accepted) as a value.
pub(crate) fn parse_message(text: &str) -> Result<Value> {
    serde_json::from_str(text).map_err(|_| scanner_disagrees())
}

/// The body's parse error (a too deep body is a range error).
fn body_error(error: serde_json::Error) -> CompactionError {
    // serde_json stops at 128 levels of nesting: valid JSON, but too deep to read.
    if error.to_string().starts_with("recursion limit exceeded") {
        CompactionError::range_error(
            "body",
            format!(": nesting deeper than 128 levels ({error})"),
        )
    } else {
        CompactionError::parse_error("body", format!("is not valid JSON: {error}"))
    }
}

/// The JSON type of the valid value starting with `byte`.
fn type_at(byte: Option<u8>) -> &'static str {
    match byte {
        Some(b'{') => "object",
        Some(b'[') => "array",
        Some(b'"') => "string",
        Some(b't' | b'f') => "boolean",
        Some(b'n') => "null",
        _ => "number",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn layout(body: &str, limits: &crate::api::limits::Limits) -> Result<BodyLayout> {
        Ok(layout_with(body, limits, false)?.0)
    }

    fn error_of(body: &str) -> String {
        layout(body, &crate::api::limits::Limits::default())
            .expect_err("refused")
            .to_string()
    }

    #[test]
    fn body_errors_name_the_body() {
        let error =
            layout("{\"messages\": [}", &crate::api::limits::Limits::default()).unwrap_err();
        assert_eq!(error.kind, crate::error::ErrorKind::Parse);
        assert_eq!(
            error.to_string(),
            "body is not valid JSON: expected value at line 1 column 15"
        );
        assert_eq!(error_of("[1]"), "body: expected a JSON object, got array");
        assert_eq!(
            error_of("{\"model\":\"m\"}"),
            "body.messages is required (or body.input for the OpenAI Responses API, body.contents for Gemini)"
        );
        assert_eq!(
            error_of("{\"messages\":{}}"),
            "body.messages: expected an array, got object"
        );
    }

    #[test]
    fn a_plain_string_list_is_one_element() {
        let body = r#"{"input":"Fix the build.","model":"m"}"#;
        let laid_out = layout(body, &crate::api::limits::Limits::default()).expect("valid");
        assert!(laid_out.string_list);
        assert_eq!(laid_out.list_key, "input");
        assert_eq!(
            laid_out.span.elements,
            vec![laid_out.span.array.clone()],
            "the string is its one element"
        );
        assert_eq!(&body[laid_out.span.array], "\"Fix the build.\"");
    }

    #[test]
    fn layout_refuses_exactly_what_the_parser_refuses() {
        let limits = crate::api::limits::Limits::default();
        for depth in 110..140 {
            for (open, close) in [("[", "]"), ("{\"k\":", "}")] {
                let deep = format!("{}1{}", open.repeat(depth), close.repeat(depth));
                for body in [
                    format!("{{\"messages\":[{{\"role\":\"user\",\"content\":{deep}}}]}}"),
                    format!("{{\"x\":{deep},\"messages\":[]}}"),
                ] {
                    let parsed = serde_json::from_str::<Value>(&body).map_err(body_error);
                    for parse in [false, true] {
                        let laid_out = layout_with(&body, &limits, parse);
                        assert_eq!(laid_out.is_ok(), parsed.is_ok(), "{depth} {open}");
                        if let (Err(error), Err(expected)) = (laid_out, &parsed) {
                            assert_eq!(&error, expected);
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn deep_nesting_is_the_parsers_to_refuse() {
        let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
        let body = format!("{{\"messages\":[{deep}]}}");
        let error = layout(&body, &crate::api::limits::Limits::default()).expect_err("too deep");
        assert_eq!(
            error,
            body_error(serde_json::from_str::<Value>(&body).unwrap_err())
        );
        assert!(
            error.to_string().contains("nesting deeper than 128 levels"),
            "{error}"
        );
    }
}

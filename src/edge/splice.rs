//! The compacted body: the input body with its message list replaced, unchanged messages copied
//! as their original bytes (whitespace, key order, escapes and number spellings included) and
//! only new or edited messages serialised, compactly, straight into the output
//! ([`super::write`]).

use super::source::{BodySource, Splice};
use super::span::MessagesSpan;
use crate::error::{CompactionError, Result};
use serde_json::Value;
use std::ops::Range;

/// The body of `source` with its `messages` array (at `span`, `input_len` messages) replaced by
/// `output`.
///
/// An output message whose origin is input message `i` (an unchanged copy, see
/// [`TierResult::origins`]) is copied as the original bytes of element `i`; the others are
/// serialised compactly. When every message is its own unchanged copy the body is returned as
/// it was, whitespace inside the array included.
pub(crate) fn splice_messages<S: BodySource>(
    source: &S,
    span: &MessagesSpan,
    input_len: usize,
    output: &[Value],
    origins: &[Option<usize>],
) -> Result<S::Body> {
    let unchanged = output.len() == input_len
        && (0..input_len).all(|index| origins.get(index) == Some(&Some(index)));
    if unchanged {
        return Ok(source.unchanged());
    }
    // Copying bytes is only sound if the spans are the elements serde_json read (they always are).
    let originals: &[Range<usize>] = if span.elements.len() == input_len {
        &span.elements
    } else {
        &[]
    };
    // Room for what is copied as it was; serialised messages grow it as needed.
    let kept: usize = origins
        .iter()
        .filter_map(|origin| originals.get((*origin)?))
        .map(|original| original.len() + 1)
        .sum();
    let mut spliced = source.splice(span, kept + 2)?;
    spliced.push_text("[");
    for (index, message) in output.iter().enumerate() {
        if index > 0 {
            spliced.push_text(",");
        }
        let original = origins
            .get(index)
            .copied()
            .flatten()
            .filter(|&at| at < originals.len());
        match original {
            Some(at) => spliced.push_original(at)?,
            None => write_message(spliced.written(), message)?,
        }
    }
    spliced.push_text("]");
    Ok(spliced.finish())
}

/// Appends `message` as compact JSON to `out`.
fn write_message(out: &mut String, message: &Value) -> Result<()> {
    super::write::write_value(out, message).map_err(|error| {
        CompactionError::type_error("body.messages", format!("could not be serialised: {error}"))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The message list of `body` as laid out, and as serde_json reads it.
    fn laid_out(body: &str) -> (MessagesSpan, Vec<Value>) {
        let layout =
            super::super::layout::layout_with(body, &crate::api::limits::Limits::default(), false)
                .expect("valid")
                .0;
        let Ok(Value::Object(mut top)) = serde_json::from_str::<Value>(body) else {
            panic!("an object");
        };
        let Some(Value::Array(messages)) = top.remove("messages") else {
            panic!("no messages");
        };
        (layout.span, messages)
    }

    const BODY: &str = "{\n  \"model\": \"gpt-4o\",\n  \"messages\": [\n    {\"role\": \"system\", \"content\": \"be brief\"},\n    {\"role\": \"assistant\",   \"content\": \"caf\\u00e9\", \"tool_calls\": [{\"id\": \"c\", \"type\": \"function\", \"function\": {\"name\": \"f\", \"arguments\": \"{}\"}}]},\n    {\"role\": \"tool\", \"tool_call_id\": \"c\", \"content\": \"long body\", \"x\": 1.0},\n    {\"role\": \"user\", \"content\": \"next\"}\n  ],\n  \"temperature\": 0.20\n}\n";

    #[test]
    fn unchanged_output_returns_the_body_as_is() {
        let (span, input) = laid_out(BODY);
        assert_eq!(
            splice_messages(
                &BODY,
                &span,
                input.len(),
                &input,
                &[Some(0), Some(1), Some(2), Some(3)]
            ),
            Ok(BODY.to_string())
        );
    }

    #[test]
    fn edited_message_is_the_only_one_reserialised() {
        let (span, input) = laid_out(BODY);
        let mut output = input.clone();
        output[2]["content"] = json!("short");
        let origins = [Some(0), Some(1), None, Some(3)];
        let spliced =
            splice_messages(&BODY, &span, input.len(), &output, &origins).expect("spliced");
        assert_eq!(
            spliced,
            "{\n  \"model\": \"gpt-4o\",\n  \"messages\": [{\"role\": \"system\", \"content\": \"be brief\"},{\"role\": \"assistant\",   \"content\": \"caf\\u00e9\", \"tool_calls\": [{\"id\": \"c\", \"type\": \"function\", \"function\": {\"name\": \"f\", \"arguments\": \"{}\"}}]},{\"role\":\"tool\",\"tool_call_id\":\"c\",\"content\":\"short\",\"x\":1.0},{\"role\": \"user\", \"content\": \"next\"}],\n  \"temperature\": 0.20\n}\n"
        );
        let reparsed: Value = serde_json::from_str(&spliced).expect("valid JSON");
        assert_eq!(reparsed["messages"], Value::Array(output));
    }

    #[test]
    fn replaced_range_keeps_later_originals() {
        let (span, input) = laid_out(BODY);
        let output = vec![
            input[0].clone(),
            json!({"role":"assistant","content":"[digest]"}),
            input[3].clone(),
        ];
        let origins = [Some(0), None, Some(3)];
        let spliced =
            splice_messages(&BODY, &span, input.len(), &output, &origins).expect("spliced");
        assert!(spliced.contains(
            "[{\"role\": \"system\", \"content\": \"be brief\"},{\"role\":\"assistant\",\"content\":\"[digest]\"},{\"role\": \"user\", \"content\": \"next\"}]"
        ));
        assert!(spliced.ends_with("],\n  \"temperature\": 0.20\n}\n"));
        let output: Vec<Value> = vec![];
        let spliced = splice_messages(&BODY, &span, input.len(), &output, &[]).expect("spliced");
        assert!(spliced.contains("\"messages\": [],\n"));
    }

    fn any_json() -> impl proptest::strategy::Strategy<Value = Value> {
        use proptest::prelude::*;
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i64>().prop_map(|n| json!(n)),
            (-1.0e9f64..1.0e9).prop_map(|x| json!(x)),
            "[a-z\"\\\\/\u{0}-\u{1f}\u{e9}\u{2028}\u{1F600}\\[\\]{},: ]{0,8}"
                .prop_map(Value::String),
        ];
        leaf.prop_recursive(4, 48, 5, |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
                proptest::collection::vec(("[a-z\"\\\\]{0,4}", inner), 0..5)
                    .prop_map(|fields| Value::Object(fields.into_iter().collect())),
            ]
        })
    }

    proptest::proptest! {
        #[test]
        fn spans_agree_with_serde_json(
            messages in proptest::collection::vec(any_json(), 0..5),
            before in any_json(),
            after in any_json(),
            pretty in proptest::prelude::any::<bool>(),
        ) {
            let request = json!({"before": before, "messages": messages, "after": after});
            let body = if pretty {
                serde_json::to_string_pretty(&request)
            } else {
                serde_json::to_string(&request)
            }
            .expect("serialises");
            // Compared with serde_json's own reading of the body, as production does: without
            // its `float_roundtrip` feature a float may not read back as the value written.
            let (span, messages) = laid_out(&body);
            proptest::prop_assert_eq!(span.elements.len(), messages.len());
            for (element, message) in span.elements.iter().zip(&messages) {
                let parsed: Value = serde_json::from_str(&body[element.clone()]).expect("valid span");
                proptest::prop_assert_eq!(&parsed, message);
            }
            let mut output = messages.clone();
            output.push(json!({"role": "assistant", "content": "new"}));
            let origins: Vec<_> = (0..messages.len()).map(Some).chain([None]).collect();
            let spliced = splice_messages(&body.as_str(), &span, messages.len(), &output, &origins).expect("spliced");
            proptest::prop_assert_eq!(&spliced[..span.array.start], &body[..span.array.start]);
            proptest::prop_assert!(spliced.ends_with(&body[span.array.end..]));
            let reparsed: Value = serde_json::from_str(&spliced).expect("valid JSON");
            proptest::prop_assert_eq!(&reparsed["messages"], &Value::Array(output));
        }
    }
}

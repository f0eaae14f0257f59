//! Long string values inside a tool call's input (a file written whole, a patch) stubbed in
//! place, so the input keeps its shape: an object stays an object (Anthropic, AI SDK), a JSON
//! string of arguments stays a JSON string (OpenAI). Each long value becomes a stub like a tool
//! result's ([`super::stub`]) naming the archive entry that holds the whole input.

use super::stub::{Frame, stub};
use crate::transcript::markers;
use serde_json::Value;

/// The call's input (`arguments`, its JSON text or a plain string) with every string value of
/// more than `threshold` code points stubbed, or `None` when no value is that long.
pub fn stubbed(arguments: &str, threshold: usize, keep: usize, recall: &str) -> Option<String> {
    let frame = Frame::Head {
        keep,
        recall: Some(recall),
    };
    let stub_of = |text: &str| -> Option<String> {
        let chars = text.chars().count();
        if chars <= threshold || markers::is_collapsed_body(text) {
            return None;
        }
        let stubbed = stub(text, chars, crate::transcript::has_crlf(text), &frame)?;
        Some(markers::as_input_stub(&stubbed))
    };
    let Ok(mut input) = serde_json::from_str::<Value>(arguments) else {
        // Not JSON: the input is one plain string.
        return stub_of(arguments);
    };
    let mut changed = false;
    // Iterative: an input nests up to the nesting limit, and the wasm stack is small.
    let mut stack = vec![&mut input];
    while let Some(value) = stack.pop() {
        match value {
            Value::String(text) => {
                if let Some(stubbed) = stub_of(text) {
                    *text = stubbed;
                    changed = true;
                }
            }
            Value::Array(items) => stack.extend(items.iter_mut()),
            Value::Object(fields) => stack.extend(fields.values_mut()),
            _ => {}
        }
    }
    changed.then(|| crate::formats::common::compact_json(&input))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_values_are_stubbed_in_place() {
        let file = format!(
            "# Notes\n{}error: not yet\nsrc/notes.md\n",
            "line\n".repeat(200)
        );
        let input = serde_json::json!({"file_path": "NOTES.md", "content": file}).to_string();
        let out = stubbed(&input, 240, 20, "a0123456789ab").expect("stubbed");
        let value: Value = serde_json::from_str(&out).expect("still JSON");
        assert_eq!(value["file_path"], "NOTES.md");
        let content = value["content"].as_str().expect("a string");
        assert!(content.starts_with("# Notes\nline\nline"), "{content}");
        assert!(content.contains("error: not yet"), "{content}");
        assert!(
            content.ends_with(&format!(
                "[tool input pruned: {} chars; recall: a0123456789ab]",
                file.chars().count()
            )),
            "{content}"
        );
        // Nothing long: nothing to do; a stub is not stubbed again.
        assert_eq!(stubbed(r#"{"cmd":"ls"}"#, 240, 20, "a0"), None);
        assert_eq!(stubbed(&out, 240, 20, "a1"), None);
        // A plain-string input is one value.
        let plain = stubbed(&file, 240, 20, "a2").expect("stubbed");
        assert!(plain.ends_with("recall: a2]"));
    }
}

//! The flat-text adapter: the seed's one-string context read into a [`Transcript`] and edited in
//! place.
//!
//! The text is cut into contiguous *segments* that cover it exactly; each becomes one assistant
//! message (flat text has no user or system roles) with one block and a `Source::Span` of
//! **byte** offsets into the text:
//!
//! - a tool-result fence: a line of three or more backticks followed by `tool_result`, up to the
//!   end of its closing fence line (line ending excluded), or to the end of the text when it is
//!   never closed. Fence lines inside the body nest (see `fences::Levels`), so a fenced code sample in a
//!   tool's output does not end the tool result early. The block's text is the body.
//! - media: a markdown image whose target is a data URI, or a fenced block whose body starts with
//!   a data URI. The block's text is the data URI's payload (what follows its comma, whitespace
//!   removed), so the same image hashes the same as in the JSON formats, which carry bare base64.
//! - prose: everything else, cut where a line starts (after optional whitespace) with an
//!   `[age:N]` tag.
//!
//! Every segment carries the age of the newest tag at or before its start. Tool-result bodies are
//! opaque: nothing inside them is a tag or media of its own.
//!
//! [`apply`] copies the text through and rewrites only what the edits name; every rewrite is
//! recorded with its exact removed substring and its code-point location, so the input can always
//! be restored from the output and the archive.
//!
//! The parts, each a file, in the order they build on each other:
//!
//! - `lines`: lines and their endings (`\n`, `\r\n`) in byte offsets;
//! - `fences`: fence lines and tool-result fences, with the nesting rule;
//! - `media`: data-URI images, inline and fenced;
//! - `segment`: cutting the text into segments and segments into messages ([`read`]);
//! - `sections`: prose cut finer, into paragraphs, for `auto`'s budget ([`read_sections`]);
//! - `splice`: rewriting the text as a plan's edits say ([`apply`]).

mod fences;
mod lines;
mod media;
mod sections;
mod segment;
mod splice;
#[cfg(test)]
mod test_support;

pub use sections::{SECTION_CHARS, read_sections};
pub use splice::apply;

use crate::transcript::{Format, Transcript};

/// Reads flat text into a transcript of [`Format::Text`]: one assistant message per segment.
pub fn read(text: &str) -> Transcript<'_> {
    let messages = segment::segments(text)
        .into_iter()
        .map(|segment| segment.into_message(text))
        .collect();
    Transcript {
        format: Format::Text,
        messages,
    }
}

#[cfg(test)]
mod tests {
    use super::test_support::{apply_ok, collapsed, pieces, replace_block, replace_messages, span};
    use super::{apply, read};
    use crate::markers;
    use crate::plan::ArchiveKind;
    use crate::tokens::estimate_tokens;
    use crate::transcript::{BlockKind, Format, Role};

    #[test]
    fn seed_micro_numbers() {
        let text = format!("```tool_result name=bash\n{}\n```", "C".repeat(900));
        let transcript = read(&text);
        assert_eq!(transcript.format, Format::Text);
        assert_eq!(transcript.messages.len(), 1);
        let message = &transcript.messages[0];
        assert_eq!(message.role, Role::Assistant);
        assert_eq!(
            message.blocks[0].kind,
            BlockKind::ToolResult {
                id: None,
                name: Some("bash".into()),
                is_error: false
            }
        );
        assert_eq!(message.blocks[0].text, "C".repeat(900));
        assert_eq!(span(message), 0..text.len());

        let new = collapsed(&message.blocks[0].text, 80);
        assert_eq!(
            new,
            format!("{}\n[tool result body pruned: 900 chars]", "C".repeat(80))
        );
        let applied = apply_ok(&text, &[replace_block(0, &new, ArchiveKind::ToolResult)]);
        let expected = format!(
            "```tool_result name=bash\n{}\n[tool result body pruned: 900 chars]\n```",
            "C".repeat(80)
        );
        assert_eq!(applied.output, expected);
        assert_eq!(applied.output.chars().count(), 146);
        assert_eq!(
            (estimate_tokens(&text), estimate_tokens(&applied.output)),
            (232, 36)
        );
        let entry = &applied.archive[0];
        assert_eq!(entry.kind, "tool_result");
        assert_eq!(entry.content, serde_json::Value::String("C".repeat(900)));
        assert_eq!(entry.location, "text[25..925]");
        assert_eq!(entry.replacement, new);
        assert!(entry.id.is_empty());
    }

    #[test]
    fn seed_time_based_numbers() {
        let text = format!(
            "[age:12] very old block\n{}\n\n[age:1] fresh block\nkept content here",
            "stale content ".repeat(20)
        );
        let transcript = read(&text);
        let ages: Vec<_> = transcript.messages.iter().map(|m| m.explicit_age).collect();
        assert_eq!(ages, [Some(12), Some(1)]);
        assert_eq!(
            pieces(&text, &transcript)[1],
            "[age:1] fresh block\nkept content here"
        );
        assert!(
            transcript
                .messages
                .iter()
                .all(|m| m.blocks[0].kind == BlockKind::Text && !m.is_library_summary)
        );
        let applied = apply_ok(&text, &[replace_messages(0..1, Some(markers::STALE_BLOCK))]);
        assert_eq!(
            applied.output,
            "[stale block pruned]\n\n[age:1] fresh block\nkept content here"
        );
        assert_eq!(
            (estimate_tokens(&text), estimate_tokens(&applied.output)),
            (85, 14)
        );
        assert_eq!(applied.archive[0].kind, "turn");
        assert_eq!(applied.archive[0].replacement, "[stale block pruned]");
        // Re-read: the marker is recognised as the library's own text.
        assert!(read(&applied.output).messages[0].is_library_summary);
    }

    #[test]
    fn empty_text_and_no_edits() {
        assert!(read("").messages.is_empty());
        let text = "a\n```tool_result\nb\n```\n";
        let applied = apply(text, &read(text), &[]).expect("no edits");
        assert_eq!(applied.output, text);
        assert!(applied.archive.is_empty());
    }
}

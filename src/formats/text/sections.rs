//! Sections: flat text read with its prose cut finer than segments, for `auto`'s budget. A plain
//! chat pasted as text is one prose segment; to replace only its oldest part, auto needs pieces.
//! Prose is cut where a paragraph starts (a non-blank line after a blank one) and, inside a
//! paragraph longer than [`SECTION_CHARS`], at the next line start. Tool results and media stay
//! the segments they are. The library's own text (a digest, a stale marker) is the first
//! paragraph of its segment and stays one section; what follows it is fresh prose again.

use super::read;
use super::segment::span_message;
use crate::transcript::{BlockKind, Source, Transcript};
use std::borrow::Cow;

/// A paragraph longer than this many code points is cut at its next line start.
pub const SECTION_CHARS: usize = 2_000;

/// Reads `text` as [`read`] does, each prose segment cut into sections (one message each).
pub fn read_sections(text: &str) -> Transcript<'_> {
    let segments = read(text);
    let mut messages = Vec::with_capacity(segments.messages.len());
    for message in segments.messages {
        let Source::Span { start, end } = message.source else {
            messages.push(message);
            continue;
        };
        let prose = message.blocks.len() == 1 && message.blocks[0].kind == BlockKind::Text;
        if !prose {
            messages.push(message);
            continue;
        }
        let own = &text[start..end];
        let mut bounds = cuts(own, message.is_library_summary);
        bounds.push(own.len());
        let mut from = 0;
        for (index, to) in bounds.into_iter().enumerate() {
            let span = start + from..start + to;
            let block = (BlockKind::Text, Cow::Borrowed(&text[span.clone()]));
            let mut section = span_message(text, span, block, message.explicit_age);
            // Only the first section is ours: our text has no blank line inside.
            section.is_library_summary = message.is_library_summary && index == 0;
            messages.push(section);
            from = to;
        }
    }
    Transcript {
        format: segments.format,
        messages,
    }
}

/// Byte offsets inside `own` where a new section starts (neither 0 nor `own.len()`). `ours`: the
/// first paragraph is the library's own text, never cut at a line.
fn cuts(own: &str, ours: bool) -> Vec<usize> {
    let mut cuts = Vec::new();
    let mut at = 0;
    let mut section_chars = 0;
    // Blank lines alone are no section: they go with the section before or after them.
    let mut has_words = false;
    let mut after_blank = false;
    for line in own.split_inclusive('\n') {
        let blank = line.trim().is_empty();
        let first_paragraph = cuts.is_empty() && ours;
        let new_paragraph = !blank && after_blank;
        let too_long = !blank && !first_paragraph && section_chars >= SECTION_CHARS;
        if has_words && (new_paragraph || too_long) {
            cuts.push(at);
            section_chars = 0;
            has_words = false;
        }
        section_chars += line.chars().count();
        has_words |= !blank;
        after_blank = blank;
        at += line.len();
    }
    cuts
}

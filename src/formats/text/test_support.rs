//! Helpers for the flat-text adapter's unit tests: building edits, checking that the archive
//! restores the input, and looking at the segments read.

use super::{apply, read};
use crate::formats::Applied;
use crate::markers;
use crate::plan::{ArchiveKind, Edit};
use crate::result::ArchiveEntry;
use crate::transcript::{BlockKind, Message, Source, Transcript};
use std::ops::Range;

/// Puts every archived substring back in place of its replacement: the input again.
pub(super) fn restore(output: &str, archive: &[ArchiveEntry]) -> String {
    let out: Vec<char> = output.chars().collect();
    let mut restored = String::new();
    let mut copied = 0; // code points of `output` consumed
    let mut shift: isize = 0; // output position minus input position
    for entry in archive {
        let range = entry
            .location
            .strip_prefix("text[")
            .and_then(|rest| rest.strip_suffix(']'))
            .and_then(|rest| rest.split_once(".."))
            .expect("text location");
        let (start, end): (usize, usize) = (range.0.parse().unwrap(), range.1.parse().unwrap());
        let at = (start as isize + shift) as usize;
        let replacement_len = entry.replacement.chars().count();
        restored.extend(&out[copied..at]);
        let standing: String = out[at..at + replacement_len].iter().collect();
        assert_eq!(
            standing, entry.replacement,
            "replacement not where the archive says"
        );
        restored.push_str(entry.content.as_str().expect("text content"));
        copied = at + replacement_len;
        shift += replacement_len as isize - (end - start) as isize;
    }
    restored.extend(&out[copied..]);
    restored
}

pub(super) fn span(message: &Message) -> Range<usize> {
    match message.source {
        Source::Span { start, end } => start..end,
        Source::Index(_) => panic!("text messages have spans"),
    }
}

/// The segments' texts, which must cover the input exactly.
pub(super) fn pieces<'a>(text: &'a str, transcript: &Transcript) -> Vec<&'a str> {
    let mut at = 0;
    let pieces: Vec<&str> = transcript
        .messages
        .iter()
        .map(|message| {
            let range = span(message);
            assert_eq!(range.start, at, "segments are contiguous");
            at = range.end;
            &text[range]
        })
        .collect();
    assert_eq!(at, text.len(), "segments reach the end");
    pieces
}

pub(super) fn tool_body<'m>(message: &'m Message<'_>) -> Option<&'m str> {
    match &message.blocks[0].kind {
        BlockKind::ToolResult { .. } => Some(&message.blocks[0].text),
        _ => None,
    }
}

pub(super) fn replace_block(message: usize, text: &str, kind: ArchiveKind) -> Edit {
    Edit::ReplaceBlock {
        message,
        block: 0,
        text: text.to_string(),
        kind,
    }
}

pub(super) fn replace_messages(range: Range<usize>, text: Option<&str>) -> Edit {
    Edit::ReplaceMessages {
        range,
        text: text.map(str::to_string),
        kind: ArchiveKind::Turn,
        is_summary: false,
    }
}

/// What `micro` writes: the first `head` chars (trailing whitespace trimmed) and the marker.
pub(super) fn collapsed(body: &str, head: usize) -> String {
    let kept: String = body.chars().take(head).collect();
    format!(
        "{}\n{}",
        kept.trim_end(),
        markers::pruned_body(body.chars().count())
    )
}

/// Applies `edits`, checks the archive restores the input, returns the output.
pub(super) fn apply_ok(text: &str, edits: &[Edit]) -> Applied<String> {
    let applied = apply(text, &read(text), edits).expect("edits apply");
    assert_eq!(applied.archive.len(), edits.len());
    assert_eq!(restore(&applied.output, &applied.archive), text);
    applied
}

//! Splicing: a plan's edits applied to the text, each as one splice (a byte range and its
//! replacement) that keeps the structure around it ([`apply`]).

use super::fences::{ToolFence, classify_fence, is_pad, tool_fence_at};
use super::lines::{leading_ending, line_at};
use super::media::{data_fence_at, data_images};
use crate::api::result::ArchiveEntry;
use crate::error::{CompactionError, Result};
use crate::formats::Applied;
use crate::formats::json::block_at;
use crate::plan::{ArchiveKind, Edit};
use crate::transcript::{BlockKind, Format, Source, Transcript};
use std::ops::Range;

/// The line ending written where none can be copied from the text.
const DEFAULT_LINE_END: &str = "\n";

/// Applies sorted, non-overlapping `edits` to `text`, which `transcript` was read from.
///
/// - `ReplaceBlock` on a tool result replaces its body only (header, closing fence and the line
///   endings around the body stay), verbatim; should the new body hold fence lines that would
///   change where the tool result ends, its fences are lengthened. On media: the whole segment.
///   On prose: as `ReplaceMessages` of that one message.
/// - `ReplaceMessages` replaces the messages' spans, keeping the line ending the range starts
///   with (it ends the line before, e.g. a closing fence) and the range's trailing whitespace from
///   its first line break on (the separator from what follows). A range of whitespace only is
///   left as is, with an empty archive entry: there is nothing to remove and no safe place to put
///   the replacement.
///
/// Each edit yields one archive entry holding the exact removed substring and its code-point
/// range in `text`.
pub fn apply(text: &str, transcript: &Transcript, edits: &[Edit]) -> Result<Applied<String>> {
    if transcript.format != Format::Text {
        return Err(CompactionError::type_error(
            "format",
            format!(
                "a {} transcript cannot be applied to text",
                crate::formats::registry::name(transcript.format)
            ),
        ));
    }
    let mut output = String::with_capacity(text.len());
    let mut archive = Vec::with_capacity(edits.len());
    let mut copied_to = 0;
    let mut next_message = 0;
    let mut chars = CharOffsets {
        text,
        byte: 0,
        chars: 0,
    };
    for (index, edit) in edits.iter().enumerate() {
        let (messages, kind) = edited_messages(edit);
        if messages.start < next_message {
            return Err(plan_error(format!(
                "edit {index} touches a message an earlier edit touched, or is out of order"
            )));
        }
        next_message = messages.end;
        let splice = splice_for(text, transcript, edit)?;
        // Spans of a transcript read from this text are in order; this guards against others.
        if splice.range.start < copied_to {
            return Err(plan_error(format!(
                "edit {index} overlaps the edit before it or is out of order"
            )));
        }
        output.push_str(&text[copied_to..splice.range.start]);
        output.push_str(&splice.replacement);
        let start = chars.at(splice.range.start);
        let end = chars.at(splice.range.end);
        archive.push(ArchiveEntry {
            id: String::new(),
            kind: kind.as_str(),
            content: serde_json::Value::String(text[splice.range.clone()].to_string()),
            location: format!("text[{start}..{end}]"),
            replacement: splice.replacement,
        });
        copied_to = splice.range.end;
    }
    output.push_str(&text[copied_to..]);
    Ok(Applied {
        archive_origins: Vec::new(),
        output,
        archive,
        origins: Vec::new(),
    })
}

/// One rewrite of the flat text: the byte range removed and what replaces it (named apart from
/// the edge path's `Splice`, the trait a body is written through).
#[derive(Debug, Clone, PartialEq, Eq)]
struct TextEdit {
    range: Range<usize>,
    replacement: String,
}

impl TextEdit {
    fn new(range: Range<usize>, replacement: impl Into<String>) -> Self {
        let replacement = replacement.into();
        Self { range, replacement }
    }
}

fn plan_error(problem: String) -> CompactionError {
    CompactionError::range_error("plan", problem)
}

/// The message indices an edit touches, and what it removes.
fn edited_messages(edit: &Edit) -> (Range<usize>, ArchiveKind) {
    match edit {
        Edit::ReplaceBlock { message, kind, .. } => (*message..message.saturating_add(1), *kind),
        Edit::ReplaceMessages { range, kind, .. } | Edit::RewriteMessages { range, kind, .. } => {
            (range.clone(), *kind)
        }
    }
}

/// What `edit` does to `text`.
fn splice_for(text: &str, transcript: &Transcript, edit: &Edit) -> Result<TextEdit> {
    match edit {
        Edit::ReplaceMessages {
            range, text: new, ..
        } => {
            if range.is_empty() {
                return Err(plan_error(format!(
                    "message range {}..{} is empty",
                    range.start, range.end
                )));
            }
            let first = span_of(text, transcript, range.start)?;
            let last = span_of(text, transcript, range.end - 1)?;
            if last.end < first.start {
                return Err(plan_error(format!(
                    "messages {}..{} are out of order in the text",
                    range.start, range.end
                )));
            }
            let new = new.as_deref().unwrap_or_default();
            Ok(replace_prose(text, first.start..last.end, new))
        }
        Edit::ReplaceBlock {
            message,
            block,
            text: new,
            ..
        } => replace_block(text, transcript, *message, *block, new),
        // Flat text has no tool ids and no roles: nothing in it is ever repaired.
        Edit::RewriteMessages { .. } => Err(plan_error(
            "flat text has no messages to rewrite".to_string(),
        )),
    }
}

/// The byte span of message `index`, checked against `text`.
fn span_of(text: &str, transcript: &Transcript, index: usize) -> Result<Range<usize>> {
    let message = transcript
        .messages
        .get(index)
        .ok_or_else(|| plan_error(format!("message {index} does not exist")))?;
    let Source::Span { start, end } = message.source else {
        return Err(plan_error(format!("message {index} has no text span")));
    };
    let valid = start <= end
        && end <= text.len()
        && text.is_char_boundary(start)
        && text.is_char_boundary(end);
    if !valid {
        return Err(plan_error(format!(
            "message {index} spans bytes {start}..{end}, outside this text"
        )));
    }
    Ok(start..end)
}

/// Replaces `span` by `new`, keeping the line ending it starts with (it ends the line before,
/// e.g. a closing fence, which must stay a line of its own) and its trailing whitespace from the
/// first line break on (the separator from what follows; see [`content_end`]). A span of
/// whitespace only is left as is: there is nothing to remove and no safe place to put `new`.
fn replace_prose(text: &str, span: Range<usize>, new: &str) -> TextEdit {
    let own = &text[span.clone()];
    let lead = if span.start > 0 {
        leading_ending(own)
    } else {
        0
    };
    let (start, end) = (span.start + lead, span.start + content_end(own));
    if end <= start {
        return TextEdit::new(start..start, "");
    }
    TextEdit::new(start..end, new)
}

/// Where the content of a replaced span ends: before its trailing whitespace, except that
/// spaces ending its last line go with the content (the separator is the line break on, as the
/// seed's "[stale block pruned]\n\n" shows).
fn content_end(span: &str) -> usize {
    let trimmed = span.trim_end().len();
    let Some(newline) = span[trimmed..].find('\n') else {
        return trimmed;
    };
    let newline = trimmed + newline;
    if span[..newline].ends_with('\r') {
        newline - 1
    } else {
        newline
    }
}

/// Replaces block `block` of message `message`.
fn replace_block(
    text: &str,
    transcript: &Transcript,
    message: usize,
    block: usize,
    new: &str,
) -> Result<TextEdit> {
    let span = span_of(text, transcript, message)?;
    let kind = &block_at(transcript, message, block)?.kind;
    let mismatch = || {
        plan_error(format!(
            "message {message} does not match the text it was read from"
        ))
    };
    match kind {
        BlockKind::ToolResult { .. } => {
            let segment = &text[span.clone()];
            let fence = tool_fence_at(segment, line_at(segment, 0))
                .filter(|fence| fence.end(segment) == segment.len())
                .ok_or_else(mismatch)?;
            let splice = replace_body(segment, &fence, new);
            let range = span.start + splice.range.start..span.start + splice.range.end;
            Ok(TextEdit::new(range, splice.replacement))
        }
        BlockKind::Media { .. } => {
            if !is_media_segment(&text[span.clone()]) {
                return Err(mismatch());
            }
            Ok(TextEdit::new(span, new))
        }
        BlockKind::Text => Ok(replace_prose(text, span, new)),
        _ => Err(plan_error(format!(
            "block {block} of message {message} cannot be replaced in text"
        ))),
    }
}

/// Whether `segment` is exactly one media segment (an image or a fenced data block).
fn is_media_segment(segment: &str) -> bool {
    let first = line_at(segment, 0);
    let image = data_images(first.content(segment))
        .first()
        .is_some_and(|(range, _)| *range == (0..segment.len()));
    image || data_fence_at(segment, first).is_some_and(|media| media.span.end == segment.len())
}

/// Replaces the body of the tool result `fence`, which spans all of `segment`. The body is
/// written verbatim; when it would not read back as this tool result's body (a fence line in it
/// closes the tool result early, or a nested fence opened in it swallows the closer), the
/// header's and closer's fences are lengthened past every fence in the body instead, which
/// rewrites the whole segment.
fn replace_body(segment: &str, fence: &ToolFence, new: &str) -> TextEdit {
    let splice = body_splice(segment, fence, new);
    let candidate = spliced(segment, &splice);
    let reads_back = tool_fence_at(&candidate, line_at(&candidate, 0)).is_some_and(|again| {
        again.end(&candidate) == candidate.len() && again.closer.is_some() == fence.closer.is_some()
    });
    if reads_back {
        return splice;
    }
    let longer = fence.fence_len.max(longest_fence_in(new)) + 1;
    TextEdit::new(
        0..segment.len(),
        lengthened(segment, fence, &splice, longer),
    )
}

/// The splice that puts `new` in place of the body, keeping the line endings around it.
fn body_splice(segment: &str, fence: &ToolFence, new: &str) -> TextEdit {
    let header_ending = fence.opener.ending(segment);
    let replacement = match fence.closer {
        // The closer follows the header directly: the body needs a line ending of its own.
        Some(closer) if closer.start == fence.opener.end && !new.is_empty() => {
            format!("{new}{header_ending}")
        }
        // An unclosed header at the end of the text: the body needs a line to start on.
        None if header_ending.is_empty() && !new.is_empty() => format!("{DEFAULT_LINE_END}{new}"),
        _ => new.to_string(),
    };
    TextEdit::new(fence.body.clone(), replacement)
}

/// `text` with `splice` made.
fn spliced(text: &str, splice: &TextEdit) -> String {
    let mut out = String::with_capacity(text.len() + splice.replacement.len());
    out.push_str(&text[..splice.range.start]);
    out.push_str(&splice.replacement);
    out.push_str(&text[splice.range.end..]);
    out
}

/// The longest backtick run of any fence line in `body`.
fn longest_fence_in(body: &str) -> usize {
    body.lines()
        .filter_map(classify_fence)
        .map(|fence| fence.len())
        .max()
        .unwrap_or(0)
}

/// `segment` with `splice` made and the opener's and closer's backtick runs replaced by `len`
/// backticks (indentation, info string and padding kept).
fn lengthened(segment: &str, fence: &ToolFence, splice: &TextEdit, len: usize) -> String {
    let ticks = "`".repeat(len);
    let opener_ticks = fence.opener.start + pad_len(fence.opener.content(segment));
    let mut out = String::with_capacity(segment.len() + splice.replacement.len() + 2 * len);
    out.push_str(&segment[..opener_ticks]);
    out.push_str(&ticks);
    out.push_str(&segment[opener_ticks + fence.fence_len..splice.range.start]);
    out.push_str(&splice.replacement);
    match fence.closer {
        Some(closer) => {
            let closer_content = closer.content(segment);
            let closer_ticks = closer.start + pad_len(closer_content);
            let old_len = classify_fence(closer_content).map_or(0, |fence| fence.len());
            out.push_str(&segment[splice.range.end..closer_ticks]);
            out.push_str(&ticks);
            out.push_str(&segment[closer_ticks + old_len..]);
        }
        None => out.push_str(&segment[splice.range.end..]),
    }
    out
}

/// Bytes of padding a line starts with.
fn pad_len(content: &str) -> usize {
    content.len() - content.trim_start_matches(is_pad).len()
}

/// Converts increasing byte offsets of one text to code-point offsets in a single pass.
struct CharOffsets<'a> {
    text: &'a str,
    byte: usize,
    chars: usize,
}

impl CharOffsets<'_> {
    /// Code points before byte `byte` (a char boundary not before the previous call's).
    fn at(&mut self, byte: usize) -> usize {
        if byte >= self.byte {
            self.chars += self.text[self.byte..byte].chars().count();
        } else {
            self.chars -= self.text[byte..self.byte].chars().count();
        }
        self.byte = byte;
        self.chars
    }
}

#[cfg(test)]
mod tests {
    use super::super::read;
    use super::apply;
    use crate::plan::{ArchiveKind, Edit};
    use crate::transcript::Format;

    /// Plans made for other text, or for another format, are errors, not panics (the fixtures in
    /// `tests/fixtures/formats/text/bad_plans/` hold bad plans for the right text).
    #[test]
    fn a_transcript_of_other_text_is_an_error() {
        let other = read("```tool_result\nb\n```");
        let replace = Edit::ReplaceBlock {
            message: 0,
            block: 0,
            text: "x".into(),
            kind: ArchiveKind::ToolResult,
        };
        assert!(apply("prose only", &other, &[replace]).is_err());
        let remove = Edit::ReplaceMessages {
            range: 0..1,
            text: None,
            kind: ArchiveKind::Turn,
            is_summary: false,
        };
        assert!(apply("日本", &other, &[remove]).is_err());
        let text = "[age:9] a\n```tool_result\nb\n```";
        let mut json = read(text);
        json.format = Format::OpenAi;
        assert!(apply(text, &json, &[]).is_err());
    }
}

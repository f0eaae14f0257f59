//! Segmenting: the text cut into contiguous segments that cover it exactly (tool results, media,
//! prose cut at `[age:N]` tags and at the library's own text), each with the age of the newest
//! tag before it, and each segment made into one message.

use super::fences::tool_fence_at;
use super::lines::{line_at, skip_line_ending};
use super::media::{Media, data_fence_at, data_images, image_payload};
use crate::transcript::markers::is_library_text;
use crate::transcript::{Block, BlockKind, Message, Role, Source, parse_age_tag};
use std::borrow::Cow;
use std::ops::Range;

/// The message of the segment `span` of `text`, of age `age`: one block of `kind` holding
/// `block_text`. Prose that is the library's own text is marked so.
pub(super) fn span_message<'a>(
    text: &'a str,
    span: Range<usize>,
    (kind, block_text): (BlockKind<'a>, Cow<'a, str>),
    age: Option<u64>,
) -> Message<'a> {
    Message {
        role: Role::Assistant,
        is_library_summary: kind == BlockKind::Text && is_library_text(&text[span.clone()]),
        blocks: vec![Block::new(kind, block_text, Vec::new())],
        source: Source::Span {
            start: span.start,
            end: span.end,
        },
        explicit_age: age,
        bound_to_next: false,
        output_item: false,
    }
}

/// Collects the segments' messages in order; prose accumulates until something else starts.
struct Segmenter<'a> {
    text: &'a str,
    messages: Vec<Message<'a>>,
    /// Start of the prose not yet emitted.
    prose_start: usize,
    /// Age of the newest tag seen so far.
    age: Option<u64>,
}

impl<'a> Segmenter<'a> {
    /// Emits the pending prose up to `end`, if any.
    fn flush_prose(&mut self, end: usize) {
        if end > self.prose_start {
            let prose = (
                BlockKind::Text,
                Cow::Borrowed(&self.text[self.prose_start..end]),
            );
            let message = span_message(self.text, self.prose_start..end, prose, self.age);
            self.messages.push(message);
        }
        self.prose_start = end;
    }

    /// Emits a non-prose segment, after the prose before it.
    fn push(&mut self, span: Range<usize>, block: (BlockKind<'a>, Cow<'a, str>)) {
        self.flush_prose(span.start);
        self.prose_start = span.end;
        let message = span_message(self.text, span, block, self.age);
        self.messages.push(message);
    }

    fn push_media(&mut self, media: Media) {
        let (media_type, inline) = (media.media_type, true);
        let block = (
            BlockKind::Media { media_type, inline },
            Cow::Owned(media.payload),
        );
        self.push(media.span, block);
    }
}

/// Cuts `text` into segments covering it exactly, in order, one message each.
pub(super) fn segments(text: &str) -> Vec<Message<'_>> {
    let mut out = Segmenter {
        text,
        messages: Vec::new(),
        prose_start: 0,
        age: None,
    };
    let mut at = 0;
    while at < text.len() {
        let line = line_at(text, at);
        if let Some(fence) = tool_fence_at(text, line) {
            let end = fence.end(text);
            let (name, is_error) = (fence.name, false);
            let kind = BlockKind::ToolResult {
                id: None,
                name,
                is_error,
            };
            out.push(line.start..end, (kind, Cow::Borrowed(&text[fence.body])));
            // The closer's line ending is left to the prose that follows.
            at = skip_line_ending(text, end);
            continue;
        }
        if let Some(media) = data_fence_at(text, line) {
            at = skip_line_ending(text, media.span.end);
            out.push_media(media);
            continue;
        }
        if let Some(age) = parse_age_tag(line.content(text)) {
            // A tag line ends the block before it and starts one of its age.
            out.flush_prose(line.start);
            out.age = Some(age);
        } else if is_library_text(line.content(text)) {
            // Text this library wrote (a stale marker, a summary) is a block of its own, so the
            // next call recognises it instead of reading it as part of the block before.
            out.flush_prose(line.start);
        }
        for (range, media_type) in data_images(line.content(text)) {
            let span = line.start + range.start..line.start + range.end;
            let payload = image_payload(&text[span.clone()]);
            out.push_media(Media {
                span,
                media_type,
                payload,
            });
        }
        at = line.end;
    }
    out.flush_prose(text.len());
    out.messages
}

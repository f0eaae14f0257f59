//! Segmenting: the text cut into contiguous segments that cover it exactly (tool results, media,
//! prose cut at `[age:N]` tags and at the library's own text), each with the age of the newest
//! tag before it, and each segment made into one message.

use super::fences::tool_fence_at;
use super::lines::{line_at, skip_line_ending};
use super::media::{Media, data_fence_at, data_images, image_payload};
use crate::transcript::markers;
use crate::transcript::{Block, BlockKind, Message, Role, Source, parse_age_tag};
use std::borrow::Cow;
use std::ops::Range;

/// What a segment holds.
#[derive(Debug, Clone, PartialEq, Eq)]
enum SegmentKind {
    Prose,
    ToolResult {
        name: Option<String>,
        body: Range<usize>,
    },
    Media {
        media_type: String,
        payload: String,
    },
}

/// One contiguous piece of the text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Segment {
    span: Range<usize>,
    kind: SegmentKind,
    age: Option<u64>,
}

impl Segment {
    pub(super) fn into_message(self, text: &str) -> Message<'_> {
        let own = &text[self.span.clone()];
        let (kind, block_text, is_library_summary) = match self.kind {
            SegmentKind::Prose => (
                BlockKind::Text,
                Cow::Borrowed(own),
                markers::is_library_text(own),
            ),
            SegmentKind::ToolResult { name, body } => (
                BlockKind::ToolResult {
                    id: None,
                    name,
                    is_error: false,
                },
                Cow::Borrowed(&text[body]),
                false,
            ),
            SegmentKind::Media {
                media_type,
                payload,
            } => (
                BlockKind::Media {
                    media_type,
                    inline: true,
                },
                Cow::Owned(payload),
                false,
            ),
        };
        Message {
            role: Role::Assistant,
            blocks: vec![Block::new(kind, block_text, Vec::new())],
            source: Source::Span {
                start: self.span.start,
                end: self.span.end,
            },
            explicit_age: self.age,
            is_library_summary,
            bound_to_next: false,
            output_item: false,
        }
    }
}

/// Collects segments in order; prose accumulates until something else starts.
struct Segmenter {
    segments: Vec<Segment>,
    /// Start of the prose not yet emitted.
    prose_start: usize,
    /// Age of the newest tag seen so far.
    age: Option<u64>,
}

impl Segmenter {
    /// Emits the pending prose up to `end`, if any.
    fn flush_prose(&mut self, end: usize) {
        if end > self.prose_start {
            self.segments.push(Segment {
                span: self.prose_start..end,
                kind: SegmentKind::Prose,
                age: self.age,
            });
        }
        self.prose_start = end;
    }

    /// Emits a non-prose segment, after the prose before it.
    fn push(&mut self, span: Range<usize>, kind: SegmentKind) {
        self.flush_prose(span.start);
        self.prose_start = span.end;
        self.segments.push(Segment {
            span,
            kind,
            age: self.age,
        });
    }

    /// A tag line at `line_start` ends the block before it and starts one of age `age`.
    fn tag(&mut self, line_start: usize, age: u64) {
        self.flush_prose(line_start);
        self.age = Some(age);
    }
}

/// Cuts `text` into segments covering it exactly, in order.
pub(super) fn segments(text: &str) -> Vec<Segment> {
    let mut out = Segmenter {
        segments: Vec::new(),
        prose_start: 0,
        age: None,
    };
    let mut at = 0;
    while at < text.len() {
        let line = line_at(text, at);
        if let Some(fence) = tool_fence_at(text, line) {
            let end = fence.end(text);
            out.push(
                line.start..end,
                SegmentKind::ToolResult {
                    name: fence.name,
                    body: fence.body,
                },
            );
            // The closer's line ending is left to the prose that follows.
            at = skip_line_ending(text, end);
            continue;
        }
        if let Some(media) = data_fence_at(text, line) {
            at = skip_line_ending(text, media.span.end);
            push_media(&mut out, media);
            continue;
        }
        if let Some(age) = parse_age_tag(line.content(text)) {
            out.tag(line.start, age);
        } else if crate::transcript::markers::is_library_text(line.content(text)) {
            // Text this library wrote (a stale marker, a summary) is a block of its own, so the
            // next call recognises it instead of reading it as part of the block before.
            out.flush_prose(line.start);
        }
        for (range, media_type) in data_images(line.content(text)) {
            let span = line.start + range.start..line.start + range.end;
            let payload = image_payload(&text[span.clone()]);
            push_media(
                &mut out,
                Media {
                    span,
                    media_type,
                    payload,
                },
            );
        }
        at = line.end;
    }
    out.flush_prose(text.len());
    out.segments
}

fn push_media(out: &mut Segmenter, media: Media) {
    out.push(
        media.span,
        SegmentKind::Media {
            media_type: media.media_type,
            payload: media.payload,
        },
    );
}

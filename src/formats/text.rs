//! The flat-text adapter: the seed's one-string context read into a [`Transcript`] and edited in
//! place.
//!
//! The text is cut into contiguous *segments* that cover it exactly; each becomes one assistant
//! message (flat text has no user or system roles) with one block and a [`Source::Span`] of
//! **byte** offsets into the text:
//!
//! - a tool-result fence: a line of three or more backticks followed by `tool_result`, up to the
//!   end of its closing fence line (line ending excluded), or to the end of the text when it is
//!   never closed. Fence lines inside the body nest (see [`Levels`]), so a fenced code sample in a
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

use crate::error::{CompactionError, Result};
use crate::formats::Applied;
use crate::markers;
use crate::plan::{ArchiveKind, Edit};
use crate::result::ArchiveEntry;
use crate::transcript::{
    Block, BlockKind, Format, Message, Role, Source, Transcript, parse_age_tag,
};
use std::borrow::Cow;
use std::ops::Range;

/// Shortest run of backticks that makes a fence (CommonMark).
const MIN_FENCE: usize = 3;
/// The info word that marks a tool-result fence.
const TOOL_RESULT: &str = "tool_result";
/// The line ending written where none can be copied from the text.
const DEFAULT_LINE_END: &str = "\n";

/// Reads flat text into a transcript of [`Format::Text`]: one assistant message per segment.
pub fn read(text: &str) -> Transcript<'_> {
    let messages = segments(text)
        .into_iter()
        .map(|segment| segment.into_message(text))
        .collect();
    Transcript {
        format: Format::Text,
        messages,
    }
}

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
    let mut chars = CharOffsets::new(text);
    for (index, edit) in edits.iter().enumerate() {
        let messages = edited_messages(edit);
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
            kind: edit_kind(edit).as_str(),
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

// ---------------------------------------------------------------------------------------------
// Lines and fences
// ---------------------------------------------------------------------------------------------

/// One line of the text, in byte offsets. Line endings are `\n` and `\r\n`; a lone `\r` is
/// content. Every offset sits next to an ASCII byte (or at 0 / the end), so slicing at them is
/// always on a char boundary.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Line {
    /// First byte of the line.
    start: usize,
    /// End of the content, before the line ending.
    content_end: usize,
    /// After the line ending (equals `content_end` on a last line without one).
    end: usize,
}

impl Line {
    fn content<'a>(&self, text: &'a str) -> &'a str {
        &text[self.start..self.content_end]
    }

    fn ending<'a>(&self, text: &'a str) -> &'a str {
        &text[self.content_end..self.end]
    }
}

/// The line starting at byte `start` (which must be 0 or follow a `\n`).
fn line_at(text: &str, start: usize) -> Line {
    match text[start..].find('\n') {
        Some(offset) => {
            let newline = start + offset;
            let crlf = newline > start && text.as_bytes()[newline - 1] == b'\r';
            Line {
                start,
                content_end: if crlf { newline - 1 } else { newline },
                end: newline + 1,
            }
        }
        None => Line {
            start,
            content_end: text.len(),
            end: text.len(),
        },
    }
}

/// Length of the line ending that `text[..at]` ends with (0, 1 for `\n`, 2 for `\r\n`).
fn ending_before(text: &str, at: usize) -> usize {
    let head = &text.as_bytes()[..at];
    if head.ends_with(b"\r\n") {
        2
    } else {
        usize::from(head.ends_with(b"\n"))
    }
}

/// The start of the next line, from the end of a line's content.
fn skip_line_ending(text: &str, content_end: usize) -> usize {
    content_end + leading_ending(&text[content_end..])
}

/// Padding allowed around a fence's backticks. `\r` is included so that a CRLF text cut after
/// its last `\r` still closes its fence.
fn is_pad(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\r')
}

/// A fence line: backticks only, or backticks and an info string.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Fence<'a> {
    /// Only backticks (and padding): closes a fence at least this long.
    Bare(usize),
    /// Backticks and an info string (`python`, `tool_result name=bash`): opens a fence.
    Open {
        /// Number of backticks.
        len: usize,
        /// The info string, padding trimmed.
        info: &'a str,
    },
}

impl Fence<'_> {
    fn len(&self) -> usize {
        match *self {
            Fence::Bare(len) | Fence::Open { len, .. } => len,
        }
    }
}

/// Classifies a line's content as a fence line. As in CommonMark, an info string holding a
/// backtick is not a fence (it is inline code such as "```a``` b").
fn classify_fence(content: &str) -> Option<Fence<'_>> {
    let trimmed = content.trim_start_matches(is_pad);
    let len = trimmed.bytes().take_while(|&b| b == b'`').count();
    if len < MIN_FENCE {
        return None;
    }
    // `len` bytes of ASCII backticks: a char boundary.
    let info = trimmed[len..].trim_matches(is_pad);
    if info.is_empty() {
        Some(Fence::Bare(len))
    } else if info.contains('`') {
        None
    } else {
        Some(Fence::Open { len, info })
    }
}

/// The tool name of a `tool_result` fence's info string, or `None` when the info string is not
/// `tool_result` (as a whole word: "tool_results" is some other fence).
fn tool_result_info(info: &str) -> Option<Option<String>> {
    let rest = info.strip_prefix(TOOL_RESULT)?;
    if !(rest.is_empty() || rest.starts_with(char::is_whitespace)) {
        return None;
    }
    Some(name_attribute(rest))
}

/// The value of a `name=...` attribute (`name=bash`, `name="my tool"`), if any.
fn name_attribute(attributes: &str) -> Option<String> {
    let mut rest = attributes;
    loop {
        rest = rest.trim_start();
        if rest.is_empty() {
            return None;
        }
        if let Some(value) = rest.strip_prefix("name=") {
            let name = match value.strip_prefix('"') {
                Some(quoted) => quoted.split('"').next().unwrap_or_default(),
                None => value.split(char::is_whitespace).next().unwrap_or_default(),
            };
            return (!name.is_empty()).then(|| name.to_string());
        }
        // Skip one attribute; a quoted value may hold spaces.
        rest = skip_attribute(rest);
    }
}

/// `attributes` after its first attribute (`key=value`, `key="v a l"` or a bare word).
fn skip_attribute(attributes: &str) -> &str {
    let word_end = attributes
        .find(|c: char| c.is_whitespace() || c == '"')
        .unwrap_or(attributes.len());
    let rest = &attributes[word_end..];
    match rest.strip_prefix('"') {
        Some(quoted) => quoted.split_once('"').map_or("", |(_, after)| after),
        None => rest,
    }
}

// ---------------------------------------------------------------------------------------------
// Tool-result fences
// ---------------------------------------------------------------------------------------------

/// Fences opened inside a tool-result body and not yet closed, innermost last. Each entry is
/// `(length, longest length up to here)` so the rule below needs no walk over the stack.
#[derive(Debug, Default)]
struct Levels {
    open: Vec<(usize, usize)>,
}

impl Levels {
    fn push(&mut self, len: usize) {
        let longest = self
            .open
            .last()
            .map_or(len, |&(_, longest)| longest.max(len));
        self.open.push((len, longest));
    }

    /// Feeds a bare fence of `len` backticks; returns whether it closes the tool result, whose
    /// opener has `outer` backticks.
    ///
    /// - No nested fence open: it closes the tool result when at least `outer` long.
    /// - A fence at least `outer` long, when `outer` is longer than every open nested fence,
    ///   closes the tool result at once: as in CommonMark, shorter fences inside a longer one are
    ///   its content. (This is also what lets [`apply`] protect a body by lengthening its fence.)
    /// - Otherwise it closes the innermost nested fence when at least as long as its opener.
    fn close(&mut self, len: usize, outer: usize) -> bool {
        let Some(&(innermost, longest)) = self.open.last() else {
            return len >= outer;
        };
        if len >= outer && outer > longest {
            return true;
        }
        if len >= innermost {
            self.open.pop();
        }
        false
    }
}

/// A tool-result fence as found in the text.
#[derive(Debug, Clone, PartialEq, Eq)]
struct ToolFence {
    /// The header line (```` ```tool_result name=bash ````).
    opener: Line,
    /// Backticks of the opener.
    fence_len: usize,
    /// The tool's name from the header.
    name: Option<String>,
    /// The body: after the header's line ending, up to the line ending before the closing fence.
    body: Range<usize>,
    /// The closing fence line; `None` when the fence runs to the end of the text.
    closer: Option<Line>,
}

impl ToolFence {
    /// End of the segment: the closing fence's content, or the end of the text.
    fn end(&self, text: &str) -> usize {
        self.closer.map_or(text.len(), |closer| closer.content_end)
    }
}

/// The tool-result fence opened by `opener`, if it is a tool-result header line.
fn tool_fence_at(text: &str, opener: Line) -> Option<ToolFence> {
    let Fence::Open { len, info } = classify_fence(opener.content(text))? else {
        return None;
    };
    let name = tool_result_info(info)?;
    let closer = find_tool_closer(text, opener.end, len);
    let body_end = match closer {
        // The header's own line ending sits right before the closer: the body is empty.
        Some(closer) if closer.start == opener.end => opener.end,
        Some(closer) => closer.start - ending_before(text, closer.start),
        None => text.len(),
    };
    Some(ToolFence {
        opener,
        fence_len: len,
        name,
        body: opener.end..body_end,
        closer,
    })
}

/// The line that closes a tool result opened with `outer` backticks, scanning from `from`.
fn find_tool_closer(text: &str, from: usize, outer: usize) -> Option<Line> {
    let mut levels = Levels::default();
    let mut at = from;
    while at < text.len() {
        let line = line_at(text, at);
        match classify_fence(line.content(text)) {
            Some(Fence::Open { len, .. }) => levels.push(len),
            Some(Fence::Bare(len)) if levels.close(len, outer) => return Some(line),
            _ => {}
        }
        at = line.end;
    }
    None
}

// ---------------------------------------------------------------------------------------------
// Media
// ---------------------------------------------------------------------------------------------

/// A recognised piece of inline media.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Media {
    /// Where it is (the whole image or fenced block).
    span: Range<usize>,
    /// MIME type of the data URI, lower-cased.
    media_type: String,
    /// The data URI's payload, whitespace removed.
    payload: String,
}

/// Longest data-URI header (`image/png;base64`) looked at. Real headers are far shorter; the cap
/// keeps scanning linear when a line holds many would-be images.
const MAX_DATA_HEADER: usize = 256;

/// Parses the header of a data URI at the start of `uri`: returns its media type and the byte
/// offset of its payload (after the comma). The header must not hold whitespace or `)`.
fn data_uri_header(uri: &str) -> Option<(String, usize)> {
    let rest = uri.strip_prefix("data:")?;
    // A byte position of the ASCII ',' is a char boundary.
    let comma = rest.bytes().take(MAX_DATA_HEADER).position(|b| b == b',')?;
    let header = &rest[..comma];
    if header.contains(|c: char| c.is_whitespace() || c == ')') {
        return None;
    }
    let media_type = header.split(';').next().unwrap_or_default();
    let valid = media_type
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || b"!#$&^_.+-/".contains(&b));
    if !valid {
        return None;
    }
    // RFC 2397: an omitted media type means text/plain.
    let media_type = if media_type.is_empty() {
        "text/plain".to_string()
    } else {
        media_type.to_ascii_lowercase()
    };
    Some((media_type, "data:".len() + comma + 1))
}

/// The first position at or after some offset where a fixed predicate holds, remembering its
/// last answer: asked again from anywhere between its last start and its last answer, the answer
/// is the same. This keeps "![![![..." and similar lines linear.
struct FirstAfter {
    from: usize,
    found: Option<usize>,
}

impl FirstAfter {
    fn new() -> Self {
        Self {
            from: usize::MAX,
            found: None,
        }
    }

    fn find(&mut self, hay: &str, at: usize, pred: impl Fn(char) -> bool) -> Option<usize> {
        let reusable = self.from <= at && self.found.is_none_or(|found| at <= found);
        if !reusable {
            self.from = at;
            self.found = hay[at..].find(pred).map(|offset| at + offset);
        }
        self.found
    }
}

/// Markdown images with a data-URI target (`![alt](data:image/png;base64,...)`) in one line's
/// content, as byte ranges relative to `line`, with their media types. The alt text holds no `]`
/// and the target no whitespace (an image with a title stays prose).
fn data_images(line: &str) -> Vec<(Range<usize>, String)> {
    let mut found = Vec::new();
    let mut brackets = FirstAfter::new();
    let mut target_ends = FirstAfter::new();
    let mut from = 0;
    while let Some(offset) = line[from..].find("![") {
        let alt_start = from + offset + 2;
        // Without a `]` after this `![`, no later one on the line has one either.
        let Some(close) = brackets.find(line, alt_start, |c| c == ']') else {
            break;
        };
        match image_target(line, close + 1, &mut target_ends) {
            Some((end, media_type)) => {
                found.push((alt_start - 2..end, media_type));
                from = end;
            }
            None => from = alt_start,
        }
    }
    found
}

/// Parses `(data:...)` at `at` in `line`: returns the end of the image and its media type.
fn image_target(line: &str, at: usize, ends: &mut FirstAfter) -> Option<(usize, String)> {
    if !line[at..].starts_with("(data:") {
        return None;
    }
    let uri_start = at + 1;
    let end = ends.find(line, uri_start, |c| c == ')' || c.is_whitespace())?;
    if !line[end..].starts_with(')') {
        return None;
    }
    let (media_type, _) = data_uri_header(&line[uri_start..end])?;
    Some((end + 1, media_type))
}

/// The payload of an image segment's data URI (`![alt](data:...,PAYLOAD)`).
fn image_payload(image: &str) -> String {
    // The alt text holds no `]`, so the first "](" starts the target.
    let target = image
        .find("](")
        .and_then(|at| image[at + 2..].strip_suffix(')'))
        .unwrap_or_default();
    data_uri_header(target)
        .map(|(_, payload)| target[payload..].to_string())
        .unwrap_or_default()
}

/// A fenced block opened by `opener` whose body is one data URI (possibly wrapped over several
/// lines), closed by a bare fence at least as long as the opener. Anything else in the body, or
/// no closer, and it is not media (it stays prose).
///
/// Requiring a payload-only body keeps the search for the closer inside the block: it stops at
/// the first line that cannot be payload, so an unclosed block never reaches into a later tool
/// result (whose rewritten body must not change how the text before it reads), and no line is
/// searched twice.
fn data_fence_at(text: &str, opener: Line) -> Option<Media> {
    let fence_len = classify_fence(opener.content(text))?.len();
    if opener.end >= text.len() {
        return None;
    }
    let first = line_at(text, opener.end);
    let first_content = first.content(text).trim_matches(is_pad);
    let (media_type, payload_at) = data_uri_header(first_content)?;
    if !is_payload(&first_content[payload_at..]) {
        return None;
    }
    let mut payload = first_content[payload_at..].to_string();
    let mut at = first.end;
    while at < text.len() {
        let line = line_at(text, at);
        let content = line.content(text);
        match classify_fence(content) {
            Some(Fence::Bare(len)) if len >= fence_len => {
                return Some(Media {
                    span: opener.start..line.content_end,
                    media_type,
                    payload,
                });
            }
            _ if is_payload(content.trim_matches(is_pad)) => {
                payload.push_str(content.trim_matches(is_pad))
            }
            _ => return None,
        }
        at = line.end;
    }
    None
}

/// Whether `line` can be (part of) a data URI's payload: no whitespace, no backtick.
fn is_payload(line: &str) -> bool {
    !line.contains(|c: char| c.is_whitespace() || c == '`')
}

// ---------------------------------------------------------------------------------------------
// Segmentation
// ---------------------------------------------------------------------------------------------

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
struct Segment {
    span: Range<usize>,
    kind: SegmentKind,
    age: Option<u64>,
}

impl Segment {
    fn into_message(self, text: &str) -> Message<'_> {
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
fn segments(text: &str) -> Vec<Segment> {
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
        } else if crate::markers::is_library_text(line.content(text)) {
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

// ---------------------------------------------------------------------------------------------
// Applying edits
// ---------------------------------------------------------------------------------------------

/// One rewrite of the input: the byte range removed and what replaces it.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Splice {
    range: Range<usize>,
    replacement: String,
}

fn plan_error(problem: String) -> CompactionError {
    CompactionError::range_error("plan", problem)
}

/// The message indices an edit touches.
fn edited_messages(edit: &Edit) -> Range<usize> {
    match edit {
        Edit::ReplaceBlock { message, .. } => *message..message.saturating_add(1),
        Edit::ReplaceMessages { range, .. } => range.clone(),
    }
}

fn edit_kind(edit: &Edit) -> ArchiveKind {
    match edit {
        Edit::ReplaceBlock { kind, .. } | Edit::ReplaceMessages { kind, .. } => *kind,
    }
}

/// What `edit` does to `text`.
fn splice_for(text: &str, transcript: &Transcript, edit: &Edit) -> Result<Splice> {
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
            Ok(replace_prose(
                text,
                first.start..last.end,
                new.as_deref().unwrap_or_default(),
            ))
        }
        Edit::ReplaceBlock {
            message,
            block,
            text: new,
            ..
        } => replace_block(text, transcript, *message, *block, new),
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
fn replace_prose(text: &str, span: Range<usize>, new: &str) -> Splice {
    let own = &text[span.clone()];
    let lead = if span.start > 0 {
        leading_ending(own)
    } else {
        0
    };
    let start = span.start + lead;
    let end = span.start + content_end(own);
    if end <= start {
        return Splice {
            range: start..start,
            replacement: String::new(),
        };
    }
    Splice {
        range: start..end,
        replacement: new.to_string(),
    }
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

/// Length of the line ending `text` starts with (0, 1 or 2).
fn leading_ending(text: &str) -> usize {
    if text.starts_with("\r\n") {
        2
    } else {
        usize::from(text.starts_with('\n'))
    }
}

/// Replaces block `block` of message `message`.
fn replace_block(
    text: &str,
    transcript: &Transcript,
    message: usize,
    block: usize,
    new: &str,
) -> Result<Splice> {
    let span = span_of(text, transcript, message)?;
    let kind = transcript
        .messages
        .get(message)
        .and_then(|m| m.blocks.get(block))
        .map(|b| &b.kind)
        .ok_or_else(|| plan_error(format!("block {block} of message {message} does not exist")))?;
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
            Ok(Splice {
                range: span.start + splice.range.start..span.start + splice.range.end,
                replacement: splice.replacement,
            })
        }
        BlockKind::Media { .. } => {
            if !is_media_segment(&text[span.clone()]) {
                return Err(mismatch());
            }
            Ok(Splice {
                range: span,
                replacement: new.to_string(),
            })
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
fn replace_body(segment: &str, fence: &ToolFence, new: &str) -> Splice {
    let splice = body_splice(segment, fence, new);
    let candidate = spliced(segment, &splice);
    let reads_back = tool_fence_at(&candidate, line_at(&candidate, 0)).is_some_and(|again| {
        again.end(&candidate) == candidate.len() && again.closer.is_some() == fence.closer.is_some()
    });
    if reads_back {
        return splice;
    }
    let longer = fence.fence_len.max(longest_fence_in(new)) + 1;
    Splice {
        range: 0..segment.len(),
        replacement: lengthened(segment, fence, &splice, longer),
    }
}

/// The splice that puts `new` in place of the body, keeping the line endings around it.
fn body_splice(segment: &str, fence: &ToolFence, new: &str) -> Splice {
    let header_ending = fence.opener.ending(segment);
    let (range, replacement) = match fence.closer {
        // The closer follows the header directly: the body needs a line ending of its own.
        Some(closer) if closer.start == fence.opener.end && !new.is_empty() => {
            (fence.body.clone(), format!("{new}{header_ending}"))
        }
        // An unclosed header at the end of the text: the body needs a line to start on.
        None if header_ending.is_empty() && !new.is_empty() => {
            (fence.body.clone(), format!("{DEFAULT_LINE_END}{new}"))
        }
        _ => (fence.body.clone(), new.to_string()),
    };
    Splice { range, replacement }
}

/// `text` with `splice` made.
fn spliced(text: &str, splice: &Splice) -> String {
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
fn lengthened(segment: &str, fence: &ToolFence, splice: &Splice, len: usize) -> String {
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

impl<'a> CharOffsets<'a> {
    fn new(text: &'a str) -> Self {
        Self {
            text,
            byte: 0,
            chars: 0,
        }
    }

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
    use super::*;
    use crate::tokens::estimate_tokens;

    /// Puts every archived substring back in place of its replacement: the input again.
    fn restore(output: &str, archive: &[ArchiveEntry]) -> String {
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

    fn span(message: &Message) -> Range<usize> {
        match message.source {
            Source::Span { start, end } => start..end,
            Source::Index(_) => panic!("text messages have spans"),
        }
    }

    /// The segments' texts, which must cover the input exactly.
    fn pieces<'a>(text: &'a str, transcript: &Transcript) -> Vec<&'a str> {
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

    fn tool_body<'m>(message: &'m Message<'_>) -> Option<&'m str> {
        match &message.blocks[0].kind {
            BlockKind::ToolResult { .. } => Some(&message.blocks[0].text),
            _ => None,
        }
    }

    fn replace_block(message: usize, text: &str, kind: ArchiveKind) -> Edit {
        Edit::ReplaceBlock {
            message,
            block: 0,
            text: text.to_string(),
            kind,
        }
    }

    fn replace_messages(range: Range<usize>, text: Option<&str>) -> Edit {
        Edit::ReplaceMessages {
            range,
            text: text.map(str::to_string),
            kind: ArchiveKind::Turn,
            is_summary: false,
        }
    }

    /// What `micro` writes: the first `head` chars (trailing whitespace trimmed) and the marker.
    fn collapsed(body: &str, head: usize) -> String {
        let kept: String = body.chars().take(head).collect();
        format!(
            "{}\n{}",
            kept.trim_end(),
            markers::pruned_body(body.chars().count())
        )
    }

    /// Applies `edits`, checks the archive restores the input, returns the output.
    fn apply_ok(text: &str, edits: &[Edit]) -> Applied<String> {
        let applied = apply(text, &read(text), edits).expect("edits apply");
        assert_eq!(applied.archive.len(), edits.len());
        assert_eq!(restore(&applied.output, &applied.archive), text);
        applied
    }

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
    fn separator_is_kept_from_the_first_line_break() {
        // Spaces before an inline image stay (no line break); CRLF separators stay whole.
        let text = "[age:9] a  ![i](data:,x)\r\n[age:9] b \t\r\n\r\n[age:1] c";
        let transcript = read(text);
        assert_eq!(
            pieces(text, &transcript),
            [
                "[age:9] a  ",
                "![i](data:,x)",
                "\r\n",
                "[age:9] b \t\r\n\r\n",
                "[age:1] c"
            ]
        );
        let applied = apply_ok(
            text,
            &[
                replace_messages(0..1, Some("A")),
                replace_messages(3..4, Some("B")),
            ],
        );
        assert_eq!(applied.output, "A  ![i](data:,x)\r\nB\r\n\r\n[age:1] c");
    }

    #[test]
    fn lengthening_keeps_indentation_and_padding() {
        let text = "  ```tool_result name=a\r\nx\r\n  ```  \r\nafter";
        let applied = apply_ok(text, &[replace_block(0, "````", ArchiveKind::ToolResult)]);
        assert_eq!(
            applied.output,
            "  `````tool_result name=a\r\n````\r\n  `````  \r\nafter"
        );
        assert_eq!(
            applied.archive[0].content,
            serde_json::Value::String("  ```tool_result name=a\r\nx\r\n  ```  ".into())
        );
        assert_eq!(tool_body(&read(&applied.output).messages[0]), Some("````"));
    }

    #[test]
    fn nested_fence_does_not_end_the_tool_result() {
        let text = "```tool_result name=read\nfile:\n```python\nprint(1)\n```\nafter code\n```\n[age:1] tail";
        let transcript = read(text);
        let pieces = pieces(text, &transcript);
        assert_eq!(
            pieces[0],
            "```tool_result name=read\nfile:\n```python\nprint(1)\n```\nafter code\n```"
        );
        assert_eq!(
            tool_body(&transcript.messages[0]),
            Some("file:\n```python\nprint(1)\n```\nafter code")
        );
        assert_eq!(pieces[1..], ["\n", "[age:1] tail"]);
    }

    #[test]
    fn nested_tool_result_and_longer_fences_nest() {
        let text =
            "```tool_result\n````markdown\n```\n````\n```tool_result name=x\ninner\n```\nend\n```";
        let transcript = read(text);
        assert_eq!(transcript.messages.len(), 1);
        assert_eq!(
            tool_body(&transcript.messages[0]),
            Some("````markdown\n```\n````\n```tool_result name=x\ninner\n```\nend")
        );
    }

    #[test]
    fn a_longer_opener_closes_over_an_unclosed_nested_fence() {
        let text = "````tool_result\n```python\nunclosed\n````\nprose";
        let transcript = read(text);
        assert_eq!(
            pieces(text, &transcript),
            ["````tool_result\n```python\nunclosed\n````", "\nprose"]
        );
    }

    #[test]
    fn unterminated_fence_runs_to_the_end() {
        let text = "before\n```tool_result name=bash\nline 1\n[age:3] not a tag\n";
        let transcript = read(text);
        let pieces = pieces(text, &transcript);
        assert_eq!(
            pieces,
            [
                "before\n",
                "```tool_result name=bash\nline 1\n[age:3] not a tag\n"
            ]
        );
        assert_eq!(
            tool_body(&transcript.messages[1]),
            Some("line 1\n[age:3] not a tag\n")
        );
        assert!(transcript.messages.iter().all(|m| m.explicit_age.is_none()));
        let applied = apply_ok(text, &[replace_block(1, "short", ArchiveKind::ToolResult)]);
        assert_eq!(applied.output, "before\n```tool_result name=bash\nshort");
    }

    #[test]
    fn header_alone_at_the_end() {
        let text = "x\n```tool_result name=a";
        let transcript = read(text);
        assert_eq!(tool_body(&transcript.messages[1]), Some(""));
        let applied = apply_ok(text, &[replace_block(1, "body", ArchiveKind::ToolResult)]);
        assert_eq!(applied.output, "x\n```tool_result name=a\nbody");
        assert_eq!(tool_body(&read(&applied.output).messages[1]), Some("body"));
    }

    #[test]
    fn indented_tag_starts_its_own_block() {
        let text = "[age:9] stale\nold stuff\n  [age:1] fresh\nnew stuff";
        let transcript = read(text);
        assert_eq!(
            pieces(text, &transcript),
            ["[age:9] stale\nold stuff\n", "  [age:1] fresh\nnew stuff"]
        );
        let ages: Vec<_> = transcript.messages.iter().map(|m| m.explicit_age).collect();
        assert_eq!(ages, [Some(9), Some(1)]);
        let applied = apply_ok(text, &[replace_messages(0..1, Some(markers::STALE_BLOCK))]);
        assert_eq!(
            applied.output,
            "[stale block pruned]\n  [age:1] fresh\nnew stuff"
        );
    }

    #[test]
    fn tags_mid_line_or_malformed_do_not_split() {
        let text = "[age:4] a\nsee [age:1] inline\n[age:x] bad\n[age:] bad";
        let transcript = read(text);
        assert_eq!(transcript.messages.len(), 1);
        assert_eq!(transcript.messages[0].explicit_age, Some(4));
    }

    #[test]
    fn ages_flow_through_fences_and_start_unknown() {
        let text = "intro\n[age:7] old\n```tool_result name=a\n[age:1] inside\n```\nmore\n[age:2] new\n```tool_result\nb\n```";
        let transcript = read(text);
        let shape: Vec<_> = transcript
            .messages
            .iter()
            .map(|m| (tool_body(m).is_some(), m.explicit_age))
            .collect();
        assert_eq!(
            shape,
            [
                (false, None),
                (false, Some(7)),
                (true, Some(7)),
                (false, Some(7)),
                (false, Some(2)),
                (true, Some(2)),
            ]
        );
    }

    #[test]
    fn crlf_parses_like_lf() {
        let lf = "[age:9] stale\nold\n  [age:1] fresh\n```tool_result name=bash\nx\n```python\ny\n```\nz\n```\nafter\n```\ndata:image/png;base64,AAAA\n```\nend\n";
        let crlf = lf.replace('\n', "\r\n");
        let (a, b) = (read(lf), read(&crlf));
        assert_eq!(a.messages.len(), b.messages.len());
        for (x, y) in a.messages.iter().zip(&b.messages) {
            assert_eq!(x.blocks[0].kind, y.blocks[0].kind);
            assert_eq!(x.explicit_age, y.explicit_age);
            assert_eq!(x.blocks[0].text, y.blocks[0].text.replace("\r\n", "\n"));
        }
        assert_eq!(
            tool_body(&b.messages[2]),
            Some("x\r\n```python\r\ny\r\n```\r\nz")
        );
        let applied = apply_ok(&crlf, &[replace_block(2, "new", ArchiveKind::ToolResult)]);
        assert!(
            applied
                .output
                .contains("```tool_result name=bash\r\nnew\r\n```\r\nafter")
        );
    }

    #[test]
    fn lone_carriage_return_is_not_a_line_ending() {
        let text = "a\r[age:1] b\n```tool_result\rx\n```";
        let transcript = read(text);
        assert_eq!(
            pieces(text, &transcript),
            ["a\r[age:1] b\n", "```tool_result\rx\n```"]
        );
        assert_eq!(transcript.messages[0].explicit_age, None);
        assert_eq!(tool_body(&transcript.messages[1]), Some(""));
    }

    #[test]
    fn markdown_data_image_is_media() {
        let text = "[age:3] look ![a chart](data:image/PNG;base64,iVBO+/=) here\nnext";
        let transcript = read(text);
        assert_eq!(
            pieces(text, &transcript),
            [
                "[age:3] look ",
                "![a chart](data:image/PNG;base64,iVBO+/=)",
                " here\nnext"
            ]
        );
        let media = &transcript.messages[1];
        assert_eq!(
            media.blocks[0].kind,
            BlockKind::Media {
                media_type: "image/png".into(),
                inline: true
            }
        );
        assert_eq!(media.blocks[0].text, "iVBO+/=");
        assert_eq!(media.explicit_age, Some(3));
        let placeholder = markers::media_placeholder("image/png", 5, "00");
        let applied = apply_ok(text, &[replace_block(1, &placeholder, ArchiveKind::Media)]);
        assert_eq!(
            applied.output,
            format!("[age:3] look {placeholder} here\nnext")
        );
        assert_eq!(
            applied.archive[0].content,
            serde_json::Value::String("![a chart](data:image/PNG;base64,iVBO+/=)".into())
        );
        assert_eq!(read(&applied.output).messages.len(), 1);
    }

    #[test]
    fn url_images_and_broken_data_images_stay_prose() {
        for text in [
            "![x](https://example.com/a.png)",
            "![x](data:image/png;base64,AAAA \"title\")",
            "![x](data:image/png;base64AAAA)",
            "![x] (data:image/png;base64,AAAA)",
            "![x](data:image/png;base64,AAAA",
            "![![![![x",
        ] {
            let transcript = read(text);
            assert_eq!(transcript.messages.len(), 1, "{text}");
            assert_eq!(transcript.messages[0].blocks[0].kind, BlockKind::Text);
        }
        let two = read("![](data:,a)![b](data:text/csv,x,y)");
        let types: Vec<_> = two
            .messages
            .iter()
            .map(|m| m.blocks[0].kind.clone())
            .collect();
        assert_eq!(
            types,
            [
                BlockKind::Media {
                    media_type: "text/plain".into(),
                    inline: true
                },
                BlockKind::Media {
                    media_type: "text/csv".into(),
                    inline: true
                }
            ]
        );
        assert_eq!(two.messages[1].blocks[0].text, "x,y");
    }

    #[test]
    fn fenced_data_uri_is_media() {
        let text = "before\n```png\ndata:image/png;base64,AAAA\nBBBB\n```\nafter";
        let transcript = read(text);
        assert_eq!(
            pieces(text, &transcript),
            [
                "before\n",
                "```png\ndata:image/png;base64,AAAA\nBBBB\n```",
                "\nafter"
            ]
        );
        assert_eq!(transcript.messages[1].blocks[0].text, "AAAABBBB");
        let applied = apply_ok(text, &[replace_block(1, "[media]", ArchiveKind::Media)]);
        assert_eq!(applied.output, "before\n[media]\nafter");
        // Unclosed, or not a data URI: prose.
        for text in ["```\ndata:image/png;base64,AAAA\n", "```\nnot data\n```"] {
            assert!(
                read(text)
                    .messages
                    .iter()
                    .all(|m| m.blocks[0].kind == BlockKind::Text)
            );
        }
    }

    #[test]
    fn fenced_data_body_is_payload_only() {
        // An unclosed data fence must not find its closer inside a later tool result: otherwise
        // rewriting (or lengthening) that tool result's body would change how the text before
        // it reads.
        let text = "````\ndata:image/png;base64,AAAA\n```tool_result name=bash\n```\n````";
        let transcript = read(text);
        assert_eq!(
            pieces(text, &transcript),
            [
                "````\ndata:image/png;base64,AAAA\n",
                "```tool_result name=bash\n```",
                "\n````"
            ]
        );
        let applied = apply_ok(
            text,
            &[replace_block(1, "```python\nx", ArchiveKind::ToolResult)],
        );
        let again = read(&applied.output);
        assert_eq!(again.messages.len(), 3);
        assert_eq!(again.messages[0].blocks[0].kind, BlockKind::Text);
        assert_eq!(tool_body(&again.messages[1]), Some("```python\nx"));
        // Wrapped base64 is payload; a line with spaces is not.
        let wrapped = read("```\n  data:image/gif;base64,AA\nBB==\n```");
        assert_eq!(wrapped.messages[0].blocks[0].text, "AABB==");
        assert_eq!(
            read("```\ndata:,x\nnot payload\n```").messages[0].blocks[0].kind,
            BlockKind::Text
        );
    }

    #[test]
    fn tool_result_header_forms() {
        let cases = [
            ("```tool_result\nx\n```", Some(None)),
            (
                "  ````tool_result name=\"my tool\" id=3\nx\n````",
                Some(Some("my tool")),
            ),
            (
                "```tool_result id=\"a b\" name=grep\nx\n```",
                Some(Some("grep")),
            ),
            ("```tool_result\tname=ls\nx\n```", Some(Some("ls"))),
            ("```tool_results\nx\n```", None),
            ("``tool_result\nx\n``", None),
            ("```tool_result `x`\nx\n```", None),
        ];
        for (text, expected) in cases {
            let transcript = read(text);
            let name = match &transcript.messages[0].blocks[0].kind {
                BlockKind::ToolResult { name, .. } => Some(name.as_deref()),
                _ => None,
            };
            assert_eq!(name, expected, "{text}");
        }
    }

    #[test]
    fn empty_body_gets_its_own_line() {
        let text = "```tool_result\n```";
        let transcript = read(text);
        assert_eq!(tool_body(&transcript.messages[0]), Some(""));
        let applied = apply_ok(text, &[replace_block(0, "x", ArchiveKind::ToolResult)]);
        assert_eq!(applied.output, "```tool_result\nx\n```");
        let emptied = apply_ok(
            "```tool_result\nabc\n```",
            &[replace_block(0, "", ArchiveKind::ToolResult)],
        );
        assert_eq!(emptied.output, "```tool_result\n\n```");
        assert_eq!(tool_body(&read(&emptied.output).messages[0]), Some(""));
    }

    #[test]
    fn a_body_that_would_break_the_fence_gets_longer_fences() {
        let body = format!("```python\n{}\n```\nrest", "x = 1\n".repeat(60));
        let text = format!("```tool_result name=py\n{body}\n```\nafter");
        // The collapsed head cuts the nested fence open; so would a bare fence line.
        for new in [
            collapsed(&body, 80),
            "```\nhead".to_string(),
            "`````\n".to_string(),
        ] {
            let applied = apply_ok(&text, &[replace_block(0, &new, ArchiveKind::ToolResult)]);
            let again = read(&applied.output);
            assert_eq!(tool_body(&again.messages[0]), Some(new.as_str()), "{new}");
            assert_eq!(again.messages.len(), 2);
            assert!(applied.output.ends_with("\nafter"));
        }
        let unclosed = "```tool_result\nabc";
        let applied = apply_ok(
            unclosed,
            &[replace_block(0, "x\n```\ny", ArchiveKind::ToolResult)],
        );
        assert_eq!(applied.output, "````tool_result\nx\n```\ny");
        assert_eq!(
            tool_body(&read(&applied.output).messages[0]),
            Some("x\n```\ny")
        );
    }

    #[test]
    fn micro_twice_keeps_the_structure() {
        let body = "line of output\n".repeat(40);
        let text = format!("[age:1] run\n```tool_result name=bash\n{body}```\ndone\n");
        let first = apply_ok(
            &text,
            &[replace_block(
                1,
                &collapsed(&body, 80),
                ArchiveKind::ToolResult,
            )],
        );
        let again = read(&first.output);
        let new_body = tool_body(&again.messages[1]).expect("still a tool result");
        assert!(markers::is_collapsed_body(new_body));
        let second = apply_ok(
            &first.output,
            &[replace_block(1, new_body, ArchiveKind::ToolResult)],
        );
        assert_eq!(second.output, first.output);
    }

    #[test]
    fn replacing_after_a_fence_keeps_the_closing_line() {
        let text = "```tool_result\nx\n```\nprose after\n\n```tool_result\ny\n```";
        let transcript = read(text);
        assert_eq!(pieces(text, &transcript)[1], "\nprose after\n\n");
        let applied = apply_ok(text, &[replace_messages(1..2, Some(markers::STALE_BLOCK))]);
        assert_eq!(
            applied.output,
            "```tool_result\nx\n```\n[stale block pruned]\n\n```tool_result\ny\n```"
        );
        assert_eq!(read(&applied.output).messages.len(), 4);
        let removed = apply_ok(text, &[replace_messages(0..2, None)]);
        assert_eq!(removed.output, "\n\n```tool_result\ny\n```");
        assert_eq!(removed.archive[0].replacement, "");
    }

    #[test]
    fn whole_text_replacement() {
        let text = "[age:9] a\n```tool_result\nb\n```\n[age:1] c\n\n";
        let n = read(text).messages.len();
        let applied = apply_ok(
            text,
            &[replace_messages(0..n, Some("[session summary]\nall"))],
        );
        assert_eq!(applied.output, "[session summary]\nall\n\n");
    }

    #[test]
    fn whitespace_only_range_is_left_alone() {
        let text = "```tool_result\nx\n```\n```tool_result\ny\n```";
        let transcript = read(text);
        assert_eq!(pieces(text, &transcript)[1], "\n");
        let applied = apply_ok(text, &[replace_messages(1..2, Some("gone"))]);
        assert_eq!(applied.output, text);
        assert_eq!(
            applied.archive[0].content,
            serde_json::Value::String(String::new())
        );
    }

    #[test]
    fn several_edits_and_code_point_locations() {
        let text = "日本語 [age:8] no\n[age:8] 古い 🦀\n```tool_result name=a\nΩ body ω\n```\n![é](data:image/gif;base64,R0lG)\n[age:0] 新しい";
        let transcript = read(text);
        let kinds: Vec<_> = transcript
            .messages
            .iter()
            .map(|m| m.blocks[0].kind.clone())
            .collect();
        assert_eq!(kinds.len(), 7);
        let applied = apply_ok(
            text,
            &[
                replace_messages(1..2, Some(markers::STALE_BLOCK)),
                replace_block(2, "Ω", ArchiveKind::ToolResult),
                replace_block(4, "[img]", ArchiveKind::Media),
            ],
        );
        assert_eq!(
            applied.output,
            "日本語 [age:8] no\n[stale block pruned]\n```tool_result name=a\nΩ\n```\n[img]\n[age:0] 新しい"
        );
        assert_eq!(applied.archive[0].location, "text[15..27]");
        assert_eq!(applied.archive[1].location, "text[50..58]");
        assert_eq!(applied.archive[2].location, "text[63..95]");
    }

    #[test]
    fn bad_plans_are_errors_not_panics() {
        let text = "[age:9] a\n```tool_result\nb\n```";
        let transcript = read(text);
        let cases = [
            vec![replace_block(5, "x", ArchiveKind::ToolResult)],
            vec![Edit::ReplaceBlock {
                message: 1,
                block: 1,
                text: "x".into(),
                kind: ArchiveKind::ToolResult,
            }],
            vec![replace_messages(1..1, None)],
            vec![replace_messages(0..3, None)],
            vec![
                replace_block(1, "x", ArchiveKind::ToolResult),
                replace_messages(0..1, None),
            ],
            vec![
                replace_messages(0..2, None),
                replace_block(1, "x", ArchiveKind::ToolResult),
            ],
            vec![
                replace_block(1, "x", ArchiveKind::ToolResult),
                replace_block(1, "y", ArchiveKind::ToolResult),
            ],
        ];
        for edits in cases {
            assert!(apply(text, &transcript, &edits).is_err(), "{edits:?}");
        }
        // A transcript of some other text.
        let other = read("```tool_result\nb\n```");
        assert!(
            apply(
                "prose only",
                &other,
                &[replace_block(0, "x", ArchiveKind::ToolResult)]
            )
            .is_err()
        );
        assert!(apply("日本", &other, &[replace_messages(0..1, None)]).is_err());
        let mut json = read(text);
        json.format = Format::OpenAi;
        assert!(apply(text, &json, &[]).is_err());
    }

    #[test]
    fn empty_text_and_no_edits() {
        assert!(read("").messages.is_empty());
        let text = "a\n```tool_result\nb\n```\n";
        let applied = apply(text, &read(text), &[]).expect("no edits");
        assert_eq!(applied.output, text);
        assert!(applied.archive.is_empty());
    }

    #[test]
    fn library_text_is_flagged() {
        let text = "[stale block pruned]\n[age:1] x\n  [session summary]\nsummary";
        let flags: Vec<_> = read(text)
            .messages
            .iter()
            .map(|m| m.is_library_summary)
            .collect();
        assert_eq!(flags, [true, false, true]);
        assert!(read("  [digest of earlier tool runs]\n- a").messages[0].is_library_summary);
    }

    #[test]
    fn adversarial_lines_stay_fast() {
        let text = format!(
            "{}\n{}\n{}",
            "![".repeat(20_000),
            "![](data:".repeat(20_000),
            "```\ndata:,x\n".repeat(5_000)
        );
        let started = std::time::Instant::now();
        let transcript = read(&text);
        pieces(&text, &transcript);
        assert!(started.elapsed().as_secs() < 5);
    }
}

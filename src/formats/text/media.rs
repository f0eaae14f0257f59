//! Inline media of the flat text: markdown images whose target is a data URI
//! (`![alt](data:image/png;base64,...)`) and fenced blocks whose body is one data URI. Each is
//! read with its media type and its payload (what follows the comma, whitespace removed).

use super::fences::{Fence, classify_fence, is_pad};
use super::lines::{Line, line_at};
use std::ops::Range;

/// A recognised piece of inline media.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Media {
    /// Where it is (the whole image or fenced block).
    pub(super) span: Range<usize>,
    /// MIME type of the data URI, lower-cased.
    pub(super) media_type: String,
    /// The data URI's payload, whitespace removed.
    pub(super) payload: String,
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
pub(super) fn data_images(line: &str) -> Vec<(Range<usize>, String)> {
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
pub(super) fn image_payload(image: &str) -> String {
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
pub(super) fn data_fence_at(text: &str, opener: Line) -> Option<Media> {
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

#[cfg(test)]
mod tests {
    use super::super::read;
    use crate::transcript::Source;

    #[test]
    fn adversarial_lines_keep_their_spans() {
        let text = format!(
            "{}\n{}\n{}",
            "![".repeat(20_000),
            "![](data:".repeat(20_000),
            "```\ndata:,x\n".repeat(5_000)
        );
        // No timed assertion here (speed is the bench's business); a quadratic scan of these
        // lines would show as this test taking minutes.
        let transcript = read(&text);
        // The segments still cover the text, one after another.
        let mut at = 0;
        for message in &transcript.messages {
            let Source::Span { start, end } = message.source else {
                panic!("text messages have spans");
            };
            assert_eq!(start, at);
            at = end;
        }
        assert_eq!(at, text.len());
    }
}

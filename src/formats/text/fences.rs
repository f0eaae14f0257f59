//! Fence lines (CommonMark's runs of three or more backticks) and tool-result fences: a header
//! line ```` ```tool_result name=... ````, a body, and the closing fence found by the nesting rule
//! of [`Levels`].

use super::lines::{Line, ending_before, line_at};
use std::ops::Range;

/// Shortest run of backticks that makes a fence (CommonMark).
const MIN_FENCE: usize = 3;
/// The info word that marks a tool-result fence.
const TOOL_RESULT: &str = "tool_result";

/// Padding allowed around a fence's backticks. `\r` is included so that a CRLF text cut after
/// its last `\r` still closes its fence.
pub(super) fn is_pad(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\r')
}

/// A fence line: backticks only, or backticks and an info string.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Fence<'a> {
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
    pub(super) fn len(&self) -> usize {
        match *self {
            Fence::Bare(len) | Fence::Open { len, .. } => len,
        }
    }
}

/// Classifies a line's content as a fence line. As in CommonMark, an info string holding a
/// backtick is not a fence (it is inline code such as "```a``` b").
pub(super) fn classify_fence(content: &str) -> Option<Fence<'_>> {
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
    ///   its content. (This is also what lets [`apply`](super::apply) protect a body by lengthening its fence.)
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
pub(super) struct ToolFence {
    /// The header line (```` ```tool_result name=bash ````).
    pub(super) opener: Line,
    /// Backticks of the opener.
    pub(super) fence_len: usize,
    /// The tool's name from the header.
    pub(super) name: Option<String>,
    /// The body: after the header's line ending, up to the line ending before the closing fence.
    pub(super) body: Range<usize>,
    /// The closing fence line; `None` when the fence runs to the end of the text.
    pub(super) closer: Option<Line>,
}

impl ToolFence {
    /// End of the segment: the closing fence's content, or the end of the text.
    pub(super) fn end(&self, text: &str) -> usize {
        self.closer.map_or(text.len(), |closer| closer.content_end)
    }
}

/// The tool-result fence opened by `opener`, if it is a tool-result header line.
pub(super) fn tool_fence_at(text: &str, opener: Line) -> Option<ToolFence> {
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

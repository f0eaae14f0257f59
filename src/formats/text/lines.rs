//! Lines of the flat text in byte offsets: where each line's content and line ending are. The
//! other parts read the text line by line through these.

/// One line of the text, in byte offsets. Line endings are `\n` and `\r\n`; a lone `\r` is
/// content. Every offset sits next to an ASCII byte (or at 0 / the end), so slicing at them is
/// always on a char boundary.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Line {
    /// First byte of the line.
    pub(super) start: usize,
    /// End of the content, before the line ending.
    pub(super) content_end: usize,
    /// After the line ending (equals `content_end` on a last line without one).
    pub(super) end: usize,
}

impl Line {
    pub(super) fn content<'a>(&self, text: &'a str) -> &'a str {
        &text[self.start..self.content_end]
    }

    pub(super) fn ending<'a>(&self, text: &'a str) -> &'a str {
        &text[self.content_end..self.end]
    }
}

/// The line starting at byte `start` (which must be 0 or follow a `\n`).
pub(super) fn line_at(text: &str, start: usize) -> Line {
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
pub(super) fn ending_before(text: &str, at: usize) -> usize {
    let head = &text.as_bytes()[..at];
    if head.ends_with(b"\r\n") {
        2
    } else {
        usize::from(head.ends_with(b"\n"))
    }
}

/// The start of the next line, from the end of a line's content.
pub(super) fn skip_line_ending(text: &str, content_end: usize) -> usize {
    content_end + leading_ending(&text[content_end..])
}

/// Length of the line ending `text` starts with (0, 1 or 2).
pub(super) fn leading_ending(text: &str) -> usize {
    if text.starts_with("\r\n") {
        2
    } else {
        usize::from(text.starts_with('\n'))
    }
}

//! The lines that matter: error lines (reports of errors first), their shapes (so repeats
//! that differ only in numbers count once), and the last line.

use super::MAX_LINE_CHARS;
use super::words::{find_word, lines_with_words};
use crate::base::bytes;
use crate::base::cut;
use crate::base::hash::FastSet;
use crate::base::sort;

/// Whether `line` names an error, exception, failure, panic or traceback (any case, inside a
/// word too: `TypeError`, `AssertionFailed`).
pub fn is_error_line(line: &str) -> bool {
    let line = trim(line);
    (4..=4000).contains(&line.len()) && find_word(line.as_bytes(), 0).is_some()
}

/// `line` with its numbers, hex runs and ids blanked, so repeats that differ only in those
/// count once (`line 42` and `line 57`, `0x7ffd…` and `0x7ffe…`).
pub fn shape(line: &str) -> String {
    let bytes = line.as_bytes();
    let mut out = String::with_capacity(line.len());
    // Text is copied in spans, up to each numeric run.
    let mut copied = 0;
    // Where the piece after the last numeric run starts: a numeric run there is the same token.
    let mut token_next = usize::MAX;
    let mut from = 0;
    // Each piece is a run of ASCII letters and digits and the one character after it (any other
    // character ends a run); only a run with a digit can be numeric. Digits are found eight
    // bytes at a time and only their runs read, from a table: reading every run of every line
    // (as this did, on bytes) was 1,830 instructions an error line, and splitting by chars
    // before that most of the time of one.
    while let Some(digit) = bytes::find_digit(&bytes[from..]).map(|at| from + at) {
        let mut start = digit;
        while start > from && SHAPE_BYTES[usize::from(bytes[start - 1])] != 0 {
            start -= 1;
        }
        // What every byte of the run is (`HEX`, `DIGITS_OR_X`).
        let mut every = HEX | DIGITS_OR_X;
        let mut end = start;
        while let Some(&b) = bytes.get(end) {
            // Only letters and digits have flags.
            let kind = SHAPE_BYTES[usize::from(b)];
            if kind == 0 {
                break;
            }
            every &= kind;
            end += 1;
        }
        if every & HEX != 0 || end - start >= 8 || every & DIGITS_OR_X != 0 {
            out.push_str(line.get(copied..start).unwrap_or_default());
            if start != token_next {
                out.push('#');
            }
            copied = end;
            token_next = after_run(line, end);
        }
        from = end;
    }
    out.push_str(line.get(copied..).unwrap_or_default());
    out
}

/// Where the piece after a run ending at `end` starts: after the character there, one byte if
/// ASCII, else its UTF-8 length.
fn after_run(line: &str, end: usize) -> usize {
    match line.as_bytes().get(end) {
        None => end,
        Some(&b) if b < 0x80 => end + 1,
        Some(_) => line
            .get(end..)
            .and_then(|rest| rest.chars().next())
            .map_or(end + 1, |c| end + c.len_utf8()),
    }
}

/// [`SHAPE_BYTES`] flags: an ASCII letter or digit.
const ALPHANUMERIC: u8 = 1;
/// A digit (kept by a run when any byte has it).
const DIGIT: u8 = 2;
/// A hex digit (kept by a run when every byte has it).
const HEX: u8 = 4;
/// A digit or `x` (kept by a run when every byte has it).
const DIGITS_OR_X: u8 = 8;

/// What [`shape`] asks of each byte.
const SHAPE_BYTES: [u8; 256] = {
    let mut table = [0u8; 256];
    let mut b = 0;
    while b < 256 {
        let byte = b as u8;
        if byte.is_ascii_alphanumeric() {
            table[b] |= ALPHANUMERIC;
        }
        if byte.is_ascii_digit() {
            table[b] |= DIGIT | DIGITS_OR_X;
        }
        if byte.is_ascii_hexdigit() {
            table[b] |= HEX;
        }
        if byte == b'x' {
            table[b] |= DIGITS_OR_X;
        }
        b += 1;
    }
    table
};

/// Whether `haystack` ends with `needle`, ASCII letters in any case.
fn ends_with_folded(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.len() >= needle.len()
        && haystack[haystack.len() - needle.len()..].eq_ignore_ascii_case(needle)
}

/// Whether `line` (an error line) reads as a report of one (`error: …`, `Traceback`, `FAILED`,
/// `panicked at`), not merely a name with an error word in it (`SyntaxError(…)` in source code).
pub(super) fn is_report(line: &str) -> bool {
    // In place, any case. Every report but `not ok` and `✗` starts with one of [`WORDS`]: they
    // are compared only where [`find_word`] finds one, and those two where their first byte
    // is (found eight bytes at a time). Lowering a copy and searching it once per report was a
    // tenth of a micro call on logs; comparing wherever a report's first two letters were,
    // 2,200 instructions a line of the 300-step agent run.
    let line = trim(line).as_bytes();
    let starts = |at: usize, report: &[u8]| {
        line.get(at..at + report.len())
            .is_some_and(|here| here.eq_ignore_ascii_case(report))
    };
    let mut reported = false;
    let mut from = 0;
    while let Some(at) = find_word(line, from) {
        let second = line.get(at + 1).map_or(0, |&b| b | 0x20);
        let reports: &[&[u8]] = match (line[at] | 0x20, second) {
            (b'e', b'r') => &[b"error:", b"error[", b"error "],
            (b'e', b'x') => &[b"exception:"],
            (b't', b'r') => &[b"traceback"],
            (b'p', b'a') => &[b"panicked"],
            (b'f', b'a') => &[b"fatal:", b"failed", b"failure:", b"fail:"],
            _ => &[],
        };
        if reports.iter().any(|report| starts(at, report)) {
            reported = true;
            break;
        }
        from = at + 1;
    }
    let reported = reported
        || starts_at_either(line, b'n', b'N', b"not ok")
        || starts_at_either(line, 0xE2, 0xE2, "✗".as_bytes());
    let head = line.split(|&b| b == b':').next().unwrap_or(line);
    reported
        || [&b"error"[..], b"exception", b"warning"]
            .iter()
            .any(|end| ends_with_folded(head, end))
}

/// Whether `report` (ASCII letters in any case) starts at some `a` or `b` byte of `line`.
fn starts_at_either(line: &[u8], a: u8, b: u8, report: &[u8]) -> bool {
    let mut from = 0;
    while let Some(at) = line
        .get(from..)
        .and_then(|rest| memchr::memchr2(a, b, rest))
    {
        let at = from + at;
        if line
            .get(at..at + report.len())
            .is_some_and(|here| here.eq_ignore_ascii_case(report))
        {
            return true;
        }
        from = at + 1;
    }
    false
}

/// `line` without the whitespace at its ends, as [`str::trim`] has it: ASCII whitespace taken
/// off a byte at a time, `str::trim` asked only when a non-ASCII character is left at an end.
/// `str::trim` tested each end's characters through a pattern searcher, 390 instructions an
/// error line.
pub(super) fn trim(line: &str) -> &str {
    let bytes = line.as_bytes();
    let space = |b: u8| matches!(b, b'\t' | b'\n' | b'\x0b' | b'\x0c' | b'\r' | b' ');
    let mut start = 0;
    while start < bytes.len() && space(bytes[start]) {
        start += 1;
    }
    let mut end = bytes.len();
    while end > start && space(bytes[end - 1]) {
        end -= 1;
    }
    // Both ends are ASCII bytes or the text's ends: character boundaries.
    let inner = line.get(start..end).unwrap_or(line);
    match (inner.as_bytes().first(), inner.as_bytes().last()) {
        (Some(&first), Some(&last)) if first >= 0x80 || last >= 0x80 => inner.trim(),
        _ => inner,
    }
}

/// The shapes of the error lines found so far. A look through the first few (most bodies have
/// fewer) costs less than hashing each shape; past [`Seen::LINEAR`] they go in a set.
#[derive(Default)]
struct Seen {
    few: Vec<String>,
    many: FastSet<String>,
}

impl Seen {
    const LINEAR: usize = 16;

    /// Adds `shape`; whether it was new.
    fn insert(&mut self, shape: String) -> bool {
        if self.few.contains(&shape) || self.many.contains(&shape) {
            return false;
        }
        match self.few.len() < Self::LINEAR {
            true => self.few.push(shape),
            false => {
                self.many.insert(shape);
            }
        }
        true
    }
}

/// The distinct lines of `text` that matter, in their order in the text, each cut to
/// [`MAX_LINE_CHARS`] code points, at most `max`: reports of errors first, then other lines
/// with an error word, when there are more than `max`.
pub fn error_lines(text: &str, max: usize) -> Vec<&str> {
    let mut seen = Seen::default();
    let mut found: Vec<(usize, bool, &str)> = Vec::new();
    let mut reports = 0;
    for (at, line) in lines_with_words(text) {
        let trimmed = trim(line);
        // [`is_error_line`]: the word is in the line, so only its length is left to check.
        if (4..=4000).contains(&trimmed.len()) && seen.insert(shape(trimmed)) {
            found.push((at, false, line));
            let count = found.len();
            // Which lines are reports matters only from `max` lines on (which are kept, and
            // when to stop): most bodies have fewer, and are never asked.
            if count == max {
                for (_, report, line) in &mut found {
                    *report = is_report(line);
                }
                reports = found.iter().filter(|(_, report, _)| *report).count();
            } else if count > max {
                if let Some((_, report, line)) = found.last_mut() {
                    *report = is_report(line);
                    reports += usize::from(*report);
                }
            }
            // With `max` reports found, no later line can take the place of one (reports
            // rank first, each group in text order): the rest of a long log is not read.
            if count >= max && reports >= max {
                break;
            }
        }
    }
    if found.len() > max {
        // Reports first, each group in text order; then back to text order.
        found = sort::sorted_by_key(found, &|(at, report, _): &(usize, bool, &str)| {
            (!report, *at)
        });
        found.truncate(max);
        found = sort::sorted_by_key(found, &|(at, ..): &(usize, bool, &str)| *at);
    }
    found
        .into_iter()
        .map(|(_, _, line)| cut::head(cut::trim(line), MAX_LINE_CHARS))
        .collect()
}

/// The last non-empty line of `text` when it has more than one line, cut to
/// [`MAX_LINE_CHARS`] code points.
pub fn last_line(text: &str) -> Option<&str> {
    last_nonblank(text).map(|last| cut::head(cut::trim(last), MAX_LINE_CHARS))
}

/// The last line of `text` (as [`str::lines`] has them) that is not all whitespace, when
/// another before it is not either. Read on bytes from the end, then from the start, up to the
/// first character that is not ASCII whitespace; `str::lines` is asked only when that is a
/// non-ASCII character (which may be whitespace). `str::lines` with a filter from both ends
/// took 1.2M instructions more over the 300-turn conversation's 1,514 stubs.
pub(super) fn last_nonblank(text: &str) -> Option<&str> {
    let bytes = text.as_bytes();
    let space = |b: &u8| matches!(b, b'\t' | b'\n' | b'\x0b' | b'\x0c' | b'\r' | b' ');
    let last = bytes.iter().rposition(|b| !space(b))?;
    let start = memchr::memrchr(b'\n', &bytes[..last]).map_or(0, |at| at + 1);
    let first = bytes.iter().position(|b| !space(b))?;
    if bytes[last] >= 0x80 || bytes[first] >= 0x80 {
        return last_nonblank_by_lines(text);
    }
    // No other line holds a character that is not whitespace.
    if first >= start {
        return None;
    }
    let end = memchr::memchr(b'\n', &bytes[last..]).map_or(bytes.len(), |at| last + at);
    let line = text.get(start..end)?;
    // `str::lines` drops the `\r` of a `\r\n` only.
    match end < bytes.len() && line.ends_with('\r') {
        true => line.get(..line.len() - 1),
        false => Some(line),
    }
}

/// [`last_nonblank`] by `str::lines`.
pub(super) fn last_nonblank_by_lines(text: &str) -> Option<&str> {
    let mut lines = text.lines().filter(|line| !trim(line).is_empty());
    let last = lines.next_back()?;
    lines.next().map(|_| last)
}

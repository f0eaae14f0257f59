//! What matters in a long body: the lines naming an error, exception, failure, panic or
//! traceback, its last line, and the file paths and URLs it names. A stub keeps these when the
//! body goes (micro, time_based), a digest lists them (auto), and `mustKeep` asks a summary to
//! carry them.

use crate::base::bytes;
use crate::base::cut;
use crate::base::hash::FastSet;
use crate::base::sort;

/// At most this many lines that matter per stub.
pub const MAX_LINES: usize = 8;
/// Each kept line is cut to this many code points.
pub const MAX_LINE_CHARS: usize = 160;
/// At most this many paths and URLs per stub.
pub const MAX_REFERENCES: usize = 10;

/// The words that make a line matter (any case, inside a word too: `TypeError`,
/// `AssertionFailed`).
const WORDS: [&[u8]; 6] = [
    b"error",
    b"exception",
    b"fail",
    b"panic",
    b"traceback",
    b"fatal",
];

/// A word's first four letters as a little-endian `u32`, the way [`word_at`] reads them.
const fn head4(word: &[u8]) -> u32 {
    u32::from_le_bytes([word[0], word[1], word[2], word[3]])
}

/// Whether one of [`WORDS`] starts at `at` in `bytes`: the four bytes there folded (`| 0x20`
/// maps a byte onto a small letter only if it is that letter in some case) and compared at once
/// with each word's first four, the rest of the word byte by byte. Comparing each candidate
/// word whole with `eq_ignore_ascii_case` took 128 instructions a call, a sixth of
/// `error_lines`.
#[inline]
fn word_at(bytes: &[u8], at: usize) -> bool {
    const ERRO: u32 = head4(WORDS[0]);
    const EXCE: u32 = head4(WORDS[1]);
    const FAIL: u32 = head4(WORDS[2]);
    const PANI: u32 = head4(WORDS[3]);
    const TRAC: u32 = head4(WORDS[4]);
    const FATA: u32 = head4(WORDS[5]);
    let Some(&[a, b, c, d]) = bytes.get(at..at + 4) else {
        return false;
    };
    let rest: &[u8] = match u32::from_le_bytes([a, b, c, d]) | 0x2020_2020 {
        ERRO => b"r",
        EXCE => b"ption",
        FAIL => return true,
        PANI => b"c",
        TRAC => b"eback",
        FATA => b"l",
        _ => return false,
    };
    bytes.get(at + 4..at + 4 + rest.len()).is_some_and(|here| {
        here.iter()
            .zip(rest)
            .all(|(&have, &want)| have | 0x20 == want)
    })
}

/// How far [`find_word`] may move its five-byte window on, by the window's last two bytes
/// (each folded to its low five bits, so a letter's two cases are one; other bytes share them
/// and only move less): the least distance that could bring some word's first five letters
/// over that pair, 4 when none has it. `fail` has four: its fifth is any byte, so every pair
/// that starts with an `l` stops the window.
const SKIP: [u8; 1024] = {
    let mut table = [4u8; 1024];
    let mut w = 0;
    while w < WORDS.len() {
        let word = WORDS[w];
        let mut q = 1;
        while q < 5 {
            let skip = (4 - q) as u8;
            let first = ((word[q - 1] & 0x1F) as usize) << 5;
            // The seconds the pair may have: the word's letter, or any byte past its end.
            let (mut second, last) = match q < word.len() {
                true => ((word[q] & 0x1F) as usize, (word[q] & 0x1F) as usize),
                false => (0, 31),
            };
            while second <= last {
                if skip < table[first | second] {
                    table[first | second] = skip;
                }
                second += 1;
            }
            q += 1;
        }
        w += 1;
    }
    table
};

/// Position of the first of [`WORDS`] in `bytes` at or after `from`. A window of five bytes is
/// moved along by its last two ([`SKIP`], as in Wu-Manber's search), mostly four bytes at a
/// time, and each window a word could start is checked whole; a `fail` in the last four bytes
/// (no fifth for a window) is looked for after. Eight positions at a time with each word's
/// first two letters marked (a `u64` of flags per position) took about 63 instructions per
/// eight bytes; a four-byte window moving three at a time 13.3M instructions on the 300-step
/// agent run's three calls, this one 11.3M. Marking first letters alone checked one byte in
/// five of English text (`e`, `t`).
fn find_word(bytes: &[u8], from: usize) -> Option<usize> {
    // The window's last byte.
    let mut end = from + 4;
    while let Some(&last) = bytes.get(end) {
        let pair = usize::from(bytes[end - 1] & 0x1F) << 5 | usize::from(last & 0x1F);
        match SKIP[pair] {
            0 if word_at(bytes, end - 4) => return Some(end - 4),
            0 => end += 1,
            skip => end += usize::from(skip),
        }
    }
    // Every window starting before `end - 4` was looked at; from there only a four-letter
    // word fits.
    (end - 4..bytes.len()).find(|&at| word_at(bytes, at))
}

/// Whether `line` names an error, exception, failure, panic or traceback (any case, inside a
/// word too: `TypeError`, `AssertionFailed`).
pub fn is_error_line(line: &str) -> bool {
    let line = trim(line);
    (4..=4000).contains(&line.len()) && find_word(line.as_bytes(), 0).is_some()
}

/// The lines of `text` (as [`str::lines`] has them) that hold one of [`WORDS`], each with the
/// byte offset it starts at. One search over the whole text: most lines hold none, and they are
/// never split out.
fn lines_with_words(text: &str) -> impl Iterator<Item = (usize, &str)> {
    let bytes = text.as_bytes();
    let mut from = 0;
    std::iter::from_fn(move || {
        let hit = find_word(bytes, from)?;
        let start = bytes::rfind_byte(&bytes[..hit], b'\n').map_or(0, |at| at + 1);
        let end = bytes::find_byte(&bytes[hit..], b'\n').map_or(bytes.len(), |at| hit + at);
        from = end + 1;
        let line = text.get(start..end).unwrap_or_default();
        // `str::lines` drops the `\r` of a `\r\n` only.
        let line = match end < bytes.len() {
            // A byte test: `strip_suffix` with a `char` pattern was 84 instructions a line.
            true => match line.as_bytes().last() {
                Some(b'\r') => line.get(..line.len() - 1).unwrap_or(line),
                _ => line,
            },
            false => line,
        };
        Some((start, line))
    })
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
fn is_report(line: &str) -> bool {
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
        .and_then(|rest| bytes::find_either(rest, a, b))
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
fn trim(line: &str) -> &str {
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
    let last = last_nonblank(text)?;
    Some(cut::head(cut::trim(last), MAX_LINE_CHARS))
}

/// The last line of `text` (as [`str::lines`] has them) that is not all whitespace, when
/// another before it is not either. Read on bytes from the end, then from the start, up to the
/// first character that is not ASCII whitespace; `str::lines` is asked only when that is a
/// non-ASCII character (which may be whitespace). `str::lines` with a filter from both ends
/// took 1.2M instructions more over the 300-turn conversation's 1,514 stubs.
fn last_nonblank(text: &str) -> Option<&str> {
    let bytes = text.as_bytes();
    let space = |b: &u8| matches!(b, b'\t' | b'\n' | b'\x0b' | b'\x0c' | b'\r' | b' ');
    let last = bytes.iter().rposition(|b| !space(b))?;
    let start = bytes::rfind_byte(&bytes[..last], b'\n').map_or(0, |at| at + 1);
    let first = bytes.iter().position(|b| !space(b))?;
    if bytes[last] >= 0x80 || bytes[first] >= 0x80 {
        return last_nonblank_by_lines(text);
    }
    // No other line holds a character that is not whitespace.
    if first >= start {
        return None;
    }
    let end = bytes::find_byte(&bytes[last..], b'\n').map_or(bytes.len(), |at| last + at);
    let line = text.get(start..end)?;
    // `str::lines` drops the `\r` of a `\r\n` only.
    match end < bytes.len() && line.ends_with('\r') {
        true => line.get(..line.len() - 1),
        false => Some(line),
    }
}

/// [`last_nonblank`] by `str::lines`.
fn last_nonblank_by_lines(text: &str) -> Option<&str> {
    let mut lines = text.lines().filter(|line| !trim(line).is_empty());
    let last = lines.next_back()?;
    lines.next().map(|_| last)
}

/// The distinct file paths and URLs `text` names, in order, at most `max`.
pub fn references(text: &str, max: usize) -> Vec<&str> {
    let mut found: Vec<&str> = Vec::new();
    // Past this many found, a set: below it a look through the found is cheaper than hashing
    // each token (stubs keep 10, digests 24).
    const LINEAR: usize = 32;
    let mut seen: FastSet<&str> = FastSet::default();
    if max == 0 {
        return found;
    }
    for token in tokens(text) {
        let new = match found.len() < LINEAR {
            true => !found.contains(&token),
            false => {
                if seen.is_empty() {
                    seen.extend(found.iter().copied());
                }
                seen.insert(token)
            }
        };
        if new {
            found.push(token);
            if found.len() == max {
                break;
            }
        }
    }
    found
}

/// [`WORD_BYTES`] flag: an ASCII byte that ends a word in [`tokens`] (whitespace, as
/// [`char::is_whitespace`] has it, and the punctuation around paths in text and JSON).
const DELIMITER: u8 = 1;
/// A byte that may be the last of a non-ASCII whitespace character's UTF-8 bytes (U+0085,
/// U+00A0, U+1680, U+2000 to U+200A, U+2028, U+2029, U+202F, U+205F, U+3000).
const MAY_END_SPACE: u8 = 2;
/// A lead byte that may start one (`C2`, `E1`, `E2`, `E3`).
const MAY_START_SPACE: u8 = 4;

/// What the word scan of [`tokens`] asks of each byte.
const WORD_BYTES: [u8; 256] = {
    let mut table = [0u8; 256];
    let delimiters = b"\t\n\x0b\x0c\r \"'()<>,[]{}=";
    let mut at = 0;
    while at < delimiters.len() {
        table[delimiters[at] as usize] = DELIMITER;
        at += 1;
    }
    let ends = [0x85u8, 0xA0, 0xA8, 0xA9, 0xAF, 0x9F];
    let mut at = 0;
    while at < ends.len() {
        table[ends[at] as usize] = MAY_END_SPACE;
        at += 1;
    }
    let mut b = 0x80;
    while b <= 0x8A {
        table[b] = MAY_END_SPACE;
        b += 1;
    }
    let starts = [0xC2u8, 0xE1, 0xE2, 0xE3];
    let mut at = 0;
    while at < starts.len() {
        table[starts[at] as usize] = MAY_START_SPACE;
        at += 1;
    }
    table
};

/// The words of `text` split at [`DELIMITER`] bytes and non-ASCII whitespace, those with a `/`
/// or `\` only, in order. Each `/` or `\` is found eight bytes at a time and its word read
/// outwards from it byte by byte, a character decoded only where a byte may belong to a Unicode
/// space: splitting the whole text by a `char` predicate decoded every character of every body,
/// a third of a micro call, for the few words that have one; reading each word outwards with
/// `char_indices` was still a fifth of `references`.
struct Words<'a> {
    text: &'a str,
    /// Where the next word starts: after a delimiter, so the search for one never looks back
    /// past it.
    from: usize,
}

impl<'a> Iterator for Words<'a> {
    type Item = &'a str;

    fn next(&mut self) -> Option<&'a str> {
        let (text, from) = (self.text, self.from);
        let hit = from + bytes::find_either(text.as_bytes().get(from..)?, b'/', b'\\')?;
        let start = word_start(text, from, hit);
        let (end, next) = word_end(text, hit);
        self.from = next;
        text.get(start..end)
    }
}

/// Where the word holding byte `hit` starts, looking back no further than `from`.
fn word_start(text: &str, from: usize, hit: usize) -> usize {
    let bytes = text.as_bytes();
    let mut at = hit;
    while at > from {
        let class = WORD_BYTES[usize::from(bytes[at - 1])];
        if class & DELIMITER != 0 {
            return at;
        }
        if class & MAY_END_SPACE == 0 {
            at -= 1;
            continue;
        }
        // The character this byte ends (`get` fails where it is not the last byte of one).
        let mut lead = at - 1;
        while lead > from && bytes[lead] & 0xC0 == 0x80 {
            lead -= 1;
        }
        let space = text
            .get(lead..at)
            .is_some_and(|c| c.chars().all(char::is_whitespace));
        if space && lead < at {
            return at;
        }
        at = lead;
    }
    from
}

/// Where the word holding byte `hit` ends, and where the next one may start (after the
/// delimiter).
fn word_end(text: &str, hit: usize) -> (usize, usize) {
    let bytes = text.as_bytes();
    let mut at = hit;
    while let Some(&b) = bytes.get(at) {
        let class = WORD_BYTES[usize::from(b)];
        if class & DELIMITER != 0 {
            return (at, at + 1);
        }
        if class & MAY_START_SPACE != 0 {
            if let Some(c) = text.get(at..).and_then(|rest| rest.chars().next()) {
                if c.is_whitespace() {
                    return (at, at + c.len_utf8());
                }
            }
        }
        at += 1;
    }
    (bytes.len(), bytes.len())
}

/// File paths, URLs and `backticked` identifiers in `text`, repeats included.
pub fn tokens(text: &str) -> Tokens<'_> {
    Tokens {
        words: Words { text, from: 0 },
        whole: None,
    }
}

/// The iterator [`tokens`] returns. A path or URL has a separator: words without one (nearly
/// all) are passed over at once. Each word is tried as a token in place (trimmed on bytes), a
/// backticked word without its backticks first: a chain of `flat_map`, `trim_*_matches`,
/// `rsplit_once` and `str::contains` per word was half of `references`.
pub struct Tokens<'a> {
    words: Words<'a>,
    /// A backticked word, tried whole once its inside was.
    whole: Option<&'a str>,
}

impl<'a> Iterator for Tokens<'a> {
    type Item = &'a str;

    fn next(&mut self) -> Option<&'a str> {
        loop {
            let word = match self.whole.take() {
                Some(word) => word,
                None => {
                    let word = self.words.next()?;
                    match backticked(word) {
                        Some(inside) => {
                            self.whole = Some(word);
                            inside
                        }
                        None => word,
                    }
                }
            };
            if let Some(token) = reference(word) {
                return Some(token);
            }
        }
    }
}

/// The inside of a word in backticks.
fn backticked(word: &str) -> Option<&str> {
    let bytes = word.as_bytes();
    match bytes.len() >= 2 && bytes[0] == b'`' && bytes[bytes.len() - 1] == b'`' {
        true => word.get(1..word.len() - 1),
        false => None,
    }
}

/// `word` as a path or URL: trailing `.:;`!?` and leading backticks trimmed, its line number
/// left out; `None` when it is neither.
fn reference(word: &str) -> Option<&str> {
    let bytes = word.as_bytes();
    let mut end = bytes.len();
    while end > 0 && matches!(bytes[end - 1], b'.' | b':' | b';' | b'`' | b'!' | b'?') {
        end -= 1;
    }
    let mut start = 0;
    while start < end && bytes[start] == b'`' {
        start += 1;
    }
    let token = strip_line_number(word.get(start..end)?);
    (is_url(token) || is_path(token)).then_some(token)
}

/// `src/a.rs:42:7` → `src/a.rs` (a compiler's location names the file): each `:` and the
/// digits after it, read back from the end.
fn strip_line_number(token: &str) -> &str {
    let bytes = token.as_bytes();
    let mut end = bytes.len();
    loop {
        let mut digits = end;
        while digits > 0 && bytes[digits - 1].is_ascii_digit() {
            digits -= 1;
        }
        if digits == end || digits == 0 || bytes[digits - 1] != b':' {
            break;
        }
        end = digits - 1;
    }
    token.get(..end).unwrap_or(token)
}

/// The bytes [`is_path`] looks at: separators, `:`, control characters and `C2` (the lead
/// byte of the C1 controls).
const PATH_BYTES: [bool; 256] = {
    let mut table = [false; 256];
    let mut b = 0;
    while b < 0x20 {
        table[b] = true;
        b += 1;
    }
    table[0x7F] = true;
    table[0xC2] = true;
    table[b'/' as usize] = true;
    table[b'\\' as usize] = true;
    table[b':' as usize] = true;
    table
};

/// An http(s) URL.
pub fn is_url(token: &str) -> bool {
    // The first byte first: nearly every token asked is a path (two `starts_with` were 84
    // instructions a token).
    let bytes = token.as_bytes();
    bytes.first() == Some(&b'h')
        && bytes.len() > 10
        && (bytes.starts_with(b"https://") || bytes.starts_with(b"http://"))
}

/// A file path: a separator and a file extension, or rooted (`/`, `./`, `~/`). One pass over
/// the bytes (no `://`, no control character, where the last separator is).
pub fn is_path(token: &str) -> bool {
    let bytes = token.as_bytes();
    if !(3..=200).contains(&bytes.len()) {
        return false;
    }
    let mut separator = None;
    for (at, &b) in bytes.iter().enumerate() {
        // Most bytes are none of these: one look in a table passes them (a `match` of ranges
        // tested each in turn, 480 instructions a token).
        if !PATH_BYTES[usize::from(b)] {
            continue;
        }
        match b {
            b'/' | b'\\' => separator = Some(at),
            b':' if bytes[at + 1..].starts_with(b"//") => return false,
            // Control characters: C0, DEL and C1 (U+0080 to U+009F, `C2 80` to `C2 9F`).
            0x00..=0x1F | 0x7F => return false,
            0xC2 if matches!(bytes.get(at + 1), Some(0x80..=0x9F)) => return false,
            _ => {}
        }
    }
    let Some(separator) = separator else {
        return false;
    };
    let file_name = &bytes[separator + 1..];
    let has_extension = file_name
        .iter()
        .rposition(|&b| b == b'.')
        .is_some_and(|dot| {
            let ext = &file_name[dot + 1..];
            dot > 0 && (1..=8).contains(&ext.len()) && ext.iter().all(u8::is_ascii_alphanumeric)
        });
    let rooted = bytes[0] == b'/' || bytes.starts_with(b"./") || bytes.starts_with(b"~/");
    has_extension || rooted
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_paths_urls_and_errors() {
        let text = "edited src/lib.rs and ./README.md, see https://docs.rs/serde.\nerror: cannot find `Foo`";
        let found = references(text, 10);
        assert_eq!(
            found,
            ["src/lib.rs", "./README.md", "https://docs.rs/serde"]
        );
        assert!(is_error_line("error: cannot find `Foo`"));
        assert!(is_error_line("TypeError: x is undefined"));
        assert!(is_error_line("test users ... FAILED"));
        assert!(!is_error_line("all good"));
        assert!(!is_path("and/or"));
        assert!(!is_path("1/2"));
        assert_eq!(
            references("at src/a.rs:42:7 and src/a.rs:9", 10),
            ["src/a.rs"]
        );
    }

    #[test]
    fn repeats_that_differ_in_numbers_count_once() {
        let text = "Error: timeout after 3000 ms (id 4f3a9b2c1d)\nok\nError: timeout after 5000 ms (id 77aa00ff11)\nError: refused";
        assert_eq!(
            error_lines(text, 8),
            [
                "Error: timeout after 3000 ms (id 4f3a9b2c1d)",
                "Error: refused"
            ]
        );
        assert_eq!(shape("line 42, col 7"), shape("line 57, col 9"));
        assert_ne!(shape("read a.rs"), shape("read b.rs"));
    }

    /// The char-level versions these byte loops replaced, kept as the oracle.
    mod oracle {
        pub fn shape(line: &str) -> String {
            let mut out = String::new();
            let mut in_token = false;
            for token in line.split_inclusive(|c: char| !c.is_ascii_alphanumeric()) {
                let (word, rest) = match token.char_indices().last() {
                    Some((at, c)) if !c.is_ascii_alphanumeric() => (&token[..at], &token[at..]),
                    _ => (token, ""),
                };
                let numeric = word.bytes().any(|b| b.is_ascii_digit())
                    && (word.bytes().all(|b| b.is_ascii_hexdigit())
                        || word.len() >= 8
                        || word.bytes().all(|b| b.is_ascii_digit() || b == b'x'));
                if numeric {
                    if !in_token {
                        out.push('#');
                    }
                    in_token = true;
                } else {
                    out.push_str(word);
                    in_token = false;
                }
                out.push_str(rest);
            }
            out
        }

        pub fn is_report(line: &str) -> bool {
            let lower = line.trim().to_ascii_lowercase();
            const REPORTS: [&str; 12] = [
                "error:",
                "error[",
                "error ",
                "exception:",
                "traceback",
                "panicked",
                "fatal:",
                "failed",
                "failure:",
                "fail:",
                "not ok",
                "✗",
            ];
            REPORTS.iter().any(|report| lower.contains(report))
                || lower.split(':').next().is_some_and(|head| {
                    head.ends_with("error")
                        || head.ends_with("exception")
                        || head.ends_with("warning")
                })
        }

        pub fn is_error_line(line: &str) -> bool {
            let line = line.trim();
            if line.len() < 4 || line.len() > 4000 {
                return false;
            }
            let bytes = line.as_bytes();
            bytes.windows(2).enumerate().any(|(at, pair)| {
                matches!(
                    (pair[0] | 0x20, pair[1] | 0x20),
                    (b'e', b'r' | b'x') | (b'f' | b'p', b'a') | (b't', b'r')
                ) && super::super::WORDS.iter().any(|word| {
                    bytes
                        .get(at..at + word.len())
                        .is_some_and(|here| here.eq_ignore_ascii_case(word))
                })
            })
        }

        pub fn last_line(text: &str) -> Option<&str> {
            let mut lines = text.lines().filter(|line| !line.trim().is_empty());
            let last = lines.next_back()?;
            lines.next().map(|_| {
                crate::base::cut::head(crate::base::cut::trim(last), super::super::MAX_LINE_CHARS)
            })
        }

        pub fn word_at(bytes: &[u8], at: usize) -> bool {
            super::super::WORDS.iter().any(|word| {
                bytes
                    .get(at..at + word.len())
                    .is_some_and(|here| here.eq_ignore_ascii_case(word))
            })
        }

        pub fn error_line_starts(text: &str) -> Vec<(usize, &str)> {
            let base = text.as_ptr() as usize;
            text.lines()
                .filter(|line| is_error_line(line))
                .map(|line| (line.as_ptr() as usize - base, line))
                .collect()
        }

        /// `error_lines` before it stopped at `max` reports.
        pub fn error_lines(text: &str, max: usize) -> Vec<&str> {
            let mut seen = std::collections::HashSet::new();
            let mut found: Vec<(usize, bool, &str)> = Vec::new();
            for (at, line) in text.lines().enumerate() {
                if is_error_line(line) && seen.insert(shape(line.trim())) {
                    found.push((at, is_report(line), line));
                }
            }
            if found.len() > max {
                found.sort_by_key(|(at, report, _)| (!report, *at));
                found.truncate(max);
                found.sort_by_key(|(at, ..)| *at);
            }
            found
                .into_iter()
                .map(|(_, _, line)| {
                    crate::base::cut::head(
                        crate::base::cut::trim(line),
                        super::super::MAX_LINE_CHARS,
                    )
                })
                .collect()
        }

        /// `references`, `tokens`, `strip_line_number` and `is_path` before they were byte
        /// loops.
        pub fn references(text: &str, max: usize) -> Vec<&str> {
            let mut seen = std::collections::HashSet::new();
            tokens(text)
                .filter(|token| seen.insert(*token))
                .take(max)
                .collect()
        }

        pub fn tokens(text: &str) -> impl Iterator<Item = &str> {
            words(text)
                .into_iter()
                .flat_map(|token| {
                    let backticked = token.strip_prefix('`').and_then(|t| t.strip_suffix('`'));
                    backticked.into_iter().chain(std::iter::once(token))
                })
                .map(|token| token.trim_end_matches(['.', ':', ';', '`', '!', '?']))
                .map(|token| token.trim_start_matches('`'))
                .map(strip_line_number)
                .filter(|token| super::super::is_url(token) || is_path(token))
        }

        pub fn strip_line_number(token: &str) -> &str {
            let mut token = token;
            while let Some((before, after)) = token.rsplit_once(':') {
                if !after.is_empty() && after.bytes().all(|b| b.is_ascii_digit()) {
                    token = before;
                } else {
                    break;
                }
            }
            token
        }

        pub fn is_path(token: &str) -> bool {
            if token.len() < 3 || token.len() > 200 || token.contains("://") {
                return false;
            }
            let has_separator = token.contains('/') || token.contains('\\');
            let file_name = token.rsplit(['/', '\\']).next().unwrap_or(token);
            let has_extension = file_name.rsplit_once('.').is_some_and(|(stem, ext)| {
                !stem.is_empty()
                    && (1..=8).contains(&ext.len())
                    && ext.chars().all(|c| c.is_ascii_alphanumeric())
            });
            let rooted =
                token.starts_with('/') || token.starts_with("./") || token.starts_with("~/");
            has_separator && (has_extension || rooted) && token.chars().all(|c| !c.is_control())
        }

        pub fn words(text: &str) -> Vec<&str> {
            text.split(|c: char| {
                c.is_whitespace()
                    || matches!(
                        c,
                        '"' | '\'' | '(' | ')' | '<' | '>' | ',' | '[' | ']' | '{' | '}' | '='
                    )
            })
            .filter(|token| token.bytes().any(|b| b == b'/' || b == b'\\'))
            .collect()
        }
    }

    /// Text made of the pieces the scanners care about: error words in any case, separators,
    /// digits, hex, line ends, Unicode whitespace and other non-ASCII characters.
    fn pieces() -> impl proptest::strategy::Strategy<Value = String> {
        use proptest::prelude::*;
        let piece = prop::sample::select(vec![
            "Error",
            "ERROR:",
            "error[",
            "fail",
            "FAILED",
            "failure:",
            "FaTaL",
            "panicked",
            "Traceback",
            "exception",
            "warning:",
            "er",
            "ex",
            "pa",
            "t",
            "e",
            " ",
            "  ",
            "\n",
            "\r\n",
            "\r",
            "\t",
            "\u{b}",
            "\u{85}",
            "\u{a0}",
            "\u{3000}",
            "\u{2028}",
            "é",
            "✗",
            "日本",
            "/",
            "\\",
            "src/a.rs",
            ":42",
            "0x7f",
            "12345678",
            "abc",
            "deadbeef",
            "https://x.io/a",
            "\"",
            "'",
            "(",
            ")",
            ",",
            "=",
            "[",
            "`",
            ".",
            "-",
            "not ok",
            "#",
            ":",
            ":7",
            "./",
            "~/",
            "//",
            "http://",
            "https://a.b/c",
            "`src/b.rs`",
            ".rs",
            ".toolongext",
            "!",
            "?",
            ";",
            "\u{1}",
            "\u{7f}",
            "\u{80}",
            "\u{9f}",
            "\u{1680}",
            "\u{2000}",
            "\u{200a}",
            "\u{202f}",
            "\u{205f}",
            "\u{2029}",
            "\u{e000}",
            "€",
            "x",
            "9",
            "a1",
            "F",
            "7x",
            "0-",
            "1é",
        ]);
        prop::collection::vec(piece, 0..60).prop_map(|pieces| pieces.concat())
    }

    proptest::proptest! {
        #[test]
        fn byte_loops_agree_with_the_char_level_versions(text in pieces()) {
            let lines: Vec<(usize, &str)> = lines_with_words(&text)
                .filter(|(_, line)| is_error_line(line))
                .collect();
            proptest::prop_assert_eq!(lines, oracle::error_line_starts(&text));
            proptest::prop_assert_eq!(
                Words { text: &text, from: 0 }.collect::<Vec<_>>(),
                oracle::words(&text)
            );
            proptest::prop_assert_eq!(
                tokens(&text).collect::<Vec<_>>(),
                oracle::tokens(&text).collect::<Vec<_>>()
            );
            for max in [0, 1, 3, 10, 40] {
                proptest::prop_assert_eq!(references(&text, max), oracle::references(&text, max));
            }
            for word in text.split([' ', '\n']) {
                proptest::prop_assert_eq!(is_path(word), oracle::is_path(word));
                proptest::prop_assert_eq!(strip_line_number(word), oracle::strip_line_number(word));
            }
            for at in 0..=text.len() {
                proptest::prop_assert_eq!(word_at(text.as_bytes(), at), oracle::word_at(text.as_bytes(), at));
            }
            proptest::prop_assert_eq!(trim(&text), text.trim());
            proptest::prop_assert_eq!(last_line(&text), oracle::last_line(&text));
            proptest::prop_assert_eq!(last_nonblank(&text), last_nonblank_by_lines(&text));
            for line in text.lines() {
                proptest::prop_assert_eq!(trim(line), line.trim());
                proptest::prop_assert_eq!(is_error_line(line), oracle::is_error_line(line));
                proptest::prop_assert_eq!(shape(line), oracle::shape(line));
                proptest::prop_assert_eq!(is_report(line), oracle::is_report(line));
            }
            proptest::prop_assert_eq!(shape(&text), oracle::shape(&text));
            for max in [0, 1, 2, 8] {
                proptest::prop_assert_eq!(error_lines(&text, max), oracle::error_lines(&text, max));
            }
        }
    }

    #[test]
    fn last_line_only_of_several() {
        assert_eq!(last_line("one line"), None);
        assert_eq!(last_line("a\nb\n\n  "), Some("b"));
    }
}

//! The file paths and URLs a body names (and `backticked` identifiers' paths).

use crate::base::hash::FastSet;

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

/// How many distinct references [`stub_references`] looks through for each it keeps.
const POOL_PER_KEPT: usize = 4;

/// The paths and URLs a stub keeps, at most `max`, in the body's order: of the first
/// `max × 4` distinct ones, files (a name with an extension) and URLs before directories. A
/// listing that names its directories first (`cargo` naming each crate's folder, then the test
/// files) would otherwise fill every slot with folders and keep no file.
pub fn stub_references(text: &str, max: usize) -> Vec<&str> {
    let pool = references(text, max.saturating_mul(POOL_PER_KEPT));
    if pool.len() <= max {
        return pool;
    }
    let named: Vec<bool> = pool.iter().map(|r| is_url(r) || names_file(r)).collect();
    let files = named.iter().filter(|named| **named).count();
    let (mut files_room, mut folders_room) = (max, max.saturating_sub(files));
    pool.into_iter()
        .zip(named)
        .filter(|(_, named)| {
            let room = if *named {
                &mut files_room
            } else {
                &mut folders_room
            };
            let keep = *room > 0;
            *room = room.saturating_sub(1);
            keep
        })
        .map(|(reference, _)| reference)
        .collect()
}

/// Whether a path's last name has an extension (`src/a.rs`, not `src/bin`, `v1/3.14`).
fn names_file(path: &str) -> bool {
    let bytes = path.as_bytes();
    let name_start = bytes
        .iter()
        .rposition(|&b| b == b'/' || b == b'\\')
        .map_or(0, |at| at + 1);
    has_extension(&bytes[name_start..])
}

/// Whether a file name has an extension of 1 to 8 ASCII letters and digits and is not a number.
fn has_extension(file_name: &[u8]) -> bool {
    let named = file_name
        .iter()
        .any(|&b| !(b.is_ascii_digit() || b == b'.'));
    named
        && file_name
            .iter()
            .rposition(|&b| b == b'.')
            .is_some_and(|dot| {
                let ext = &file_name[dot + 1..];
                dot > 0 && (1..=8).contains(&ext.len()) && ext.iter().all(u8::is_ascii_alphanumeric)
            })
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
    let table = marked([0; 256], b"\t\n\x0b\x0c\r \"'()<>,[]{}=", DELIMITER);
    let ends = b"\x80\x81\x82\x83\x84\x85\x86\x87\x88\x89\x8a\x9f\xa0\xa8\xa9\xaf";
    let table = marked(table, ends, MAY_END_SPACE);
    marked(table, b"\xc2\xe1\xe2\xe3", MAY_START_SPACE)
};

/// `table` with `flag` as the entry of each of `bytes`.
const fn marked(mut table: [u8; 256], bytes: &[u8], flag: u8) -> [u8; 256] {
    let mut at = 0;
    while at < bytes.len() {
        table[bytes[at] as usize] = flag;
        at += 1;
    }
    table
}

/// The words of `text` split at [`DELIMITER`] bytes and non-ASCII whitespace, those with a `/`
/// or `\` only, in order. Each `/` or `\` is found by `memchr2` and its word read
/// outwards from it byte by byte, a character decoded only where a byte may belong to a Unicode
/// space: splitting the whole text by a `char` predicate decoded every character of every body,
/// a third of a micro call, for the few words that have one; reading each word outwards with
/// `char_indices` was still a fifth of `references`.
pub(super) struct Words<'a> {
    pub(super) text: &'a str,
    /// Where the next word starts: after a delimiter, so the search for one never looks back
    /// past it.
    pub(super) from: usize,
}

impl<'a> Words<'a> {
    /// The next word and where it starts.
    fn next_at(&mut self) -> Option<(usize, &'a str)> {
        let (text, from) = (self.text, self.from);
        let hit = from + memchr::memchr2(b'/', b'\\', text.as_bytes().get(from..)?)?;
        let start = word_start(text, from, hit);
        let (end, next) = word_end(text, hit);
        self.from = next;
        Some((start, text.get(start..end)?))
    }
}

impl<'a> Iterator for Words<'a> {
    type Item = &'a str;

    fn next(&mut self) -> Option<&'a str> {
        self.next_at().map(|(_, word)| word)
    }
}

/// Whether the word at `start` of `text` is the name of a closing tag, which is markup, not a
/// rooted path: `</Tip>`, `</ns:path>` (HTML, XML, JSX, MDX), and a bracketed one-word name
/// (`[/INST]` of chat templates, `[/quote]`).
fn is_closing_tag(text: &str, start: usize, word: &str) -> bool {
    let Some(name) = word.strip_prefix('/') else {
        return false;
    };
    let bytes = text.as_bytes();
    match start.checked_sub(1).and_then(|at| bytes.get(at)) {
        Some(b'<') => true,
        Some(b'[') => {
            let one_word =
                !name.is_empty() && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_');
            one_word && bytes.get(start + word.len()) == Some(&b']')
        }
        _ => false,
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
        pieces: None,
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
    /// The rest of a word cut at a JSON escape ([`escape_cut`]), tried next.
    pieces: Option<&'a str>,
}

impl<'a> Iterator for Tokens<'a> {
    type Item = &'a str;

    fn next(&mut self) -> Option<&'a str> {
        loop {
            let (word, escaped) = match self.pieces.take() {
                Some(rest) => (rest, true),
                None => (self.whole_or_next()?, false),
            };
            let cut = match escaped {
                true => escape_at(word),
                false => escape_cut(word),
            };
            let word = match cut {
                Some(at) => {
                    self.pieces = word.get(at + 2..).filter(|rest| !rest.is_empty());
                    word.get(..at).unwrap_or_default()
                }
                None => word,
            };
            if let Some(token) = reference(word) {
                return Some(token);
            }
        }
    }
}

impl<'a> Tokens<'a> {
    /// The backticked word to try whole, or the next word (its inside first when backticked).
    fn whole_or_next(&mut self) -> Option<&'a str> {
        if let Some(word) = self.whole.take() {
            return Some(word);
        }
        loop {
            let (start, word) = self.words.next_at()?;
            if is_closing_tag(self.words.text, start, word) {
                continue;
            }
            return Some(match backticked(word) {
                Some(inside) => {
                    self.whole = Some(word);
                    inside
                }
                None => word,
            });
        }
    }
}

/// Where a word with a `/` holds a JSON escape of a line break, tab or quote (`\n`, `\t`,
/// `\r`, `\"`): a tool's output kept as JSON text (`{"output":"M  src/a.rs\nM  src/b.rs"}`)
/// runs its lines together, and each line's path ends there. Words without a `/` (Windows
/// paths, where `\n` may begin a name) are left whole; the rest of a cut word is cut at each.
fn escape_cut(word: &str) -> Option<usize> {
    word.as_bytes().contains(&b'/').then(|| escape_at(word))?
}

/// The first JSON escape of a line break, tab or quote in `word`.
fn escape_at(word: &str) -> Option<usize> {
    word.as_bytes()
        .windows(2)
        .position(|pair| pair[0] == b'\\' && matches!(pair[1], b'n' | b't' | b'r' | b'"'))
}

/// The inside of a word in backticks.
fn backticked(word: &str) -> Option<&str> {
    word.strip_prefix('`')?.strip_suffix('`')
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
pub(super) fn strip_line_number(token: &str) -> &str {
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

/// A file path: a name with a separator and a plausible file or directory shape: a file name
/// with an extension (not a number: `1/2.5` is a figure), or rooted (`/`, `./`, `~/`). One pass
/// over the bytes (no `://`, no control character, where the last separator is). Closing tags
/// (`</Tip>`) are rooted in shape only: [`tokens`] passes them over by what precedes them.
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
    // A file's name is not a number: `1/2.5` and `v1/3.14` are figures, not files.
    let rooted = bytes[0] == b'/' || bytes.starts_with(b"./") || bytes.starts_with(b"~/");
    has_extension(&bytes[separator + 1..]) || rooted
}

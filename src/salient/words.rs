//! Where the error words are: one search over a body finds every line that holds one.

/// The words that make a line matter (any case, inside a word too: `TypeError`,
/// `AssertionFailed`).
pub(super) const WORDS: [&[u8]; 6] = [
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
pub(super) fn word_at(bytes: &[u8], at: usize) -> bool {
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
pub(super) fn find_word(bytes: &[u8], from: usize) -> Option<usize> {
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

/// The lines of `text` (as [`str::lines`] has them) that hold one of [`WORDS`], each with the
/// byte offset it starts at. One search over the whole text: most lines hold none, and they are
/// never split out.
pub(super) fn lines_with_words(text: &str) -> impl Iterator<Item = (usize, &str)> {
    let bytes = text.as_bytes();
    let mut from = 0;
    std::iter::from_fn(move || {
        let hit = find_word(bytes, from)?;
        let start = memchr::memrchr(b'\n', &bytes[..hit]).map_or(0, |at| at + 1);
        let end = memchr::memchr(b'\n', &bytes[hit..]).map_or(bytes.len(), |at| hit + at);
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

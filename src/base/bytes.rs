//! Byte-class scans over JSON text, eight bytes at a time: code points, UTF-16 units, the first
//! digit, a JSON string's plain run, and serde_json's string escapes (counted here, and written
//! by [`push_json_string`]). The limits measure every string's escaped length; a byte-by-byte
//! loop over megabytes of tool output was most of a call's time in wasm.
//!
//! Searches for one, two or three given bytes are the `memchr` crate's (serde_json links it
//! already): in this crate's wasm (no SIMD) its word loop took 1.4-1.7x the time of the word
//! tricks here per search (a 1 MB tool output searched line by line), but whole calls stayed
//! within noise of them (0.97-1.05x, micro on generated and real sessions) and the module within
//! 51 bytes gzipped. What stays here is what `memchr` does not do: a class of bytes (`"`, `\` or
//! below 0x20; digits) and counts.
//!
//! The word tricks are the classic ones. To find: for a word `x`, `(x - 0x01..01) & !x &
//! 0x80..80` is nonzero when some byte of `x` is zero, and its lowest set bit marks the first such
//! byte exactly (a borrow can only mark bytes above a real zero); comparing with a byte `b` is
//! finding a zero in `x ^ b..b`. To count, every byte must be marked exactly: adding `0x7f` to
//! each byte's low seven bits cannot carry into the next byte, so `!((x & 0x7f..7f) + 0x7f..7f
//! | x) & 0x80..80` marks exactly the zero bytes, and with `0x80 - n` in place of `0x7f` the bytes
//! below `n`.

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGHS: u64 = 0x8080_8080_8080_8080;

/// The eight bytes of `chunk` (always eight long here) as a little-endian word.
#[inline(always)]
pub fn word(chunk: &[u8]) -> u64 {
    match <[u8; 8]>::try_from(chunk) {
        Ok(bytes) => u64::from_le_bytes(bytes),
        Err(_) => 0,
    }
}

/// High bit set in each byte of `x` that equals `byte` (the lowest one exact).
#[inline(always)]
pub fn equal(x: u64, byte: u8) -> u64 {
    let y = x ^ (ONES * u64::from(byte));
    y.wrapping_sub(ONES) & !y & HIGHS
}

const LOWS: u64 = 0x7F7F_7F7F_7F7F_7F7F;

/// High bit set in exactly the bytes of `x` that equal `byte` (no borrow between bytes).
#[inline(always)]
fn equal_exact(x: u64, byte: u8) -> u64 {
    let y = x ^ (ONES * u64::from(byte));
    !(((y & LOWS).wrapping_add(LOWS)) | y) & HIGHS
}

/// High bit set in exactly the bytes of `x` below `n` (`n` at most 0x80).
#[inline(always)]
fn below_exact(x: u64, n: u8) -> u64 {
    !(((x & LOWS).wrapping_add(ONES * u64::from(0x80 - n))) | x) & HIGHS
}

/// Code points in `text`: its bytes less its continuation bytes (`10xxxxxx`), eight at a time
/// (bit 7 set and bit 6, shifted onto it, clear). `str::chars().count()` reads four bytes at a
/// time on wasm32, where `usize` is 32 bits; each long body's length is counted several times a
/// call (its tokens, its fingerprint, whether a stub shrinks it).
pub(crate) fn count_chars(text: &str) -> usize {
    let bytes = text.as_bytes();
    let mut continuation = 0;
    let mut chunks = bytes.chunks_exact(8);
    for chunk in &mut chunks {
        let x = word(chunk);
        continuation += (x & !(x << 1) & HIGHS).count_ones() as usize;
    }
    continuation += chunks
        .remainder()
        .iter()
        .filter(|&&b| b & 0xC0 == 0x80)
        .count();
    bytes.len() - continuation
}

/// UTF-16 code units of the UTF-8 `bytes` (whole characters): one per character, two for a
/// character of four bytes. Eight bytes at a time, as [`count_chars`] counts: a continuation
/// byte (`10xxxxxx`) adds none, a four-byte lead (`11110xxx`: bits 7 to 4 set) one more. The
/// byte-by-byte sum it replaced was the largest function of a 26 KB real session's body call
/// in wasm (5 %), which lays out every message's UTF-16 position.
pub(crate) fn utf16_units(bytes: &[u8]) -> usize {
    let unit = |b: u8| usize::from(b & 0xC0 != 0x80) + usize::from(b >= 0xF0);
    let mut units = 0;
    let mut chunks = bytes.chunks_exact(8);
    for chunk in &mut chunks {
        let x = word(chunk);
        let continuations = x & !(x << 1) & HIGHS;
        let four_byte_leads = x & (x << 1) & (x << 2) & (x << 3) & HIGHS;
        units += 8 - continuations.count_ones() as usize + four_byte_leads.count_ones() as usize;
    }
    units + chunks.remainder().iter().map(|&b| unit(b)).sum::<usize>()
}

/// Position of the first ASCII digit in `bytes`, eight bytes at a time (`^ 0x30` maps exactly
/// the digits below 10).
pub(crate) fn find_digit(bytes: &[u8]) -> Option<usize> {
    let mut at = 0;
    while at + 8 <= bytes.len() {
        let hits = below_exact(word(&bytes[at..at + 8]) ^ (ONES * 0x30), 10);
        if hits != 0 {
            return Some(at + (hits.trailing_zeros() / 8) as usize);
        }
        at += 8;
    }
    (at..bytes.len()).find(|&here| bytes[here].is_ascii_digit())
}

/// The end (after the closing quote) of the JSON string token whose opening quote is at
/// `start`, looking no further than `bytes`' end; `None` when it does not close there. An escape
/// skips the byte after the backslash, which is all `\"` and `\\` need; multi-byte characters
/// never contain `"` or `\` bytes in UTF-8.
pub(crate) fn json_string_end(bytes: &[u8], start: usize) -> Option<usize> {
    let mut at = start + 1;
    loop {
        at += memchr::memchr2(b'"', b'\\', bytes.get(at..)?)?;
        if bytes[at] == b'"' {
            return Some(at + 1);
        }
        at += 2;
    }
}

/// Extra bytes JSON string escaping adds to `bytes` (as serde_json writes it): one for `"`,
/// `\` and the control characters with a short escape (`\n`, `\t`, ...), five for the other
/// control characters (`\u001f`). Everything else, non-ASCII included, is written as is.
pub(crate) fn json_escape_overhead(bytes: &[u8]) -> usize {
    let mut extra = 0;
    let mut at = 0;
    while at + 8 <= bytes.len() {
        let x = word(&bytes[at..at + 8]);
        let control = below_exact(x, 0x20);
        let quoted = equal_exact(x, b'"') | equal_exact(x, b'\\');
        if control | quoted != 0 {
            // Control characters take five extra bytes (`\u001f`) unless they have a short
            // escape (`\n`), which takes one, like `\"` and `\\`.
            let short = equal_exact(x, b'\n')
                | equal_exact(x, b'\r')
                | equal_exact(x, b'\t')
                | equal_exact(x, 0x08)
                | equal_exact(x, 0x0c);
            extra += (quoted | short).count_ones() as usize
                + 5 * (control & !short).count_ones() as usize;
        }
        at += 8;
    }
    extra
        + bytes[at..]
            .iter()
            .map(|&byte| escape_overhead(byte))
            .sum::<usize>()
}

#[inline(always)]
fn escape_overhead(byte: u8) -> usize {
    match short_escape(byte) {
        Some(_) => 1,
        None if byte < 0x20 => 5,
        None => 0,
    }
}

/// serde_json's two-byte escape of `byte` (`\n` for a line feed), if it has one; the other
/// control characters are written `\u00XX`.
#[inline(always)]
fn short_escape(byte: u8) -> Option<&'static str> {
    Some(match byte {
        b'"' => "\\\"",
        b'\\' => "\\\\",
        b'\n' => "\\n",
        b'\r' => "\\r",
        b'\t' => "\\t",
        0x08 => "\\b",
        0x0c => "\\f",
        _ => return None,
    })
}

/// Appends `text` as a JSON string, escaped as serde_json's compact writer escapes it (the
/// escapes [`json_escape_overhead`] counts, `\u00XX` in lower case); everything else as is.
/// Written into `out` directly: through `serde_json::to_string` each string was an allocation
/// of its own. Tool output needs an escape every thirty bytes or so (`\n`, `\"`), so the plain
/// runs between them are found eight bytes at a time ([`find_escaped`]).
pub(crate) fn push_json_string(out: &mut String, text: &str) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let bytes = text.as_bytes();
    out.reserve(text.len() + 2);
    out.push('"');
    let mut start = 0;
    while let Some(at) = bytes
        .get(start..)
        .and_then(find_escaped)
        .map(|at| start + at)
    {
        // `at` is an ASCII byte, so both slices end on character boundaries.
        out.push_str(text.get(start..at).unwrap_or_default());
        let byte = bytes[at];
        match short_escape(byte) {
            Some(escape) => out.push_str(escape),
            None => {
                out.push_str("\\u00");
                out.push(char::from(HEX[usize::from(byte >> 4)]));
                out.push(char::from(HEX[usize::from(byte & 0xf)]));
            }
        }
        start = at + 1;
    }
    out.push_str(text.get(start..).unwrap_or_default());
    out.push('"');
}

/// Position of the first byte JSON escapes (`"`, `\`, below 0x20), eight bytes at a time.
pub(crate) fn find_escaped(bytes: &[u8]) -> Option<usize> {
    let mut at = 0;
    while at + 8 <= bytes.len() {
        let x = word(&bytes[at..at + 8]);
        let hits = equal(x, b'"') | equal(x, b'\\') | below_exact(x, 0x20);
        if hits != 0 {
            return Some(at + (hits.trailing_zeros() / 8) as usize);
        }
        at += 8;
    }
    (at..bytes.len()).find(|&here| matches!(bytes[here], b'"' | b'\\' | 0x00..=0x1f))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn string_tokens_end_after_their_closing_quote() {
        let text = br#"x "ab\"c\\" "d"#;
        assert_eq!(json_string_end(text, 2), Some(11));
        assert_eq!(json_string_end(text, 12), None);
        assert_eq!(json_string_end("\"é€😀\"".as_bytes(), 0), Some(11));
    }

    proptest! {
        #[test]
        fn counts_and_digits_agree_with_std(text in "[a\\\\/é€😀\u{80}\u{7ff}09:/@]{0,40}") {
            prop_assert_eq!(count_chars(&text), text.chars().count());
            prop_assert_eq!(utf16_units(text.as_bytes()), text.encode_utf16().count());
            let bytes = text.as_bytes();
            prop_assert_eq!(find_digit(bytes), bytes.iter().position(u8::is_ascii_digit));
        }
    }

    #[test]
    fn escape_overhead_matches_serde_json() {
        let text = "a\"b\\c\nd\re\tf\u{8}g\u{c}h\u{0}i\u{1f}j\u{7f}é😀 plain text long enough";
        let written = serde_json::to_string(text).unwrap().len();
        assert_eq!(
            text.len() + json_escape_overhead(text.as_bytes()) + 2,
            written
        );
    }

    proptest! {
        #[test]
        fn agree_with_byte_loops(bytes in proptest::collection::vec(prop_oneof![Just(b'"'), Just(b'\\'), Just(0x1f), Just(0x20), Just(b'a'), any::<u8>()], 0..64)) {
            let stop = bytes.iter().position(|&b| b == b'"' || b == b'\\' || b < 0x20);
            prop_assert_eq!(find_escaped(&bytes), stop);
            let naive: usize = bytes.iter().map(|&b| escape_overhead(b)).sum();
            prop_assert_eq!(json_escape_overhead(&bytes), naive);
        }

        #[test]
        fn strings_are_escaped_as_serde_json_escapes_them(text in "[\u{0}-\u{7f}é\u{2028}🦀]{0,40}") {
            let mut out = String::from("x");
            push_json_string(&mut out, &text);
            prop_assert_eq!(&out[1..], serde_json::to_string(&text).unwrap());
        }

        #[test]
        fn overhead_is_serde_jsons(text in "\\PC{0,40}|[\u{0}-\u{7f}]{0,40}") {
            let written = serde_json::to_string(&text).unwrap().len();
            prop_assert_eq!(text.len() + json_escape_overhead(text.as_bytes()) + 2, written);
        }
    }
}

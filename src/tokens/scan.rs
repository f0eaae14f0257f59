//! Characters as the heuristic estimator sees them: one class each (letter by case, CJK, digit,
//! whitespace, punctuation, symbol), decoded from the text's bytes one at a time. ASCII, most of
//! any context, is one table lookup; the rest is decoded by hand and classed by code point
//! ranges and the standard library's Unicode properties. `bench/estimator-model.mjs` mirrors it.

/// A lowercase letter (or a letter without case that is not CJK: see [`OTHER_LETTER`]).
pub(super) const LOWER: u8 = 1;
/// An uppercase letter.
pub(super) const UPPER: u8 = 2;
/// A letter without case (Arabic, Hebrew, Devanagari, ...): a lowercase one for the word split.
pub(super) const OTHER_LETTER: u8 = 3;
/// A CJK ideograph.
pub(super) const HAN: u8 = 4;
/// Hiragana or Katakana.
pub(super) const KANA: u8 = 5;
/// A Hangul syllable or jamo.
pub(super) const HANGUL: u8 = 6;
/// An ASCII digit.
pub(super) const DIGIT: u8 = 7;
/// The space character.
pub(super) const SPACE: u8 = 8;
/// Other whitespace that is not a line break (tab, no-break space, ...).
pub(super) const BLANK: u8 = 9;
/// `\n` or `\r`.
pub(super) const NEWLINE: u8 = 10;
/// ASCII punctuation.
pub(super) const PUNCT: u8 = 11;
/// A non-ASCII symbol (emoji, arrows, box drawing, typographic quotes, ...).
pub(super) const SYMBOL: u8 = 12;
/// ZWJ, a variation selector, a skin-tone modifier, a combining mark or a tag character.
pub(super) const MODIFIER: u8 = 13;

/// One character of a text: its class, code point and length in bytes.
#[derive(Debug, Clone, Copy)]
pub(super) struct Unit {
    pub class: u8,
    pub cp: u32,
    pub len: usize,
}

/// The classes of the ASCII characters.
const ASCII: [u8; 128] = {
    let mut table = [PUNCT; 128];
    let mut cp = 0;
    while cp < 128 {
        table[cp] = match cp as u8 {
            b'a'..=b'z' => LOWER,
            b'A'..=b'Z' => UPPER,
            b'0'..=b'9' => DIGIT,
            b' ' => SPACE,
            b'\n' | b'\r' => NEWLINE,
            b'\t' | 0x0b | 0x0c => BLANK,
            _ => PUNCT,
        };
        cp += 1;
    }
    table
};

/// The character of `bytes` (a `str`'s) starting at byte `at`, which is a character boundary
/// below its length.
#[inline(always)]
pub(super) fn unit(bytes: &[u8], at: usize) -> Unit {
    let first = bytes.get(at).copied().unwrap_or(0);
    if first < 0x80 {
        return Unit {
            class: ASCII[usize::from(first)],
            cp: u32::from(first),
            len: 1,
        };
    }
    wide(bytes, at, first)
}

/// A character of two to four bytes (UTF-8, valid: it comes from a `str`).
#[inline(never)]
fn wide(bytes: &[u8], at: usize, first: u8) -> Unit {
    let next = |k: usize| u32::from(bytes.get(at + k).copied().unwrap_or(0x80) & 0x3f);
    // A lead byte of valid UTF-8 starts with as many 1 bits as the character has bytes, and
    // keeps 7 - len bits of the code point; each continuation byte adds 6.
    let len = first.leading_ones() as usize;
    let cp = (1..len).fold(u32::from(first) & (0x7f >> len), |cp, k| {
        (cp << 6) | next(k)
    });
    Unit {
        class: class_of(cp),
        cp,
        len,
    }
}

/// The class of a non-ASCII code point (`classOf` in `bench/estimator-model.mjs`).
fn class_of(cp: u32) -> u8 {
    match cp {
        0x4e00..=0x9fff | 0x3400..=0x4dbf | 0xf900..=0xfaff | 0x20000..=0x2ffff => HAN,
        0x3040..=0x30ff | 0x31f0..=0x31ff | 0xff66..=0xff9f => KANA,
        0xac00..=0xd7af | 0x1100..=0x11ff | 0x3130..=0x318f => HANGUL,
        0x200d | 0xfe00..=0xfe0f | 0x1f3fb..=0x1f3ff | 0x0300..=0x036f => MODIFIER,
        0xe0020..=0xe007f => MODIFIER,
        0x85 | 0xa0 | 0x1680 | 0x2000..=0x200a | 0x2028..=0x2029 | 0x202f | 0x205f => BLANK,
        0x3000 | 0xfeff => BLANK,
        _ => match char::from_u32(cp) {
            Some(c) if c.is_alphabetic() && c.is_uppercase() => UPPER,
            Some(c) if c.is_alphabetic() => OTHER_LETTER,
            // Digits other than ASCII (Arabic-Indic, superscripts, fractions) count as symbols:
            // rare in a context, and the standard library's numeric table is 0.6 KB of wasm.
            _ => SYMBOL,
        },
    }
}

// Comparisons rather than `RangeInclusive::contains`, which the size-optimised build leaves as
// a call (it was a tenth of the estimator's time).

/// A letter of any kind.
#[inline(always)]
#[allow(clippy::manual_range_contains)]
pub(super) fn is_letter(class: u8) -> bool {
    class >= LOWER && class <= HANGUL
}

/// A CJK character (counted on its own, never in a letter pair).
#[inline(always)]
#[allow(clippy::manual_range_contains)]
pub(super) fn is_cjk(class: u8) -> bool {
    class >= HAN && class <= HANGUL
}

/// Punctuation, a symbol or a modifier: what a punctuation piece is made of.
#[inline(always)]
pub(super) fn is_punct(class: u8) -> bool {
    class >= PUNCT
}

/// Whitespace of any kind.
#[inline(always)]
#[allow(clippy::manual_range_contains)]
pub(super) fn is_space(class: u8) -> bool {
    class >= SPACE && class <= NEWLINE
}

/// The letter's index in the pair table: a-z case folded, 26 for any other letter.
#[inline(always)]
pub(super) fn letter_index(cp: u32) -> usize {
    match cp {
        0x61..=0x7a => (cp - 0x61) as usize,
        0x41..=0x5a => (cp - 0x41) as usize,
        _ => 26,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn classes(text: &str) -> Vec<u8> {
        let bytes = text.as_bytes();
        let mut out = Vec::new();
        let mut at = 0;
        while at < bytes.len() {
            let u = unit(bytes, at);
            out.push(u.class);
            at += u.len;
        }
        out
    }

    #[test]
    fn decodes_every_width_to_its_class() {
        assert_eq!(
            classes("aZ9 \t\n,é€中の한👍\u{200d}Ж\u{a0}"),
            [
                LOWER,
                UPPER,
                DIGIT,
                SPACE,
                BLANK,
                NEWLINE,
                PUNCT,
                OTHER_LETTER,
                SYMBOL,
                HAN,
                KANA,
                HANGUL,
                SYMBOL,
                MODIFIER,
                UPPER,
                BLANK
            ]
        );
        let text = "é€👍";
        let cps: Vec<u32> = text.chars().map(u32::from).collect();
        let (mut at, mut got) = (0, Vec::new());
        while at < text.len() {
            let u = unit(text.as_bytes(), at);
            got.push(u.cp);
            at += u.len;
        }
        assert_eq!(got, cps);
    }

    #[test]
    fn decodes_every_code_point() {
        for c in (0..=0x10ffff).filter_map(char::from_u32) {
            let mut buffer = [0; 4];
            let u = unit(c.encode_utf8(&mut buffer).as_bytes(), 0);
            assert_eq!((u.cp, u.len), (u32::from(c), c.len_utf8()), "{c:?}");
        }
    }
}

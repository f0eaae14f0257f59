//! [`Estimator`]: o200k_base token counts estimated in one pass over the text, without tables of
//! tokens. `bench/estimator-model.mjs` is the same model in JS (how the text is cut, the
//! features and why); `node bench/calibrate.mjs --check` verifies that the two agree exactly.
//!
//! Linear in the text, reading every character once: a count that skipped or sampled parts of a
//! long text would be faster but no longer a sum over its parts, nor the same for the same text
//! in every call. The hot path is ASCII: one table lookup per character ([`scan::unit`]), one
//! more per letter pair (the cut table); measured beside the seed's rule in BENCHMARKS.md
//! (section 7, "counting").

use super::TokenCounter;
use super::model::{COEFFICIENTS, OFFSETS, PAIRS};
use super::scan::{self, DIGIT, HAN, MODIFIER, NEWLINE, PUNCT, SPACE, SYMBOL, UPPER, Unit};

/// A fast estimate of o200k_base token counts (within a few percent on agent contexts: see
/// bench/COUNTING.md), the default counter of structured contexts.
///
/// The text is cut the way o200k's pre-tokenizer cuts it (words with the space or punctuation
/// before them, digits by three, punctuation runs, whitespace runs); each piece costs about one
/// token, a word more where the tokenizer would cut it, by a fitted table of letter pairs. All
/// coefficients are >= 0, so repeating a text never lowers its estimate.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Estimator;

impl TokenCounter for Estimator {
    fn count(&self, text: &str) -> u64 {
        if text.is_empty() {
            return 0;
        }
        let features = features(text);
        let mut sum = 0.0f64;
        for (coefficient, count) in COEFFICIENTS.iter().zip(features) {
            sum += coefficient * count as f64;
        }
        (sum.round() as u64).max(1)
    }
}

/// How many features there are (the order of [`COEFFICIENTS`]).
const FEATURES: usize = 18;
const WORD_PIECES: usize = 0;
const SPACE_WORD_PIECES: usize = 1;
const OTHER_WORD_PIECES: usize = 2;
const SHORT_WORDS: usize = 3;
const ESCAPES: usize = 4;
const CUT_UNITS: usize = 5;
// Then kana chars (7) and hangul chars (8): [`count_cjk`] indexes the three by class.
const HAN_CHARS: usize = 6;
const DIGIT_GROUPS: usize = 9;
const PUNCT_PIECES: usize = 10;
const PUNCT_OVER_2: usize = 11;
const REPEAT_CHARS: usize = 12;
const SYMBOL_CHARS: usize = 13;
const EMOJI_CHARS: usize = 14;
const MODIFIER_CHARS: usize = 15;
const SPACE_PIECES: usize = 16;
const NEWLINE_PIECES: usize = 17;

/// Feature counts, in the order of [`COEFFICIENTS`].
type Features = [u64; FEATURES];

/// What is before a word piece (the pair table's first index).
const LEAD_NONE: usize = 0;
const LEAD_SPACE: usize = 1;
const LEAD_OTHER: usize = 2;

/// Cut shares are in 1/`LEVELS`.
const LEVELS: i32 = 15;

/// The feature counts of `text`.
fn features(text: &str) -> Features {
    let bytes = text.as_bytes();
    let mut f = [0u64; FEATURES];
    let mut at = 0;
    while at < bytes.len() {
        let u = scan::unit(bytes, at);
        let next = at + u.len;
        at = if scan::is_letter(u.class) {
            word(bytes, at, LEAD_NONE, false, &mut f)
        } else if u.class != NEWLINE
            && u.class != DIGIT
            && next < bytes.len()
            && scan::is_letter(scan::unit(bytes, next).class)
        {
            lead_word(bytes, u, next, &mut f)
        } else if u.class == DIGIT {
            digits(bytes, at, &mut f)
        } else if scan::is_punct(u.class)
            || (u.class == SPACE
                && next < bytes.len()
                && scan::is_punct(scan::unit(bytes, next).class))
        {
            punct(bytes, if u.class == SPACE { next } else { at }, &mut f)
        } else {
            whitespace(bytes, at, &mut f)
        };
    }
    f
}

/// A word piece whose letters start at `start`, after the character `before`.
fn lead_word(bytes: &[u8], before: Unit, start: usize, f: &mut Features) -> usize {
    if before.class >= SYMBOL {
        symbol(before, f);
    }
    let lead = if before.class == SPACE {
        LEAD_SPACE
    } else {
        LEAD_OTHER
    };
    word(bytes, start, lead, before.cp == u32::from(b'\\'), f)
}

/// The word piece whose letters start at `start`: returns where the next piece starts. After a
/// backslash (`escape`), the first letter is the escape's (`\n`, a token of its own) and the
/// rest is a word with nothing before it.
fn word(bytes: &[u8], start: usize, lead: usize, escape: bool, f: &mut Features) -> usize {
    let first = scan::unit(bytes, start);
    let (mut lead, mut letters) = (lead, 1u64);
    if escape {
        f[ESCAPES] += 1;
        (lead, letters) = (LEAD_NONE, 0);
    } else {
        count_cjk(first.class, f);
    }
    let (mut previous, mut row) = (first, (lead * 27 + scan::letter_index(first.cp)) * 27);
    let (mut at, mut cuts) = (start + first.len, 0u64);
    while at < bytes.len() {
        let u = scan::unit(bytes, at);
        if !scan::is_letter(u.class) || (u.class == UPPER && previous.class != UPPER) {
            break;
        }
        let index = scan::letter_index(u.cp);
        if scan::is_cjk(u.class) || scan::is_cjk(previous.class) {
            count_cjk(u.class, f);
        } else if letters > 0 {
            // Offsets by lead, first pair or not, case (lower-lower, upper-upper, upper-lower).
            let case = match (previous.class, u.class) {
                (UPPER, UPPER) => 1,
                (UPPER, _) => 2,
                _ => 0,
            };
            let offset = (lead * 2 + usize::from(letters > 1)) * 3 + case;
            let share = i32::from(PAIRS.get(row + index).copied().unwrap_or(b'a'))
                + i32::from(OFFSETS.get(offset).copied().unwrap_or(0))
                - i32::from(b'a');
            cuts += share.clamp(0, LEVELS) as u64;
        }
        letters += 1;
        (previous, row) = (u, (lead * 27 + index) * 27);
        at += u.len;
    }
    f[CUT_UNITS] += cuts;
    if letters > 0 {
        f[[WORD_PIECES, SPACE_WORD_PIECES, OTHER_WORD_PIECES][lead]] += 1;
        f[SHORT_WORDS] += u64::from(letters <= 2);
    }
    after_contraction(bytes, at)
}

/// Counts a CJK letter.
#[inline(always)]
fn count_cjk(class: u8, f: &mut Features) {
    // HAN, KANA, HANGUL are consecutive classes, their features consecutive counts.
    if scan::is_cjk(class) {
        f[HAN_CHARS + usize::from(class - HAN)] += 1;
    }
}

/// Where a word ending at `at` really ends: after an English contraction ('s 't 'd 'm 'll 've
/// 're), which o200k keeps with the word.
fn after_contraction(bytes: &[u8], at: usize) -> usize {
    let lower = |k: usize| bytes.get(at + k).map_or(0, |b| b | 0x20);
    match (bytes.get(at), lower(1), lower(2)) {
        (Some(b'\''), b's' | b't' | b'd' | b'm', _) => at + 2,
        (Some(b'\''), b'l', b'l') | (Some(b'\''), b'v' | b'r', b'e') => at + 3,
        _ => at,
    }
}

/// A run of digits from `at`: groups of up to three.
fn digits(bytes: &[u8], at: usize, f: &mut Features) -> usize {
    // Digits are ASCII (other digits are symbols, see [`scan`]): one byte each.
    let count = bytes
        .iter()
        .skip(at)
        .take_while(|b| b.is_ascii_digit())
        .count();
    f[DIGIT_GROUPS] += count.div_ceil(3) as u64;
    at + count
}
/// A punctuation piece whose characters start at `at`, and the line breaks right after it.
fn punct(bytes: &[u8], mut at: usize, f: &mut Features) -> usize {
    f[PUNCT_PIECES] += 1;
    let (mut distinct, mut previous) = (0u64, u32::MAX);
    while at < bytes.len() {
        let u = scan::unit(bytes, at);
        if !scan::is_punct(u.class) {
            break;
        }
        if u.cp == previous {
            f[REPEAT_CHARS] += 1;
        } else {
            distinct += 1;
            if u.class != PUNCT {
                symbol(u, f);
            }
        }
        previous = u.cp;
        at += u.len;
    }
    f[PUNCT_OVER_2] += distinct.saturating_sub(2);
    while matches!(bytes.get(at), Some(b'\n' | b'\r')) {
        at += 1;
    }
    at
}

/// Counts a non-ASCII symbol.
fn symbol(u: Unit, f: &mut Features) {
    if u.class == MODIFIER {
        f[MODIFIER_CHARS] += 1;
    } else if u.cp >= 0x10000 {
        f[EMOJI_CHARS] += 1;
    } else {
        f[SYMBOL_CHARS] += 1;
    }
}

/// A whitespace piece from `at`: up to the run's last line break, or the run less the one space
/// that goes with what follows it.
fn whitespace(bytes: &[u8], start: usize, f: &mut Features) -> usize {
    let (mut at, mut last, mut after_break, mut units) = (start, start, None, 0usize);
    while at < bytes.len() {
        let u = scan::unit(bytes, at);
        if !scan::is_space(u.class) {
            break;
        }
        if u.class == NEWLINE {
            after_break = Some(at + u.len);
        }
        (last, units) = (at, units + 1);
        at += u.len;
    }
    if let Some(end) = after_break {
        f[NEWLINE_PIECES] += 1;
        return end;
    }
    f[SPACE_PIECES] += 1;
    if at >= bytes.len() || units == 1 {
        at
    } else {
        last
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pieces_are_cut_as_o200k_cuts_them() {
        // "fooBar" is two words, "HTTPServer" one; the space before " the" goes with it.
        let f = features("fooBar HTTPServer the");
        assert_eq!(
            f[WORD_PIECES] + f[SPACE_WORD_PIECES] + f[OTHER_WORD_PIECES],
            4
        );
        assert_eq!(f[SPACE_WORD_PIECES], 2);
        // Digits by three, a contraction kept, a punctuation run with its line break.
        let f = features("1234567 don't });\nx");
        assert_eq!(f[DIGIT_GROUPS], 3);
        assert_eq!(f[SPACE_WORD_PIECES], 1);
        assert_eq!(f[PUNCT_PIECES], 1);
        assert_eq!(f[NEWLINE_PIECES], 0);
        // Indentation: a line break piece, then spaces less the one the word takes.
        let f = features("a\n    b");
        assert_eq!(
            (f[NEWLINE_PIECES], f[SPACE_PIECES], f[SPACE_WORD_PIECES]),
            (1, 1, 1)
        );
        // A JSON escape is a token of its own, the rest a word.
        let f = features("\\ncodex");
        assert_eq!((f[ESCAPES], f[WORD_PIECES]), (1, 1));
        // Repeated punctuation and symbols.
        let f = features("----- → 👍");
        assert_eq!(f[REPEAT_CHARS], 4);
        assert_eq!((f[SYMBOL_CHARS], f[EMOJI_CHARS]), (1, 1));
        let f = features("我们今天");
        assert_eq!(f[HAN_CHARS], 4);
        let f = features("x \t");
        assert_eq!(f[SPACE_PIECES], 1);
    }
}

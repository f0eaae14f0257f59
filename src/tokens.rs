//! Token counting behind a small trait. The default is the seed's rule (chars / 4), so the seed's
//! numbers reproduce; hosts plug in an exact tokenizer through the binding's `countTokens`.
//! [`Estimator`] is a better built-in estimate (within a few percent of OpenAI's o200k_base on
//! English, code, JSON, logs, CJK, emoji and base64), chosen with [`TokenEstimator::Heuristic`].

use crate::error::{CompactionError, Result};

/// Counts tokens of a piece of text.
pub trait TokenCounter {
    /// Tokens of `text`.
    fn count(&self, text: &str) -> u64;

    /// Tokens of `text`, which the caller knows has `chars` code points: a counter that counts
    /// code points (the seed's rule) need not count them again. Same result as [`Self::count`].
    fn count_with_chars(&self, text: &str, chars: usize) -> u64 {
        let _ = chars;
        self.count(text)
    }

    /// Whether [`Self::count_with_chars`] reads `chars` rather than the text: then a caller that
    /// keeps a text's count passes it (counting only for the count's sake costs a counter that
    /// reads the text).
    fn counts_chars(&self) -> bool {
        false
    }

    /// Tokens of a base64 text of `chars` characters: what a binary value the host keeps as
    /// bytes counts (see [`crate::transcript::binary`]). Its bytes are not here to be encoded,
    /// so a counter that reads the text counts a stand-in of the same length: base64 of
    /// pseudo-random bytes (as compressed media are), in pieces of [`BASE64_PIECE`] characters,
    /// so a 4 MB image costs two calls of `count`, not a 5 MB string.
    fn count_base64(&self, chars: u64) -> u64 {
        let piece = base64_stand_in();
        let (whole, rest) = (
            chars / BASE64_PIECE as u64,
            (chars % BASE64_PIECE as u64) as usize,
        );
        let mut tokens = 0;
        if whole > 0 {
            tokens = self.count(&piece).saturating_mul(whole);
        }
        if rest > 0 {
            tokens = tokens.saturating_add(self.count(&piece[..rest]));
        }
        tokens
    }
}

/// Characters of the stand-in a counter counts for base64 it cannot read (see
/// [`TokenCounter::count_base64`]).
pub const BASE64_PIECE: usize = 4096;

/// [`BASE64_PIECE`] characters of base64 of xorshift bytes: fixed, so counts are deterministic.
fn base64_stand_in() -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut state: u32 = 0x9E37_79B9;
    (0..BASE64_PIECE)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            ALPHABET[(state >> 26) as usize] as char
        })
        .collect()
}

/// The seed's rule: 0 for "", else `max(1, code points / chars_per_token)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SeedRule {
    /// Code points per token (seed: 4).
    pub chars_per_token: u32,
}

impl Default for SeedRule {
    fn default() -> Self {
        Self { chars_per_token: 4 }
    }
}

impl TokenCounter for SeedRule {
    fn count(&self, text: &str) -> u64 {
        self.count_with_chars(text, crate::base::bytes::count_chars(text))
    }

    fn counts_chars(&self) -> bool {
        true
    }

    fn count_with_chars(&self, text: &str, chars: usize) -> u64 {
        if text.is_empty() {
            return 0;
        }
        (chars as u64 / u64::from(self.chars_per_token.max(1))).max(1)
    }

    fn count_base64(&self, chars: u64) -> u64 {
        if chars == 0 {
            return 0;
        }
        (chars / u64::from(self.chars_per_token.max(1))).max(1)
    }
}

/// The seed's estimator with the default 4 code points per token.
pub fn estimate_tokens(text: &str) -> u64 {
    SeedRule::default().count(text)
}

/// Which built-in estimator counts tokens when the host passes no tokenizer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TokenEstimator {
    /// The seed's rule: code points / `charsPerToken` (the default, so the seed's numbers hold).
    #[default]
    Seed,
    /// [`Estimator`]: character classes calibrated against o200k_base.
    Heuristic,
}

impl TokenEstimator {
    /// Parses the `tokenEstimator` option (`"seed"` or `"heuristic"`); errors name `path`.
    pub fn parse(name: &str, path: &str) -> Result<Self> {
        match name {
            "seed" => Ok(Self::Seed),
            "heuristic" => Ok(Self::Heuristic),
            other => Err(CompactionError::type_error(
                path,
                format!("must be \"seed\" or \"heuristic\", got {other:?}"),
            )),
        }
    }

    /// The option's spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Seed => "seed",
            Self::Heuristic => "heuristic",
        }
    }
}

/// Tokens of `text` under `estimator` (the seed's rule with its default 4 code points per token).
pub fn estimate_tokens_with(text: &str, estimator: TokenEstimator) -> u64 {
    match estimator {
        TokenEstimator::Seed => estimate_tokens(text),
        TokenEstimator::Heuristic => Estimator.count(text),
    }
}

/// A fast estimate of o200k_base token counts from character classes, in one pass without
/// tables of tokens.
///
/// The text is cut roughly the way o200k's pre-tokenizer cuts it: letter runs split where a
/// lowercase letter meets an uppercase one (one space or punctuation character before a run
/// belongs to it), digits in groups of three, runs of ASCII punctuation, runs of whitespace
/// (line breaks apart from the spaces after them), CJK characters, symbols (emoji) and emoji
/// modifiers one by one, and base64-like runs. Each kind of piece costs a fitted number of
/// tokens (`HEURISTIC_COEFFICIENTS`); the estimate is their sum, rounded, at least 1 for
/// non-empty text.
///
/// All coefficients are >= 0 and every feature only grows when a piece grows, so repeating a
/// text never lowers its estimate. `bench/estimator-model.mjs` is the same model in JS;
/// `node bench/calibrate.mjs --check` verifies that the two agree exactly.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Estimator;

impl TokenCounter for Estimator {
    fn count(&self, text: &str) -> u64 {
        if text.is_empty() {
            return 0;
        }
        let features = heuristic_features(text);
        let mut sum = 0.0f64;
        for (coefficient, count) in HEURISTIC_COEFFICIENTS.iter().zip(features) {
            sum += coefficient * count as f64;
        }
        (sum.round() as u64).max(1)
    }
}

/// Tokens per feature of [`heuristic_features`], in its order. Fitted by `bench/calibrate.mjs`:
/// weighted least squares (weights 1 / exact², i.e. relative error) of exact o200k_base counts
/// (npm `gpt-tokenizer` 4.0.0) on the features of a generated corpus (`bench/generate.mjs`,
/// seed 1: 150 samples of 40-8,000 characters each of English, code, JSON, logs, CJK, emoji and
/// base64), coefficients constrained to be >= 0. Checked on a held-out corpus (seed 2) and on
/// real agent transcripts; see BENCHMARKS.md.
#[rustfmt::skip]
const HEURISTIC_COEFFICIENTS: [f64; 17] = [
    0.9855, // word_pieces
    0.0860, // word_chars_over_4
    0.0000, // word_chars_over_10
    1.0865, // caps_pieces
    0.2251, // vowelless_chars
    1.0501, // digit_groups
    0.7914, // punct_runs
    0.4049, // punct_runs_over_1
    0.0000, // punct_chars_over_2
    1.1929, // space_runs
    0.6116, // newline_runs
    0.5468, // han_chars
    0.5100, // kana_chars
    0.4588, // hangul_chars
    1.5941, // symbol_chars
    1.6628, // modifier_chars
    0.6824, // dense_chars
];

const WORD_PIECES: usize = 0;
const WORD_OVER_4: usize = 1;
const WORD_OVER_10: usize = 2;
const CAPS_PIECES: usize = 3;
const VOWELLESS: usize = 4;
const DIGIT_GROUPS: usize = 5;
const PUNCT_RUNS: usize = 6;
const PUNCT_OVER_1: usize = 7;
const PUNCT_OVER_2: usize = 8;
const SPACE_RUNS: usize = 9;
const NEWLINE_RUNS: usize = 10;
const HAN_CHARS: usize = 11;
const KANA_CHARS: usize = 12;
const HANGUL_CHARS: usize = 13;
const SYMBOL_CHARS: usize = 14;
const MODIFIER_CHARS: usize = 15;
const DENSE_CHARS: usize = 16;

/// Shortest run of `[A-Za-z0-9+/=]` that counts as base64-like.
const DENSE_MIN: usize = 24;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Class {
    Lower,
    Upper,
    Digit,
    Space,
    Newline,
    Punct,
    Han,
    Kana,
    Hangul,
    Symbol,
    Modifier,
    OtherLetter,
}

impl Class {
    fn letter(self) -> bool {
        matches!(self, Class::Lower | Class::Upper | Class::OtherLetter)
    }
}

fn ascii_class(byte: u8) -> Class {
    match byte {
        b'a'..=b'z' => Class::Lower,
        b'A'..=b'Z' => Class::Upper,
        b'0'..=b'9' => Class::Digit,
        b' ' | b'\t' => Class::Space,
        b'\n' | b'\r' => Class::Newline,
        _ => Class::Punct,
    }
}

fn class_of(c: char) -> Class {
    if c.is_ascii() {
        return ascii_class(c as u8);
    }
    match u32::from(c) {
        0x4e00..=0x9fff | 0x3400..=0x4dbf | 0xf900..=0xfaff | 0x20000..=0x2ffff => Class::Han,
        0x3040..=0x30ff | 0x31f0..=0x31ff | 0xff66..=0xff9f => Class::Kana,
        0xac00..=0xd7af | 0x1100..=0x11ff | 0x3130..=0x318f => Class::Hangul,
        0x200d | 0xfe00..=0xfe0f | 0x1f3fb..=0x1f3ff | 0x0300..=0x036f | 0xe0020..=0xe007f => {
            Class::Modifier
        }
        0x85 | 0x2028 | 0x2029 => Class::Newline,
        0xa0 | 0x3000 | 0x2000..=0x200a => Class::Space,
        _ if c.is_alphabetic() => {
            if c.is_uppercase() {
                Class::Upper
            } else {
                Class::OtherLetter
            }
        }
        _ => Class::Symbol,
    }
}

fn is_b64(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || matches!(byte, b'+' | b'/' | b'=')
}

fn is_vowel(c: char) -> bool {
    matches!(
        c,
        'a' | 'e' | 'i' | 'o' | 'u' | 'y' | 'A' | 'E' | 'I' | 'O' | 'U' | 'Y'
    )
}

/// The next base64-like run at or after byte `from`: (`cut`, `end`) in bytes, where `cut` is
/// [`DENSE_MIN`] characters into the run. The run's first `DENSE_MIN` characters are counted
/// like any text, so the estimate grows continuously as a run grows.
fn next_dense_run(bytes: &[u8], from: usize) -> Option<(usize, usize)> {
    let mut i = from;
    while i < bytes.len() {
        if !is_b64(bytes[i]) {
            i += 1;
            continue;
        }
        let start = i;
        let mut kinds = 0u8;
        while i < bytes.len() && is_b64(bytes[i]) {
            kinds |= match bytes[i] {
                b'a'..=b'z' => 1,
                b'A'..=b'Z' => 2,
                b'0'..=b'9' => 4,
                _ => 0,
            };
            i += 1;
        }
        if i - start >= DENSE_MIN && kinds == 7 {
            return Some((start + DENSE_MIN, i));
        }
    }
    None
}

/// The feature counts of the heuristic estimator (see [`HEURISTIC_COEFFICIENTS`]).
fn heuristic_features(text: &str) -> [u64; 17] {
    let mut features = [0u64; 17];
    let bytes = text.as_bytes();
    let mut start = 0;
    // A base64-like run only matters if it starts at or after the previous one's end.
    while let Some((cut, end)) = next_dense_run(bytes, start) {
        segment_features(&text[start..cut], &mut features);
        features[DENSE_CHARS] += (end - cut) as u64;
        start = end;
    }
    segment_features(&text[start..], &mut features);
    features
}

/// A cursor over the classes of a segment's characters.
struct Classes<'a> {
    text: &'a str,
    at: usize,
}

impl Classes<'_> {
    /// The class and character at the cursor, without moving it.
    fn peek(&self) -> Option<(Class, char)> {
        let byte = *self.text.as_bytes().get(self.at)?;
        if byte < 0x80 {
            return Some((ascii_class(byte), byte as char));
        }
        let c = self.text[self.at..].chars().next()?;
        Some((class_of(c), c))
    }

    fn bump(&mut self, c: char) {
        self.at += c.len_utf8();
    }
}

/// Adds the features of `segment` (looking no further than its end) to `features`.
fn segment_features(segment: &str, features: &mut [u64; 17]) {
    let mut cursor = Classes {
        text: segment,
        at: 0,
    };
    while let Some((class, c)) = cursor.peek() {
        cursor.bump(c);
        match class {
            _ if class.letter() => {
                // One word piece: letters until a non-letter or a lowercase -> uppercase step.
                let (mut len, mut uppers, mut vowels) = (1u64, 0u64, 0u64);
                let mut previous = class;
                uppers += u64::from(class == Class::Upper);
                vowels += u64::from(is_vowel(c));
                while let Some((next, n)) = cursor.peek() {
                    if !next.letter() || (previous != Class::Upper && next == Class::Upper) {
                        break;
                    }
                    cursor.bump(n);
                    len += 1;
                    uppers += u64::from(next == Class::Upper);
                    vowels += u64::from(is_vowel(n));
                    previous = next;
                }
                features[WORD_PIECES] += 1;
                features[WORD_OVER_4] += len.saturating_sub(4);
                features[WORD_OVER_10] += len.saturating_sub(10);
                if uppers >= 2 {
                    features[CAPS_PIECES] += 1;
                }
                if len >= 2 && vowels == 0 {
                    features[VOWELLESS] += len;
                }
            }
            Class::Digit => {
                let mut len = 1u64;
                while let Some((Class::Digit, n)) = cursor.peek() {
                    cursor.bump(n);
                    len += 1;
                }
                features[DIGIT_GROUPS] += len.div_ceil(3);
            }
            Class::Punct => {
                let mut len = 1u64;
                while let Some((Class::Punct, n)) = cursor.peek() {
                    cursor.bump(n);
                    len += 1;
                }
                // The last punctuation character before a letter belongs to the word piece.
                if cursor.peek().is_some_and(|(next, _)| next.letter()) {
                    len -= 1;
                }
                if len > 0 {
                    features[PUNCT_RUNS] += 1;
                }
                if len > 1 {
                    features[PUNCT_OVER_1] += 1;
                }
                features[PUNCT_OVER_2] += len.saturating_sub(2);
            }
            Class::Space | Class::Newline => {
                // A run with line breaks is one piece up to its last break; spaces after it (or
                // a run without breaks) are another, less the one space a following piece takes.
                let mut newline = class == Class::Newline;
                let mut trailing = u64::from(class == Class::Space);
                while let Some((next @ (Class::Space | Class::Newline), n)) = cursor.peek() {
                    cursor.bump(n);
                    if next == Class::Newline {
                        newline = true;
                        trailing = 0;
                    } else {
                        trailing += 1;
                    }
                }
                if newline {
                    features[NEWLINE_RUNS] += 1;
                }
                if cursor.peek().is_some_and(|(next, _)| next != Class::Digit) {
                    trailing = trailing.saturating_sub(1);
                }
                if trailing > 0 {
                    features[SPACE_RUNS] += 1;
                }
            }
            Class::Han => features[HAN_CHARS] += 1,
            Class::Kana => features[KANA_CHARS] += 1,
            Class::Hangul => features[HANGUL_CHARS] += 1,
            Class::Modifier => features[MODIFIER_CHARS] += 1,
            _ => features[SYMBOL_CHARS] += 1,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seed_examples() {
        assert_eq!(estimate_tokens(""), 0);
        assert_eq!(estimate_tokens("a"), 1);
        assert_eq!(estimate_tokens(&"a".repeat(40)), 10);
    }

    #[test]
    fn counts_code_points_not_bytes() {
        assert_eq!(estimate_tokens("日本語の文"), 1);
        assert_eq!(estimate_tokens("日本語の文章です"), 2);
    }

    /// Words that are one o200k_base token each, alone or after a space.
    const ONE_TOKEN_WORDS: [&str; 24] = [
        "the", "of", "and", "to", "in", "is", "that", "for", "it", "with", "as", "was", "on", "be",
        "by", "this", "are", "from", "at", "have", "not", "but", "you", "can",
    ];

    /// A small deterministic generator (64-bit LCG), so fixtures vary without typed-in counts.
    struct Lcg(u64);

    impl Lcg {
        fn next(&mut self, bound: usize) -> usize {
            self.0 = self
                .0
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((self.0 >> 33) % bound as u64) as usize
        }
    }

    /// Fixtures whose exact o200k_base count follows from how they are built: words of
    /// [`ONE_TOKEN_WORDS`] joined by single spaces (one token each), and lines of digits (one
    /// token per group of up to three digits, one per line break).
    fn fixtures() -> Vec<(String, u64)> {
        let mut rng = Lcg(7);
        let mut out = Vec::new();
        for words in [5, 12, 40, 150, 600] {
            let text: Vec<&str> = (0..words)
                .map(|_| ONE_TOKEN_WORDS[rng.next(ONE_TOKEN_WORDS.len())])
                .collect();
            out.push((text.join(" "), words as u64));
        }
        for lines in [2, 10, 60] {
            let mut text = String::new();
            let mut exact = 0;
            for line in 0..lines {
                if line > 0 {
                    text.push('\n');
                    exact += 1;
                }
                let digits = 1 + rng.next(12);
                for _ in 0..digits {
                    text.push(char::from(b'0' + rng.next(10) as u8));
                }
                exact += digits.div_ceil(3) as u64;
            }
            out.push((text, exact));
        }
        out
    }

    #[test]
    fn heuristic_is_within_a_few_percent_on_fixtures_of_known_count() {
        for (text, exact) in fixtures() {
            let estimate = Estimator.count(&text);
            let error = (estimate as f64 - exact as f64).abs() / exact as f64;
            assert!(
                error <= 0.10,
                "{estimate} vs {exact} tokens ({:.1} %) for {:?}",
                error * 100.0,
                &text[..text.len().min(60)]
            );
        }
    }

    #[test]
    fn heuristic_is_zero_only_for_empty_text() {
        assert_eq!(Estimator.count(""), 0);
        for text in [" ", "\n", "a", "é", "日", "👍", "\u{200d}", "=", "0"] {
            assert!(Estimator.count(text) >= 1, "{text:?}");
        }
    }

    #[test]
    fn heuristic_counts_more_for_repeated_fixtures() {
        let samples = [
            "The quick brown fox jumps over the lazy dog. ".to_string(),
            "fn main() { println!(\"{}\", x.len()); }\n".to_string(),
            "{\"id\": 17, \"name\": \"alpha\", \"tags\": [\"a\", \"b\"]},".to_string(),
            "我们今天需要修复这个问题。".to_string(),
            "テストを確認してください、".to_string(),
            "great work 👍🏽🎉 👩‍💻 ".to_string(),
            "iVBORw0KGgoAAAANSUhEUgAA".to_string(),
            "2025-06-01T12:00:00Z INFO GET /api/users 200\n".to_string(),
        ];
        for sample in samples {
            let mut previous = 0;
            for times in 1..40 {
                let estimate = Estimator.count(&sample.repeat(times));
                assert!(
                    estimate >= previous,
                    "{sample:?} x{times}: {estimate} < {previous}"
                );
                previous = estimate;
            }
            assert!(previous > Estimator.count(&sample));
        }
    }

    proptest::proptest! {
        #[test]
        fn heuristic_never_shrinks_when_text_repeats(text in ".{1,40}", times in 1usize..12) {
            let once = Estimator.count(&text.repeat(times));
            let more = Estimator.count(&text.repeat(times + 1));
            proptest::prop_assert!(once >= 1);
            proptest::prop_assert!(more >= once, "{:?} x{}: {} then {}", text, times, once, more);
        }

        #[test]
        fn heuristic_never_shrinks_for_base64_like_text(text in "[A-Za-z0-9+/=]{1,40}", times in 1usize..12) {
            let once = Estimator.count(&text.repeat(times));
            let more = Estimator.count(&text.repeat(times + 1));
            proptest::prop_assert!(more >= once, "{:?} x{}: {} then {}", text, times, once, more);
        }
    }

    #[test]
    fn estimator_option_parses_and_names_the_path() {
        assert_eq!(
            TokenEstimator::parse("seed", "tokenEstimator"),
            Ok(TokenEstimator::Seed)
        );
        assert_eq!(
            TokenEstimator::parse("heuristic", "tokenEstimator"),
            Ok(TokenEstimator::Heuristic)
        );
        for name in ["seed", "heuristic"] {
            let parsed = TokenEstimator::parse(name, "x").expect("known");
            assert_eq!(parsed.as_str(), name);
        }
        let error = TokenEstimator::parse("o200k", "tokenEstimator").unwrap_err();
        assert_eq!(error.kind, crate::error::ErrorKind::Type);
        assert!(error.to_string().starts_with("tokenEstimator"), "{error}");
        assert_eq!(TokenEstimator::default(), TokenEstimator::Seed);
        let text = "some text to count";
        assert_eq!(
            estimate_tokens_with(text, TokenEstimator::Seed),
            estimate_tokens(text)
        );
        assert_eq!(
            estimate_tokens_with(text, TokenEstimator::Heuristic),
            Estimator.count(text)
        );
    }
}

//! Token counting behind a small trait. Structured contexts count by [`Estimator`] (within a
//! few percent of OpenAI's o200k_base on agent contexts: prose, code, JSON, logs, CJK, base64);
//! flat text by the seed's rule (chars / 4), so the seed's numbers reproduce; hosts plug in an
//! exact tokenizer through the binding's `countTokens`.

mod estimator;
mod model;
mod scan;

pub use estimator::Estimator;

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

    /// Tokens of the media block `block` (an image, a document, a file) as a provider bills
    /// it, or `None` to count it as its text (base64 included), as the seed's rule does so that
    /// its numbers reproduce. See [`crate::media::bill`].
    fn count_media(&self, block: &crate::transcript::Block<'_>) -> Option<u64> {
        let _ = block;
        None
    }

    /// Tokens of a base64 text of `chars` characters: what a binary value the host keeps as
    /// bytes counts (see [`crate::transcript::binary`]). Its bytes are not here to be encoded,
    /// so a counter that reads the text counts a stand-in of the same length: base64 of
    /// pseudo-random bytes (as compressed media are), in pieces of [`BASE64_PIECE`] characters,
    /// so a 4 MB image costs two calls of `count`, not a 5 MB string.
    fn count_base64(&self, chars: u64) -> u64 {
        let piece = base64_stand_in();
        let size = BASE64_PIECE as u64;
        // Only the pieces there are: each is a call of the host's counter.
        let whole = (chars >= size).then(|| self.count(&piece).saturating_mul(chars / size));
        let rest = piece
            .get(..(chars % size) as usize)
            .filter(|rest| !rest.is_empty());
        whole
            .unwrap_or(0)
            .saturating_add(rest.map_or(0, |rest| self.count(rest)))
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

/// Which built-in estimator counts tokens when the host passes no tokenizer. Unnamed, it is
/// the heuristic for structured messages and the seed's rule for flat text
/// ([`crate::CompactOptions::estimator_for`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TokenEstimator {
    /// The seed's rule: code points / `charsPerToken` (flat text's default, so the seed's
    /// numbers hold).
    Seed,
    /// [`Estimator`]: o200k's pre-tokenizer and a fitted table of letter pairs (structured
    /// messages' default).
    Heuristic,
}

impl TokenEstimator {
    /// Parses the `tokenEstimator` option (`"seed"` or `"heuristic"`); errors name `path`.
    pub fn parse(name: &str, path: &str) -> Result<Self> {
        [Self::Seed, Self::Heuristic]
            .into_iter()
            .find(|estimator| estimator.as_str() == name)
            .ok_or_else(|| {
                let problem = format!("must be \"seed\" or \"heuristic\", got {name:?}");
                CompactionError::type_error(path, problem)
            })
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

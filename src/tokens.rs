//! Token counting behind a small trait. The default is the seed's rule (chars / 4), so the seed's
//! numbers reproduce; hosts plug in an exact tokenizer through the binding's `countTokens`.

/// Counts tokens of a piece of text.
pub trait TokenCounter {
    /// Tokens of `text`.
    fn count(&self, text: &str) -> u64;
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
        if text.is_empty() {
            return 0;
        }
        let chars = text.chars().count() as u64;
        (chars / u64::from(self.chars_per_token.max(1))).max(1)
    }
}

/// The seed's estimator with the default 4 code points per token.
pub fn estimate_tokens(text: &str) -> u64 {
    SeedRule::default().count(text)
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
}

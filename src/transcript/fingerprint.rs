//! What of a text a correlation id and a loop's history digest cover: a short text whole, a long
//! one by its length and its ends, so that hashing a context does not read megabytes of tool
//! output (the ids of the seed's outputs are these, and stay so).

/// Texts of more code points than this are known by their length and ends.
pub const MIN_CHARS: usize = 1024;

/// Code points of each end that enter a long text's fingerprint.
pub(crate) const FINGERPRINT_CHARS: usize = 32;

/// What of `text` the correlation id covers: a short text whole; a text of more than
/// [`MIN_CHARS`] code points by its length and its first and last few characters. `chars`
/// counts the code points of `text` (a block's count, made once).
pub(crate) fn fingerprint_counted(text: &str, chars: impl FnOnce() -> usize) -> Fingerprint<'_> {
    // Most texts are short: their byte length settles it. A long one is counted once, eight
    // bytes at a time (reading its first code points one by one to know it long cost as much).
    if text.len() <= MIN_CHARS {
        return Fingerprint::Whole(text);
    }
    let chars = chars();
    if chars <= MIN_CHARS {
        return Fingerprint::Whole(text);
    }
    Fingerprint::Ends {
        chars,
        head: first_chars(text, FINGERPRINT_CHARS),
        tail: last_chars(text, FINGERPRINT_CHARS),
    }
}

/// See [`fingerprint_counted`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fingerprint<'t> {
    /// A short text, whole.
    Whole(&'t str),
    /// A long text: its length in code points and its ends.
    Ends {
        /// Code points.
        chars: usize,
        /// The first characters.
        head: &'t str,
        /// The last characters.
        tail: &'t str,
    },
}

// By bytes: a code point starts at every byte that is not a continuation byte. Walking
// `char_indices` decoded each code point, about 40 instructions each, for every long text of
// every call (the correlation id's fingerprint).
fn first_chars(text: &str, count: usize) -> &str {
    let mut starts = 0;
    for (at, byte) in text.bytes().enumerate() {
        if !is_continuation(byte) {
            if starts == count {
                return text.get(..at).unwrap_or(text);
            }
            starts += 1;
        }
    }
    text
}

fn last_chars(text: &str, count: usize) -> &str {
    if count == 0 {
        return "";
    }
    let mut starts = 0;
    for (at, byte) in text.bytes().enumerate().rev() {
        if !is_continuation(byte) {
            starts += 1;
            if starts == count {
                return text.get(at..).unwrap_or(text);
            }
        }
    }
    text
}

/// A UTF-8 continuation byte (`10xxxxxx`): not the start of a code point.
fn is_continuation(byte: u8) -> bool {
    byte & 0xc0 == 0x80
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fingerprint(text: &str) -> Fingerprint<'_> {
        fingerprint_counted(text, || crate::base::bytes::count_chars(text))
    }

    #[test]
    fn ends_are_whole_code_points() {
        for text in ["", "abc", "é🦀x", "xé", "🦀🦀🦀"] {
            for count in 0..5 {
                let head: String = text.chars().take(count).collect();
                let skip = text.chars().count().saturating_sub(count);
                let tail: String = text.chars().skip(skip).collect();
                assert_eq!(first_chars(text, count), head, "{text} {count}");
                assert_eq!(last_chars(text, count), tail, "{text} {count}");
            }
        }
    }

    #[test]
    fn a_long_text_is_known_by_its_length_and_ends() {
        let text: String = "é".repeat(700) + &"x".repeat(700) + "🦀";
        let Fingerprint::Ends { chars, head, tail } = fingerprint(&text) else {
            panic!("a long text is known by its ends")
        };
        assert_eq!((chars, head.chars().count()), (1401, 32));
        assert!(head.starts_with('é') && tail.ends_with('🦀') && tail.chars().count() == 32);
        let short = "x".repeat(MIN_CHARS);
        assert_eq!(fingerprint(&short), Fingerprint::Whole(&short));
        // Counted in code points, not bytes: 1,024 two-byte characters are short.
        let wide = "é".repeat(MIN_CHARS);
        assert_eq!(fingerprint(&wide), Fingerprint::Whole(&wide));
    }
}

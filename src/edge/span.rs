//! Where a request body's message list and each message stand ([`MessagesSpan`]), as the body
//! path lays it out and each source reads it, in bytes of its UTF-8 text or, for a JS string, in
//! UTF-16 units ([`utf16_positions`]).

use crate::error::CompactionError;
use std::ops::Range;

/// Byte spans of the top-level `messages` array and of each of its elements.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MessagesSpan {
    /// The array, brackets included.
    pub array: Range<usize>,
    /// Each element, without surrounding whitespace.
    pub elements: Vec<Range<usize>>,
}

/// The error for a body serde_json accepted and the body pass did not lay out (a bug here).
pub fn scanner_disagrees() -> CompactionError {
    CompactionError::parse_error(
        "body.messages",
        "could not be located in the body text (please report this body)",
    )
}

/// The UTF-16 positions of the ascending byte positions `at` of `text`.
// The binding's: JS strings are indexed in UTF-16 units.
#[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
pub fn utf16_positions(text: &str, at: &[usize]) -> Vec<u32> {
    let bytes = text.as_bytes();
    let mut positions = Vec::with_capacity(at.len());
    let (mut from, mut units) = (0usize, 0u32);
    for &to in at {
        let to = to.min(bytes.len()).max(from);
        // A character is one unit, two from four bytes on (`base::bytes`).
        units += crate::base::bytes::utf16_units(&bytes[from..to]) as u32;
        positions.push(units);
        from = to;
    }
    positions
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_count_utf16_units() {
        let text = "a\u{e9}\u{20ac}\u{1F600}b";
        let bytes: Vec<usize> = text
            .char_indices()
            .map(|(at, _)| at)
            .chain([text.len()])
            .collect();
        assert_eq!(utf16_positions(text, &bytes), vec![0, 1, 2, 3, 5, 6]);
        for (at, ch) in text.char_indices() {
            let units: usize = text[..at].chars().map(char::len_utf16).sum();
            assert_eq!(utf16_positions(text, &[at])[0] as usize, units, "{ch}");
        }
    }
}

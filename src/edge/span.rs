//! Where a request body's message list and each message stand ([`MessagesSpan`]), as the body
//! path lays it out and each source reads it.

use crate::error::CompactionError;
use std::ops::Range;

/// Byte spans of the top-level `messages` array and of each of its elements.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct MessagesSpan {
    /// The array, brackets included.
    pub array: Range<usize>,
    /// Each element, without surrounding whitespace.
    pub elements: Vec<Range<usize>>,
}

/// The error for a body serde_json accepted and the scanner did not understand (a bug here).
pub(crate) fn scanner_disagrees() -> CompactionError {
    CompactionError::parse_error(
        "body.messages",
        "could not be located in the body text (please report this body)",
    )
}

//! [`Stretch`]: what auto replaces in one piece, and what it joins.

use std::ops::Range;

/// A stretch of messages to replace, and whether it holds older conversation (not only runs).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stretch {
    /// The messages.
    pub range: Range<usize>,
    /// It holds older conversation, not only tool runs.
    pub talk: bool,
    /// How many pieces of tool runs it joins.
    pub run_pieces: usize,
    /// How many pieces of older conversation it joins.
    pub talk_pieces: usize,
}

impl Stretch {
    /// One piece: of a tool run, or of conversation when `talk`.
    pub fn piece(range: Range<usize>, talk: bool) -> Self {
        Self {
            range,
            talk,
            run_pieces: usize::from(!talk),
            talk_pieces: usize::from(talk),
        }
    }

    /// An earlier summary of ours, joining a summary's stretches.
    pub fn earlier_summary(index: usize) -> Self {
        Self {
            range: index..index + 1,
            talk: false,
            run_pieces: 0,
            talk_pieces: 0,
        }
    }
}

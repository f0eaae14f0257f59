//! [`CharCount`]: a block's code-point count, kept once made. A long tool output's code points
//! were counted up to four times per call (its tokens, the correlation id's fingerprint, the
//! tier's threshold, the saving of its stub): about 4 % of a call on a 3,275-message
//! conversation.

use std::sync::atomic::{AtomicUsize, Ordering};

/// The code points of a block's text once counted. A cache, not part of the block's value: any
/// two are equal, and a clone keeps what was counted (its text is the same).
#[derive(Default)]
pub(crate) struct CharCount(AtomicUsize);

impl CharCount {
    /// The count, counted by `count` the first time. An atomic (relaxed loads and stores, plain
    /// ones on wasm32) keeps blocks `Sync`.
    pub(crate) fn get_or(&self, count: impl FnOnce() -> usize) -> usize {
        // 0 is "not counted"; a count is stored plus one (it never reaches `usize::MAX`: a text
        // has fewer code points than bytes).
        match self.0.load(Ordering::Relaxed) {
            0 => {
                let chars = count();
                self.0.store(chars.saturating_add(1), Ordering::Relaxed);
                chars
            }
            stored => stored - 1,
        }
    }

    /// Forgets the count (the text changed).
    pub(crate) fn clear(&mut self) {
        *self.0.get_mut() = 0;
    }
}

impl Clone for CharCount {
    fn clone(&self) -> Self {
        Self(AtomicUsize::new(self.0.load(Ordering::Relaxed)))
    }
}

impl PartialEq for CharCount {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl std::fmt::Debug for CharCount {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("CharCount")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_once_until_cleared() {
        let mut count = CharCount::default();
        assert_eq!(count.get_or(|| 7), 7);
        assert_eq!(count.get_or(|| 9), 7);
        assert_eq!(count.clone().get_or(|| 9), 7);
        assert_eq!(count, CharCount::default());
        count.clear();
        assert_eq!(count.get_or(|| 0), 0);
        assert_eq!(count.get_or(|| 3), 0);
    }
}

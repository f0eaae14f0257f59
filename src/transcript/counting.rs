//! Tokens of blocks, messages and a transcript under a counter, each block counted once per
//! call. Apart from the model itself (`transcript/mod.rs`), so that the model does not use the
//! counters that bill its media blocks (`tokens`, `media`).

use super::{Block, BlockKind, Message, Transcript};
use crate::tokens::TokenCounter;

impl Block<'_> {
    /// [`Self::tokens`], for a caller that has [`Self::chars`] already (`chars` must be it).
    pub fn tokens_with_chars(&self, counter: &dyn TokenCounter, chars: usize) -> u64 {
        self.counted(counter, || counter.count_with_chars(&self.text, chars))
    }

    /// Tokens of the text under `counter` (media: as the counter bills it, when it does),
    /// counted once: a call counts every block with the same counter, and a long tool output
    /// was counted up to four times (its message, its stub's saving, the cached prefix, the
    /// rule check), which the heuristic, reading every character, made a third of a micro call.
    pub fn tokens(&self, counter: &dyn TokenCounter) -> u64 {
        self.counted(counter, || {
            if counter.counts_chars() {
                counter.count_with_chars(&self.text, self.text_chars())
            } else {
                counter.count(&self.text)
            }
        })
    }

    /// The block's tokens, counted once: media as `counter` bills them, a binary value as its
    /// base64 text, any other text by `text` (stored plus one, so never 0 when set; a count past
    /// `usize::MAX - 1` is not kept).
    fn counted(&self, counter: &dyn TokenCounter, text: impl FnOnce() -> u64) -> u64 {
        let mut counted = None;
        let kept = self.tokens.get_or(|| {
            let media = matches!(self.kind, BlockKind::Media { .. })
                .then(|| counter.count_media(self))
                .flatten();
            let tokens = match (media, &self.binary) {
                (Some(tokens), _) => tokens,
                (None, Some(binary)) => counter.count_base64(binary.base64_len()),
                (None, None) => text(),
            };
            counted = Some(tokens);
            usize::try_from(tokens).unwrap_or(usize::MAX)
        });
        counted.unwrap_or(kept as u64)
    }
}

impl Transcript<'_> {
    /// Tokens of the whole context under `counter`: the sum over top-level blocks and nested media.
    pub fn count_tokens(&self, counter: &dyn TokenCounter) -> u64 {
        self.messages
            .iter()
            .map(|message| message_tokens(message, counter))
            .sum()
    }
}

/// Tokens of one message: the sum over its blocks' text.
pub fn message_tokens(message: &Message<'_>, counter: &dyn TokenCounter) -> u64 {
    message
        .blocks
        .iter()
        .map(|block| block.tokens(counter))
        .sum()
}

//! Protected content (SPEC §4, invariant 4): what each tier may not alter.

use super::Transcript;

/// Which messages a tier must leave whole.
#[derive(Debug, Clone, PartialEq)]
pub struct Protection {
    /// `protected[i]`: message `i` is kept as it is.
    pub protected: Vec<bool>,
    /// First index of the latest turn (the newest user-word message); `len` when there is none.
    pub latest_turn_start: usize,
}

impl Protection {
    /// Structural tiers (micro, time_based): system and developer prompts, the task, the latest
    /// turn and every message with the user's own words.
    pub fn structural(transcript: &Transcript) -> Self {
        Self::build(transcript, true)
    }

    /// Summarising tiers (auto, session_memory): system and developer prompts, the task and the
    /// latest turn. Other user words are carried into the summary through `mustKeep`.
    pub fn summarising(transcript: &Transcript) -> Self {
        Self::build(transcript, false)
    }

    fn build(transcript: &Transcript, keep_all_user_words: bool) -> Self {
        let len = transcript.messages.len();
        let latest_turn_start = transcript.latest_turn_start().unwrap_or(len);
        let task = transcript.task_index();
        let protected = transcript
            .messages
            .iter()
            .enumerate()
            .map(|(index, message)| {
                message.is_system()
                    || Some(index) == task
                    || index >= latest_turn_start
                    || (keep_all_user_words && message.has_user_words())
            })
            .collect();
        Self {
            protected,
            latest_turn_start,
        }
    }

    /// Whether message `index` is protected.
    pub fn is_protected(&self, index: usize) -> bool {
        self.protected.get(index).copied().unwrap_or(true)
    }
}

//! Protected content (invariant 4 in `docs/design.md`): what each tier may not alter.
//!
//! | | system / developer | the task | other user words | the tail | `excludeTools` |
//! |---|---|---|---|---|---|
//! | micro, time_based ([`Protection::structural`]) | whole | whole | whole | whole | whole |
//! | auto ([`Protection::summarising`]) | whole | whole | into the summary | whole | whole |
//!
//! `session_memory` folds everything but the system prompts into its summary and reads no
//! protection. Flat text has no steps and no tail: nothing in it is protected.

use super::Transcript;
use super::pairing::tool_names;
use super::steps::Steps;

/// What a tier must leave whole, message by message and block by block.
#[derive(Debug, Clone, PartialEq)]
pub struct Protection {
    /// `protected[i]`: message `i` is kept as it is.
    pub protected: Vec<bool>,
    /// `whole[i]`: message `i` is a system prompt, in the tail or holds an excluded tool's call
    /// or result: nothing in it may change. A protected message that is not whole is protected
    /// for the user's words it holds, and its tool results (Anthropic carries them in user
    /// messages) are the agent's, not the user's.
    pub whole: Vec<bool>,
    /// `excluded[i][b]`: block `b` of message `i` is a call or result of an excluded tool (a
    /// block past the end of its row is not: the rows are empty when no tool is excluded).
    pub excluded: Vec<Vec<bool>>,
    /// First index of the protected tail (`len` when there is none).
    pub tail_start: usize,
    /// The transcript's steps.
    pub steps: Steps,
}

impl Protection {
    /// Structural tiers (micro, time_based): system and developer prompts, the task, every
    /// message with the user's own words, the tail of the `keep` newest steps, and the calls and
    /// results of `excluded_tools`.
    pub fn structural(transcript: &Transcript, keep: usize, excluded_tools: &[String]) -> Self {
        Self::build(transcript, keep, excluded_tools, true)
    }

    /// auto: system and developer prompts, the task, the newest user words, the tail and the
    /// excluded tools' messages. Other user words are carried into the summary (`mustKeep`).
    pub fn summarising(transcript: &Transcript, keep: usize, excluded_tools: &[String]) -> Self {
        Self::build(transcript, keep, excluded_tools, false)
    }

    fn build(
        transcript: &Transcript,
        keep: usize,
        excluded_tools: &[String],
        keep_all_user_words: bool,
    ) -> Self {
        let len = transcript.messages.len();
        let steps = Steps::of(transcript);
        let tail_start = steps.tail_start(keep, len);
        let task = transcript.task_index();
        let newest_words = transcript.latest_turn_start();
        let excluded = excluded_blocks(transcript, excluded_tools);
        let (whole, protected) = transcript
            .messages
            .iter()
            .enumerate()
            .map(|(index, message)| {
                let whole = message.is_system()
                    || index >= tail_start
                    || excluded[index].iter().any(|&excluded| excluded);
                let protected = whole
                    || Some(index) == task
                    || Some(index) == newest_words
                    || (keep_all_user_words && message.has_user_words());
                (whole, protected)
            })
            .unzip();
        Self {
            protected,
            whole,
            excluded,
            tail_start,
            steps,
        }
    }

    /// Whether message `index` is protected.
    pub fn is_protected(&self, index: usize) -> bool {
        self.protected.get(index).copied().unwrap_or(true)
    }

    /// Whether nothing in message `index` may change (see [`Protection::whole`]).
    pub fn is_whole(&self, index: usize) -> bool {
        self.whole.get(index).copied().unwrap_or(true)
    }
}

/// For each block, whether it is a call of a tool in `tools` or a result answering one; with no
/// `tools`, every row is empty (nothing is excluded).
pub fn excluded_blocks(transcript: &Transcript, tools: &[String]) -> Vec<Vec<bool>> {
    if tools.is_empty() {
        // Nothing is excluded: no names to look up (pairing every id for them was about half
        // of `Protection::build` on a 3,275-message conversation), and no row allocated (one
        // per message was 2 % of a 300-step run's allocations).
        return vec![Vec::new(); transcript.messages.len()];
    }
    tool_names(transcript)
        .into_iter()
        .map(|names| {
            names
                .into_iter()
                .map(|name| name.is_some_and(|name| tools.iter().any(|tool| tool == name)))
                .collect()
        })
        .collect()
}

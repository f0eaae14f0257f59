//! Steps and the protected tail (see the glossary in the crate docs).
//!
//! Agents run in steps: one model call and the tool results that answer it. Each assistant
//! message starts a step (a model call the host stored as several assistant messages is several
//! steps), except an output item right after another output item of the same call (a format
//! that stores one call as several items: OpenAI Responses); a tool result belongs to the step whose call it answers, and a message holding only
//! tool results (an Anthropic `user` message of `tool_result` blocks) belongs to that step too.
//! A message with user words belongs to no step, nor does a system prompt.
//!
//! The protected tail is everything from the start of the `keep`-th newest step to the end, plus
//! the newest message with user words wherever it stands. Flat text has no steps and no tail.

use super::pairing::{PairKey, PairKeyer};
use super::{Format, Role, Transcript};
use crate::base::hash::FastMap;
use std::ops::Range;

/// The steps of a transcript: which step each message belongs to, and where each step starts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Steps {
    /// `of[i]`: the step message `i` belongs to (0 = oldest), `None` for user words, system
    /// prompts and anything before the first step.
    pub of: Vec<Option<usize>>,
    /// `starts[s]`: the index of the assistant message that starts step `s`.
    pub starts: Vec<usize>,
}

impl Steps {
    /// Reads the steps of `transcript` (none for flat text).
    pub fn of(transcript: &Transcript) -> Self {
        let len = transcript.messages.len();
        let mut of = vec![None; len];
        let mut starts = Vec::new();
        if transcript.format == Format::Text {
            return Self { of, starts };
        }
        let mut keyer = PairKeyer::new(transcript);
        // This message's keys (every message's, in order, as the keyer needs).
        let mut keys: Vec<Option<PairKey>> = Vec::new();
        // The step each call (by its pair key) was made in, so a late result joins its own step.
        let mut call_step: FastMap<PairKey, usize> = super::pairing::id_table(transcript);
        for (index, message) in transcript.messages.iter().enumerate() {
            keys.clear();
            keys.extend(message.blocks.iter().map(|block| keyer.key(block)));
            if message.role == Role::Assistant {
                // An output item right after another of the same model call continues its step.
                let continues = message.output_item
                    && index
                        .checked_sub(1)
                        .and_then(|previous| transcript.messages.get(previous))
                        .is_some_and(|previous| {
                            previous.role == Role::Assistant && previous.output_item
                        });
                if !continues || starts.is_empty() {
                    starts.push(index);
                }
                let step = starts.len() - 1;
                of[index] = Some(step);
                for key in keys.iter().flatten() {
                    call_step.entry(*key).or_insert(step);
                }
                continue;
            }
            if message.has_user_words() || message.is_system() {
                continue;
            }
            // A result carrier (or any other agent message): the step of the call it answers,
            // else the current step.
            let answered = keys
                .iter()
                .flatten()
                .find_map(|key| call_step.get(key).copied());
            of[index] = answered.or(starts.len().checked_sub(1));
        }
        Self { of, starts }
    }

    /// How many steps there are.
    pub fn count(&self) -> usize {
        self.starts.len()
    }

    /// The age of message `index` in steps: how many steps started after its own (0 in the
    /// newest step). Messages outside any step take the age of the step before them.
    pub fn age(&self, index: usize) -> u64 {
        let step = self.of.get(index).copied().flatten().or_else(|| {
            // The newest step that started before this message.
            self.starts.iter().rposition(|&start| start < index)
        });
        match step {
            Some(step) => (self.count() - 1 - step) as u64,
            None => self.count() as u64,
        }
    }

    /// `inner` widened inside `outer` so that it never parts what the provider needs together:
    /// a message bound to the next one from it, and, where a model call is several output
    /// items ([`super::Message::output_item`], the Responses API), the items of one step (an
    /// unknown item such as a `computer_call` and its output pair by an id the model does not
    /// read). Elsewhere a step is one assistant message and its results, and `inner` is kept.
    pub fn widen(
        &self,
        transcript: &Transcript,
        inner: Range<usize>,
        outer: Range<usize>,
    ) -> Range<usize> {
        let together = |before: usize, after: usize| self.joined(transcript, before, after);
        let (mut start, mut end) = (inner.start, inner.end);
        while start > outer.start && together(start - 1, start) {
            start -= 1;
        }
        while end < outer.end && end > 0 && together(end - 1, end) {
            end += 1;
        }
        start..end
    }

    /// Whether messages `before` and `before + 1 == after` must stay together (see
    /// [`Self::widen`]): no range may start or end between them.
    pub fn joined(&self, transcript: &Transcript, before: usize, after: usize) -> bool {
        let itemised_step = |index: usize| {
            self.of.get(index).copied().flatten().filter(|step| {
                self.starts
                    .get(*step)
                    .and_then(|start| transcript.messages.get(*start))
                    .is_some_and(|message| message.output_item)
            })
        };
        transcript
            .messages
            .get(before)
            .is_some_and(|message| message.bound_to_next)
            || itemised_step(before).is_some_and(|step| itemised_step(after) == Some(step))
    }

    /// The first message of the protected tail of the `keep` newest steps (`len` when there are
    /// no steps or `keep` is 0).
    pub fn tail_start(&self, keep: usize, len: usize) -> usize {
        match keep {
            0 => len,
            keep => self
                .starts
                .get(self.count().saturating_sub(keep))
                .copied()
                .unwrap_or(len),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transcript::BlockKind;
    use crate::transcript::test_builders::{call, message, result};

    /// system, task, then `n` steps of call + result (ids from `id`), then a user message.
    fn run(n: usize, id: &dyn Fn(usize) -> String) -> Transcript<'static> {
        let mut messages = vec![
            message(Role::System, vec![BlockKind::Text]),
            message(Role::User, vec![BlockKind::Text]),
        ];
        for step in 0..n {
            messages.push(message(Role::Assistant, vec![call(&id(step))]));
            messages.push(message(Role::Tool, vec![result(&id(step))]));
        }
        Transcript {
            format: Format::OpenAi,
            messages,
        }
    }

    #[test]
    fn each_assistant_message_starts_a_step_and_results_join_it() {
        let steps = Steps::of(&run(4, &|step| format!("c{step}")));
        assert_eq!(steps.count(), 4);
        assert_eq!(steps.starts, vec![2, 4, 6, 8]);
        assert_eq!(steps.of[..4], [None, None, Some(0), Some(0)]);
        assert_eq!(steps.age(3), 3);
        assert_eq!(steps.age(9), 0);
        assert_eq!(steps.tail_start(3, 10), 4);
        assert_eq!(steps.tail_start(9, 10), 2);
    }

    #[test]
    fn reused_ids_pair_by_position() {
        let steps = Steps::of(&run(3, &|_| "call_0".to_string()));
        assert_eq!(
            steps.of[2..],
            [Some(0), Some(0), Some(1), Some(1), Some(2), Some(2)]
        );
    }

    #[test]
    fn consecutive_output_items_are_one_step() {
        let mut transcript = run(3, &|step| format!("c{step}"));
        // Steps 0 and 1 as items: call, then the next call's item right after the first.
        transcript.messages.swap(3, 4);
        for message in &mut transcript.messages {
            message.output_item = message.role == Role::Assistant;
        }
        // system, task, call c0, call c1, result c0, result c1, call c2, result c2
        let steps = Steps::of(&transcript);
        assert_eq!(steps.starts, vec![2, 6]);
        assert_eq!(
            steps.of[2..],
            [Some(0), Some(0), Some(0), Some(0), Some(1), Some(1)]
        );
    }

    #[test]
    fn flat_text_has_no_steps() {
        let mut transcript = run(2, &|step| format!("c{step}"));
        transcript.format = Format::Text;
        let steps = Steps::of(&transcript);
        assert_eq!(steps.count(), 0);
        assert_eq!(steps.tail_start(3, 6), 6);
    }
}

//! The stub frontier (docs/design.md §11, "Batches"): micro stubs the tool results of the steps before
//! it, and moves it only in batches. Each move rewrites the provider's cached prefix from its
//! first new stub on, and a rewrite costs 12.5 cache reads, so stubbing one step at a time, as
//! each leaves the protected tail, paid a rewrite at every call of a loop (issue 28).
//!
//! The frontier is a function of the history alone: from where it stands (the step after the
//! newest stub the library wrote, or what `state` says), the steps outside the tail are taken in
//! order, and a batch closes at the step where the tokens its stubs would save reach
//! `policy.cache.batchTokens`. A stateless host, sending the raw history each call, gets the same
//! frontier back at every call until the next batch closes; a longer history only adds steps
//! after it.

use super::edit_saving;
use crate::plan::Edit;
use crate::tokens::TokenCounter;
use crate::transcript::markers;
use crate::transcript::steps::Steps;
use crate::transcript::{Message, Transcript};

/// The step each message counts in for batching: its own, else (user words, a system prompt)
/// the newest step started before it, else `None` (before the first step).
pub fn step_at(steps: &Steps, index: usize) -> Option<usize> {
    steps
        .of
        .get(index)
        .copied()
        .flatten()
        .or_else(|| steps.starts.iter().rposition(|&start| start < index))
}

/// The step after the newest one that holds a stub or summary this library wrote: where the
/// frontier of a history that already carries the library's edits (a stateful host's) stands.
pub fn written_frontier(transcript: &Transcript<'_>, steps: &Steps) -> usize {
    after_newest(transcript, steps, &|message: &Message| {
        message.is_library_summary
            || message
                .blocks
                .iter()
                .any(|block| markers::is_collapsed_body(&block.text))
    })
}

/// The step after the newest one with a message `holds` says yes to (0 if none).
pub fn after_newest(
    transcript: &Transcript<'_>,
    steps: &Steps,
    holds: &dyn Fn(&Message) -> bool,
) -> usize {
    let newest = transcript.messages.iter().rposition(holds);
    newest
        .and_then(|index| step_at(steps, index))
        .map_or(0, |step| step + 1)
}

/// Where a batch moves the frontier: the tokens each step's edits would save, summed from step
/// `start` on, close a batch each time they reach `batch_tokens` (then count again from zero);
/// the frontier is the step after the last batch closed, or `start` when none closes.
pub fn advance(saving_per_step: &[u64], start: usize, batch_tokens: u64) -> usize {
    let mut frontier = start;
    let mut pending = 0u64;
    for (step, saving) in saving_per_step.iter().enumerate().skip(start) {
        pending = pending.saturating_add(*saving);
        if pending >= batch_tokens.max(1) {
            frontier = step + 1;
            pending = 0;
        }
    }
    frontier
}

/// The tokens the edits of each step would save (edits before the first step count in step 0).
pub fn saving_per_step(
    transcript: &Transcript<'_>,
    steps: &Steps,
    edits: &[Edit],
    counter: &dyn TokenCounter,
) -> Vec<u64> {
    let mut saving = vec![0u64; steps.count()];
    for edit in edits {
        let step = step_at(steps, edit.first_message()).unwrap_or(0);
        if let Some(slot) = saving.get_mut(step) {
            *slot = slot.saturating_add(edit_saving(transcript, edit, counter));
        }
    }
    saving
}

/// `edits` split at `frontier`: those in steps before it, and the rest.
#[inline(never)]
pub fn split(steps: &Steps, edits: Vec<Edit>, frontier: usize) -> (Vec<Edit>, Vec<Edit>) {
    edits
        .into_iter()
        .partition(|edit| step_at(steps, edit.first_message()).unwrap_or(0) < frontier)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_batch_closes_where_the_savings_reach_the_threshold() {
        let saving = [400, 0, 700, 300, 100, 900, 50];
        // 400 + 0 + 700 closes at step 2, then 300 + 100 + 900 at step 5; 50 is pending.
        assert_eq!(advance(&saving, 0, 1_000), 6);
        // 400 + 0 + 700 + 300 closes at step 3; 100 + 900 + 50 stays under.
        assert_eq!(advance(&saving, 0, 1_200), 4);
        assert_eq!(advance(&saving, 4, 1_000), 6);
        assert_eq!(advance(&saving, 6, 1_000), 6, "50 pending: no batch");
        assert_eq!(advance(&saving, 0, 0), 7, "0: every step with a saving");
        assert_eq!(advance(&saving, 0, 100_000), 0);
    }

    #[test]
    fn a_longer_history_keeps_the_frontier_of_a_shorter_one_until_a_batch_closes() {
        let history = [600, 600, 200, 200, 300, 900];
        let mut last = 0;
        for len in 0..=history.len() {
            let frontier = advance(&history[..len], 0, 1_000);
            assert!(frontier >= last, "never moves back");
            if frontier != last {
                let closed: u64 = history[last..frontier].iter().sum();
                assert!(closed >= 1_000, "moves by whole batches");
            }
            last = frontier;
        }
        assert_eq!(last, 6);
    }
}

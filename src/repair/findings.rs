//! What the repair removes and merges ([`Findings`]): filled by `find`, `order` and `pairs`, read
//! by the plan.

use super::fault::{Fault, FaultKind};
use crate::transcript::Transcript;
use std::ops::Range;

/// What the repair removes and merges.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Findings {
    /// Every fault, in the order found; one warning each.
    pub faults: Vec<Fault>,
    /// Per block of every message, message after message: the block is removed (a removed
    /// message has all its blocks here). One list, not one per message: a list per message was
    /// an allocation per message on every call (the repair and the check each find).
    dropped: Vec<bool>,
    /// Where each message's blocks start in `dropped`, and where the last one's end.
    starts: Vec<usize>,
    /// Per message: the message is removed whole.
    pub removed: Vec<bool>,
    /// Runs of one role to merge, in order: from the first message of the run to one past its
    /// last; removed messages inside a run are left out of the merged message.
    pub merges: Vec<Range<usize>>,
}

impl Findings {
    pub(crate) fn new(transcript: &Transcript) -> Self {
        let mut starts = Vec::with_capacity(transcript.messages.len() + 1);
        let mut blocks = 0;
        starts.push(0);
        for message in &transcript.messages {
            blocks += message.blocks.len();
            starts.push(blocks);
        }
        Self {
            faults: Vec::new(),
            dropped: vec![false; blocks],
            starts,
            removed: vec![false; transcript.messages.len()],
            merges: Vec::new(),
        }
    }

    /// Per block of message `message`: the block is removed (empty for a message not there).
    pub fn dropped(&self, message: usize) -> &[bool] {
        self.blocks(message)
            .and_then(|range| self.dropped.get(range))
            .unwrap_or_default()
    }

    /// [`Self::dropped`], to change.
    fn dropped_mut(&mut self, message: usize) -> &mut [bool] {
        match self.blocks(message) {
            Some(range) => self.dropped.get_mut(range).unwrap_or_default(),
            None => &mut [],
        }
    }

    /// Where message `message`'s blocks are in `dropped`.
    fn blocks(&self, message: usize) -> Option<Range<usize>> {
        Some(*self.starts.get(message)?..*self.starts.get(message + 1)?)
    }

    /// Removes block `block` of message `message` for `kind`.
    pub(crate) fn drop_block(&mut self, message: usize, block: usize, id: &str, kind: FaultKind) {
        if let Some(flag) = self.dropped_mut(message).get_mut(block) {
            *flag = true;
        }
        self.faults.push(Fault {
            kind,
            message,
            id: Some(id.to_string()),
        });
    }

    /// Records a fault of `kind` at message `message` that names no tool id.
    pub(crate) fn fault(&mut self, kind: FaultKind, message: usize) {
        self.faults.push(Fault {
            kind,
            message,
            id: None,
        });
    }

    /// Removes message `message` whole (without a fault of its own).
    pub(crate) fn remove_message(&mut self, message: usize) {
        if let Some(flag) = self.removed.get_mut(message) {
            *flag = true;
        }
        self.dropped_mut(message)
            .iter_mut()
            .for_each(|flag| *flag = true);
    }

    /// Whether block `block` of message `message` is still there.
    pub(crate) fn kept(&self, message: usize, block: usize) -> bool {
        !self.dropped(message).get(block).copied().unwrap_or(true)
    }

    /// The indices of the messages not removed.
    pub(crate) fn survivors(&self) -> Vec<usize> {
        (0..self.removed.len())
            .filter(|index| !self.removed[*index])
            .collect()
    }

    /// Whether message `message` loses any block.
    pub fn touches(&self, message: usize) -> bool {
        self.dropped(message).iter().any(|flag| *flag)
    }
}

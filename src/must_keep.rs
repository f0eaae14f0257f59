//! `mustKeep`: the items a summary has to carry verbatim — the user's explicit directives, error
//! lines, file paths, URLs and code identifiers found in the part being summarised.

use crate::base::hash::FastSet;
use crate::salient::{is_error_line, tokens as references};
use crate::transcript::{BlockKind, Transcript};
use std::ops::Range;

/// User-written text of at most this many code points is a directive, carried whole.
pub const DIRECTIVE_MAX_CHARS: usize = 2000;

/// At most this many items: a request is a prompt, not a second copy of the context.
pub const MAX_ITEMS: usize = 64;
/// Items longer than this are cut (on a grapheme cluster boundary) so one log line cannot
/// dominate.
pub const MAX_ITEM_CHARS: usize = 300;

/// Collects the must-keep items of `ranges`, most important first: directives, errors, then
/// paths, URLs and identifiers from the agent's own words and calls, then from tool output.
pub fn collect(transcript: &Transcript, ranges: &[Range<usize>]) -> Vec<String> {
    let mut items = Items::default();
    let messages = || {
        ranges
            .iter()
            .flat_map(|r| transcript.messages[r.clone()].iter())
    };
    // The user's directives, each whole; longer user content (a pasted log) is not a directive:
    // its lines that matter and paths are collected below like any other text's.
    for message in messages().filter(|m| m.has_user_words()) {
        for block in message.blocks.iter().filter(|b| b.kind == BlockKind::Text) {
            let words = crate::base::cut::trim(&block.text);
            if words.chars().count() <= DIRECTIVE_MAX_CHARS {
                items.push_whole(words);
            }
        }
    }
    for block in messages().flat_map(|m| &m.blocks) {
        for line in block.text.lines().filter(|line| is_error_line(line)) {
            items.push(crate::base::cut::trim(line));
        }
    }
    let is_output = |kind: &BlockKind| matches!(kind, BlockKind::ToolResult { .. });
    for from_output in [false, true] {
        for block in messages().flat_map(|m| &m.blocks) {
            if is_output(&block.kind) == from_output
                && !matches!(block.kind, BlockKind::Media { .. })
            {
                for token in references(&block.text) {
                    items.push(token);
                }
            }
        }
    }
    items.list
}

#[derive(Default)]
struct Items {
    list: Vec<String>,
    seen: FastSet<String>,
}

impl Items {
    /// A directive, never cut.
    fn push_whole(&mut self, item: &str) {
        if !item.is_empty() && self.list.len() < MAX_ITEMS && self.seen.insert(item.to_string()) {
            self.list.push(item.to_string());
        }
    }

    fn push(&mut self, item: &str) {
        if item.is_empty() || self.list.len() >= MAX_ITEMS {
            return;
        }
        let item = crate::base::cut::head(item, MAX_ITEM_CHARS);
        if self.seen.insert(item.to_string()) {
            self.list.push(item.to_string());
        }
    }
}

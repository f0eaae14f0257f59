//! `mustKeep`: the items a summary has to carry verbatim — the user's explicit directives, then
//! error lines, file paths, URLs and code identifiers found in the part being summarised, each
//! kind with its fair share.
//!
//! [`collect`] lists every distinct item in the order a summary should keep them: the directives
//! in full, then the other kinds taken in turn, one of each per round, so any prefix of the list
//! is fair and a flood of one kind (60 repeats of one error with different numbers) cannot crowd
//! out another. [`MustKeep::fit`] cuts that list to the summary's own size, `targetTokens`.

use crate::base::hash::FastSet;
use crate::salient::{is_error_line, is_path, is_url, shape, tokens as references};
use crate::tokens::TokenCounter;
use crate::transcript::{Block, BlockKind, Message, Transcript};
use std::ops::{Deref, Range};

pub use crate::summary::directives::DIRECTIVE_MAX_CHARS;

/// Items other than directives longer than this are cut (on a grapheme cluster boundary) so one
/// log line cannot dominate.
pub const MAX_ITEM_CHARS: usize = 300;

/// At most this many distinct items of one kind are collected: [`fit`] keeps far fewer (a summary
/// is asked for at most 8,000 tokens), and a session naming 20,000 files must not cost a set of
/// them all.
const MAX_PER_KIND: usize = 512;

/// The share of `targetTokens` the items other than directives may take: the summary has to say
/// what happened too, not only list what it must keep.
const SHARE_OF_TARGET: f64 = 0.5;

/// Every must-keep item of a part, in the order a summary should keep them; derefs to the list.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct MustKeep {
    items: Vec<String>,
    /// How many of the first items are the user's directives.
    directives: usize,
}

impl Deref for MustKeep {
    type Target = [String];

    fn deref(&self) -> &[String] {
        &self.items
    }
}

impl MustKeep {
    /// The user's directives: the first items, carried whole.
    pub fn directives(&self) -> &[String] {
        &self.items[..self.directives]
    }

    /// The items that fit a summary of `target_tokens`: every directive (they are carried in
    /// full, whatever their size), then the other items in their fair order while they take at
    /// most half the target by `counter`.
    pub fn fit(self, target_tokens: u64, counter: &dyn TokenCounter) -> Vec<String> {
        let budget = (target_tokens as f64 * SHARE_OF_TARGET) as u64;
        let mut spent = 0u64;
        let mut kept = Vec::with_capacity(self.items.len());
        for (at, item) in self.items.into_iter().enumerate() {
            if at >= self.directives {
                // One token more for the separator a summary puts between items.
                spent += counter.count(&item) + 1;
                if spent > budget {
                    break;
                }
            }
            kept.push(item);
        }
        kept
    }
}

/// Collects the must-keep items of `ranges`, in the order a summary should keep them: the user's
/// directives first and whole, then error lines, file paths, URLs and identifiers, one of each
/// kind per round. Error lines that differ only in numbers, ids or hex count once.
pub fn collect(transcript: &Transcript, ranges: &[Range<usize>]) -> MustKeep {
    let messages = || {
        ranges
            .iter()
            .flat_map(|r| transcript.messages[r.clone()].iter())
    };
    let mut directives = Kind::new(false);
    for message in messages() {
        for directive in directives_of(message) {
            directives.push_whole(directive);
        }
    }
    // Error lines by shape; paths and URLs exactly: `src/a1.rs` and `src/a2.rs` are two files.
    let mut kinds = [true, false, false, false].map(Kind::new);
    let [errors, paths, urls, identifiers] = &mut kinds;
    for block in messages().flat_map(|m| &m.blocks) {
        for line in block.text.lines().filter(|line| is_error_line(line)) {
            errors.push(crate::base::cut::trim(line));
        }
    }
    // The agent's own words and calls first: what it chose to name matters more than what a
    // tool printed.
    let is_output = |block: &Block| matches!(block.kind, BlockKind::ToolResult { .. });
    for from_output in [false, true] {
        for block in messages().flat_map(|m| &m.blocks) {
            if is_output(block) != from_output || matches!(block.kind, BlockKind::Media { .. }) {
                continue;
            }
            for token in references(&block.text) {
                if is_url(token) {
                    urls.push(token);
                } else if is_path(token) {
                    paths.push(token);
                }
            }
            for identifier in identifiers_in(&block.text) {
                identifiers.push(identifier);
            }
        }
    }
    let mut items = directives.items;
    let directives = items.len();
    interleave(&mut items, kinds.map(|kind| kind.items));
    MustKeep { items, directives }
}

/// [`collect`] for a summary of the whole session (`session_memory`): the task, the first
/// user words, is carried whole whatever its length (docs/design.md §4: the task is carried verbatim),
/// before the other directives.
pub fn collect_for_session(transcript: &Transcript, ranges: &[Range<usize>]) -> MustKeep {
    let mut must_keep = collect(transcript, ranges);
    let task = transcript
        .task_index()
        .filter(|task| ranges.iter().any(|range| range.contains(task)))
        .map(|task| user_texts(&transcript.messages[task]).map(crate::summary::directives::words));
    let long: Vec<&str> = task
        .into_iter()
        .flatten()
        .filter(|words| !words.is_empty() && !crate::summary::directives::is_directive(words))
        .collect();
    for (at, words) in long.into_iter().enumerate() {
        must_keep.items.insert(at, words.to_string());
        must_keep.directives += 1;
    }
    must_keep
}

/// The directives `message` carries, in order: the user's own (each text of at most
/// [`DIRECTIVE_MAX_CHARS`] code points, as [`crate::summary::directives::words`] has it), or those a
/// summary or digest of the library carries (its directive index).
pub fn directives_of<'m>(message: &'m Message<'_>) -> Vec<&'m str> {
    if message.is_library_summary {
        return message
            .blocks
            .iter()
            .filter(|block| block.kind == BlockKind::Text)
            .flat_map(|block| crate::summary::directives::carried(&block.text))
            .collect();
    }
    // Longer user content (a pasted log) is content, not a directive: its lines that matter
    // and paths are collected like any other text's.
    user_texts(message)
        .map(crate::summary::directives::words)
        .filter(|words| crate::summary::directives::is_directive(words))
        .collect()
}

/// The texts the user wrote in `message` (none for tool results and agent messages).
pub fn user_texts<'m>(message: &'m Message<'_>) -> impl Iterator<Item = &'m str> {
    let user = message.has_user_words();
    message
        .blocks
        .iter()
        .filter(move |block| user && block.kind == BlockKind::Text)
        .map(|block| block.text.as_ref())
}

/// Code identifiers named in `text`: backticked spans without spaces that are not paths or URLs
/// (`parse_config`, `Foo::bar`); bare words are too many to tell from prose.
fn identifiers_in(text: &str) -> impl Iterator<Item = &str> {
    text.split('`')
        .skip(1)
        .step_by(2)
        .filter(|span| (2..=80).contains(&span.len()))
        .filter(|span| !span.contains(char::is_whitespace))
        .filter(|span| !is_path(span) && !is_url(span))
}

/// Appends the lists of `kinds` to `list`, one item of each kind per round, so every prefix gives
/// each kind its fair share and a kind with few items leaves its share to the others.
fn interleave<const N: usize>(list: &mut Vec<String>, kinds: [Vec<String>; N]) {
    let mut iters = kinds.map(Vec::into_iter);
    loop {
        let before = list.len();
        for iter in iters.iter_mut() {
            list.extend(iter.next());
        }
        if list.len() == before {
            return;
        }
    }
}

/// The distinct items of one kind, in the order found.
struct Kind {
    items: Vec<String>,
    /// What was seen: the items themselves, or their shapes.
    seen: FastSet<String>,
    /// Items are told apart by [`shape`] (numbers, ids and hex blanked), so repeats that differ
    /// only in those count once.
    by_shape: bool,
}

impl Kind {
    fn new(by_shape: bool) -> Self {
        Self {
            items: Vec::new(),
            seen: FastSet::default(),
            by_shape,
        }
    }

    /// A directive: never cut, and told apart by its exact words.
    fn push_whole(&mut self, item: &str) {
        if !item.is_empty() && self.seen.insert(item.to_string()) {
            self.items.push(item.to_string());
        }
    }

    fn push(&mut self, item: &str) {
        if item.is_empty() || self.items.len() >= MAX_PER_KIND {
            return;
        }
        let item = crate::base::cut::head(item, MAX_ITEM_CHARS);
        let key = if self.by_shape {
            shape(item)
        } else {
            item.to_string()
        };
        if self.seen.insert(key) {
            self.items.push(item.to_string());
        }
    }
}

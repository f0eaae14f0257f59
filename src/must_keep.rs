//! `mustKeep`: the items a summary has to carry verbatim — the user's explicit directives, error
//! lines, file paths, URLs and code identifiers found in the part being summarised.

use crate::base::hash::FastSet;
use crate::transcript::{BlockKind, Transcript};
use std::ops::Range;

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
    for message in messages().filter(|m| m.has_user_words()) {
        for block in message.blocks.iter().filter(|b| b.kind == BlockKind::Text) {
            items.push(crate::base::cut::trim(&block.text));
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

fn is_error_line(line: &str) -> bool {
    let line = line.trim();
    if line.len() < 6 || line.len() > 2000 {
        return false;
    }
    const MARKERS: [&str; 8] = [
        "error:",
        "error[",
        "Error:",
        "ERROR",
        "Traceback",
        "panicked",
        "FAILED",
        "Exception",
    ];
    MARKERS.iter().any(|marker| line.contains(marker))
}

/// File paths, URLs and `backticked` identifiers in `text`.
fn references(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| {
        c.is_whitespace()
            || matches!(
                c,
                '"' | '\'' | '(' | ')' | '<' | '>' | ',' | '[' | ']' | '{' | '}'
            )
    })
    .flat_map(|token| {
        let backticked = token.strip_prefix('`').and_then(|t| t.strip_suffix('`'));
        backticked.into_iter().chain(std::iter::once(token))
    })
    .map(|token| token.trim_end_matches(['.', ':', ';', '`', '!', '?']))
    .map(|token| token.trim_start_matches('`'))
    .filter(|token| is_url(token) || is_path(token))
}

fn is_url(token: &str) -> bool {
    (token.starts_with("https://") || token.starts_with("http://")) && token.len() > 10
}

fn is_path(token: &str) -> bool {
    if token.len() < 3 || token.len() > 200 || token.contains("://") {
        return false;
    }
    let has_separator = token.contains('/') || token.contains('\\');
    let file_name = token.rsplit(['/', '\\']).next().unwrap_or(token);
    let has_extension = file_name.rsplit_once('.').is_some_and(|(stem, ext)| {
        !stem.is_empty()
            && (1..=8).contains(&ext.len())
            && ext.chars().all(|c| c.is_ascii_alphanumeric())
    });
    let rooted = token.starts_with('/') || token.starts_with("./") || token.starts_with("~/");
    has_separator && (has_extension || rooted) && token.chars().all(|c| !c.is_control())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_paths_urls_and_errors() {
        let text = "edited src/lib.rs and ./README.md, see https://docs.rs/serde.\nerror: cannot find `Foo`";
        let found: Vec<&str> = references(text).collect();
        assert!(found.contains(&"src/lib.rs"), "{found:?}");
        assert!(found.contains(&"./README.md"), "{found:?}");
        assert!(found.contains(&"https://docs.rs/serde"), "{found:?}");
        assert!(is_error_line("error: cannot find `Foo`"));
        assert!(!is_path("and/or"));
        assert!(!is_path("1/2"));
    }
}

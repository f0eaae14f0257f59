//! Structural digests: what `auto` and `session_memory` write when there is no summariser, or
//! when the summariser's answer is refused. No model call; built from the transcript alone.

mod conversation;

pub use conversation::conversation_digest;

use crate::base::hash::{FastMap, FastSet};
use crate::salient;
use crate::transcript::markers;
use crate::transcript::{BlockKind, Message, Transcript};
use std::fmt::Write;
use std::ops::Range;

/// Characters of arguments and of a result's first line shown per tool call.
const SHORT: usize = 80;

/// A digest of tool runs: one line per call with its name, short arguments, outcome and size,
/// then the lines that matter and the paths the run touched; `recall` names the archive entry
/// that holds the run.
pub fn run_digest(transcript: &Transcript, range: Range<usize>, recall: Option<&str>) -> String {
    let messages = &transcript.messages[range];
    let mut out = String::from(markers::RUN_DIGEST);
    if let Some(id) = recall {
        let _ = write!(out, "\nrecall: {id}");
    }
    let notes = messages
        .iter()
        .filter(|m| !m.has_tool_blocks() && !m.is_library_summary)
        .count();
    for summary in messages.iter().filter(|m| m.is_library_summary) {
        // An earlier digest or summary folded into this one keeps its lines (CR included).
        for line in summary_body(summary).split('\n') {
            let _ = write!(out, "\n{line}");
        }
    }
    for call in calls(messages) {
        let _ = write!(out, "\n- {}", call.line());
    }
    if notes > 0 {
        let _ = write!(
            out,
            "\n({notes} assistant message(s) between the calls archived)"
        );
    }
    write_facts(&mut out, messages, RUN_FACTS);
    // The directives the folded summaries carried, for the next one that folds this digest.
    crate::summary::directives::carry(out, &directives_in(messages))
}

/// The directives `messages` hold or carry, in order: what a digest of them indexes.
fn directives_in(messages: &[Message]) -> Vec<String> {
    messages
        .iter()
        .flat_map(crate::summary::must_keep::directives_of)
        .map(str::to_string)
        .collect()
}

/// At most this many lines that matter, and paths and URLs, per run digest.
const RUN_FACTS: usize = 24;

/// The lines that matter and the paths and URLs the run's calls and results name (a stub's
/// facts included), each once, that the call lines do not show already.
fn write_facts(out: &mut String, messages: &[Message], cap: usize) {
    let mut seen = FastSet::default();
    let mut errors = Vec::new();
    let mut references = Vec::new();
    for block in messages.iter().flat_map(|m| &m.blocks) {
        if matches!(block.kind, BlockKind::Media { .. } | BlockKind::Thinking) {
            continue;
        }
        for line in salient::error_lines(&block.text, cap) {
            if errors.len() < cap && seen.insert(salient::shape(line)) && !out.contains(line) {
                errors.push(line);
            }
        }
        for reference in salient::references(&block.text, cap) {
            if references.len() < cap
                && seen.insert(reference.to_string())
                && !out.contains(reference)
            {
                references.push(reference);
            }
        }
    }
    for line in errors {
        let _ = write!(out, "\n! {line}");
    }
    if !references.is_empty() {
        let _ = write!(out, "\npaths: {}", references.join(" "));
    }
}

/// A digest of a whole session, in sections, for `session_memory` without a summariser:
/// `must_keep` lists what it keeps, its first items the `directives` (which its directive
/// index names).
pub fn session_digest(
    transcript: &Transcript,
    ranges: &[Range<usize>],
    must_keep: &[String],
    directives: &[String],
) -> String {
    let messages: Vec<&Message> = ranges
        .iter()
        .flat_map(|r| transcript.messages[r.clone()].iter())
        .collect();
    let mut out = String::new();
    // Every text the user wrote, and what our earlier summaries carried, in order.
    let user_words: Vec<&str> = messages
        .iter()
        .flat_map(|m| match m.is_library_summary {
            true => crate::summary::must_keep::directives_of(m),
            false => m
                .blocks
                .iter()
                .filter(|b| m.has_user_words() && b.kind == BlockKind::Text)
                .map(|b| crate::summary::directives::words(&b.text))
                .filter(|words| !words.is_empty())
                .collect(),
        })
        .collect();
    if !user_words.is_empty() {
        out.push_str("## User directives\n");
        // Verbatim, indentation and line breaks included: as the user wrote it.
        for words in &user_words {
            let _ = writeln!(out, "{}", crate::summary::directives::labelled("-", words));
        }
    }
    let calls = calls(messages.iter().copied());
    if !calls.is_empty() {
        // By tool name (a handful of tools: a list, sorted at the end).
        let mut per_tool: Vec<(&str, usize, usize)> = Vec::new();
        for call in &calls {
            let at = match per_tool.iter().position(|(name, ..)| *name == call.name) {
                Some(at) => at,
                None => {
                    per_tool.push((call.name.as_str(), 0, 0));
                    per_tool.len() - 1
                }
            };
            per_tool[at].1 += 1;
            per_tool[at].2 += usize::from(call.error);
        }
        out.push_str("## Tool calls\n");
        for (name, count, errors) in
            crate::base::sort::sorted_by_key(per_tool, &|tool: &(&str, usize, usize)| tool.0)
        {
            let _ = writeln!(out, "- {name}: {count} call(s), {errors} error(s)");
        }
    }
    let references: Vec<&String> = must_keep
        .iter()
        .filter(|item| !user_words.contains(&item.as_str()))
        .collect();
    if !references.is_empty() {
        out.push_str("## Files, URLs and errors\n");
        for item in references {
            let _ = writeln!(out, "- {item}");
        }
    }
    if let Some(last) = messages
        .iter()
        .rev()
        .filter(|m| !m.has_user_words())
        .flat_map(|m| m.blocks.iter().filter(|b| b.kind == BlockKind::Text))
        .next()
    {
        let _ = writeln!(out, "## Last agent note\n{}", one_line(&last.text, 400));
    }
    out.truncate(out.trim_end().len());
    crate::summary::directives::carry(out, directives)
}

/// One tool call with what became of it.
struct Call {
    name: String,
    arguments: String,
    outcome: Option<String>,
    result_chars: usize,
    error: bool,
}

impl Call {
    fn line(&self) -> String {
        let arguments = one_line(&self.arguments, SHORT);
        match &self.outcome {
            Some(first) => format!(
                "{}({arguments}) → {}, {} chars: {}",
                self.name,
                if self.error { "error" } else { "ok" },
                self.result_chars,
                one_line(first, SHORT)
            ),
            None => format!("{}({arguments}) → no result", self.name),
        }
    }
}

fn calls<'a, 'b: 'a>(messages: impl IntoIterator<Item = &'a Message<'b>>) -> Vec<Call> {
    let mut calls: Vec<Call> = Vec::new();
    // Borrowed keys: the same map type as the other id maps, one copy of its code in the wasm.
    let mut by_id: FastMap<&str, usize> = FastMap::default();
    for block in messages.into_iter().flat_map(|m| &m.blocks) {
        match &block.kind {
            BlockKind::ToolCall { id, name } => {
                by_id.insert(&**id, calls.len());
                calls.push(Call {
                    name: name.to_string(),
                    arguments: block.text.to_string(),
                    outcome: None,
                    result_chars: 0,
                    error: false,
                });
            }
            BlockKind::ToolResult { id, name, is_error } => {
                let first = block
                    .text
                    .lines()
                    .find(|l| !l.trim().is_empty())
                    .unwrap_or("")
                    .to_string();
                let at = id.as_ref().and_then(|id| by_id.get(&**id).copied());
                let call = match at {
                    Some(at) => &mut calls[at],
                    None => {
                        calls.push(Call {
                            name: name.clone().unwrap_or_else(|| "tool".into()),
                            arguments: String::new(),
                            outcome: None,
                            result_chars: 0,
                            error: false,
                        });
                        let last = calls.len() - 1;
                        &mut calls[last]
                    }
                };
                call.outcome = Some(first);
                call.result_chars = block.text.chars().count();
                call.error = *is_error
                    || block
                        .text
                        .lines()
                        .any(|l| l.contains("Error:") || l.starts_with("error"));
            }
            _ => {}
        }
    }
    calls
}

fn summary_body(message: &Message) -> String {
    message
        .blocks
        .iter()
        .filter(|b| b.kind == BlockKind::Text)
        .map(|b| {
            let text = crate::summary::directives::without_index(&b.text).trim_start();
            text.split_once('\n')
                .map_or("", |(_, rest)| rest)
                .to_string()
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// `text` on one line (newlines become spaces), cut to at most `max` chars (code points, ending
/// on a grapheme cluster boundary) with an ellipsis.
pub fn one_line(text: &str, max: usize) -> String {
    let flat: String = text
        .chars()
        .map(|c| {
            if c == '\n' || c == '\r' || c == '\t' {
                ' '
            } else {
                c
            }
        })
        .collect();
    let flat = crate::base::cut::trim(&flat);
    let head = crate::base::cut::head(flat, max);
    if head.len() < flat.len() {
        format!("{head}…")
    } else {
        flat.to_string()
    }
}

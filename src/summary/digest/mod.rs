//! Structural digests: what `auto` and `session_memory` write when there is no summariser, or
//! when the summariser's answer is refused. No model call; built from the transcript alone.

mod conversation;

pub use conversation::conversation_digest;

use crate::base::hash::{FastMap, FastSet};
use crate::salient;
use crate::summary::{directives, must_keep};
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
    directives::carry(out, &directives_in(messages))
}

/// The directives `messages` hold or carry, in order: what a digest of them indexes.
fn directives_in(messages: &[Message]) -> Vec<String> {
    messages
        .iter()
        .flat_map(must_keep::directives_of)
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

/// A digest of a whole session's `messages`, in sections, for `session_memory` without a
/// summariser: `must_keep` lists what it keeps, its first items the `directives` (which its
/// directive index names).
pub fn session_digest(messages: &[Message], must_keep: &[String], directives: &[String]) -> String {
    // Every text the user wrote, and what our earlier summaries carried, in order.
    let user_words: Vec<&str> = messages
        .iter()
        .flat_map(|m| match m.is_library_summary {
            true => must_keep::directives_of(m),
            false => must_keep::user_texts(m)
                .map(directives::words)
                .filter(|words| !words.is_empty())
                .collect(),
        })
        .collect();
    let mut out = String::new();
    // Verbatim, indentation and line breaks included: as the user wrote it.
    let lines = user_words
        .iter()
        .map(|words| directives::labelled("-", words));
    write_section(&mut out, "User directives", lines.collect());
    write_section(&mut out, "Tool calls", tool_tally(&calls(messages)));
    let references = must_keep
        .iter()
        .filter(|item| !user_words.contains(&item.as_str()))
        .map(|item| format!("- {item}"));
    write_section(&mut out, "Files, URLs and errors", references.collect());
    let last = messages
        .iter()
        .rev()
        .filter(|m| !m.has_user_words())
        .flat_map(|m| m.blocks.iter().filter(|b| b.kind == BlockKind::Text))
        .next()
        .map(|last| one_line(&last.text, 400));
    write_section(&mut out, "Last agent note", last.into_iter().collect());
    out.truncate(out.trim_end().len());
    directives::carry(out, directives)
}

/// `## heading` and `lines`, one a line, unless there are none.
fn write_section(out: &mut String, heading: &str, lines: Vec<String>) {
    if !lines.is_empty() {
        let _ = writeln!(out, "## {heading}");
    }
    for line in lines {
        let _ = writeln!(out, "{line}");
    }
}

/// A line per tool `calls` name, sorted by name, with its calls and errors.
fn tool_tally(calls: &[Call]) -> Vec<String> {
    // A handful of tools: a list, sorted at the end.
    let mut per_tool: Vec<(&str, usize, usize)> = Vec::new();
    for call in calls {
        let at = per_tool
            .iter()
            .position(|(name, ..)| *name == call.name)
            .unwrap_or_else(|| {
                per_tool.push((&call.name, 0, 0));
                per_tool.len() - 1
            });
        per_tool[at].1 += 1;
        per_tool[at].2 += usize::from(call.error);
    }
    crate::base::sort::sorted_by_key(per_tool, &|tool: &(&str, usize, usize)| tool.0)
        .into_iter()
        .map(|(name, count, errors)| format!("- {name}: {count} call(s), {errors} error(s)"))
        .collect()
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
    fn new(name: String, arguments: String) -> Self {
        Self {
            name,
            arguments,
            outcome: None,
            result_chars: 0,
            error: false,
        }
    }

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

fn calls(messages: &[Message]) -> Vec<Call> {
    let mut calls: Vec<Call> = Vec::new();
    // Borrowed keys: the same map type as the other id maps, one copy of its code in the wasm.
    let mut by_id: FastMap<&str, usize> = FastMap::default();
    for block in messages.iter().flat_map(|m| &m.blocks) {
        match &block.kind {
            BlockKind::ToolCall { id, name } => {
                by_id.insert(&**id, calls.len());
                calls.push(Call::new(name.to_string(), block.text.to_string()));
            }
            BlockKind::ToolResult { id, name, is_error } => {
                let first = block
                    .text
                    .lines()
                    .find(|l| !l.trim().is_empty())
                    .unwrap_or("")
                    .to_string();
                let at = id.as_ref().and_then(|id| by_id.get(&**id).copied());
                let at = at.unwrap_or_else(|| {
                    let name = name.clone().unwrap_or_else(|| "tool".into());
                    calls.push(Call::new(name, String::new()));
                    calls.len() - 1
                });
                let call = &mut calls[at];
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
            let text = directives::without_index(&b.text).trim_start();
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
    let flat = text.replace(['\n', '\r', '\t'], " ");
    let flat = crate::base::cut::trim(&flat);
    let head = crate::base::cut::head(flat, max);
    if head.len() < flat.len() {
        format!("{head}…")
    } else {
        flat.to_string()
    }
}

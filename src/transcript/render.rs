//! Renders part of a transcript as readable text: what a summariser reads. Media never appears as
//! data, only as a short placeholder, so a screenshot cannot flood the summary request.

use super::{BlockKind, Message, Role, Transcript};
use std::fmt::Write;
use std::ops::Range;

/// Renders messages `range` of `transcript`, one labelled paragraph per block.
pub fn render(transcript: &Transcript, range: Range<usize>) -> String {
    let mut out = String::new();
    for message in &transcript.messages[range] {
        render_message(message, &mut out);
    }
    out.truncate(out.trim_end().len());
    out
}

fn role_label(role: Role) -> &'static str {
    match role {
        Role::System => "system",
        Role::Developer => "developer",
        Role::User => "user",
        Role::Assistant => "assistant",
        Role::Tool => "tool",
    }
}

fn render_message(message: &Message, out: &mut String) {
    let role = role_label(message.role);
    for block in &message.blocks {
        // `write!` to a String cannot fail; the results are ignored on purpose.
        let _ = match &block.kind {
            // Our directive index is for the library, not for a summariser to copy.
            BlockKind::Text if message.is_library_summary => writeln!(
                out,
                "[{role}] {}\n",
                crate::summary::directives::without_index(&block.text)
            ),
            BlockKind::Text => writeln!(out, "[{role}] {}\n", block.text),
            BlockKind::ToolCall { id, name } => {
                writeln!(out, "[tool call {name} #{id}] {}\n", block.text)
            }
            BlockKind::ToolResult { id, name, is_error } => {
                let name = name.as_deref().unwrap_or("tool");
                let id = id
                    .as_deref()
                    .map(|id| format!(" #{id}"))
                    .unwrap_or_default();
                let error = if *is_error { " (error)" } else { "" };
                writeln!(out, "[tool result {name}{id}{error}] {}\n", block.text)
            }
            BlockKind::Media { media_type, inline } => {
                let how = if *inline { "inline" } else { "linked" };
                writeln!(
                    out,
                    "[{role} attached {media_type}, {how}, {} chars omitted]\n",
                    block.chars()
                )
            }
            BlockKind::Thinking => writeln!(out, "[{role} thinking] {}\n", block.text),
            BlockKind::Other => writeln!(out, "[{role} other] {}\n", block.text),
        };
    }
}

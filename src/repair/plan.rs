//! The repair's plan: what [`super::find`] found, as edits of kind `"repair"`. A message removed
//! whole is a removed range; a message that loses blocks is rewritten without them; a run of one
//! role is rewritten as one message (less what it loses). Each edit's archive entry holds the
//! input messages it took, so `restore` gives them back exactly.

use super::fault::range;
use super::findings::Findings;
use crate::plan::{ArchiveKind, Edit, Plan};
use crate::transcript::{BlockKind, Transcript};
use std::ops::Range;

/// The plan that repairs `transcript` as `findings` say; one warning per fault.
pub fn plan(transcript: &Transcript, findings: &Findings) -> Plan {
    let mut edits = Vec::new();
    let mut merges = findings.merges.iter().peekable();
    let mut index = 0;
    while index < transcript.messages.len() {
        if let Some(run) = merges.next_if(|run| run.start == index) {
            edits.push(Edit::RewriteMessages {
                range: run.clone(),
                drop: dropped_in(findings, run.clone()),
                kind: ArchiveKind::Repair,
                note: format!("{} merged into one message", range(run.start, run.end)),
            });
            index = run.end.max(index + 1);
            continue;
        }
        if findings.removed.get(index).copied().unwrap_or(false) {
            edits.push(Edit::ReplaceMessages {
                range: index..index + 1,
                text: None,
                kind: ArchiveKind::Repair,
                is_summary: false,
            });
        } else if findings.touches(index) {
            edits.push(Edit::RewriteMessages {
                range: index..index + 1,
                drop: dropped_in(findings, index..index + 1),
                kind: ArchiveKind::Repair,
                note: without_note(transcript, findings, index),
            });
        }
        index += 1;
    }
    // Each merge is one fault (`SameRole`); every other fault is a removal.
    let merged = findings.merges.len();
    let removed = findings.faults.len() - merged;
    Plan {
        edits,
        reason: format!(
            "repaired the input first: {removed} removal(s) and {merged} merge(s) of what breaks the provider's rules (see warnings; archive kind \"repair\")"
        ),
        warnings: findings.faults.iter().map(ToString::to_string).collect(),
        ..Plan::default()
    }
}

/// `(message, block)` of every top-level block removed from messages `range`.
fn dropped_in(findings: &Findings, range: Range<usize>) -> Vec<(usize, usize)> {
    range
        .flat_map(|message| {
            let blocks = findings.dropped(message);
            blocks
                .iter()
                .enumerate()
                .filter(|(_, dropped)| **dropped)
                .map(move |(block, _)| (message, block))
        })
        .collect()
}

/// What a message that loses blocks stands for in the archive: `messages[3] without the tool
/// call "c1"`.
fn without_note(transcript: &Transcript, findings: &Findings, index: usize) -> String {
    let Some(message) = transcript.messages.get(index) else {
        return range(index, index + 1);
    };
    let lost: Vec<String> = message
        .blocks
        .iter()
        .enumerate()
        .filter(|(block, b)| !findings.kept(index, *block) && !b.is_nested())
        .map(|(_, block)| match &block.kind {
            BlockKind::ToolCall { id, .. } => format!("the tool call {id:?}"),
            BlockKind::ToolResult { id: Some(id), .. } => format!("the tool result {id:?}"),
            _ => "a block".to_string(),
        })
        .collect();
    format!("{} without {}", range(index, index + 1), lost.join(", "))
}

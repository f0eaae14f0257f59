//! Without a summariser, each chosen stretch becomes a structural digest in place: a run's
//! digest (tools, short arguments, outcomes, the lines that matter, the paths), or, where the
//! stretch holds older conversation, a conversation digest that also carries the user's
//! directives verbatim and in full. Digests are local and free, so each stretch gets its own.

use super::stretch::Stretch;
use crate::plan::{ArchiveKind, Edit, Plan, range_id};
use crate::summary::digest;
use crate::tiers::{TierEnv, edit_saving, shrinking};
use crate::transcript::markers;
use crate::transcript::{Format, Role, Transcript};
use std::ops::Range;

/// The digest of messages `range`: of conversation when `talk`, else of tool runs.
pub fn digest_of(
    transcript: &Transcript,
    range: Range<usize>,
    talk: bool,
    recall: Option<&str>,
) -> String {
    if talk {
        digest::conversation_digest(transcript, range, recall)
    } else {
        digest::run_digest(transcript, range, recall)
    }
}

/// The plan that replaces each of `stretches` by its digest.
pub fn plan(transcript: &Transcript, stretches: &[Stretch], env: &TierEnv<'_>) -> Plan {
    let structured = transcript.format != Format::Text;
    let kind = kind_of(stretches);
    let edits: Vec<Edit> = stretches
        .iter()
        .map(|stretch| {
            let range = stretch.range.clone();
            // The digest names the entry that holds the stretch (and the stubs inside it).
            let id = structured.then(|| range_id(transcript, kind, range.clone()));
            let text = digest_of(transcript, range.clone(), stretch.talk, id.as_deref());
            Edit::ReplaceMessages {
                text: Some(for_format(transcript, text, range.end)),
                range,
                kind,
                is_summary: true,
            }
        })
        .collect();
    let edits = with_bridges_shrinking(transcript, edits, env);
    let kept: Vec<&Stretch> = stretches
        .iter()
        .filter(|stretch| {
            edits.iter().any(
                |edit| matches!(edit, Edit::ReplaceMessages { range, .. } if *range == stretch.range),
            )
        })
        .collect();
    let reason = match kept.len() {
        0 => "no digest would be shorter than what it replaces".to_string(),
        _ => format!("replaced {} by structural digests", what(kept)),
    };
    Plan::of(edits, reason)
}

/// The edits that save tokens once the message that keeps roles alternating after them is
/// counted (a digest a few tokens shorter than its stretch, plus a bridge, grows the context).
fn with_bridges_shrinking(
    transcript: &Transcript,
    edits: Vec<Edit>,
    env: &TierEnv<'_>,
) -> Vec<Edit> {
    shrinking(transcript, edits, env.counter)
        .into_iter()
        .filter(|edit| match edit {
            Edit::ReplaceMessages { range, .. } => {
                edit_saving(transcript, edit, env.counter)
                    > bridge_tokens(transcript, range.clone(), env)
            }
            _ => true,
        })
        .collect()
}

/// Tokens of the message that keeps roles alternating after `range` is replaced, where the
/// format needs one: the adapter adds it when the replacement fits neither role between its
/// neighbours (Anthropic: between a user message and an assistant one).
pub fn bridge_tokens(transcript: &Transcript, range: Range<usize>, env: &TierEnv<'_>) -> u64 {
    if !crate::formats::registry::alternates(transcript.format) {
        return 0;
    }
    let assistant = |at: usize| {
        transcript
            .messages
            .get(at)
            .map(|m| m.role == Role::Assistant)
    };
    let before = range.start.checked_sub(1).and_then(assistant);
    let after = assistant(range.end);
    let fits =
        |role: bool| before != Some(role) && after != Some(role) && (before.is_some() || !role);
    match fits(true) || fits(false) {
        true => 0,
        false => env.counter.count(markers::ROLE_BRIDGE),
    }
}

/// One archive kind per plan (`restore` undoes a plan's range entries together): `turn` once
/// conversation is among them, else `run`.
pub fn kind_of(stretches: &[Stretch]) -> ArchiveKind {
    if stretches.iter().any(|stretch| stretch.talk) {
        ArchiveKind::Turn
    } else {
        ArchiveKind::Run
    }
}

/// "5 tool-run step(s) and 2 piece(s) of older conversation".
pub fn what<'s>(stretches: impl IntoIterator<Item = &'s Stretch>) -> String {
    let (runs, talk) = stretches.into_iter().fold((0, 0), |(runs, talk), stretch| {
        (runs + stretch.run_pieces, talk + stretch.talk_pieces)
    });
    match (runs, talk) {
        (runs, 0) => format!("{runs} tool-run step(s)"),
        (0, talk) => format!("{talk} piece(s) of older conversation"),
        (runs, talk) => {
            format!("{runs} tool-run step(s) and {talk} piece(s) of older conversation")
        }
    }
}

/// Our text as it must be written into `transcript`'s format, in place of messages ending at
/// `end`. Flat text: inert (a quoted tag or fence cannot start a block), without blank lines,
/// and followed by a line break where more text follows, so that on the next call our text is
/// exactly one section of its own ([`crate::formats::text::read_sections`]).
pub fn for_format(transcript: &Transcript, text: String, end: usize) -> String {
    if transcript.format != Format::Text {
        return text;
    }
    let dense: Vec<&str> = text
        .lines()
        .filter(|line| !line.trim().is_empty())
        .collect();
    let mut out = markers::inert_in_flat_text(&dense.join("\n"));
    if end < transcript.messages.len() {
        out.push('\n');
    }
    out
}

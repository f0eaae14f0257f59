//! The role order of a format whose roles alternate, the first message from the user
//! ([`crate::formats::alternation`]): messages before the first user message are removed, runs
//! of one role among the rest are merged.

use super::fault::FaultKind;
use super::findings::Findings;
use crate::formats::alternation::{same_side_runs, side};
use crate::transcript::Transcript;

/// Removes the messages standing before the first user message, up to the first message with
/// the user's words (their calls' results after it are then orphans, found on the next pass).
/// When no message has user words (an agent run whose task the host cut off), nothing is
/// removed: that would leave nothing to send.
pub(crate) fn remove_before_first_user(transcript: &Transcript, findings: &mut Findings) {
    let survivors = findings.survivors();
    let message = |index: usize| transcript.messages.get(index);
    let Some(&first) = survivors.first() else {
        return;
    };
    if message(first).is_none_or(|m| side(m.role) == "user") {
        return;
    }
    let Some(&words) = survivors
        .iter()
        .find(|index| message(**index).is_some_and(|m| m.has_user_words()))
    else {
        return;
    };
    for index in first..words {
        findings.remove_message(index);
    }
    findings.fault(FaultKind::BeforeFirstUser { end: words }, first);
}

/// Records each run of two or more standing messages of one role as a merge.
pub(crate) fn merge_runs(transcript: &Transcript, findings: &mut Findings) {
    let roles: Vec<_> = findings
        .survivors()
        .into_iter()
        .filter_map(|index| Some((index, transcript.messages.get(index)?.role)))
        .collect();
    for run in same_side_runs(roles) {
        let role = transcript
            .messages
            .get(run.start)
            .map_or("user", |message| side(message.role));
        findings.fault(FaultKind::SameRole { end: run.end, role }, run.start);
        findings.merges.push(run);
    }
}

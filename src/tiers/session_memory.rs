//! `session_memory` (weight 1.00): when the session is complete, build a durable cross-session
//! summary of the whole session (through the summariser; a structural digest without one). The
//! output is the system prompt(s) and one user message starting with `[session summary]`, which
//! carries the task and every user directive verbatim. The summary, with its provenance (session
//! id, turn range, SHA-256 of the source), is also returned as `TierResult.summary` for the host
//! to store; the library stores nothing.

use super::Rule;
use super::{TierEnv, ranges_tokens};
use crate::config::PolicyConfig;
use crate::plan::working::{Current, Working};
use crate::plan::{ArchiveKind, Edit, Plan};
use crate::policy::pressure::BudgetPressure;
use crate::policy::tier::Tier;
use crate::summary::digest;
use crate::summary::must_keep;
use crate::summary::summarise;
use crate::transcript::markers;
use crate::transcript::pairing::closed_ranges;
use crate::transcript::render::render;
use crate::transcript::{Format, Transcript};
use sha2::{Digest, Sha256};
use std::ops::Range;

/// This tier.
pub const TIER: Tier = Tier::SessionMemory;

/// Fires when the session is complete.
pub fn trigger(pressure: &BudgetPressure, _policy: &PolicyConfig) -> Option<Rule> {
    pressure
        .session_complete
        .then_some(Rule(|_, _| "session complete".to_string()))
}

/// Summarises the session and keeps the summary plus protected content.
pub async fn compact(working: &mut Working<'_>, env: &TierEnv<'_>) -> crate::error::Result<()> {
    let transcript = &working.transcript;
    let ranges = foldable_ranges(transcript);
    if let Some(existing) = existing_summary(transcript, &ranges) {
        working.summary = Some(existing);
        working
            .notes
            .push("already a session summary: not summarised again".into());
        return Ok(());
    }
    if ranges.is_empty() {
        // Only protected content (system, task, latest turn): nothing to fold, and a summary of it
        // would not be shorter than what the host already holds.
        working
            .notes
            .push("nothing outside protected content to fold into a summary".into());
        return Ok(());
    }
    let plan = summarise_session(working, ranges, env).await;
    working.apply(plan)
}

/// Everything but the system prompts: the whole conversation folds into the summary.
fn foldable_ranges(transcript: &Transcript) -> Vec<Range<usize>> {
    let candidates: Vec<bool> = transcript
        .messages
        .iter()
        .map(|message| !message.is_system())
        .collect();
    closed_ranges(transcript, &candidates)
}

/// The text of our session summary when it is all that stands outside protected content.
fn existing_summary(transcript: &Transcript, ranges: &[Range<usize>]) -> Option<String> {
    let mut messages = ranges
        .iter()
        .flat_map(|r| transcript.messages[r.clone()].iter());
    let only = messages.next()?;
    if messages.next().is_some() {
        return None;
    }
    let text = only.blocks.iter().map(|b| &*b.text).collect::<Vec<_>>();
    let text = text.join("\n");
    text.trim_start()
        .starts_with(markers::SESSION_SUMMARY)
        .then_some(text)
}

/// The plan that folds `ranges` into one session summary, which the plan carries for the host
/// to store whether or not it folds anything.
async fn summarise_session(
    working: &Working<'_>,
    ranges: Vec<Range<usize>>,
    env: &TierEnv<'_>,
) -> Plan {
    let transcript = &working.transcript;
    let replaced = ranges_tokens(transcript, &ranges, env.counter);
    let outcome = summary_outcome(working, replaced, env).await;
    let mut text = outcome.text;
    if transcript.format == Format::Text {
        text = markers::inert_in_flat_text(&text);
    }
    let summary_tokens = env.counter.count(&text);
    let plan = Plan {
        summary: Some(text.clone()),
        degraded: outcome.degraded,
        warnings: outcome.warning.into_iter().collect(),
        summariser_usage: outcome.usage,
        ..Plan::default()
    };
    if summary_tokens >= replaced {
        // A short session's digest (headings, provenance, directives) can outgrow it: the host
        // still gets the summary to store, the context stays as it is.
        let reason = format!(
            "the session summary ({summary_tokens} tokens) is not shorter than what it would fold ({replaced} tokens): nothing folded"
        );
        return Plan { reason, ..plan };
    }
    let edits = ranges
        .iter()
        .enumerate()
        .map(|(i, range)| Edit::ReplaceMessages {
            range: range.clone(),
            text: (i == 0).then(|| text.clone()),
            kind: ArchiveKind::Session,
            is_summary: true,
        })
        .collect();
    let how = match (env.summariser.is_some(), plan.degraded) {
        (true, false) => "the summariser's summary",
        (true, true) => "a structural digest (summariser refused)",
        (false, _) => "a structural digest",
    };
    let reason = format!("folded {} message range(s) into {how}", ranges.len());
    Plan {
        edits,
        reason,
        ..plan
    }
}

/// The summary of the whole session under its provenance heading, from the summariser or a
/// digest, asked to fit the `replaced` tokens it folds.
async fn summary_outcome(
    working: &Working<'_>,
    replaced: u64,
    env: &TierEnv<'_>,
) -> summarise::Outcome {
    let transcript = &working.transcript;
    let whole = 0..transcript.messages.len();
    let rendered = render(transcript, whole.clone());
    let heading = provenance(transcript, env, &rendered);
    let room = replaced.saturating_sub(env.counter.count(&heading) + 1);
    // The task whole, whatever its length: the session summary carries it verbatim.
    let must_keep = must_keep::collect_for_session(transcript, std::slice::from_ref(&whole));
    let directives = must_keep.directives().to_vec();
    let messages = match &working.context {
        Current::Messages(values) => values.iter().map(|v| v.as_ref().clone()).collect(),
        Current::Text(text) => vec![serde_json::Value::String(text.to_string())],
    };
    let request = env.summary_request(TIER, rendered, messages, replaced, must_keep);
    // The digest lists what the summary would have been asked to keep, no more.
    let kept = request.must_keep.clone();
    let digest = || digest::session_digest(&transcript.messages, &kept, &directives);
    let summariser = env.summariser;
    let mut outcome = summarise::summarise_or_digest(
        summariser,
        request,
        &directives,
        room,
        env.counter,
        &digest,
    )
    .await;
    outcome.text = format!("{heading}\n{}", outcome.text);
    outcome
}

/// `[session summary]` and a provenance line: session id, turn range, SHA-256 of the source.
fn provenance(transcript: &Transcript, env: &TierEnv<'_>, rendered: &str) -> String {
    let turns = transcript
        .messages
        .iter()
        .filter(|m| m.has_user_words())
        .count()
        .max(env.pressure.turn_count as usize)
        .max(1);
    let hash = Sha256::digest(rendered.as_bytes());
    let hex: String = hash.iter().take(16).map(|b| format!("{b:02x}")).collect();
    format!(
        "{}\nsession: {}; turns: 1-{turns}; source sha256: {hex}",
        markers::SESSION_SUMMARY,
        digest::one_line(env.session_id, 120)
    )
}

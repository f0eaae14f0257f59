//! With a summariser, the chosen stretches go into ONE request and the summary stands where the
//! last of them was (the earlier ones are removed): one model call per compaction keeps cost
//! predictable, and the summary then reads as "what happened so far" right before what is kept.
//! Our earlier summaries join, so the new one folds them in — but only once what they stand for
//! has grown enough (the loop guard), so a summary is not summarised again and again.

use super::digests::{bridge_tokens, for_format, kind_of, what};
use super::protection;
use super::select::joined;
use super::stretch::Stretch;
use super::units::is_ours;
use crate::api::result::SummariserUsage;
use crate::base::decimal::shortest;
use crate::plan::working::{Current, Working};
use crate::plan::{ArchiveKind, Edit, Plan};
use crate::summary::must_keep;
use crate::summary::summarise::{self, SummaryRequest};
use crate::tiers::{TierEnv, ranges_tokens};
use crate::transcript::counting::message_tokens;
use crate::transcript::markers;
use crate::transcript::render::render;
use crate::transcript::{Message, Role, Transcript};
use std::ops::Range;

/// What came of asking for a summary.
pub enum Summarised {
    /// The summary, in a plan.
    Done(Plan),
    /// The loop guard held the call back: the plan says so, the words say why.
    HeldBack(Plan, &'static str),
    /// The summariser failed or its answer was refused: the caller falls back to digests,
    /// chosen for what digests save.
    Refused {
        /// The cause, for the result's warnings.
        warning: String,
        /// What the call cost anyway.
        usage: Option<SummariserUsage>,
    },
}

/// Asks for one summary of `chosen` (and our earlier summaries), unless the loop guard holds it
/// back.
pub async fn plan(working: &Working<'_>, chosen: Vec<Stretch>, env: &TierEnv<'_>) -> Summarised {
    let transcript = &working.transcript;
    let fresh = what(&chosen);
    let stretches = with_earlier_summaries(transcript, chosen, env);
    match loop_guard(transcript, &stretches, env) {
        Some((reason, why)) => Summarised::HeldBack(Plan::unchanged(reason), why),
        None => summarise(working, &stretches, &fresh, env).await,
    }
}

/// Tokens of original context that messages `ranges` stand for: a summary of ours counts what
/// it covers (from its heading), anything else its own tokens.
fn covered(transcript: &Transcript, ranges: &[Range<usize>], env: &TierEnv<'_>) -> u64 {
    let messages = ranges
        .iter()
        .flat_map(|range| &transcript.messages[range.clone()]);
    messages
        .map(|message| {
            summary_coverage(message).unwrap_or_else(|| message_tokens(message, env.counter))
        })
        .sum()
}

/// What a summary of ours covers, read back from its heading.
fn summary_coverage(message: &Message) -> Option<u64> {
    let heading = message.blocks.first()?;
    message
        .is_library_summary
        .then(|| markers::covered_tokens(&heading.text))
        .flatten()
}

/// The loop guard. A context that already holds our summary is summarised again only once the
/// conversation it stands for has grown by `resummarise_growth`: the new content must reach
/// `(growth - 1) ×` what the summaries cover. The covered total grows with each summary, so calls
/// thin out geometrically (a host calling at constant pressure every turn pays a handful, not one
/// per turn). Then, before paying for a call, the best case (everything replaced by a summary of
/// `target_tokens`) must reach `min_reduction`. Returns the reason and, in a few words, why.
fn loop_guard(
    transcript: &Transcript,
    stretches: &[Stretch],
    env: &TierEnv<'_>,
) -> Option<(String, &'static str)> {
    let messages = || {
        stretches
            .iter()
            .flat_map(|s| transcript.messages[s.range.clone()].iter())
    };
    let summarised: u64 = messages().filter_map(summary_coverage).sum();
    let fresh: u64 = messages()
        .filter(|m| summary_coverage(m).is_none())
        .map(|m| message_tokens(m, env.counter))
        .sum();
    let needed = (summarised as f64 * (env.policy.resummarise_growth - 1.0)).ceil() as u64;
    if summarised > 0 && fresh < needed {
        let reason = format!(
            "already summarised: {fresh} new tokens since a summary covering {summarised}, under resummariseGrowth {} (needs {needed})",
            shortest(env.policy.resummarise_growth)
        );
        return Some((reason, "the summary is not due again (resummariseGrowth)"));
    }
    let ranges: Vec<Range<usize>> = stretches.iter().map(|s| s.range.clone()).collect();
    let replaced = ranges_tokens(transcript, &ranges, env.counter);
    let total = transcript.count_tokens(env.counter).max(1);
    let target = summarise::target_tokens(replaced, env.pressure.context_pct_used);
    let best = replaced.saturating_sub(target);
    let minimum = (total as f64 * env.policy.min_reduction).ceil() as u64;
    (best < minimum).then(|| {
        let reason = format!(
            "not worth a summary: at best {best} of {total} tokens saved, under the minimum reduction of {}%",
            shortest(env.policy.min_reduction * 100.0)
        );
        (reason, "a summary is not worth it (minReduction)")
    })
}

/// Our earlier summaries (standing alone between other messages) join the chosen stretches, so
/// the next summary folds them in instead of leaving one summary per call behind.
fn with_earlier_summaries(
    transcript: &Transcript,
    chosen: Vec<Stretch>,
    env: &TierEnv<'_>,
) -> Vec<Stretch> {
    let protection = protection(transcript, env);
    let earlier: Vec<Stretch> = (0..transcript.messages.len())
        .filter(|i| {
            let message = &transcript.messages[*i];
            !protection.is_protected(*i)
                && is_ours(message)
                && summary_coverage(message).is_some()
                && !chosen.iter().any(|s| s.range.contains(i))
        })
        .map(Stretch::earlier_summary)
        .collect();
    joined(earlier.into_iter().chain(chosen).collect())
}

async fn summarise(
    working: &Working<'_>,
    stretches: &[Stretch],
    fresh: &str,
    env: &TierEnv<'_>,
) -> Summarised {
    let transcript = &working.transcript;
    let ranges: Vec<Range<usize>> = stretches.iter().map(|s| s.range.clone()).collect();
    let marker = match kind_of(stretches) {
        ArchiveKind::Turn => markers::CONVERSATION_SUMMARY,
        _ => markers::RUN_SUMMARY,
    };
    let (request, replaced, directives) = request(working, &ranges, env);
    // The heading is ours, not the summariser's, and so are the messages that keep roles
    // alternating around what is replaced: leave room for them in the never-grows check.
    let heading_tokens = env
        .counter
        .count(&markers::summary_heading(marker, replaced));
    let room = replaced
        .saturating_sub(heading_tokens + 1 + role_keeping_tokens(transcript, stretches, env));
    // A refused answer is replaced by digests chosen afresh, not by this text.
    let outcome = summarise::summarise_or_digest(
        env.summariser,
        request,
        &directives,
        room,
        env.counter,
        &String::new,
    )
    .await;
    if outcome.degraded {
        return Summarised::Refused {
            warning: outcome.warning.unwrap_or_default(),
            usage: outcome.usage,
        };
    }
    let heading = markers::summary_heading(marker, covered(transcript, &ranges, env));
    let text = if outcome.text.starts_with(&heading) {
        outcome.text
    } else {
        format!("{heading}\n{}", outcome.text)
    };
    Summarised::Done(Plan {
        edits: edits(transcript, stretches, &text),
        reason: format!("replaced {fresh} by one summary"),
        summariser_usage: outcome.usage,
        ..Plan::default()
    })
}

/// The request for messages `ranges`, the tokens they hold and the directives it asks to keep
/// (the user's own and those our earlier summaries carried).
fn request(
    working: &Working<'_>,
    ranges: &[Range<usize>],
    env: &TierEnv<'_>,
) -> (SummaryRequest, u64, Vec<String>) {
    let transcript = &working.transcript;
    let replaced = ranges_tokens(transcript, ranges, env.counter);
    let must_keep = must_keep::collect(transcript, ranges);
    let directives = must_keep.directives().to_vec();
    let rendered = ranges
        .iter()
        .map(|r| render(transcript, r.clone()))
        .collect::<Vec<_>>()
        .join("\n\n");
    let messages = request_messages(working, ranges);
    let request = env.summary_request(super::TIER, rendered, messages, replaced, must_keep);
    (request, replaced, directives)
}

/// The summary `text` where the last of `stretches` was; the earlier ones removed (or, where
/// their removal would break the role order, a pointer to it).
fn edits(transcript: &Transcript, stretches: &[Stretch], text: &str) -> Vec<Edit> {
    let last = stretches.len().saturating_sub(1);
    let kind = kind_of(stretches);
    stretches
        .iter()
        .enumerate()
        .map(|(i, stretch)| {
            let range = stretch.range.clone();
            let text = if i == last {
                Some(for_format(transcript, text.to_string(), range.end))
            } else {
                needs_pointer(transcript, range.clone())
                    .then(|| for_format(transcript, markers::FOLDED.to_string(), range.end))
            };
            Edit::ReplaceMessages {
                range,
                text,
                kind,
                is_summary: true,
            }
        })
        .collect()
}

/// Tokens of what the plan adds besides the summary in a format whose roles alternate: the
/// pointers that stand where earlier stretches were ([`needs_pointer`]) and the bridge the
/// summary may need between its neighbours ([`bridge_tokens`]).
fn role_keeping_tokens(transcript: &Transcript, stretches: &[Stretch], env: &TierEnv<'_>) -> u64 {
    let Some((last, earlier)) = stretches.split_last() else {
        return 0;
    };
    let pointers = earlier
        .iter()
        .filter(|stretch| needs_pointer(transcript, stretch.range.clone()))
        .count() as u64;
    pointers * env.counter.count(markers::FOLDED)
        + bridge_tokens(transcript, last.range.clone(), env)
}

/// Whether removing messages `range` would leave two messages of one role side by side, or an
/// assistant first, in a format whose roles alternate: then a pointer to the summary stands
/// there instead (the adapter gives it the role that fits).
fn needs_pointer(transcript: &Transcript, range: Range<usize>) -> bool {
    if !crate::formats::registry::alternates(transcript.format) {
        return false;
    }
    let side = |message: &Message| message.role == Role::Assistant;
    let before = range
        .start
        .checked_sub(1)
        .and_then(|i| transcript.messages.get(i));
    match (before, transcript.messages.get(range.end)) {
        (Some(before), Some(after)) => side(before) == side(after),
        (None, Some(after)) => side(after),
        (_, None) => false,
    }
}

/// The stretches' messages in the caller's format (flat text: their rendered text).
fn request_messages(working: &Working<'_>, ranges: &[Range<usize>]) -> Vec<serde_json::Value> {
    match &working.context {
        Current::Text(_) => ranges
            .iter()
            .map(|r| serde_json::Value::String(render(&working.transcript, r.clone())))
            .collect(),
        Current::Messages(values) => ranges
            .iter()
            .flat_map(|r| r.clone())
            .filter_map(|i| match working.transcript.messages[i].source {
                crate::transcript::Source::Index(at) => values.get(at).map(|v| v.as_ref().clone()),
                crate::transcript::Source::Span { .. } => None,
            })
            .collect(),
    }
}

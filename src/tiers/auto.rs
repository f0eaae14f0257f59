//! `auto` (weight 0.50): on a live session past the context threshold, take the model-free
//! reductions first — micro's stubs outside the protected tail, thinking blocks outside it to
//! the archive, media stripped (base64 images, documents, files → a placeholder naming type, size
//! and SHA-256) — then replace the older tool runs by a summary from the host's summariser — or,
//! without one, by a structural digest of each run (tools, outcomes, the lines that matter and the
//! paths). System prompts, the task, the tail and `excludeTools` are kept; pairs are never split.
//!
//! With a summariser, all older runs go into ONE request and the summary stands where the last
//! of them was (earlier runs are removed): one model call per compaction keeps cost predictable,
//! and the summary then reads as "what happened so far" right before the live turn. Digests are
//! local and free, so each run gets its own, in place.

use super::Rule;
use super::{TierEnv, range_tokens, shrinking};
use crate::base::decimal::shortest;
use crate::config::PolicyConfig;
use crate::digest;
use crate::markers;
use crate::must_keep;
use crate::plan::{ArchiveKind, Edit, Plan, place_id};
use crate::pressure::BudgetPressure;
use crate::summarise;
use crate::tier::Tier;
use crate::transcript::pairing::closed_ranges;
use crate::transcript::protect::Protection;
use crate::transcript::render::render;
use crate::transcript::{Block, BlockKind, Format, Message, Transcript, message_tokens};
use crate::working::Working;
use std::ops::Range;

/// This tier.
pub const TIER: Tier = Tier::Auto;

/// Fires on a live session at or above `auto_context_pct` of the window.
pub fn trigger(pressure: &BudgetPressure, policy: &PolicyConfig) -> Option<Rule> {
    (!pressure.session_complete && pressure.context_pct_used >= policy.auto_context_pct)
        .then_some(Rule(rule))
}

fn rule(pressure: &BudgetPressure, policy: &PolicyConfig) -> String {
    format!(
        "context use {} >= {} on a live session",
        shortest(pressure.context_pct_used),
        shortest(policy.auto_context_pct)
    )
}

/// Takes the model-free reductions first (micro's stubs, thinking outside the tail, media),
/// then summarises (or digests) the older tool runs.
pub async fn compact(working: &mut Working<'_>, env: &TierEnv<'_>) -> crate::error::Result<()> {
    let stubs = super::micro::plan(&working.transcript, env, working.plans_applied)?;
    working.apply(stubs)?;
    let thinking = archive_thinking(&working.transcript, env, working.plans_applied);
    working.apply(thinking)?;
    let media = strip_media(&working.transcript, env);
    working.apply(media)?;
    let runs = older_runs(&working.transcript, env);
    if runs.is_empty() {
        working
            .notes
            .push("no older tool run outside protected content".into());
        return Ok(());
    }
    let plan = match env.summariser {
        None => digest_runs(&working.transcript, runs, env, working.plans_applied),
        Some(_) => {
            let runs = with_earlier_summaries(&working.transcript, runs, env);
            match loop_guard(&working.transcript, &runs, env) {
                Some(reason) => Plan::unchanged(reason),
                None => summarise_runs(working, &runs, env).await,
            }
        }
    };
    working.apply(plan)
}

/// Thinking and reasoning blocks outside protected content go to the archive, each on its own
/// (as Anthropic's `clear_thinking` does); their messages keep their text and tool calls.
fn archive_thinking(transcript: &Transcript, env: &TierEnv<'_>, seq: usize) -> Plan {
    block_plan(
        transcript,
        env,
        "archived {} thinking block(s)",
        |index, at, block| {
            if block.kind != BlockKind::Thinking || markers::is_collapsed_body(&block.text) {
                return None;
            }
            let id = place_id(env.correlation_id, seq, index, at as u64);
            Some((
                markers::thinking_archived(block.chars(), &id),
                ArchiveKind::Thinking,
            ))
        },
    )
}

/// Media placeholders for inline media outside protected content.
fn strip_media(transcript: &Transcript, env: &TierEnv<'_>) -> Plan {
    block_plan(
        transcript,
        env,
        "stripped {} inline media block(s)",
        |_, _, block| match &block.kind {
            BlockKind::Media { inline: true, .. } => {
                Some((crate::media::placeholder(block), ArchiveKind::Media))
            }
            _ => None,
        },
    )
}

/// The plan that replaces each block outside protected content for which `replace` (given the
/// message index, the block index and the block) has a text, where it saves tokens; `done`
/// says what was done, `{}` standing for how many.
fn block_plan(
    transcript: &Transcript,
    env: &TierEnv<'_>,
    done: &str,
    replace: impl Fn(usize, usize, &Block<'_>) -> Option<(String, ArchiveKind)>,
) -> Plan {
    let protection = protection(transcript, env);
    let mut edits = Vec::new();
    for (index, message) in transcript.messages.iter().enumerate() {
        if protection.is_protected(index) {
            continue;
        }
        for (at, block) in message.blocks.iter().enumerate() {
            if let Some((text, kind)) = replace(index, at, block) {
                edits.push(Edit::ReplaceBlock {
                    message: index,
                    block: at,
                    text,
                    kind,
                });
            }
        }
    }
    let edits = shrinking(transcript, edits, env.counter);
    let reason = match edits.len() {
        0 => String::new(),
        count => done.replace("{}", &count.to_string()),
    };
    Plan {
        edits,
        reason,
        ..Plan::default()
    }
}

/// What auto keeps whole: system prompts, the task, the newest user words, the tail and the
/// excluded tools.
fn protection(transcript: &Transcript, env: &TierEnv<'_>) -> Protection {
    Protection::summarising(
        transcript,
        env.policy.keep_recent_steps,
        &env.policy.exclude_tools,
    )
}

/// The older tool runs: maximal stretches of agent messages outside protected content, closed
/// under pairing, trimmed to start and end at a tool call or result.
pub fn older_runs(transcript: &Transcript, env: &TierEnv<'_>) -> Vec<Range<usize>> {
    let protection = protection(transcript, env);
    let candidates: Vec<bool> = transcript
        .messages
        .iter()
        .enumerate()
        .map(|(index, message)| !protection.is_protected(index) && !message.has_user_words())
        .collect();
    closed_ranges(transcript, &candidates)
        .into_iter()
        .filter_map(|range| trim_to_tools(transcript, range))
        .collect()
}

fn trim_to_tools(transcript: &Transcript, range: Range<usize>) -> Option<Range<usize>> {
    let is_tool = |i: &usize| transcript.messages[*i].has_tool_blocks();
    let start = range.clone().find(is_tool)?;
    let end = range.clone().rev().find(is_tool)? + 1;
    Some(start..end)
}

/// Tokens of original context that `range` stands for: a run summary counts what it covers
/// (from its heading), anything else its own tokens.
fn covered(transcript: &Transcript, range: Range<usize>, env: &TierEnv<'_>) -> u64 {
    transcript.messages[range]
        .iter()
        .map(|message| match summary_coverage(message) {
            Some(covered) => covered,
            None => message_tokens(message, env.counter),
        })
        .sum()
}

/// What a run summary of ours covers, read back from its heading.
fn summary_coverage(message: &Message) -> Option<u64> {
    let heading = message.blocks.first()?;
    message
        .is_library_summary
        .then(|| markers::covered_tokens(&heading.text))
        .flatten()
}

/// The loop guard. A context that already holds our summary is summarised again only once the
/// conversation it stands for has grown by `resummarise_growth`: the new runs must reach
/// `(growth - 1) ×` what the summaries cover. The covered total grows with each summary, so calls
/// thin out geometrically (a host calling at constant pressure every turn pays a handful, not one
/// per turn). Then, before paying for a call, the best case (everything replaced by a summary of
/// `target_tokens`) must reach `min_reduction`.
fn loop_guard(transcript: &Transcript, runs: &[Range<usize>], env: &TierEnv<'_>) -> Option<String> {
    let messages = || {
        runs.iter()
            .flat_map(|r| transcript.messages[r.clone()].iter())
    };
    let summarised: u64 = messages().filter_map(summary_coverage).sum();
    let fresh: u64 = messages()
        .filter(|m| summary_coverage(m).is_none())
        .map(|m| message_tokens(m, env.counter))
        .sum();
    let needed = (summarised as f64 * (env.policy.resummarise_growth - 1.0)).ceil() as u64;
    if summarised > 0 && fresh < needed {
        return Some(format!(
            "already summarised: {fresh} new tokens since a summary covering {summarised}, under resummariseGrowth {} (needs {needed})",
            shortest(env.policy.resummarise_growth)
        ));
    }
    let replaced: u64 = runs
        .iter()
        .map(|r| range_tokens(transcript, r.clone(), env.counter))
        .sum();
    let total = transcript.count_tokens(env.counter).max(1);
    let target = summarise::target_tokens(replaced, env.pressure.context_pct_used);
    let best = replaced.saturating_sub(target);
    let minimum = (total as f64 * env.policy.min_reduction).ceil() as u64;
    (best < minimum).then(|| {
        format!(
            "not worth a summary: at best {best} of {total} tokens saved, under the minimum reduction of {}%",
            shortest(env.policy.min_reduction * 100.0)
        )
    })
}

/// Our earlier run summaries (standing alone between user messages) join the new runs, so the
/// next summary folds them in instead of leaving one summary per call behind.
fn with_earlier_summaries(
    transcript: &Transcript,
    runs: Vec<Range<usize>>,
    env: &TierEnv<'_>,
) -> Vec<Range<usize>> {
    let protection = protection(transcript, env);
    // A summary inside a run is replaced with the run; listing it again would overlap.
    let earlier: Vec<Range<usize>> = (0..transcript.messages.len())
        .filter(|i| {
            !protection.is_protected(*i)
                && summary_coverage(&transcript.messages[*i]).is_some()
                && !runs.iter().any(|run| run.contains(i))
        })
        .map(|i| i..i + 1)
        .collect();
    let all: Vec<Range<usize>> = earlier.into_iter().chain(runs).collect();
    crate::base::sort::sorted_by_key(all, &|r: &Range<usize>| r.start)
}

fn digest_runs(
    transcript: &Transcript,
    runs: Vec<Range<usize>>,
    env: &TierEnv<'_>,
    seq: usize,
) -> Plan {
    let structured = transcript.format != Format::Text;
    let edits: Vec<Edit> = runs
        .into_iter()
        .map(|run| {
            // The digest names the entry that holds the run (and the stubs inside it).
            let id = structured.then(|| {
                place_id(
                    env.correlation_id,
                    seq,
                    run.start,
                    u64::MAX - run.end as u64,
                )
            });
            Edit::ReplaceMessages {
                text: Some(for_format(
                    transcript,
                    digest::run_digest(transcript, run.clone(), id.as_deref()),
                )),
                range: run,
                kind: ArchiveKind::Run,
                is_summary: true,
            }
        })
        .collect();
    let edits = shrinking(transcript, edits, env.counter);
    let reason = format!(
        "replaced {} older tool run(s) by structural digests",
        edits.len()
    );
    Plan {
        edits,
        reason,
        ..Plan::default()
    }
}

async fn summarise_runs(working: &Working<'_>, runs: &[Range<usize>], env: &TierEnv<'_>) -> Plan {
    let transcript = &working.transcript;
    let replaced: u64 = runs
        .iter()
        .map(|r| range_tokens(transcript, r.clone(), env.counter))
        .sum();
    let must_keep = must_keep::collect(transcript, runs);
    let rendered = runs
        .iter()
        .map(|r| render(transcript, r.clone()))
        .collect::<Vec<_>>()
        .join("\n\n");
    let messages = request_messages(working, runs);
    let request = env.summary_request(TIER, rendered, messages, replaced, must_keep);
    let digest = || {
        runs.iter()
            .map(|r| digest::run_digest(transcript, r.clone(), None))
            .collect::<Vec<_>>()
            .join("\n")
    };
    // The heading is ours, not the summariser's: leave room for it in the never-grows check.
    let room =
        replaced.saturating_sub(env.counter.count(&markers::run_summary_heading(replaced)) + 1);
    let outcome =
        summarise::summarise_or_digest(env.summariser, request, room, env.counter, digest).await;
    let heading = if outcome.degraded {
        markers::RUN_DIGEST.to_string()
    } else {
        let covers = runs
            .iter()
            .map(|r| covered(transcript, r.clone(), env))
            .sum();
        markers::run_summary_heading(covers)
    };
    let text = if outcome.text.starts_with(&heading) {
        outcome.text
    } else {
        format!("{heading}\n{}", outcome.text)
    };
    let text = for_format(transcript, text);
    let last = runs.len() - 1;
    let edits = runs
        .iter()
        .enumerate()
        .map(|(i, run)| Edit::ReplaceMessages {
            range: run.clone(),
            text: (i == last).then(|| text.clone()),
            kind: ArchiveKind::Run,
            is_summary: true,
        })
        .collect();
    let how = if outcome.degraded {
        "structural digest (summariser refused)"
    } else {
        "one summary"
    };
    Plan {
        edits,
        reason: format!("replaced {} older tool run(s) by {how}", runs.len()),
        degraded: outcome.degraded,
        warnings: outcome.warning.into_iter().collect(),
        summariser_usage: outcome.usage,
        ..Plan::default()
    }
}

/// The runs' messages in the caller's format (flat text: the runs' rendered text).
fn request_messages(working: &Working<'_>, runs: &[Range<usize>]) -> Vec<serde_json::Value> {
    match &working.context {
        crate::working::Current::Text(_) => runs
            .iter()
            .map(|r| serde_json::Value::String(render(&working.transcript, r.clone())))
            .collect(),
        crate::working::Current::Messages(values) => runs
            .iter()
            .flat_map(|r| r.clone())
            .filter_map(|i| match working.transcript.messages[i].source {
                crate::transcript::Source::Index(at) => values.get(at).map(|v| v.as_ref().clone()),
                crate::transcript::Source::Span { .. } => None,
            })
            .collect(),
    }
}

/// Our text as it must be written into `transcript`'s format (inert as flat text).
fn for_format(transcript: &Transcript, text: String) -> String {
    match transcript.format {
        Format::Text => markers::inert_in_flat_text(&text),
        _ => text,
    }
}

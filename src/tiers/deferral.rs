//! Cache-aware batches for the tiers that can wait (micro, time_based; docs/design.md §11). micro's stubs
//! move in batches ([`super::frontier`]); with a warm prompt cache, a batch is made only when
//! what it saves over the expected remaining calls is worth more than rewriting the cached
//! prefix after its first edit. Otherwise it is deferred, and the output is the previous call's:
//! the stubs before the frontier stay, the batch waits, whole, until it pays. auto and
//! session_memory never wait: the window is at risk.

use super::edit_saving;
use super::frontier::{advance, saving_per_step, split, written_frontier};
use crate::base::decimal::shortest;
use crate::plan::working::Working;
use crate::plan::{ArchiveKind, Edit, Plan};
use crate::policy::cache::{CacheModel, CacheReport, prefix_tokens};
use crate::transcript::steps::Steps;
use crate::transcript::{Format, Transcript};

/// micro's `plan` (every stub outside the tail) cut at the frontier: the stubs of the steps
/// before where the frontier stood (kept: the previous call wrote them), and the next batch when
/// one has closed and is worth its rewrite. Records the frontier and, when it defers, what the
/// batch would have cost (`Working::loop_marks`, `Working::cache_report`).
pub fn batched(mut plan: Plan, working: &mut Working<'_>, env: &super::TierEnv<'_>) -> Plan {
    let transcript = &working.transcript;
    if transcript.format == Format::Text {
        // Flat text has no steps: the seed's micro, every block at once.
        return whole(plan, working, env);
    }
    let steps = Steps::of(transcript);
    let start = working
        .loop_marks
        .micro_frontier
        .max(written_frontier(transcript, &steps));
    let saving = saving_per_step(transcript, &steps, &plan.edits, env.counter);
    let candidate = advance(&saving, start, env.policy.cache.batch_tokens);
    let (applied, pending) = split(&steps, std::mem::take(&mut plan.edits), candidate);
    let (mut kept, batch) = split(&steps, applied, start);
    let mut frontier = candidate;
    let decision = decide(&kept, &batch, transcript, env);
    if let Some(report) = decision.filter(|report| report.deferred) {
        frontier = start;
        plan.reason = deferred_reason(&batch, &report, env);
        working.cache_report = Some(report);
    } else {
        kept.extend(batch);
    }
    if working.cache_report.is_none() {
        // The stubs made, not every stub outside the tail.
        plan.reason = describe(&kept, env.policy.micro_body_threshold_chars);
    }
    if !pending.is_empty() {
        let waiting: u64 = saving.iter().skip(candidate).sum();
        let batch = env.policy.cache.batch_tokens;
        let wait = format!("wait for a batch ({waiting} of {batch} tokens)");
        plan.reason = match kept.is_empty() && working.cache_report.is_none() {
            true => format!("no stub made yet: {} {wait}", pending.len()),
            false => format!("{}; {} more {wait}", plan.reason, pending.len()),
        };
    }
    working.loop_marks.micro_frontier = frontier;
    plan.edits = kept;
    plan
}

/// Of `micro` (micro's plan), the stubs of the steps before its frontier as the state gave it (time_based, after its
/// own pruning): a cold call that prunes the old steps must not take back the stubs of the
/// younger ones that the previous call made, or the next warm call makes them again and
/// rewrites the cached prefix for nothing.
pub fn kept(working: &Working<'_>, micro: Plan) -> Plan {
    let frontier = working.loop_marks.micro_frontier;
    if frontier == 0 || working.transcript.format == Format::Text {
        return Plan::default();
    }
    let steps = Steps::of(&working.transcript);
    let (kept, _) = split(&steps, micro.edits, frontier);
    let reason = if kept.is_empty() {
        String::new()
    } else {
        format!("kept micro's {} stub(s) before its frontier", kept.len())
    };
    Plan::of(kept, reason)
}

/// `plan` whole, or nothing when the cache is warm and its edits are not worth their rewrite
/// (time_based, which fires on a cold cache, and flat text).
pub fn whole(mut plan: Plan, working: &mut Working<'_>, env: &super::TierEnv<'_>) -> Plan {
    let edits = std::mem::take(&mut plan.edits);
    match decide(&[], &edits, &working.transcript, env).filter(|report| report.deferred) {
        Some(report) => {
            let reason = deferred_reason(&edits, &report, env);
            working.cache_report = Some(report);
            Plan::unchanged(reason)
        }
        None => {
            plan.edits = edits;
            plan
        }
    }
}

/// What making `batch` costs and saves under the call's cache model (`None` without one), with
/// `kept` (earlier edits the previous call already made) before it: the batch invalidates the
/// cached prefix from its first edit on, as the output of `kept` measures it.
fn decide(
    kept: &[Edit],
    batch: &[Edit],
    transcript: &Transcript<'_>,
    env: &super::TierEnv<'_>,
) -> Option<CacheReport> {
    let model: &CacheModel = env.cache.as_ref()?;
    let first = batch.first()?.first_message();
    let prefixes = prefix_tokens(transcript, env.counter);
    let kept_before: u64 = kept
        .iter()
        .filter(|edit| edit.first_message() < first)
        .map(|edit| edit_saving(transcript, edit, env.counter))
        .sum();
    let prefix = prefixes
        .get(first)
        .copied()
        .unwrap_or(0)
        .saturating_sub(kept_before);
    let saved: u64 = batch
        .iter()
        .map(|edit| edit_saving(transcript, edit, env.counter))
        .sum();
    let mut report = model.report(prefix, saved);
    report.deferred = model.warm && report.expected_savings_usd <= report.rewrite_cost_usd;
    Some(report)
}

fn deferred_reason(batch: &[Edit], report: &CacheReport, env: &super::TierEnv<'_>) -> String {
    let steps = env.cache.map_or(0, |model| model.remaining_steps);
    format!(
        "cache warm: deferred a batch of {} edit(s): expected savings {} USD over {steps} calls <= rewrite cost {} USD of {} cached tokens",
        batch.len(),
        usd(report.expected_savings_usd),
        usd(report.rewrite_cost_usd),
        report.invalidated_tokens,
    )
}

/// A price as a reason writes it: six decimals, enough for cents of a cent.
fn usd(value: f64) -> String {
    shortest((value * 1e6).round() / 1e6)
}

/// What `edits` (micro's stubs) do, in words.
pub fn describe(edits: &[Edit], threshold: usize) -> String {
    let inputs = edits
        .iter()
        .filter(|edit| {
            matches!(
                edit,
                Edit::ReplaceBlock {
                    kind: ArchiveKind::ToolInput,
                    ..
                }
            )
        })
        .count();
    match (edits.len() - inputs, inputs) {
        (0, 0) => format!(
            "no tool-result body or input over {threshold} chars outside the protected tail"
        ),
        (results, 0) => format!(
            "stubbed {results} tool-result bodies over {threshold} chars outside the protected tail"
        ),
        (results, inputs) => format!(
            "stubbed {results} tool-result bodies and {inputs} tool inputs over {threshold} chars outside the protected tail"
        ),
    }
}

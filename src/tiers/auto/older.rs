//! Past the cheap reductions: the oldest tool runs, then older conversation, chosen to the
//! budget and replaced in one plan (one summariser request, or a digest per stretch).

use super::budget::{Budget, Stage};
use super::select::Choice;
use super::summary::Summarised;
use super::units::Units;
use super::{digests, protection, select, summary, units};
use crate::plan::Plan;
use crate::plan::working::Working;
use crate::tiers::TierEnv;
use crate::transcript::Format;

/// Replaces what the budget still needs from the older context; returns the budget's note.
pub async fn reduce(
    working: &mut Working<'_>,
    env: &TierEnv<'_>,
    budget: &Budget,
) -> crate::error::Result<String> {
    if working.format() == Format::Text {
        // Prose in paragraphs, so that only the oldest part of a long text need go.
        working.read_text_sections();
    }
    let now = working.tokens(env.counter);
    let transcript = &working.transcript;
    let pieces = units::of(transcript, &protection(transcript, env));
    let by_summary = env.summariser.is_some();
    let to_save = match by_summary {
        true => budget.needed_by_summary(now),
        false => budget.still_needed(now),
    };
    let choice = select::choose(transcript, &pieces, to_save, by_summary, env);
    if choice.stretches.is_empty() {
        return Ok(budget.short_note(Stage::OlderConversation, "nothing more can go", now));
    }
    let (plan, held_back, choice) = plan_for(working, env, budget, &pieces, choice, now).await;
    let stage = if choice.reached_talk {
        Stage::OlderConversation
    } else {
        Stage::ToolRuns
    };
    working.apply(plan)?;
    let after = working.tokens(env.counter);
    if budget.met(after) {
        return Ok(budget.met_note(stage, after));
    }
    let why = match held_back {
        Some(why) => why,
        None if choice.everything => "nothing more can go",
        // One plan per call: a second one would take a new summariser call (and the archive
        // undoes one plan's ranges at a time).
        None => "it saved less than estimated",
    };
    Ok(budget.short_note(stage, why, after))
}

/// The plan that replaces `choice`, why the loop guard held a summary back (if it did), and the
/// choice the plan is for: a refused summary is replaced by digests, chosen afresh for what
/// digests save (less than a summary).
async fn plan_for(
    working: &Working<'_>,
    env: &TierEnv<'_>,
    budget: &Budget,
    pieces: &Units,
    choice: Choice,
    now: u64,
) -> (Plan, Option<&'static str>, Choice) {
    let transcript = &working.transcript;
    if env.summariser.is_none() {
        return (
            digests::plan(transcript, &choice.stretches, env),
            None,
            choice,
        );
    }
    match summary::plan(working, choice.stretches.clone(), env).await {
        Summarised::Done(plan) => (plan, None, choice),
        Summarised::HeldBack(plan, why) => (plan, Some(why), choice),
        Summarised::Refused { warning, usage } => {
            let choice = select::choose(transcript, pieces, budget.still_needed(now), false, env);
            let mut plan = digests::plan(transcript, &choice.stretches, env);
            plan.reason.push_str(" (summariser refused)");
            plan.degraded = true;
            plan.warnings.push(warning);
            plan.summariser_usage = usage;
            (plan, None, choice)
        }
    }
}

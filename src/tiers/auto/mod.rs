//! `auto` (weight 0.50): on a live session past the context threshold, work the context down to
//! `policy.autoTargetPct` of the window (by the pressure's own measure), cheapest reductions
//! first, stopping as soon as the target is met:
//!
//! 1. micro's stubs outside the protected tail, inline media replaced by a placeholder (type,
//!    size, SHA-256), thinking blocks outside the tail to the archive ([`cheap`]; no model);
//! 2. the oldest tool runs, then older conversation ([`units`], [`select`]), by one summary from
//!    the host's summariser ([`summary`]) or, without one, a structural digest per stretch
//!    ([`digests`]).
//!
//! Already at or under the target (a forced call), auto makes only the model-free reductions of
//! step 1 and calls no summariser. System prompts, the task, the newest user words, the tail and
//! `excludeTools` are kept; pairs are never split; the reason says where auto stopped and why
//! ([`budget`]).

mod budget;
mod cheap;
mod digests;
mod older;
mod select;
mod stretch;
mod summary;
mod units;

use super::Rule;
use super::TierEnv;
use crate::base::decimal::shortest;
use crate::config::PolicyConfig;
use crate::plan::working::Working;
use crate::policy::pressure::BudgetPressure;
use crate::policy::tier::Tier;
use crate::transcript::Transcript;
use crate::transcript::protect::Protection;
use budget::{Budget, Stage};

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

/// Works the context down to the budget: the model-free reductions first, then the older
/// context by a summary (or digests), until the target is met or nothing more can go.
pub async fn compact(working: &mut Working<'_>, env: &TierEnv<'_>) -> crate::error::Result<()> {
    let before = working.tokens(env.counter);
    let budget = Budget::new(env.pressure.context_pct_used, env.policy, before);
    let mut now = before;
    for stage in Stage::CHEAP {
        let plan = cheap::plan(stage, &working.transcript, env);
        working.apply(plan)?;
        now = working.tokens(env.counter);
        if !budget.met_at_start() && budget.met(now) {
            working.notes.push(budget.met_note(stage, now));
            return Ok(());
        }
    }
    let note = if budget.met_at_start() {
        budget.under_note(now)
    } else {
        older::reduce(working, env, &budget).await?
    };
    working.notes.push(note);
    Ok(())
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

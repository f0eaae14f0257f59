//! A call as one of a loop's (docs/design.md §11): the state a host passed is admitted or ignored, the
//! decisions it holds are made again before the tier runs, and the state of this call is made
//! from where the decisions stand after it.

use super::{Call, Choice};
use crate::plan::loop_state::{self, Admitted, LoopState};
use crate::plan::working::{Current, Working};
use crate::policy::explain_selection;
use crate::policy::pressure::BudgetPressure;
use crate::policy::tier::Tier;
use crate::tiers::TierEnv;
use crate::tiers::time_based::{self, Stale};
use crate::transcript::steps::Steps;
use crate::transcript::{Block, Message, markers};

/// What this call's messages are to the host's state, read before any repair (the state's
/// fingerprints are of messages as hosts send them). Flat text has no loop state.
pub fn admit(working: &Working<'_>, state: Option<&LoopState>, session_id: &str) -> Admitted {
    match working.context {
        Current::Text(_) => Admitted::None,
        Current::Messages(_) => loop_state::admit(state.cloned(), session_id, &working.transcript),
    }
}

/// Makes again what the state says earlier calls decided: time_based's pruning of the steps
/// before its mark, and micro's frontier (micro's own stubs are made by micro, from it). A state
/// that does not apply leaves its warning. True when it changed the messages.
pub fn reapply(
    working: &mut Working<'_>,
    admitted: &Admitted,
    env: &TierEnv<'_>,
) -> crate::error::Result<bool> {
    let state = match admitted {
        Admitted::Extends(state) => state,
        Admitted::Ignored(why) => {
            working.warnings.push(why.clone());
            return Ok(false);
        }
        Admitted::None | Admitted::Holds => return Ok(false),
    };
    let mut changed = false;
    for plan in &state.replaced {
        let len = working.transcript.messages.len();
        let edits: Option<Vec<_>> = plan
            .iter()
            .map(|replaced| replaced.edit().filter(|edit| edit_fits(edit, len)))
            .collect();
        let Some(edits) = edits else {
            working
                .warnings
                .push("state: a replacement it names does not fit these messages; not made".into());
            break;
        };
        let reason = "state: a summary of an earlier call put in again";
        working.apply(crate::plan::Plan::of(edits, reason.into()))?;
        changed = true;
    }
    let stale = usize::try_from(state.stale_steps).unwrap_or(usize::MAX);
    if stale > 0 {
        let mut plan = time_based::plan(&working.transcript, env, Stale::Before(stale));
        if !plan.edits.is_empty() {
            plan.reason = format!(
                "state: time_based's {} edit(s) of an earlier call made again",
                plan.edits.len()
            );
            working.apply(plan)?;
            changed = true;
        }
    }
    working.loop_marks.micro_frontier = usize::try_from(state.micro_steps).unwrap_or(usize::MAX);
    Ok(changed)
}

/// A replacement's range lies within `len` messages (a history it extends holds them all).
fn edit_fits(edit: &crate::plan::Edit, len: usize) -> bool {
    matches!(edit, crate::plan::Edit::ReplaceMessages { range, .. } if range.start < range.end && range.end <= len)
}

/// The call once the state's decisions are made again: the context the model reads is what they
/// left, so the pressure and the selection are of that (else auto would cut a summarised context
/// again), and the call's id is of that context.
pub struct Replay {
    /// The call's pressure with its context use scaled to the context now.
    pub pressure: BudgetPressure,
    /// The tier to run: chosen again by that pressure when the pressure chose it.
    pub tier: Tier,
    /// Why the tier was chosen again, when it was.
    selected: Option<String>,
    /// The call's correlation id, of the context now.
    correlation_id: String,
}

impl Replay {
    /// The replay of `call` on `working` (the state's decisions made again), whose context was
    /// `before` tokens and is `now`.
    pub fn of(call: &Call<'_, '_>, working: &Working<'_>, (before, now): (u64, u64)) -> Self {
        let (ctx, options) = (call.ctx, call.options);
        let pressure = scaled_pressure(&ctx.pressure, before, now);
        let (tier, selected) = match call.choice {
            Choice::Selected(_) => {
                let selection = explain_selection(&pressure, &options.policy);
                let why = format!(
                    "selected {}: {} (the context with the state's decisions made again)",
                    selection.tier, selection.rule
                );
                (selection.tier, Some(why))
            }
            Choice::Forced(tier) => (tier, None),
        };
        let correlation_id = call.call_id(tier, &working.transcript);
        Self {
            pressure,
            tier,
            selected,
            correlation_id,
        }
    }

    /// Why the tier runs: the new selection's reason, else `why` (the call's).
    pub fn why(&self, why: &str) -> String {
        self.selected.clone().unwrap_or_else(|| why.to_string())
    }

    /// `env` with this pressure and id.
    pub fn env<'e>(&'e self, env: TierEnv<'e>) -> TierEnv<'e> {
        TierEnv {
            pressure: &self.pressure,
            correlation_id: &self.correlation_id,
            ..env
        }
    }
}

/// `pressure` with its context use scaled from `before` tokens to `now` (the same counter).
fn scaled_pressure(pressure: &BudgetPressure, before: u64, now: u64) -> BudgetPressure {
    let mut scaled = *pressure;
    if before > 0 {
        scaled.context_pct_used = pressure.context_pct_used * now as f64 / before as f64;
    }
    scaled
}

/// The state after this call: the fingerprints of what it was given (`input`, read before any
/// repair) and of what it returns, micro's frontier as it stands, and how many steps time_based
/// has pruned (more when time_based ran).
pub fn next_state(
    working: &Working<'_>,
    input: crate::plan::loop_state::Print,
    admitted: &Admitted,
    tier: Tier,
    env: &TierEnv<'_>,
) -> Option<LoopState> {
    if matches!(working.context, Current::Text(_)) {
        return None;
    }
    let extended = match admitted {
        Admitted::Extends(state) => Some(state),
        _ => None,
    };
    let earlier = extended.map_or(0, |state| state.stale_steps);
    let steps = Steps::of(&working.transcript);
    let stale_steps = match tier {
        Tier::TimeBased => {
            let cutoff = usize::try_from(env.policy.max_block_age_steps).unwrap_or(usize::MAX);
            earlier.max(steps.count().saturating_sub(cutoff.saturating_add(1)) as u64)
        }
        // A summary renumbers the steps after it: time_based's mark is where its stubs now end.
        Tier::Auto | Tier::SessionMemory => stale_frontier(working, &steps) as u64,
        _ => earlier,
    };
    // auto stubs every step outside the tail before it summarises: micro's frontier is there. A
    // replacement made by this call renumbers the steps after it, and the frontier with them.
    let micro_steps = match tier {
        Tier::Auto | Tier::SessionMemory => {
            let written = crate::tiers::frontier::written_frontier(&working.transcript, &steps);
            let earlier = extended.map_or(0, |state| state.replaced.len());
            if working.loop_marks.replaced.len() > earlier {
                written
            } else {
                working.loop_marks.micro_frontier.max(written)
            }
        }
        _ => working.loop_marks.micro_frontier,
    };
    Some(LoopState::new(
        env.session_id,
        input,
        loop_state::print(&working.transcript),
        micro_steps as u64,
        stale_steps,
        working.loop_marks.replaced.clone(),
    ))
}

/// The step after the newest one holding a stub time_based wrote (0 if none).
fn stale_frontier(working: &Working<'_>, steps: &Steps) -> usize {
    crate::tiers::frontier::after_newest(&working.transcript, steps, &|message: &Message| {
        let stale = |block: &Block<'_>| markers::is_stale_stub(&block.text);
        message.blocks.iter().any(stale)
    })
}

//! A call as one of a loop's (SPEC §11): the state a host passed is admitted or ignored, the
//! decisions it holds are made again before the tier runs, and the state of this call is made
//! from where the decisions stand after it.

use crate::loop_state::{self, Admitted, LoopState};
use crate::tier::Tier;
use crate::tiers::TierEnv;
use crate::tiers::time_based::{self, Stale};
use crate::transcript::steps::Steps;
use crate::working::{Current, Working};

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
/// that does not apply leaves its warning.
pub fn reapply(
    working: &mut Working<'_>,
    admitted: &Admitted,
    env: &TierEnv<'_>,
) -> crate::error::Result<()> {
    let state = match admitted {
        Admitted::Extends(state) => state,
        Admitted::Ignored(why) => {
            working.warnings.push(why.clone());
            return Ok(());
        }
        Admitted::None | Admitted::Holds => return Ok(()),
    };
    let stale = usize::try_from(state.stale_steps).unwrap_or(usize::MAX);
    if stale > 0 {
        let mut plan = time_based::plan(&working.transcript, env, Stale::Before(stale));
        if !plan.edits.is_empty() {
            plan.reason = format!(
                "state: time_based's {} edit(s) of an earlier call made again",
                plan.edits.len()
            );
            working.apply(plan)?;
        }
    }
    working.loop_marks.micro_frontier = usize::try_from(state.micro_steps).unwrap_or(usize::MAX);
    Ok(())
}

/// The state after this call: the fingerprints of what it was given (`input`, read before any
/// repair) and of what it returns, micro's frontier as it stands, and how many steps time_based
/// has pruned (more when time_based ran).
pub fn next_state(
    working: &Working<'_>,
    input: crate::loop_state::Print,
    admitted: &Admitted,
    tier: Tier,
    env: &TierEnv<'_>,
) -> Option<LoopState> {
    if matches!(working.context, Current::Text(_)) {
        return None;
    }
    let earlier = match admitted {
        Admitted::Extends(state) => state.stale_steps,
        _ => 0,
    };
    let stale_steps = if tier == Tier::TimeBased {
        let cutoff = usize::try_from(env.policy.max_block_age_steps).unwrap_or(usize::MAX);
        let steps = Steps::of(&working.transcript).count();
        earlier.max(steps.saturating_sub(cutoff.saturating_add(1)) as u64)
    } else {
        earlier
    };
    Some(LoopState::new(
        env.session_id,
        input,
        loop_state::print(&working.transcript),
        working.loop_marks.micro_frontier as u64,
        stale_steps,
    ))
}

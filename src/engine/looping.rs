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
    let stale = steps_before(working, state.stale_from);
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
    working.loop_marks.micro_frontier = steps_before(working, state.micro_from);
    Ok(())
}

/// How many steps of the current context start before input message `from`.
fn steps_before(working: &Working<'_>, from: u64) -> usize {
    let steps = Steps::of(&working.transcript);
    steps
        .starts
        .iter()
        .filter(|&&start| {
            working
                .origins
                .get(start)
                .copied()
                .flatten()
                .is_some_and(|origin| (origin as u64) < from)
        })
        .count()
}

/// The state after this call: the fingerprints of what it was given (`input`, read before any
/// repair) and of what it returns, micro's frontier as it stands, and time_based's mark (moved
/// when time_based ran).
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
    let steps = Steps::of(&working.transcript);
    let input_len = input.messages;
    // The input index where step `step` of the output starts (the input's end past the last).
    let input_start = |step: usize| -> u64 {
        steps
            .starts
            .get(step)
            .and_then(|&start| working.origins.get(start..)?.iter().flatten().next())
            .map_or(input_len, |&origin| origin as u64)
    };
    let earlier = match admitted {
        Admitted::Extends(state) => state.stale_from,
        _ => 0,
    };
    let stale_from = if tier == Tier::TimeBased {
        let cutoff = usize::try_from(env.policy.max_block_age_steps).unwrap_or(usize::MAX);
        let stale = steps.count().saturating_sub(cutoff.saturating_add(1));
        earlier.max(if stale > 0 { input_start(stale) } else { 0 })
    } else {
        earlier
    };
    Some(LoopState::new(
        env.session_id,
        input,
        loop_state::print(&working.transcript),
        input_start(working.loop_marks.micro_frontier),
        stale_from,
    ))
}

//! Cache-aware deferral for the tiers that can wait (micro, time_based; SPEC §11): with a warm
//! prompt cache, a plan's edits are made only when what they save over the expected remaining
//! steps is worth more than rewriting the cached prefix they invalidate. auto and session_memory
//! never wait: the window is at risk.

use super::edit_saving;
use crate::base::decimal::shortest;
use crate::cache::{CacheModel, prefix_tokens};
use crate::plan::Plan;
use crate::tokens::TokenCounter;
use crate::transcript::Transcript;

/// [`choose`] under the call's cache model; `plan` as it is without one.
pub fn worth_it(plan: Plan, transcript: &Transcript, env: &super::TierEnv<'_>) -> Plan {
    match &env.cache {
        Some(model) => choose(plan, transcript, model, env.counter),
        None => plan,
    }
}

/// The edits of `plan` worth making under `model`: all of them when the cache is cold; when it
/// is warm, those from the edit point that gives the largest net value (savings minus rewrite),
/// keeping the cached prefix before it, or none when no point is worth it: the plan then changes
/// nothing and its reason names what was deferred and the two figures.
pub fn choose(
    plan: Plan,
    transcript: &Transcript,
    model: &CacheModel,
    counter: &dyn TokenCounter,
) -> Plan {
    if !model.warm || plan.edits.is_empty() {
        return plan;
    }
    let plan = plan.sorted();
    let saved: Vec<u64> = plan
        .edits
        .iter()
        .map(|edit| edit_saving(transcript, edit, counter))
        .collect();
    let prefixes = prefix_tokens(transcript, counter);
    // Taking the edits from `first` on: the savings after it, the cached tokens after its message.
    let net = |first: usize| {
        let saving: u64 = saved[first..].iter().sum();
        let at = plan.edits[first].first_message();
        let invalidated = model.invalidated(prefixes.get(at).copied().unwrap_or(0));
        let value = model.expected_savings(saving);
        let cost = model.rewrite_cost(invalidated);
        (value - cost, value, cost)
    };
    // The earliest start among the best: more edits for the same net value.
    let best = (0..plan.edits.len()).fold(None, |best: Option<(usize, f64)>, first| {
        let (gain, ..) = net(first);
        match best {
            Some((_, top)) if top >= gain => best,
            _ => Some((first, gain)),
        }
    });
    let total: u64 = saved.iter().sum();
    let (all_net, all_value, all_cost) = net(0);
    match best {
        Some((first, gain)) if gain > 0.0 => {
            if first == 0 {
                return plan;
            }
            let deferred = first;
            let mut plan = plan;
            plan.edits.drain(..first);
            plan.reason = format!(
                "{}; cache warm: deferred the {deferred} earliest edit(s), which would rewrite the cached prefix for more than they save",
                plan.reason
            );
            plan
        }
        _ => {
            debug_assert!(all_net <= 0.0);
            Plan::unchanged(format!(
                "cache warm: deferred {} edit(s) saving {total} tokens: expected savings {} USD over {} steps < rewrite cost {} USD of {} cached tokens",
                plan.edits.len(),
                usd(all_value),
                model.remaining_steps,
                usd(all_cost),
                model.invalidated(
                    prefixes
                        .get(plan.edits[0].first_message())
                        .copied()
                        .unwrap_or(0)
                ),
            ))
        }
    }
}

/// A price as a reason writes it: six decimals, enough for cents of a cent.
fn usd(value: f64) -> String {
    shortest((value * 1e6).round() / 1e6)
}

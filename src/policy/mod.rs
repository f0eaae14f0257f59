//! [`select_tier`]: exactly one tier per call, first match wins, in the seed's priority order.
//! The policy only selects: each tier's trigger lives in its own file in `tiers/`, the thresholds
//! in [`crate::config`]. Beside it, what it reads: [`pressure`] (the budget pressure and the
//! cache facts), [`tier`] (the tiers and their cost weights) and [`cache`] (the prompt-cache cost
//! model that may defer a tier's edits).

pub mod cache;
pub mod pressure;
pub mod tier;

pub use crate::config::PolicyConfig;
use crate::policy::pressure::BudgetPressure;
use crate::policy::tier::Tier;

/// A tier choice with the rule that fired, in words (for `TierResult.reason` and the demo page).
#[derive(Debug, Clone, PartialEq)]
pub struct Selection {
    /// The chosen tier.
    pub tier: Tier,
    /// Why: the rule that fired, with the numbers that made it fire.
    pub rule: String,
}

/// Picks exactly one tier for `pressure` under `policy` (seed order, first match wins).
pub fn select_tier(pressure: &BudgetPressure, policy: &PolicyConfig) -> Tier {
    explain_selection(pressure, policy).tier
}

/// [`select_tier`] with the rule that fired, in words: each tier's trigger is asked in the
/// seed's priority order (session_memory, auto, time_based, micro) and the first that fires wins.
pub fn explain_selection(pressure: &BudgetPressure, policy: &PolicyConfig) -> Selection {
    crate::tiers::PRIORITY
        .iter()
        .find_map(|(tier, trigger)| {
            trigger(pressure, policy).map(|rule| Selection {
                tier: *tier,
                rule: (rule.0)(pressure, policy),
            })
        })
        .unwrap_or_else(|| Selection {
            tier: Tier::None,
            rule: "no trigger fired".into(),
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pick(turn: f64, pct: f64, idle: f64, complete: bool) -> Tier {
        let pressure = BudgetPressure::new(turn, pct, idle, complete).unwrap();
        select_tier(&pressure, &PolicyConfig::default())
    }

    #[test]
    fn seed_boundary_table() {
        assert_eq!(pick(3.0, 0.70, 0.0, false), Tier::Auto);
        assert_eq!(pick(3.0, 0.1, 300.0, false), Tier::TimeBased);
        assert_eq!(pick(1.0, 0.3, 0.0, false), Tier::None);
        assert_eq!(pick(2.0, 0.1, 0.0, false), Tier::Micro);
        assert_eq!(pick(5.0, 0.0, 0.0, false), Tier::None);
        assert_eq!(pick(5.0, 0.99, 0.0, true), Tier::SessionMemory);
        assert_eq!(pick(5.0, 0.85, 400.0, false), Tier::Auto);
        assert_eq!(pick(3.0, 0.20, 400.0, false), Tier::TimeBased);
        assert_eq!(pick(3.0, 0.6999, 299.9, false), Tier::Micro);
    }

    #[test]
    fn thresholds_are_per_call() {
        let pressure = BudgetPressure::new(3.0, 0.5, 0.0, false).unwrap();
        let policy = PolicyConfig {
            auto_context_pct: 0.5,
            ..PolicyConfig::default()
        };
        assert_eq!(select_tier(&pressure, &policy), Tier::Auto);
        assert_eq!(
            select_tier(&pressure, &PolicyConfig::default()),
            Tier::Micro
        );
    }

    #[test]
    fn selection_explains_the_rule() {
        let pressure = BudgetPressure::new(3.0, 0.2, 400.0, false).unwrap();
        let selection = explain_selection(&pressure, &PolicyConfig::default());
        assert_eq!(selection.tier, Tier::TimeBased);
        assert!(
            selection.rule.contains("idle 400 s >= 300 s"),
            "{}",
            selection.rule
        );
    }
}

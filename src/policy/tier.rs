//! [`Tier`], the seed's cost weights ([`TIER_COST_WEIGHT`]) and the cost formula.

use crate::error::{CompactionError, Result};
use serde::{Deserialize, Serialize};
use std::fmt;

/// One compaction strategy. Cheapest first, as in the seed's table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Tier {
    /// No trigger fired: the context is returned unchanged at zero cost.
    None,
    /// Collapse long tool-result bodies (structural, no model call).
    Micro,
    /// Drop agent blocks older than the age cutoff (structural, no model call).
    TimeBased,
    /// Work the context down to `autoTargetPct` of the window, cheapest first: stubs, media,
    /// thinking, then the oldest tool runs and older conversation by a summary (model-backed
    /// when a summariser is given) or structural digests.
    Auto,
    /// Build a durable cross-session summary and keep only it (plus protected content).
    SessionMemory,
}

/// The seed's cost weights: a multiplier on the per-token rate, per tier.
pub const TIER_COST_WEIGHT: [(Tier, f64); 5] = [
    (Tier::None, 0.0),
    (Tier::Micro, 0.05),
    (Tier::TimeBased, 0.10),
    (Tier::Auto, 0.50),
    (Tier::SessionMemory, 1.00),
];

impl Tier {
    /// Every tier, cheapest first.
    pub const ALL: [Tier; 5] = [
        Tier::None,
        Tier::Micro,
        Tier::TimeBased,
        Tier::Auto,
        Tier::SessionMemory,
    ];

    /// The wire name (`"time_based"`).
    pub fn as_str(self) -> &'static str {
        match self {
            Tier::None => "none",
            Tier::Micro => "micro",
            Tier::TimeBased => "time_based",
            Tier::Auto => "auto",
            Tier::SessionMemory => "session_memory",
        }
    }

    /// Parses a wire name; `field` names the option in the error.
    pub fn parse(name: &str, field: &str) -> Result<Self> {
        Tier::ALL
            .into_iter()
            .find(|tier| tier.as_str() == name)
            .ok_or_else(|| {
                let names = r#""none", "micro", "time_based", "auto", "session_memory""#;
                CompactionError::type_error(field, format!("must be one of {names}, got {name:?}"))
            })
    }

    /// The seed's default cost weight of this tier.
    pub fn default_cost_weight(self) -> f64 {
        // The table is in declaration order.
        TIER_COST_WEIGHT[self as usize].1
    }

    /// Whether this tier may call the summariser.
    pub fn summarises(self) -> bool {
        matches!(self, Tier::Auto | Tier::SessionMemory)
    }
}

impl fmt::Display for Tier {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// `tokens_saved / 1000 × cost_per_1k_tokens × weight`, unrounded (`docs/design.md`, "Cost").
pub fn cost_estimate(tokens_saved: u64, cost_per_1k_tokens: f64, weight: f64) -> f64 {
    tokens_saved as f64 / 1000.0 * cost_per_1k_tokens * weight
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn weights_match_the_seed() {
        assert_eq!(Tier::None.default_cost_weight(), 0.0);
        assert_eq!(Tier::Micro.default_cost_weight(), 0.05);
        assert_eq!(Tier::TimeBased.default_cost_weight(), 0.10);
        assert_eq!(Tier::Auto.default_cost_weight(), 0.50);
        assert_eq!(Tier::SessionMemory.default_cost_weight(), 1.00);
    }

    #[test]
    fn names_round_trip_and_unknown_is_rejected() {
        for tier in Tier::ALL {
            assert_eq!(Tier::parse(tier.as_str(), "tier").unwrap(), tier);
        }
        let e = Tier::parse("huge", "tier").unwrap_err();
        assert!(e.to_string().starts_with("tier must be one of"));
    }

    #[test]
    fn seed_cost_of_micro_example() {
        let cost = cost_estimate(232 - 36, 0.003, Tier::Micro.default_cost_weight());
        assert!((cost - 0.0000294).abs() < 1e-12);
    }
}

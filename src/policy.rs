//! [`PolicyConfig`] (every threshold of the design, with the seed's defaults) and
//! [`select_tier`]: exactly one tier per call, first match wins, in the seed's priority order.
//! The policy only selects; what a tier does lives in `tiers/`.

use crate::error::{CompactionError, Result, describe_number};
use crate::input::{MAX_SAFE_INTEGER, Scalar, optional_integer, optional_number};
use crate::limits::Limits;
use crate::pressure::BudgetPressure;
use crate::pressure::json_type;
use crate::tier::Tier;

/// Thresholds of the policy and the tiers, and the input limits. `Default` gives the seed's values
/// (and generous limits); each is per call.
#[derive(Debug, Clone, PartialEq)]
pub struct PolicyConfig {
    /// `auto` fires at or above this fraction of the context window (seed: 0.70).
    pub auto_context_pct: f64,
    /// `time_based` fires at or above this idle time in seconds (seed: 300).
    pub idle_seconds: f64,
    /// `micro` fires from this turn on (seed: 2).
    pub micro_min_turn: u64,
    /// `micro` fires above this fraction of the window (seed: 0, "mild" use).
    pub micro_min_context_pct: f64,
    /// Tool-result bodies longer than this many code points are collapsed by `micro` (seed: 240).
    pub micro_body_threshold_chars: usize,
    /// Code points of a collapsed body that `micro` keeps (seed: 80).
    pub micro_keep_head_chars: usize,
    /// Blocks older than this many turns are pruned by `time_based` (seed: 5).
    pub max_block_age_turns: u64,
    /// Code points per token of the seed's estimator (seed: 4).
    pub chars_per_token: u32,
    /// Cost weights per tier, in [`Tier::ALL`] order (seed: 0, 0.05, 0.10, 0.50, 1.00).
    pub cost_weights: [f64; 5],
    /// A summarising tier that cannot save at least this fraction returns the input (0.10).
    pub min_reduction: f64,
    /// A context holding our summary is summarised again only after growing by this factor (1.5).
    pub resummarise_growth: f64,
    /// Largest input and deepest nesting accepted (32 MiB, 64 levels), checked before reading.
    pub limits: Limits,
}

impl Default for PolicyConfig {
    fn default() -> Self {
        Self {
            auto_context_pct: 0.70,
            idle_seconds: 300.0,
            micro_min_turn: 2,
            micro_min_context_pct: 0.0,
            micro_body_threshold_chars: 240,
            micro_keep_head_chars: 80,
            max_block_age_turns: 5,
            chars_per_token: 4,
            cost_weights: Tier::ALL.map(Tier::default_cost_weight),
            min_reduction: 0.10,
            resummarise_growth: 1.5,
            limits: Limits::default(),
        }
    }
}

impl PolicyConfig {
    /// The configured cost weight of `tier`.
    pub fn cost_weight(&self, tier: Tier) -> f64 {
        let index = Tier::ALL.iter().position(|t| *t == tier).unwrap_or(0);
        self.cost_weights[index]
    }

    /// The option names a host may set, as they are spelled in JS.
    pub const FIELDS: [&'static str; 13] = [
        "autoContextPct",
        "idleSeconds",
        "microMinTurn",
        "microMinContextPct",
        "microBodyThresholdChars",
        "microKeepHeadChars",
        "maxBlockAgeTurns",
        "charsPerToken",
        "costWeights",
        "minReduction",
        "resummariseGrowth",
        "maxInputBytes",
        "maxNestingDepth",
    ];

    /// Reads overrides from a host's options object: `field(name)` fetches each option of
    /// [`Self::FIELDS`] and `cost_weight(tier)` each entry of `costWeights` (absent ones,
    /// [`Scalar::Missing`], keep the seed's default). Errors are relative (`autoContextPct ...`,
    /// `costWeights.auto ...`); the result is validated.
    pub fn from_fields(
        field: &dyn Fn(&'static str) -> Result<Scalar>,
        cost_weight: &dyn Fn(&'static str) -> Result<Scalar>,
    ) -> Result<Self> {
        let mut policy = Self::default();
        let number = |name: &'static str| optional_number(name, field(name)?);
        let integer = |name: &'static str, max: f64| optional_integer(name, field(name)?, max);
        let chars = f64::from(u32::MAX);
        set(&mut policy.auto_context_pct, number("autoContextPct")?);
        set(&mut policy.idle_seconds, number("idleSeconds")?);
        set(
            &mut policy.micro_min_turn,
            integer("microMinTurn", MAX_SAFE_INTEGER)?,
        );
        set(
            &mut policy.micro_min_context_pct,
            number("microMinContextPct")?,
        );
        set(
            &mut policy.micro_body_threshold_chars,
            integer("microBodyThresholdChars", chars)?.map(|v| v as usize),
        );
        set(
            &mut policy.micro_keep_head_chars,
            integer("microKeepHeadChars", chars)?.map(|v| v as usize),
        );
        set(
            &mut policy.max_block_age_turns,
            integer("maxBlockAgeTurns", MAX_SAFE_INTEGER)?,
        );
        set(
            &mut policy.chars_per_token,
            integer("charsPerToken", chars)?.map(|v| v as u32),
        );
        set(&mut policy.min_reduction, number("minReduction")?);
        set(&mut policy.resummarise_growth, number("resummariseGrowth")?);
        // usize is 32 bits on wasm32.
        set(
            &mut policy.limits.max_input_bytes,
            integer("maxInputBytes", chars)?.map(|v| v as usize),
        );
        set(
            &mut policy.limits.max_nesting_depth,
            integer("maxNestingDepth", chars)?.map(|v| v as usize),
        );
        for (slot, tier) in policy.cost_weights.iter_mut().zip(Tier::ALL) {
            let value = optional_number(tier.as_str(), cost_weight(tier.as_str())?)
                .map_err(|error| error.under("costWeights"))?;
            set(slot, value);
        }
        policy.validate()?;
        Ok(policy)
    }

    /// Reads overrides from a JSON object (the same rules as [`Self::from_fields`]).
    pub fn from_json(value: &serde_json::Value) -> Result<Self> {
        let object = value.as_object().ok_or_else(|| {
            CompactionError::type_error("", format!("must be an object, got {}", json_type(value)))
        })?;
        if let Some(unknown) = object.keys().find(|k| !Self::FIELDS.contains(&k.as_str())) {
            return Err(CompactionError::type_error(
                unknown.as_str(),
                "is not a known field",
            ));
        }
        let weights = object
            .get("costWeights")
            .and_then(serde_json::Value::as_object);
        Self::from_fields(&|name| Ok(Scalar::from_json_field(object, name)), &|tier| {
            Ok(weights.map_or(Scalar::Missing, |w| Scalar::from_json_field(w, tier)))
        })
    }

    /// Checks every field; errors name the JS option (`policy.autoContextPct`).
    pub fn validate(&self) -> Result<()> {
        fraction("autoContextPct", self.auto_context_pct)?;
        fraction("microMinContextPct", self.micro_min_context_pct)?;
        fraction("minReduction", self.min_reduction)?;
        non_negative("idleSeconds", self.idle_seconds)?;
        if !self.resummarise_growth.is_finite() || self.resummarise_growth < 1.0 {
            return Err(CompactionError::range_error(
                "resummariseGrowth",
                format!(
                    "must be a finite number >= 1, got {}",
                    describe_number(self.resummarise_growth)
                ),
            ));
        }
        if self.chars_per_token == 0 {
            return Err(CompactionError::range_error(
                "charsPerToken",
                "must be an integer >= 1, got 0",
            ));
        }
        if self.micro_keep_head_chars > self.micro_body_threshold_chars {
            return Err(CompactionError::range_error(
                "microKeepHeadChars",
                format!(
                    "must not exceed microBodyThresholdChars ({}), got {}",
                    self.micro_body_threshold_chars, self.micro_keep_head_chars
                ),
            ));
        }
        self.limits.validate()?;
        for (tier, weight) in Tier::ALL.iter().zip(self.cost_weights) {
            if !weight.is_finite() || weight < 0.0 {
                return Err(CompactionError::range_error(
                    format!("costWeights.{tier}"),
                    format!(
                        "must be a finite number >= 0, got {}",
                        describe_number(weight)
                    ),
                ));
            }
        }
        Ok(())
    }
}

fn set<T>(slot: &mut T, value: Option<T>) {
    if let Some(value) = value {
        *slot = value;
    }
}

fn fraction(name: &str, value: f64) -> Result<()> {
    if value.is_finite() && (0.0..=1.0).contains(&value) {
        Ok(())
    } else {
        Err(CompactionError::range_error(
            name,
            format!(
                "must be a finite number in [0, 1], got {}",
                describe_number(value)
            ),
        ))
    }
}

fn non_negative(name: &str, value: f64) -> Result<()> {
    if value.is_finite() && value >= 0.0 {
        Ok(())
    } else {
        Err(CompactionError::range_error(
            name,
            format!(
                "must be a finite number >= 0, got {}",
                describe_number(value)
            ),
        ))
    }
}

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
    crate::tiers::PRIORITY
        .iter()
        .find(|(_, trigger)| trigger(pressure, policy).is_some())
        .map_or(Tier::None, |(tier, _)| *tier)
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
    fn reads_overrides_and_names_bad_fields() {
        let policy = PolicyConfig::from_json(&serde_json::json!({
            "autoContextPct": 0.5, "microKeepHeadChars": 40, "costWeights": {"auto": 0.7}
        }))
        .unwrap();
        assert_eq!(policy.auto_context_pct, 0.5);
        assert_eq!(policy.micro_keep_head_chars, 40);
        assert_eq!(policy.cost_weight(Tier::Auto), 0.7);
        assert_eq!(policy.cost_weight(Tier::Micro), 0.05);
        let error = PolicyConfig::from_json(&serde_json::json!({"microMinTurn": 1.5})).unwrap_err();
        assert_eq!(
            error.to_string(),
            "microMinTurn must be an integer in [0, 9007199254740991], got 1.5"
        );
        let error = PolicyConfig::from_json(&serde_json::json!({"costWeights": {"auto": "high"}}))
            .unwrap_err();
        assert_eq!(
            error.to_string(),
            "costWeights.auto must be a number, got string"
        );
        let error = PolicyConfig::from_json(&serde_json::json!({"autoContextPCT": 1})).unwrap_err();
        assert_eq!(error.path, "autoContextPCT");
    }

    #[test]
    fn invalid_policy_is_named() {
        let policy = PolicyConfig {
            auto_context_pct: f64::NAN,
            ..PolicyConfig::default()
        };
        assert_eq!(policy.validate().unwrap_err().path, "autoContextPct");
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

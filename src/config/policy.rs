//! [`PolicyConfig`]: every threshold of the policy and the tiers, declared once. Each row of the
//! table below gives the Rust field, its type, its default, its JS name, its [`Kind`] and its doc;
//! the struct, its `Default`, [`PolicyConfig::FIELDS`], [`PolicyConfig::SPECS`], the reader
//! ([`PolicyConfig::from_source`]) and the checks ([`PolicyConfig::validate`]) all come from it
//! ([`super::table`]).
//! A field that was renamed goes into [`RENAMED`], so a host still using the old name is told the
//! new one.

use super::CacheConfig;
use super::setting::Kind;
use super::source::{FieldSource, JsonFields};
use super::table::settings_table;
use crate::api::limits::{DEFAULT_MAX_INPUT_BYTES, DEFAULT_MAX_NESTING_DEPTH, Limits};
use crate::error::{CompactionError, Result};
use crate::policy::tier::Tier;

settings_table! {
    /// Thresholds of the policy and the tiers, and the input limits. `Default` gives the seed's
    /// values (and generous limits); each is per call. JS: `PolicyConfig`.
    pub struct PolicyConfig {
    /// `auto` fires at or above this fraction of the context window (seed: 0.70).
    auto_context_pct: f64 = 0.70, "autoContextPct", Kind::Fraction;
    /// `auto` works down to this fraction of the context window, by the pressure's own measure
    /// (`contextPctUsed × after / before`), cheapest reductions first (0.50). At or above
    /// `autoContextPct` it is allowed: auto then fires at or under its target and makes only its
    /// model-free reductions.
    auto_target_pct: f64 = 0.50, "autoTargetPct", Kind::Fraction;
    /// `time_based` fires at or above this idle time in seconds (seed: 300).
    idle_seconds: f64 = 300.0, "idleSeconds", Kind::NonNegative;
    /// `micro` fires from this turn on (seed: 2).
    micro_min_turn: u64 = 2, "microMinTurn", Kind::Integer { min: 0 };
    /// `micro` fires above this fraction of the window (seed: 0, "mild" use).
    micro_min_context_pct: f64 = 0.0, "microMinContextPct", Kind::Fraction;
    /// Tool-result bodies longer than this many code points are collapsed by `micro` (seed: 240).
    micro_body_threshold_chars: usize = 240, "microBodyThresholdChars", Kind::Integer32 { min: 0 };
    /// Code points of a collapsed body that `micro` keeps (seed: 80).
    micro_keep_head_chars: usize = 80, "microKeepHeadChars", Kind::Integer32 { min: 0 };
    /// Steps older than this many steps are pruned by `time_based` (seed: 5; an explicit
    /// `[age:N]` tag overrides a message's age).
    max_block_age_steps: u64 = 5, "maxBlockAgeSteps", Kind::Integer { min: 0 };
    /// The protected tail: the newest this many steps stay whole (at least 1: the last
    /// assistant message's thinking blocks must stay; 3 is the `keep` default of Anthropic's
    /// context editing).
    keep_recent_steps: usize = 3, "keepRecentSteps", Kind::Integer32 { min: 1 };
    /// Tool names whose calls and results are never compacted (a memory tool, a todo list).
    exclude_tools: Vec<String> = Vec::new(), "excludeTools", Kind::Strings;
    /// Code points per token of the seed's estimator (seed: 4).
    chars_per_token: u32 = 4, "charsPerToken", Kind::Integer32 { min: 1 };
    /// Cost weights per tier, in [`Tier::ALL`] order (seed: 0, 0.05, 0.10, 0.50, 1.00).
    cost_weights: [f64; 5] = Tier::ALL.map(Tier::default_cost_weight), "costWeights", Kind::TierWeights;
    /// A summarising tier that cannot save at least this fraction returns the input (0.10).
    min_reduction: f64 = 0.10, "minReduction", Kind::Fraction;
    /// A context holding our summary is summarised again only after growing by this factor (1.5).
    resummarise_growth: f64 = 1.5, "resummariseGrowth", Kind::AtLeastOne;
    /// Largest input accepted, in bytes, checked before it is read (32 MiB): UTF-8 bytes of a
    /// text or a body, bytes of the compact JSON of messages.
    max_input_bytes: usize = DEFAULT_MAX_INPUT_BYTES, "maxInputBytes", Kind::Integer32 { min: 1 };
    /// Deepest nesting of objects and arrays accepted inside one message (64 levels); the
    /// message itself is level 1.
    max_nesting_depth: usize = DEFAULT_MAX_NESTING_DEPTH, "maxNestingDepth", Kind::Integer32 { min: 1 };
    /// The provider's prompt cache: with `cachedTokens` in the pressure and the cache warm,
    /// micro and time_based edit only where that is worth the rewrite (docs/design.md §11).
    cache: CacheConfig = CacheConfig::default(), "cache", Kind::Object { ts: "CacheConfig" };
    }
}

/// Fields that were renamed: `(old JS name, new JS name)`. A host using an old name gets a
/// `TypeError` naming the new one.
pub const RENAMED: &[(&str, &str)] = &[("maxBlockAgeTurns", "maxBlockAgeSteps")];

impl PolicyConfig {
    /// The configured cost weight of `tier`.
    pub fn cost_weight(&self, tier: Tier) -> f64 {
        // `Tier::ALL` is in declaration order.
        self.cost_weights[tier as usize]
    }

    /// The input limits.
    pub fn limits(&self) -> Limits {
        Limits {
            max_input_bytes: self.max_input_bytes,
            max_nesting_depth: self.max_nesting_depth,
        }
    }

    /// Reads overrides from a host's options object: unknown (and renamed) fields are refused,
    /// absent ones keep the seed's default. Errors are relative (`autoContextPct ...`,
    /// `costWeights.auto ...`); the result is validated.
    pub fn from_source(source: &dyn FieldSource) -> Result<Self> {
        let mut policy = Self::default();
        policy.read_fields(source, RENAMED)?;
        policy.validate()?;
        Ok(policy)
    }

    /// Reads overrides from a JSON object (the same rules as [`Self::from_source`]).
    pub fn from_json(value: &serde_json::Value) -> Result<Self> {
        Self::from_source(&JsonFields::of(value)?)
    }

    /// Checks every field; errors name the JS option (`autoContextPct ...`).
    pub fn validate(&self) -> Result<()> {
        self.check_fields()?;
        if self.micro_keep_head_chars > self.micro_body_threshold_chars {
            return Err(CompactionError::range_error(
                "microKeepHeadChars",
                format!(
                    "must not exceed microBodyThresholdChars ({}), got {}",
                    self.micro_body_threshold_chars, self.micro_keep_head_chars
                ),
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{Setting, reject_unknown};

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
    fn the_table_lists_every_field_once() {
        let mut names = PolicyConfig::FIELDS.to_vec();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), PolicyConfig::SPECS.len());
        assert_eq!(PolicyConfig::default().describe().len(), names.len());
    }

    #[test]
    fn string_lists_are_read_and_named() {
        let json = serde_json::json!({"tools": ["memory", 3]});
        let source = JsonFields::of(&json).unwrap();
        let error = <Vec<String> as Setting>::read(&source, "tools", Kind::Strings).unwrap_err();
        assert_eq!(error.to_string(), "tools[1] must be a string, got number");
        let json = serde_json::json!({"tools": ["memory", "todo"]});
        let source = JsonFields::of(&json).unwrap();
        let read = <Vec<String> as Setting>::read(&source, "tools", Kind::Strings).unwrap();
        assert_eq!(read, Some(vec!["memory".to_string(), "todo".to_string()]));
    }

    #[test]
    fn a_renamed_field_names_its_new_name() {
        let error = reject_unknown(&["oldName".into()], &["newName"], &[("oldName", "newName")])
            .unwrap_err();
        assert_eq!(error.to_string(), "oldName was renamed to newName");
    }
}

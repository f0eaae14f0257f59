//! The budget `auto` works to: `policy.autoTargetPct` of the window, measured the way the
//! pressure measures (`contextPctUsed × tokens / before`, tokens by the call's own counter), and
//! the words the reason uses for where auto stopped and why.

use crate::base::decimal::shortest;
use crate::config::PolicyConfig;

/// The reductions auto makes, cheapest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    /// micro's stubs outside the protected tail.
    Stubs,
    /// Inline media replaced by placeholders.
    Media,
    /// Thinking blocks outside the tail archived.
    Thinking,
    /// The oldest tool runs replaced by a summary or digests.
    ToolRuns,
    /// Older conversation (tool runs included) replaced by a summary or digests.
    OlderConversation,
}

impl Stage {
    /// The model-free stages, in the order auto takes them.
    pub const CHEAP: [Stage; 3] = [Stage::Stubs, Stage::Media, Stage::Thinking];

    fn words(self) -> &'static str {
        match self {
            Stage::Stubs => "stubs",
            Stage::Media => "media",
            Stage::Thinking => "thinking",
            Stage::ToolRuns => "tool runs",
            Stage::OlderConversation => "older conversation",
        }
    }
}

/// Where auto works down to, and from where.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Budget {
    /// The pressure's `contextPctUsed`: what `before` tokens stand for.
    pct: f64,
    /// `policy.autoTargetPct`.
    target: f64,
    /// Tokens when auto started.
    before: u64,
    /// The most tokens that meet the target and save `minReduction` (less would make the engine
    /// refuse the result as not worth it, so auto goes on until both hold).
    goal: u64,
    /// `policy.minReduction`.
    min_reduction: f64,
}

impl Budget {
    /// The budget of a call whose context holds `before` tokens at `pct` of the window.
    pub fn new(pct: f64, policy: &PolicyConfig, before: u64) -> Self {
        let allowance = if pct > 0.0 {
            (policy.auto_target_pct * before as f64 / pct).floor()
        } else {
            before as f64
        };
        // Not `f64::clamp`: with a bound known only at run time its `min <= max` assertion
        // stays, and its message prints both bounds with `{:?}`, which links core's float
        // formatting (about 17 KB of wasm). Same value for every input, NaN included (0).
        let allowance = allowance.max(0.0).min(before as f64) as u64;
        let min_saving = (before as f64 * policy.min_reduction).ceil() as u64;
        Self {
            pct,
            target: policy.auto_target_pct,
            before,
            goal: allowance.min(before.saturating_sub(min_saving)),
            min_reduction: policy.min_reduction,
        }
    }

    /// The context was at or under the target before auto did anything (a forced call): only
    /// the model-free reductions are made.
    pub fn met_at_start(&self) -> bool {
        self.pct <= self.target
    }

    /// Whether `tokens` meet the budget.
    pub fn met(&self, tokens: u64) -> bool {
        tokens <= self.goal
    }

    /// Tokens still to save from `tokens`.
    pub fn still_needed(&self, tokens: u64) -> u64 {
        tokens.saturating_sub(self.goal)
    }

    /// Tokens a summary made from `tokens` should save: what the budget still needs, and at
    /// least `minReduction` of `tokens` (the loop guard holds back a call worth less; asking for
    /// less here would leave a call due that a second look at the output would make).
    pub fn needed_by_summary(&self, tokens: u64) -> u64 {
        let worth = (tokens as f64 * self.min_reduction).ceil() as u64;
        self.still_needed(tokens).max(worth)
    }

    /// The share of the window `tokens` stand for, by the pressure's own measure.
    pub fn projected(&self, tokens: u64) -> f64 {
        match self.before {
            0 => self.pct,
            before => self.pct * tokens as f64 / before as f64,
        }
    }

    /// "target 0.5 met after media (0.62 -> 0.48)".
    pub fn met_note(&self, stage: Stage, tokens: u64) -> String {
        format!(
            "target {} met after {} ({})",
            shortest(self.target),
            stage.words(),
            self.movement(tokens)
        )
    }

    /// What a forced call at or under the target did.
    pub fn under_note(&self, tokens: u64) -> String {
        format!(
            "at or under target {} already: model-free reductions only, no summariser ({})",
            shortest(self.target),
            self.movement(tokens)
        )
    }

    /// "stopped after older conversation: nothing more can go (0.81 -> 0.66, target 0.5)".
    pub fn short_note(&self, stage: Stage, why: &str, tokens: u64) -> String {
        format!(
            "stopped after {}: {why} ({}, target {})",
            stage.words(),
            self.movement(tokens),
            shortest(self.target)
        )
    }

    fn movement(&self, tokens: u64) -> String {
        format!(
            "{} -> {}",
            two_places(self.pct),
            two_places(self.projected(tokens))
        )
    }
}

/// `value` rounded to two decimals, written shortest (0.5, 0.48).
fn two_places(value: f64) -> String {
    shortest((value * 100.0).round() / 100.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_goal_meets_the_target_and_the_minimum_reduction() {
        let policy = PolicyConfig::default();
        let budget = Budget::new(0.8, &policy, 1000);
        assert_eq!(budget.goal, 625);
        assert!(budget.met(625) && !budget.met(626));
        assert_eq!(budget.still_needed(1000), 375);
        assert_eq!(
            budget.met_note(Stage::Media, 600),
            "target 0.5 met after media (0.8 -> 0.48)"
        );
        // Just over the target: minReduction (10 %) decides.
        let close = Budget::new(0.52, &policy, 1000);
        assert_eq!(close.goal, 900);
        assert!(Budget::new(0.5, &policy, 1000).met_at_start());
        assert!(Budget::new(0.0, &policy, 1000).met_at_start());
        assert_eq!(
            budget.short_note(Stage::OlderConversation, "nothing more can go", 825),
            "stopped after older conversation: nothing more can go (0.8 -> 0.66, target 0.5)"
        );
    }
}

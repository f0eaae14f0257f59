//! The entry points: [`compact`] (select a tier from the pressure, run it) and
//! [`compact_with_tier`] (run a named tier). Reads the input through its adapter, lets the tier
//! plan and apply, checks the invariants on the outcome and fills in the result.

use crate::context::{CompactOptions, TierContext};
use crate::error::Result;
use crate::policy::explain_selection;
use crate::result::{ArchiveEntry, ContextData, TierResult};
use crate::tier::{Tier, cost_estimate};
use crate::tiers::{self, TierEnv};
use crate::tokens::{Estimator, SeedRule, TokenCounter, TokenEstimator};
use crate::transcript::Transcript;
use crate::transcript::pairing::{misplaced_results, paired_ids};
use crate::working::Working;
use xxhash_rust::xxh3::Xxh3;

/// Selects a tier from `ctx.pressure` and runs it.
pub async fn compact(ctx: &TierContext, options: &CompactOptions<'_>) -> Result<TierResult> {
    options.policy.validate().map_err(|e| e.under("policy"))?;
    let selection = explain_selection(&ctx.pressure, &options.policy);
    run(
        selection.tier,
        &format!("selected {}: {}", selection.tier, selection.rule),
        ctx,
        options,
    )
    .await
}

/// Runs `tier` on `ctx`, whatever the pressure says.
pub async fn compact_with_tier(
    tier: Tier,
    ctx: &TierContext,
    options: &CompactOptions<'_>,
) -> Result<TierResult> {
    options.policy.validate().map_err(|e| e.under("policy"))?;
    run(tier, &format!("forced {tier}"), ctx, options).await
}

async fn run(
    tier: Tier,
    why: &str,
    ctx: &TierContext,
    options: &CompactOptions<'_>,
) -> Result<TierResult> {
    ctx.validate()?;
    options.policy.limits.check(&ctx.input)?;
    let seed_rule = SeedRule {
        chars_per_token: options.policy.chars_per_token,
    };
    let counter: &dyn TokenCounter = match (options.counter, options.token_estimator) {
        (Some(counter), _) => counter,
        (None, TokenEstimator::Seed) => &seed_rule,
        (None, TokenEstimator::Heuristic) => &Estimator,
    };
    let mut working = Working::read(&ctx.input)?;
    let before = working.transcript.clone();
    let before_tokens = working.tokens(counter);
    let correlation_id = match &options.correlation_id {
        Some(id) => id.clone(),
        None => derive_correlation_id(&ctx.session_id, ctx.pressure.turn_count, tier, &before),
    };
    let env = TierEnv {
        policy: &options.policy,
        counter,
        summariser: options.summariser,
        session_id: &ctx.session_id,
        correlation_id: &correlation_id,
        instructions: options.instructions.as_deref(),
        pressure: &ctx.pressure,
    };
    tiers::run(tier, &mut working, &env).await?;
    let mut after_tokens = working.tokens(counter);
    if let Err(why_not) = check(
        tier,
        &before,
        &working.transcript,
        before_tokens,
        after_tokens,
        &options.policy,
    ) {
        working.revert(&ctx.input, before, why_not);
        after_tokens = before_tokens;
    }
    Ok(finish(
        tier,
        why,
        ctx,
        options,
        working,
        before_tokens,
        after_tokens,
        correlation_id,
    ))
}

/// The invariants checked on every outcome, in one place: never grows, pairs kept, results still
/// follow their calls, and the summarising tiers' minimum reduction.
fn check(
    tier: Tier,
    before: &Transcript,
    after: &Transcript,
    before_tokens: u64,
    after_tokens: u64,
    policy: &crate::policy::PolicyConfig,
) -> std::result::Result<(), String> {
    if after_tokens > before_tokens {
        return Err(format!(
            "would grow the context ({before_tokens} -> {after_tokens} tokens)"
        ));
    }
    let paired_after = paired_ids(after);
    let calls_after: Vec<&str> = after
        .messages
        .iter()
        .flat_map(|m| &m.blocks)
        .filter_map(|b| b.tool_id())
        .collect();
    if let Some(broken) = paired_ids(before)
        .iter()
        .find(|id| calls_after.contains(&id.as_str()) && !paired_after.contains(id))
    {
        return Err(format!("would split the tool call/result pair {broken:?}"));
    }
    let misplaced_before = misplaced_results(before);
    if let Some(id) = misplaced_results(after)
        .iter()
        .find(|id| !misplaced_before.contains(id))
    {
        return Err(format!("would separate tool result {id:?} from its call"));
    }
    let saved = before_tokens - after_tokens;
    let needed = (before_tokens as f64 * policy.min_reduction).ceil() as u64;
    if tier.summarises() && saved > 0 && saved < needed {
        return Err(format!(
            "saves {saved} of {before_tokens} tokens, under the minimum reduction of {}%",
            policy.min_reduction * 100.0
        ));
    }
    Ok(())
}

#[allow(clippy::too_many_arguments)]
fn finish(
    tier: Tier,
    why: &str,
    ctx: &TierContext,
    options: &CompactOptions<'_>,
    working: Working,
    before_tokens: u64,
    after_tokens: u64,
    correlation_id: String,
) -> TierResult {
    let tokens_saved = before_tokens.saturating_sub(after_tokens);
    let mut reason = why.to_string();
    for note in &working.notes {
        reason.push_str("; ");
        reason.push_str(note);
    }
    TierResult {
        tier,
        context: working.context,
        before_tokens,
        after_tokens,
        tokens_saved,
        cost_estimate: cost_estimate(
            tokens_saved,
            ctx.cost_per_1k_tokens,
            options.policy.cost_weight(tier),
        ),
        archive: number_archive(working.archive, &correlation_id),
        correlation_id,
        reason,
        summary: working.summary,
        degraded: working.degraded,
        warnings: working.warnings,
        summariser_usage: working.summariser_usage,
        format: working.transcript.format.as_str(),
        origins: working.origins,
    }
}

/// Gives each archive entry a stable id: its position and a short hash of the event and content.
fn number_archive(mut archive: Vec<ArchiveEntry>, correlation_id: &str) -> Vec<ArchiveEntry> {
    for (index, entry) in archive.iter_mut().enumerate() {
        // Unique by position; the hash ties the id to this event and place. The content is not
        // hashed: serialising every removed value only to name it cost more than the tier.
        let mut hasher = Xxh3::new();
        hasher.update(correlation_id.as_bytes());
        hasher.update(entry.location.as_bytes());
        entry.id = format!("a{index}-{:08x}", hasher.digest() as u32);
    }
    archive
}

/// A reproducible correlation id: derived from session, turn, tier and content, so the same
/// event gets the same id and different events (almost surely) different ones.
pub fn derive_correlation_id(
    session_id: &str,
    turn: u64,
    tier: Tier,
    transcript: &Transcript,
) -> String {
    // xxh3 (128 bits), not SHA-256: this hashes the whole context on every call, and an id needs
    // no cryptographic strength; SHA-256 here was 40 % of a micro call's time in wasm.
    let mut hasher = Xxh3::new();
    hasher.update(session_id.as_bytes());
    hasher.update(&[0]);
    hasher.update(&turn.to_le_bytes());
    hasher.update(tier.as_str().as_bytes());
    hasher.update(transcript.format.as_str().as_bytes());
    for block in transcript.messages.iter().flat_map(|m| &m.blocks) {
        hasher.update(&[0]);
        hasher.update(block.text.as_bytes());
    }
    let hex = format!("{:032x}", hasher.digest128());
    format!("cmp-{hex}")
}

impl TierResult {
    /// The compacted messages, when the context was structured.
    pub fn messages(&self) -> Option<&[serde_json::Value]> {
        match &self.context {
            ContextData::Messages(messages) => Some(messages),
            ContextData::Text(_) => None,
        }
    }

    /// The compacted text, when the context was flat text.
    pub fn text(&self) -> Option<&str> {
        match &self.context {
            ContextData::Text(text) => Some(text),
            ContextData::Messages(_) => None,
        }
    }
}

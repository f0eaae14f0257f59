//! The entry points: [`compact`] (select a tier from the pressure, run it) and
//! [`compact_with_tier`] (run a named tier). Reads the input through its adapter, lets the tier
//! plan and apply, checks the invariants on the outcome and fills in the result.

mod admit;
mod check;
pub mod legacy;
mod looping;

pub use admit::check_limits;
use check::{Pairing, Refusal, check};
pub use check::{RULE_CHECK_FAILED, RULE_CHECK_FALLBACKS};

use crate::api::context::{CompactOptions, ContextInput, TierContext};
use crate::api::result::{ArchiveOrigin, ContextData, TierResult, value_at, value_at_mut};
use crate::error::Result;
use crate::media::bill::{Billed, Provider};
use crate::plan::loop_state::Admitted;
use crate::plan::working::{Current, Working};
use crate::policy::cache::{CacheModel, prefix_tokens};
use crate::policy::explain_selection;
use crate::policy::tier::{Tier, cost_estimate};
use crate::tiers::{self, TierEnv};
use crate::tokens::{Estimator, SeedRule, TokenCounter, TokenEstimator};
use crate::transcript::Transcript;
use serde_json::Value;
use std::borrow::Cow;
use xxhash_rust::xxh3::Xxh3;

/// Selects a tier from `ctx.pressure` and runs it.
pub async fn compact(ctx: &TierContext, options: &CompactOptions<'_>) -> Result<TierResult> {
    let mut result = run(None, ctx, options, None).await?;
    fill_copies(&mut result, &ctx.input);
    Ok(result)
}

/// Runs `tier` on `ctx`, whatever the pressure says.
pub async fn compact_with_tier(
    tier: Tier,
    ctx: &TierContext,
    options: &CompactOptions<'_>,
) -> Result<TierResult> {
    let mut result = run(Some(tier), ctx, options, None).await?;
    fill_copies(&mut result, &ctx.input);
    Ok(result)
}

/// [`compact`], taking `ctx`: the messages the tier leaves unchanged move into the result
/// instead of being copied.
pub async fn compact_owned(ctx: TierContext, options: &CompactOptions<'_>) -> Result<TierResult> {
    compact_read_from(None, ctx, options, None).await
}

/// [`compact_with_tier`], taking `ctx` (see [`compact_owned`]).
pub async fn compact_with_tier_owned(
    tier: Tier,
    ctx: TierContext,
    options: &CompactOptions<'_>,
) -> Result<TierResult> {
    compact_read_from(Some(tier), ctx, options, None).await
}

/// [`compact_owned`] (`forced` `None`) or [`compact_with_tier_owned`], for messages parsed from
/// `source_bytes` bytes of JSON text: the size limit is settled from them when it can be
/// ([`crate::api::limits::Limits::check_messages_read_from`]).
pub(crate) async fn compact_read_from(
    forced: Option<Tier>,
    ctx: TierContext,
    options: &CompactOptions<'_>,
    source_bytes: Option<usize>,
) -> Result<TierResult> {
    let mut result = run(forced, &ctx, options, source_bytes).await?;
    fill_moved(&mut result, ctx.input);
    Ok(result)
}

/// Runs the tier the host names (`forced`), else the one the pressure selects. The result's
/// messages that are unchanged copies of input messages (those with an origin) are left `null`,
/// for [`fill_copies`] or [`fill_moved`] to put in.
async fn run(
    forced: Option<Tier>,
    ctx: &TierContext,
    options: &CompactOptions<'_>,
    source_bytes: Option<usize>,
) -> Result<TierResult> {
    options.policy.validate().map_err(|e| e.under("policy"))?;
    let (choice, why) = match forced {
        Some(tier) => (Choice::Forced(tier), format!("forced {tier}")),
        None => {
            let selection = explain_selection(&ctx.pressure, &options.policy);
            let why = format!("selected {}: {}", selection.tier, selection.rule);
            (Choice::Selected(selection.tier), why)
        }
    };
    ctx.validate()?;
    check_limits(&options.policy.limits(), &ctx.input, source_bytes)?;
    let seed_rule = SeedRule {
        chars_per_token: options.policy.chars_per_token,
    };
    let estimator = options.estimator_for(&ctx.input);
    let text_counter = text_counter(options.counter, estimator, &seed_rule);
    let working = Working::read(&ctx.input, ctx.host_values.as_ref())?;
    let billed = billed_counter(text_counter, options.counter.is_some(), estimator, &working);
    let counter: &dyn TokenCounter = match &billed {
        Some(billed) => billed,
        None => text_counter,
    };
    let why = &why;
    let call = Call {
        choice,
        why,
        ctx,
        options,
        counter,
    };
    call.run(working).await
}

/// How the call's tier was chosen.
#[derive(Debug, Clone, Copy)]
enum Choice {
    /// By the pressure: chosen again when the state's decisions change the context.
    Selected(Tier),
    /// By the host.
    Forced(Tier),
}

impl Choice {
    fn tier(self) -> Tier {
        match self {
            Choice::Selected(tier) | Choice::Forced(tier) => tier,
        }
    }
}

/// One call, its input read: how its tier was chosen and why, what it was given, and its
/// token counter.
struct Call<'c, 'o> {
    /// How the tier was chosen.
    choice: Choice,
    /// Why, in words.
    why: &'c str,
    /// The call's context.
    ctx: &'c TierContext,
    /// The call's options.
    options: &'c CompactOptions<'o>,
    /// The call's token counter.
    counter: &'c dyn TokenCounter,
}

impl<'c> Call<'c, '_> {
    /// The call's correlation id: the host's, else [`derive_correlation_id`] of the call.
    fn call_id(&self, tier: Tier, transcript: &Transcript) -> String {
        let (session, turn) = (&self.ctx.session_id, self.ctx.pressure.turn_count);
        let derived = || derive_correlation_id(session, turn, tier, transcript);
        self.options.correlation_id.clone().unwrap_or_else(derived)
    }

    /// What a tier is run with: the call's policy, counter, summariser, ids and pressure, and
    /// the cache model of a context of `before_tokens`.
    fn tier_env<'e>(&'e self, correlation_id: &'e str, before_tokens: u64) -> TierEnv<'e> {
        let (ctx, options) = (self.ctx, self.options);
        TierEnv {
            policy: &options.policy,
            counter: self.counter,
            summariser: options.summariser,
            session_id: &ctx.session_id,
            correlation_id,
            instructions: options.instructions.as_deref(),
            pressure: &ctx.pressure,
            cache: CacheModel::of(
                &ctx.pressure,
                &options.policy.cache,
                ctx.cost_per_1k_tokens,
                before_tokens,
            ),
        }
    }

    /// Runs the tier on `working` (the input as read): after the repair and the state's
    /// decisions made again, checked, falling back where the checks refuse the result.
    async fn run(&self, mut working: Working<'c>) -> Result<TierResult> {
        let (ctx, options, counter) = (self.ctx, self.options, self.counter);
        let before_tokens = working.tokens(counter);
        let correlation_id = self.call_id(self.choice.tier(), &working.transcript);
        let env = self.tier_env(&correlation_id, before_tokens);
        // Where each input message starts, for what the edits invalidate of a cached prefix.
        let prefixes = env
            .cache
            .map(|_| prefix_tokens(&working.transcript, counter));
        // The loop's state is of messages as hosts send them: read before any repair.
        let admitted = looping::admit(&working, ctx.state.as_ref(), &ctx.session_id);
        let input_print = crate::plan::loop_state::print(&working.transcript);
        let fallback = self.prepare(&mut working, &admitted, &env)?;
        let before = Pairing::of(&working.transcript, ctx.server_history);
        let tier_before_tokens = working.tokens(counter);
        let tokens = (before_tokens, tier_before_tokens);
        let replay = (fallback.replayed).then(|| looping::Replay::of(self, &working, tokens));
        let (tier, why, env) = match &replay {
            Some(replay) => (replay.tier, replay.why(self.why), replay.env(env)),
            None => (self.choice.tier(), self.why.to_string(), env),
        };
        tiers::run(tier, &mut working, &env).await?;
        let mut after_tokens = working.tokens(counter);
        let tokens = (tier_before_tokens, after_tokens);
        if let Err(refusal) = check(tier, &before, &working.transcript, tokens, &options.policy) {
            fallback.apply(&mut working, &refusal, tier, &ctx.input)?;
            after_tokens = tier_before_tokens;
        }
        let saved = before_tokens.saturating_sub(after_tokens);
        let cache = env.cache.map(|model| {
            working.cache_report.unwrap_or_else(|| {
                let prefix =
                    first_change_prefix(&working, &ctx.input, prefixes.as_deref(), counter);
                model.report(prefix, saved)
            })
        });
        let state = looping::next_state(&working, input_print, &admitted, tier, &env);
        let id = env.correlation_id.to_string();
        let mut result = finish(
            tier,
            &why,
            ctx,
            options,
            working,
            (before_tokens, after_tokens),
            id,
        );
        result.cache = cache;
        result.state = state;
        Ok(result)
    }

    /// Repairs `working` and makes the state's decisions again: what the tier starts from and a
    /// refused result falls back to.
    fn prepare(
        &self,
        working: &mut Working<'c>,
        admitted: &Admitted,
        env: &TierEnv<'_>,
    ) -> Result<Fallback<'c>> {
        // Broken input is repaired first, in every tier (invariant 1): the tier sees the repaired
        // input and is checked against it, and a result that fails the checks falls back to it.
        let repaired = crate::repair::repair(working, self.ctx.server_history)?;
        // A result that fails the checks falls back to the input as repaired and with the
        // state's decisions made again: a stateless host's next request must not undo an
        // earlier summary.
        let replayed = looping::reapply(working, admitted, env)?;
        Ok(Fallback {
            base: (repaired || replayed).then(|| working.clone()),
            repaired,
            replayed,
        })
    }
}

/// What a result the checks refuse falls back to: the input as repaired and with the state's
/// decisions made again, where they were (`base`), else the input as it is.
struct Fallback<'c> {
    /// The input as prepared, when it differs from the input.
    base: Option<Working<'c>>,
    /// The input was repaired.
    repaired: bool,
    /// The state's decisions were made again.
    replayed: bool,
}

impl<'c> Fallback<'c> {
    /// Gives back the prepared input (else `input`) in place of the result `refusal` refused,
    /// noting why: a broken result is a defect of the tier, not of the input, and warns loudly
    /// so hosts and tests see it.
    fn apply(
        self,
        working: &mut Working<'c>,
        refusal: &Refusal,
        tier: Tier,
        input: &'c ContextInput,
    ) -> Result<()> {
        let returned = match (self.repaired, self.replayed) {
            (_, true) => {
                "input returned with the state's decisions made again, otherwise unchanged"
            }
            (true, false) => "input returned repaired, otherwise unchanged",
            (false, false) => "input returned unchanged",
        };
        let note = match refusal {
            Refusal::Broken(why) => {
                working.warnings.push(format!(
                    "{RULE_CHECK_FALLBACKS}: 1 ({tier}: the result {why})"
                ));
                format!("{RULE_CHECK_FAILED}: the result {why}; {returned}")
            }
            Refusal::NotWorthIt(why) => format!("{returned}: the result {why}"),
        };
        match self.base {
            Some(base) => working.revert_to(base, note),
            None => working.revert(input, note)?,
        }
        Ok(())
    }
}

/// The counter of text: the host's, else the built-in `estimator` (the seed's rule is
/// `seed_rule`).
fn text_counter<'a>(
    host: Option<&'a dyn TokenCounter>,
    estimator: TokenEstimator,
    seed_rule: &'a SeedRule,
) -> &'a dyn TokenCounter {
    match (host, estimator) {
        (Some(counter), _) => counter,
        (None, TokenEstimator::Seed) => seed_rule,
        (None, TokenEstimator::Heuristic) => &Estimator,
    }
}

/// `text` with media billed as the format's provider bills it (docs/design.md §8, "Counting"), unless the
/// call counts by the seed's rule (its numbers count media as base64 text) or the context is
/// flat text.
fn billed_counter<'a>(
    text: &'a dyn TokenCounter,
    host_counter: bool,
    estimator: TokenEstimator,
    working: &Working<'_>,
) -> Option<Billed<'a>> {
    let provider = Provider::of(working.format())?;
    (host_counter || estimator == TokenEstimator::Heuristic).then(|| Billed::new(text, provider))
}

/// Tokens of the output's prefix that is the input's own, unchanged: what a provider's cache of
/// the input still holds after this call. Messages: those before the first one that is not the
/// input's own message at its own place (`prefixes` gives their tokens); flat text: the common
/// prefix of the two texts.
fn first_change_prefix(
    working: &Working<'_>,
    input: &ContextInput,
    prefixes: Option<&[u64]>,
    counter: &dyn TokenCounter,
) -> u64 {
    match (&working.context, input) {
        (Current::Text(output), ContextInput::Text(input)) => {
            let mut common = output
                .bytes()
                .zip(input.bytes())
                .take_while(|(a, b)| a == b)
                .count();
            while !input.is_char_boundary(common) {
                common -= 1;
            }
            counter.count(&input[..common])
        }
        _ => {
            let prefixes = prefixes.unwrap_or_default();
            let first = (0..working.origins.len())
                .find(|&index| working.origins[index] != Some(index))
                .unwrap_or(working.origins.len());
            prefixes
                .get(first)
                .or(prefixes.last())
                .copied()
                .unwrap_or(0)
        }
    }
}

/// Puts copies of the input messages into the places [`run`] left for them, in the output and
/// in the archive.
fn fill_copies(result: &mut TierResult, input: &ContextInput) {
    let (ContextData::Messages(output), ContextInput::Messages { messages, .. }) =
        (&mut result.context, input)
    else {
        return;
    };
    for (slot, origin) in output.iter_mut().zip(&result.origins) {
        if let Some(message) = origin.and_then(|at| messages.get(at)) {
            *slot = message.clone();
        }
    }
    crate::formats::fill_archive(&mut result.archive, &result.archive_origins, messages);
}

/// Moves the input messages into the places [`run`] left for them: whole messages into the
/// output, removed content into the archive. Each input message is used once (in the output,
/// or removed whole or in parts); a second use, which no adapter makes, is copied.
fn fill_moved(result: &mut TierResult, input: ContextInput) {
    let (ContextData::Messages(output), ContextInput::Messages { mut messages, .. }) =
        (&mut result.context, input)
    else {
        return;
    };
    let mut moved_to: Vec<Option<usize>> = vec![None; messages.len()];
    for (index, origin) in result.origins.iter().enumerate() {
        let Some(at) = *origin else { continue };
        let Some(first) = moved_to.get_mut(at) else {
            continue;
        };
        match *first {
            None => {
                *first = Some(index);
                output[index] = std::mem::take(&mut messages[at]);
            }
            Some(earlier) => output[index] = output[earlier].clone(),
        }
    }
    for (entry, origin) in result.archive.iter_mut().zip(&result.archive_origins) {
        match origin {
            None => {}
            Some(ArchiveOrigin::Part { message, path }) => {
                let content = match moved_to.get(*message) {
                    Some(Some(out)) => value_at(&output[*out], path).cloned(),
                    Some(None) => value_at_mut(&mut messages[*message], path).map(std::mem::take),
                    None => None,
                };
                entry.content = content.unwrap_or(Value::Null);
            }
            Some(ArchiveOrigin::Messages(from)) => {
                let Value::Array(items) = &mut entry.content else {
                    continue;
                };
                for (item, from) in items.iter_mut().zip(from) {
                    *item = match from.and_then(|at| Some((at, moved_to.get(at)?))) {
                        Some((_, Some(out))) => output[*out].clone(),
                        Some((at, None)) => std::mem::take(&mut messages[at]),
                        None => continue,
                    };
                }
            }
        }
    }
    crate::api::limits::drop_iteratively(Value::Array(messages));
}

/// The result of a call: `working` as the tier left it, with `tokens` before and after.
fn finish(
    tier: Tier,
    why: &str,
    ctx: &TierContext,
    options: &CompactOptions<'_>,
    working: Working<'_>,
    (before_tokens, after_tokens): (u64, u64),
    correlation_id: String,
) -> TierResult {
    let tokens_saved = before_tokens.saturating_sub(after_tokens);
    let mut reason = why.to_string();
    for note in &working.notes {
        reason.push_str("; ");
        reason.push_str(note);
    }
    let context = match working.context {
        Current::Text(text) => ContextData::Text(text.into_owned()),
        Current::Messages(messages) => ContextData::Messages(
            messages
                .into_iter()
                .map(|message| match message {
                    Cow::Owned(value) => value,
                    Cow::Borrowed(_) => Value::Null,
                })
                .collect(),
        ),
    };
    TierResult {
        tier,
        context,
        before_tokens,
        after_tokens,
        tokens_saved,
        cost_estimate: cost_estimate(
            tokens_saved,
            ctx.cost_per_1k_tokens,
            options.policy.cost_weight(tier),
        ),
        archive: working.archive,
        correlation_id,
        reason,
        summary: working.summary,
        degraded: working.degraded,
        warnings: working.warnings,
        summariser_usage: working.summariser_usage,
        cache: None,
        state: None,
        format: crate::formats::registry::name(working.transcript.format),
        origins: working.origins,
        archive_origins: working.archive_origins,
    }
}

/// A reproducible correlation id: derived from session, turn, tier and content, so the same
/// event gets the same id and different events (almost surely) different ones. Texts of more
/// than [`crate::transcript::fingerprint::MIN_CHARS`] code points enter by their length and ends
/// (see [`crate::transcript::fingerprint::fingerprint_counted`]), so hashing does not read
/// them whole.
pub fn derive_correlation_id(
    session_id: &str,
    turn: u64,
    tier: Tier,
    transcript: &Transcript,
) -> String {
    let mut hasher = Xxh3::new();
    hasher.update(session_id.as_bytes());
    hasher.update(&[0]);
    hasher.update(&turn.to_le_bytes());
    hasher.update(tier.as_str().as_bytes());
    hasher.update(&content_digest(transcript).to_le_bytes());
    format!("cmp-{:032x}", hasher.digest128())
}

/// A digest of the context's format and blocks.
fn content_digest(transcript: &Transcript) -> u128 {
    // xxh3 (128 bits), not SHA-256: this hashes the whole context on every call, and an id needs
    // no cryptographic strength; SHA-256 here was 40 % of a micro call's time in wasm.
    let mut hasher = Xxh3::new();
    hasher.update(crate::formats::registry::name(transcript.format).as_bytes());
    for block in transcript.messages.iter().flat_map(|m| &m.blocks) {
        crate::plan::hash_fingerprint(&mut hasher, block, 0);
    }
    hasher.digest128()
}

impl TierResult {
    /// How many times the engine fell back to the input because a tier's result broke a rule
    /// (the counts of its [`RULE_CHECK_FALLBACKS`] warnings). Never more than 0 on valid input
    /// from a correct tier.
    pub fn rule_check_fallbacks(&self) -> usize {
        self.warnings
            .iter()
            .filter_map(|warning| {
                warning
                    .strip_prefix(RULE_CHECK_FALLBACKS)?
                    .strip_prefix(": ")
            })
            .filter_map(|rest| rest.split(' ').next()?.parse::<usize>().ok())
            .sum()
    }

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

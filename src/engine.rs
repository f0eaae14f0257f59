//! The entry points: [`compact`] (select a tier from the pressure, run it) and
//! [`compact_with_tier`] (run a named tier). Reads the input through its adapter, lets the tier
//! plan, applies the plan, checks the invariants on the outcome and fills in the result.

use crate::context::{CompactOptions, TierContext};
use crate::error::Result;
use crate::result::TierResult;
use crate::tier::Tier;

/// Selects a tier from `ctx.pressure` and runs it.
pub async fn compact(ctx: &TierContext, options: &CompactOptions<'_>) -> Result<TierResult> {
    let _ = (ctx, options);
    todo!()
}

/// Runs `tier` on `ctx`, whatever the pressure says.
pub async fn compact_with_tier(
    tier: Tier,
    ctx: &TierContext,
    options: &CompactOptions<'_>,
) -> Result<TierResult> {
    let _ = (tier, ctx, options);
    todo!()
}

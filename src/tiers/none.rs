//! `none`: no trigger fired. The context is returned unchanged at zero cost (weight 0.00).

use crate::tier::Tier;
use crate::working::Working;

/// This tier.
pub const TIER: Tier = Tier::None;

/// The no-op: records why nothing happened.
pub fn compact(working: &mut Working<'_>) -> crate::error::Result<()> {
    working
        .notes
        .push("no compaction: context unchanged".into());
    Ok(())
}

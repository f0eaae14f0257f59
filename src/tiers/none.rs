//! `none`: no trigger fired. The context is returned unchanged at zero cost (weight 0.00).

use crate::plan::working::Working;
use crate::policy::tier::Tier;

/// This tier.
pub const TIER: Tier = Tier::None;

/// The no-op: records why nothing happened (beyond the repair of broken input, which runs
/// before every tier).
pub fn compact(working: &mut Working<'_>) -> crate::error::Result<()> {
    let note = if working.plans_applied == 0 {
        "no compaction: context unchanged"
    } else {
        "no compaction beyond the repair"
    };
    working.notes.push(note.into());
    Ok(())
}

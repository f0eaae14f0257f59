//! Repair of broken input (`docs/design.md`, "Invariants", 1): before any tier runs, `none`
//! included, what breaks the provider's rules is removed into the archive (kind `"repair"`),
//! never made up for: an orphan tool result, a call left without a result before a later
//! message, a call whose id an earlier call used where ids must be unique (Anthropic), and the
//! messages before the first user message where the roles alternate; a run of one role there is
//! merged into one message. Each repair is one line of `warnings`; `restore` undoes them like
//! any other plan. Valid input is not touched: no plan, no archive entry, no warning.
//!
//! [`find_with`] says what is broken (a pure function of the transcript); [`plan`] turns that into
//! one plan of edits that the format's adapter applies the usual way.

pub mod fault;
pub mod find;
pub mod findings;
mod order;
mod pairs;
pub mod plan;

pub use fault::{Fault, FaultKind};
pub use find::find_with;
pub use findings::Findings;

use crate::error::Result;
use crate::plan::working::Working;

/// Repairs `working` (the input as read, before a tier's plans): applies one plan of kind
/// `"repair"` when [`find_with`] finds something broken. Returns whether it did.
pub fn repair(working: &mut Working<'_>, server_history: bool) -> Result<bool> {
    let findings = find_with(&working.transcript, server_history);
    if findings.faults.is_empty() {
        return Ok(false);
    }
    working.apply(plan::plan(&working.transcript, &findings))?;
    Ok(true)
}

//! The seed's original single-strategy call site, kept as a thin shim over the policy.

use crate::api::context::{CompactOptions, ContextInput, TierContext};
use crate::api::result::TierResult;
use crate::engine::compact;
use crate::error::Result;
use crate::policy::pressure::BudgetPressure;

/// Compacts flat `context_text` with full-context pressure (pct 1.0, turn 1 by default), which
/// selects `auto`. New code should call [`compact`] with an explicit [`TierContext`].
pub async fn run_legacy_compaction(
    session_id: &str,
    context_text: &str,
    context_pct_used: Option<f64>,
    turn_count: Option<f64>,
    options: &CompactOptions<'_>,
) -> Result<TierResult> {
    let pressure = BudgetPressure::new(
        turn_count.unwrap_or(1.0),
        context_pct_used.unwrap_or(1.0),
        0.0,
        false,
    )
    .map_err(|e| e.under("opts"))?;
    let ctx = TierContext::new(
        session_id,
        pressure,
        ContextInput::Text(context_text.to_string()),
    );
    compact(&ctx, options).await
}

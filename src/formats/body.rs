//! STUB: being written. The edge-proxy path: a provider request body (JSON string) in, the same
//! body with its `messages` compacted out, every other byte unchanged.

use crate::context::CompactOptions;
use crate::error::Result;
use crate::pressure::BudgetPressure;
use crate::result::TierResult;

/// Compacts the `messages` of an OpenAI Chat Completions or Anthropic Messages request body.
/// Returns the new body and the result; bytes outside `messages` are copied through.
pub async fn compact_request_body(
    body: &str,
    session_id: &str,
    pressure: BudgetPressure,
    cost_per_1k_tokens: Option<f64>,
    options: &CompactOptions<'_>,
) -> Result<(String, TierResult)> {
    let _ = (body, session_id, pressure, cost_per_1k_tokens, options);
    todo!()
}

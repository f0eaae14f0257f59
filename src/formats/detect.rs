//! STUB: being written.

use crate::error::Result;
use crate::transcript::Format;
use serde_json::Value;

/// Detects the format of structured messages.
pub fn detect(_messages: &[Value]) -> Result<Format> {
    todo!()
}

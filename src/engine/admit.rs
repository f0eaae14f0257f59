//! What the engine settles before it reads a context: that it is within the input limits.

use crate::api::context::ContextInput;
use crate::api::limits::Limits;
use crate::error::Result;

/// Checks a context against the limits: `text: 52428800 bytes exceeds maxInputBytes 33554432`,
/// `messages[4].content: nesting deeper than 64 levels (maxNestingDepth)`. Messages parsed from
/// `source` bytes of JSON text are settled by it when it can be
/// ([`Limits::check_messages_read_from`]).
pub fn check_limits(limits: &Limits, input: &ContextInput, source: Option<usize>) -> Result<()> {
    match input {
        ContextInput::Text(text) => limits.check_text("text", text),
        ContextInput::Messages { messages, .. } => {
            limits.check_messages_read_from(messages, source)
        }
    }
}

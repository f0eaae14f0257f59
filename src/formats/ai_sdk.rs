//! STUB: being written.

use crate::error::Result;
use crate::transcript::{Block, Transcript};
use serde_json::Value;

/// Reads messages of this format.
pub fn read(_messages: &[Value]) -> Result<Transcript> {
    todo!()
}

/// Writes edited messages of this format.
pub(crate) struct Writer;

impl super::json::Writer for Writer {
    fn text_message(&self, _text: &str) -> Value {
        todo!()
    }
    fn replace_block(&self, _message: &Value, _block: &Block, _text: &str) -> Result<Value> {
        todo!()
    }
    fn removed_value(&self, _message: &Value, _block: &Block) -> Value {
        todo!()
    }
    fn location(&self, _message_index: usize, _block: &Block) -> String {
        todo!()
    }
}

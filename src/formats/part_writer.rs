//! The writer of the formats whose tool calls and results are parts of a message's `content`
//! (Anthropic, the AI SDK). Both make the same edits at the same places; a [`PartWriter`] is
//! the table of what differs: the fields a call's input and a result's body are in, how a body
//! is written, and where a result nests its media.

use super::common::{
    Object, input_value, missing_block, object, part_object_mut, removed_plain_path,
    replace_plain_block, text_part, tool_call_not_replaceable,
};
use super::json::{WireWriter, path_location, string_at};
use crate::api::result::{PathStep, value_at, value_at_mut};
use crate::error::Result;
use crate::transcript::{Block, BlockKind};
use serde_json::Value;

/// What sets a content-part format's writing apart.
pub(crate) struct PartWriter {
    /// User and assistant messages alternate, the first from the user (Anthropic).
    pub alternates: bool,
    /// The field of a call part that holds its input (Anthropic's `input`; the AI SDK's
    /// `input`, or `args` in v4).
    pub call_input: fn(&Object) -> &'static str,
    /// The field of a result part that holds its body (Anthropic's `content`; the AI SDK's
    /// `output`, or `result` in v4).
    pub result_body: fn(&Value) -> &'static str,
    /// The string a new body replaces without reading it, if the result part has one.
    pub body_payload: for<'v> fn(&'v Value) -> Option<&'v Value>,
    /// Writes `text` as the body of a result part (an error's when the flag says so).
    pub write_body: fn(&mut Object, bool, &str),
    /// The keys from a result part to the list of the media it nests (`content`,
    /// `output.value`).
    pub nested: &'static [&'static str],
}

impl PartWriter {
    /// Where the value that replacing `block` removes is, whether or not it is there: a call's
    /// input, a result's body, a nested item. `None` for a block of the content itself (text,
    /// media, an unknown part) and for a part that is not there.
    fn part_path(&self, message: &Value, block: &Block) -> Option<Vec<PathStep>> {
        use PathStep::{Index, Key};
        let part = |index: usize| message.get("content")?.get(index);
        let (index, field) = match (&block.kind, block.path.as_slice()) {
            (BlockKind::ToolResult { .. }, [index]) => (*index, (self.result_body)(part(*index)?)),
            (BlockKind::ToolCall { .. }, [index]) => {
                (*index, (self.call_input)(part(*index)?.as_object()?))
            }
            (_, [index, inner]) => {
                let mut path = vec![Key("content"), Index(*index)];
                path.extend(self.nested.iter().map(|key| Key(key)));
                path.push(Index(*inner));
                return Some(path);
            }
            _ => return None,
        };
        Some(vec![Key("content"), Index(index), Key(field)])
    }
}

/// Whether `block` is a part of the content itself (not a call, a result or nested media).
fn is_plain(block: &Block) -> bool {
    match block.path.as_slice() {
        [_] => !matches!(
            block.kind,
            BlockKind::ToolCall { .. } | BlockKind::ToolResult { .. }
        ),
        [_, _] => false,
        _ => true,
    }
}

impl WireWriter for PartWriter {
    fn text_message(&self, text: &str, role: &str) -> Value {
        let content = vec![text_part(&Value::Null, text)];
        object(vec![("role", role.into()), ("content", content.into())])
    }

    fn alternates(&self) -> bool {
        self.alternates
    }

    fn replace_block(&self, mut message: Value, block: &Block, text: &str) -> Result<Value> {
        match (&block.kind, block.path.as_slice()) {
            // A call keeps its ids and name; its input, stubbed, keeps its shape.
            (BlockKind::ToolCall { .. }, [index]) => {
                let call = part_object_mut(&mut message, *index, block)?;
                let field = (self.call_input)(call);
                let input = input_value(call.get(field), text);
                call.insert(field.into(), input);
            }
            (BlockKind::ToolCall { .. }, _) => return Err(tool_call_not_replaceable(block)),
            // The result keeps its id and flags (and `cache_control`); its body becomes text.
            (BlockKind::ToolResult { is_error, .. }, [index]) => {
                let result = part_object_mut(&mut message, *index, block)?;
                (self.write_body)(result, *is_error, text);
            }
            (_, [_, _]) => {
                let item = (self.part_path(&message, block))
                    .and_then(|path| value_at_mut(&mut message, &path))
                    .ok_or_else(|| missing_block(block))?;
                *item = text_part(item, text);
            }
            _ => replace_plain_block(&mut message, block, text)?,
        }
        Ok(message)
    }

    fn removed_path(&self, message: &Value, block: &Block<'_>) -> Option<Vec<PathStep>> {
        if is_plain(block) {
            return removed_plain_path(message, block);
        }
        let path = self.part_path(message, block)?;
        value_at(message, &path).map(|_| path)
    }

    fn payload<'v>(&self, message: &'v Value, block: &Block) -> Option<&'v Value> {
        if let (BlockKind::ToolResult { .. }, [index]) = (&block.kind, block.path.as_slice()) {
            let part = message.get("content")?.get(*index)?;
            return (self.body_payload)(part).filter(|body| body.is_string());
        }
        string_at(message, &self.removed_path(message, block)?)
    }

    /// The body or the input, not the whole part: the ids stay in the output. (A block of the
    /// content itself has a removed path wherever it can be replaced.)
    fn location(&self, message: &Value, message_index: usize, block: &Block) -> String {
        let path = self.part_path(message, block).unwrap_or_default();
        path_location(message_index, &path)
    }
}

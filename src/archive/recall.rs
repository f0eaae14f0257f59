//! Recall: a model that needs a pruned body again asks for it by the id its stub names. The
//! library offers the tool definition in each format's own shape ([`recall_tool_definition`]);
//! the host answers the call from the archives it stored ([`recall`]).

use crate::api::result::ArchiveEntry;
use crate::error::{CompactionError, Result};
use crate::formats::registry;
use crate::transcript::Format;
use serde_json::{Value, json};

/// The tool's name.
pub const TOOL_NAME: &str = "recall_archived";

/// What the tool does, as the model reads it.
pub const TOOL_DESCRIPTION: &str = "Returns content that was removed from this conversation to save context. A pruned tool result ends with `recall: <id>`; call this tool with that id to read the full original again. Only ask for what you need.";

/// The tool's input: `{ id }`, as a JSON Schema.
pub fn input_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "id": {
                "type": "string",
                "description": "The id named after `recall:` in a pruned result, e.g. a3f9c1b2e07d4."
            }
        },
        "required": ["id"],
        "additionalProperties": false
    })
}

/// The recall tool in `format`'s own shape (OpenAI `{ type: "function", function }`, Anthropic
/// `{ name, description, input_schema }`, AI SDK `{ description, inputSchema }`, Responses
/// `{ type: "function", name, description, parameters, strict }`, Gemini `{ name, description,
/// parameters }`). Flat text has no tools: an error.
pub fn recall_tool_definition(format: Format) -> Result<Value> {
    let structured = registry::adapter(format)
        .structured
        .as_ref()
        .ok_or_else(|| {
            CompactionError::type_error("format", "\"text\" has no tool calls, so no recall tool")
        })?;
    Ok((structured.tool_definition)(
        TOOL_NAME,
        TOOL_DESCRIPTION,
        input_schema(),
    ))
}

/// The entry with id `id` in `archives` (the archives of one or more results).
pub fn recall<'a>(archives: &'a [ArchiveEntry], id: &str) -> Option<&'a ArchiveEntry> {
    archives.iter().find(|entry| entry.id == id)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_format_has_its_own_shape() {
        let openai = recall_tool_definition(Format::OpenAi).unwrap();
        assert_eq!(openai["type"], "function");
        assert_eq!(openai["function"]["name"], TOOL_NAME);
        assert_eq!(openai["function"]["parameters"], input_schema());
        let anthropic = recall_tool_definition(Format::Anthropic).unwrap();
        assert_eq!(anthropic["name"], TOOL_NAME);
        assert_eq!(anthropic["input_schema"], input_schema());
        let ai_sdk = recall_tool_definition(Format::AiSdk).unwrap();
        assert_eq!(ai_sdk["inputSchema"], input_schema());
        assert_eq!(ai_sdk["description"], TOOL_DESCRIPTION);
        assert_eq!(
            recall_tool_definition(Format::Text).unwrap_err().path,
            "format"
        );
    }
}

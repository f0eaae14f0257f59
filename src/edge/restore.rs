//! `restore` for a request body: the compacted body's message list with the archive undone.
//! Bytes outside the list, and messages that come back as they stand in the compacted body,
//! keep their bytes; a message the archive gives back is written compactly, which is the host's
//! own spelling when the body was compact JSON as `JSON.stringify` writes it (the same escapes,
//! numbers and key order: the whole body then comes back byte for byte), and JSON-equal to it
//! otherwise (a pretty-printed list's whitespace was not kept).

use super::layout::{layout_with, parse_message};
use crate::api::result::{ArchiveEntry, ContextData};
use crate::config::PolicyConfig;
use crate::error::{CompactionError, Result};
use serde_json::Value;

/// `body` (a compacted request body) with `archive` undone.
pub fn restore_body(body: &str, archive: &[ArchiveEntry]) -> Result<String> {
    let (laid_out, _) = layout_with(body, &PolicyConfig::default().limits(), false)?;
    // Nothing to undo (a plain-string list never has anything to undo): the body as it is.
    if archive.is_empty() || laid_out.string_list {
        return Ok(body.to_string());
    }
    let span = &laid_out.span;
    let raw: Vec<&str> = span
        .elements
        .iter()
        .map(|element| body.get(element.clone()).unwrap_or_default())
        .collect();
    let messages = raw
        .iter()
        .map(|text| parse_message(text))
        .collect::<Result<Vec<Value>>>()?;
    let ContextData::Messages(restored) =
        crate::archive::restore::restore(&ContextData::Messages(messages.clone()), archive)?
    else {
        return Err(CompactionError::type_error(
            "body",
            "came back as flat text",
        ));
    };
    let mut out = String::with_capacity(body.len());
    out.push_str(body.get(..span.array.start).unwrap_or_default());
    out.push('[');
    for (index, message) in restored.iter().enumerate() {
        if index > 0 {
            out.push(',');
        }
        // Where nothing moved, a message equal to the compacted one keeps its bytes.
        match (messages.get(index), raw.get(index)) {
            (Some(standing), Some(bytes)) if standing == message => out.push_str(bytes),
            _ => out.push_str(&serde_json::to_string(message).map_err(|error| {
                CompactionError::type_error(
                    format!("archive.messages[{index}]"),
                    format!("could not be serialised: {error}"),
                )
            })?),
        }
    }
    out.push(']');
    out.push_str(body.get(span.array.end..).unwrap_or_default());
    Ok(out)
}

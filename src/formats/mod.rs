//! Format adapters: the edge where the host's wire format meets the internal
//! [`Transcript`]. Each adapter reads its format into a transcript and applies a
//! [`Plan`](crate::plan::Plan)'s edits back to it, copying untouched messages through and keeping every
//! field it does not understand.

pub(crate) mod adapter;
pub mod ai_sdk;
pub(crate) mod alternation;
pub mod anthropic;
pub(crate) mod common;
pub mod detect;
pub(crate) mod evidence;
pub mod gemini;
pub(crate) mod json;
pub mod openai;
pub(crate) mod part_writer;
pub mod registry;
pub mod responses;
pub mod text;
pub(crate) mod walk;

use crate::api::result::{ArchiveEntry, ArchiveOrigin};
use crate::error::Result;
use crate::plan::Edit;
use crate::transcript::{Format, Transcript};
use serde_json::Value;
use std::borrow::Cow;

/// An adapter's output: the edited context and what the edits removed (entry ids are assigned
/// by the caller, so they can depend on the whole result).
#[derive(Debug, Clone, PartialEq)]
pub struct Applied<T> {
    /// The context after the edits.
    pub output: T,
    /// One entry per edit, in edit order.
    pub archive: Vec<ArchiveEntry>,
    /// For each output message, the input message it is an unchanged copy of (`None` for edited
    /// and new ones); empty for flat text. Lets the binding hand back the caller's own objects.
    pub origins: Vec<Option<usize>>,
    /// For each archive entry, where its content is in the input messages when the entry does
    /// not hold it yet (its `content` is then `null`); empty for flat text.
    pub archive_origins: Vec<Option<ArchiveOrigin>>,
}

/// Reads structured `messages` of `format` (`Format::Text` is not structured and is an error).
pub fn read_messages(messages: &[Value], format: Format) -> Result<Transcript<'_>> {
    let structured = registry::structured(format)?;
    let mut read = Vec::with_capacity(messages.len());
    for (index, message) in messages.iter().enumerate() {
        read.push((structured.read_message)(message, index)?);
    }
    let mut transcript = Transcript {
        format,
        messages: read,
    };
    if structured.link.is_some() {
        let values: Vec<&Value> = messages.iter().collect();
        registry::link(&mut transcript, &values);
    }
    Ok(transcript)
}

/// Reads message `index` of structured messages of `format`.
pub(crate) fn read_message(
    message: &Value,
    index: usize,
    format: Format,
) -> Result<crate::transcript::Message<'_>> {
    (registry::structured(format)?.read_message)(message, index)
}

/// Applies `edits` (sorted, non-overlapping) to `messages` that `transcript` was read from.
pub fn apply_messages(
    messages: &[Value],
    transcript: &Transcript,
    edits: &[Edit],
) -> Result<Applied<Vec<Value>>> {
    let mut applied = apply_current(
        messages.iter().map(Cow::Borrowed).collect(),
        transcript,
        edits,
    )?;
    fill_archive(&mut applied.archive, &applied.archive_origins, messages);
    Ok(Applied {
        output: applied.output.into_iter().map(Cow::into_owned).collect(),
        archive: applied.archive,
        origins: applied.origins,
        archive_origins: applied.archive_origins,
    })
}

/// Copies the content of archive entries that is still in `input` (see [`ArchiveOrigin`]).
pub(crate) fn fill_archive(
    archive: &mut [ArchiveEntry],
    origins: &[Option<ArchiveOrigin>],
    input: &[Value],
) {
    for (entry, origin) in archive.iter_mut().zip(origins) {
        match origin {
            None => {}
            Some(ArchiveOrigin::Part { message, path }) => {
                entry.content = input
                    .get(*message)
                    .and_then(|message| crate::api::result::value_at(message, path))
                    .cloned()
                    .unwrap_or(Value::Null);
            }
            Some(ArchiveOrigin::Messages(from)) => {
                if let Value::Array(items) = &mut entry.content {
                    for (item, from) in items.iter_mut().zip(from) {
                        if let Some(message) = from.and_then(|at| input.get(at)) {
                            *item = message.clone();
                        }
                    }
                }
            }
        }
    }
}

/// [`apply_messages`] on messages that are borrowed (unchanged input) or owned (written by an
/// earlier step): untouched ones move to the output as they are, nothing is copied but the
/// edited messages (without the content they lose) and what the archive holds.
pub(crate) fn apply_current<'a>(
    messages: Vec<Cow<'a, Value>>,
    transcript: &Transcript,
    edits: &[Edit],
) -> Result<Applied<Vec<Cow<'a, Value>>>> {
    let writer = registry::structured(transcript.format)?.writer;
    json::apply(writer, messages, transcript, edits)
}

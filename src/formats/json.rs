//! The part of applying a plan that is the same for every JSON message format: walk the edits in
//! order, copy untouched messages through, ask the format's [`Writer`] for the edited ones, and
//! record what each edit removed.

use crate::error::{CompactionError, Result};
use crate::formats::Applied;
use crate::plan::Edit;
use crate::result::ArchiveEntry;
use crate::transcript::{Block, Source, Transcript};
use serde_json::Value;

/// What a JSON format must provide to have plans applied to it.
pub(crate) trait Writer {
    /// A new assistant message whose only content is `text`.
    fn text_message(&self, text: &str) -> Value;

    /// `message` with `block` replaced by `text`: a tool result keeps its id and flags and gets
    /// `text` as its body; media becomes a text part. Fields not involved are kept.
    fn replace_block(&self, message: &Value, block: &Block, text: &str) -> Result<Value>;

    /// The exact value `replace_block` removes (a tool result's body, a media part).
    fn removed_value(&self, message: &Value, block: &Block) -> Value;

    /// Where the value `removed_value` takes out of `message` is, in the caller's terms: the
    /// path a host sets to put it back (`messages[3].content[1]`, `messages[4].content[0].content`).
    fn location(&self, message: &Value, message_index: usize, block: &Block) -> String;
}

/// Applies sorted, non-overlapping `edits` to `messages`.
pub(crate) fn apply(
    writer: &dyn Writer,
    messages: &[Value],
    transcript: &Transcript,
    edits: &[Edit],
) -> Result<Applied<Vec<Value>>> {
    let mut output = Vec::with_capacity(messages.len());
    let mut origins = Vec::with_capacity(messages.len());
    let mut archive = Vec::with_capacity(edits.len());
    let mut next = 0; // next transcript message to copy through
    let mut edits = edits.iter().peekable();
    while next < transcript.messages.len() {
        let Some(edit) = edits.peek() else {
            copy_through(
                messages,
                transcript,
                next..transcript.messages.len(),
                &mut output,
                &mut origins,
            )?;
            break;
        };
        let first = edit.first_message();
        if first > next {
            copy_through(messages, transcript, next..first, &mut output, &mut origins)?;
            next = first;
            continue;
        }
        match edit {
            Edit::ReplaceMessages {
                range, text, kind, ..
            } => {
                let removed = range
                    .clone()
                    .map(|i| source_message(messages, transcript, i).cloned())
                    .collect::<Result<Vec<_>>>()?;
                let replacement = text.clone().unwrap_or_default();
                if let Some(text) = text {
                    output.push(writer.text_message(text));
                    origins.push(None);
                }
                archive.push(ArchiveEntry {
                    id: String::new(),
                    kind: kind.as_str(),
                    content: Value::Array(removed),
                    location: messages_location(transcript, range.clone()),
                    replacement,
                });
                next = range.end;
                edits.next();
            }
            Edit::ReplaceBlock { message, .. } => {
                let index = *message;
                let mut current = source_message(messages, transcript, index)?.clone();
                while let Some(Edit::ReplaceBlock {
                    message,
                    block,
                    text,
                    kind,
                }) = edits.peek()
                {
                    if *message != index {
                        break;
                    }
                    let block = transcript.messages[index]
                        .blocks
                        .get(*block)
                        .ok_or_else(|| {
                            CompactionError::range_error(
                                "plan",
                                format!("block {block} of message {index} does not exist"),
                            )
                        })?;
                    archive.push(ArchiveEntry {
                        id: String::new(),
                        kind: kind.as_str(),
                        content: writer.removed_value(&current, block),
                        location: writer.location(&current, source_index(transcript, index), block),
                        replacement: text.clone(),
                    });
                    current = writer.replace_block(&current, block, text)?;
                    edits.next();
                }
                output.push(current);
                origins.push(None);
                next = index + 1;
            }
        }
    }
    Ok(Applied {
        output,
        archive,
        origins,
    })
}

fn copy_through(
    messages: &[Value],
    transcript: &Transcript,
    range: std::ops::Range<usize>,
    output: &mut Vec<Value>,
    origins: &mut Vec<Option<usize>>,
) -> Result<()> {
    for index in range {
        output.push(source_message(messages, transcript, index)?.clone());
        origins.push(Some(source_index(transcript, index)));
    }
    Ok(())
}

fn source_index(transcript: &Transcript, index: usize) -> usize {
    match transcript.messages.get(index).map(|m| &m.source) {
        Some(Source::Index(i)) => *i,
        _ => index,
    }
}

fn source_message<'a>(
    messages: &'a [Value],
    transcript: &Transcript,
    index: usize,
) -> Result<&'a Value> {
    messages
        .get(source_index(transcript, index))
        .ok_or_else(|| {
            CompactionError::range_error("plan", format!("message {index} does not exist"))
        })
}

fn messages_location(transcript: &Transcript, range: std::ops::Range<usize>) -> String {
    let start = source_index(transcript, range.start);
    let end = source_index(transcript, range.end.saturating_sub(1)) + 1;
    if end == start + 1 {
        format!("messages[{start}]")
    } else {
        format!("messages[{start}..{end}]")
    }
}

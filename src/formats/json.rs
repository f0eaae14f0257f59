//! The part of applying a plan that is the same for every JSON message format: walk the edits in
//! order, copy untouched messages through, ask the format's [`WireWriter`] for the edited ones, and
//! record what each edit removed.

use crate::api::result::{ArchiveEntry, ArchiveOrigin, PathStep, value_at};
use crate::error::{CompactionError, Result};
use crate::formats::Applied;
use crate::formats::alternation::{arrange, side};
use crate::plan::{ArchiveKind, Edit};
use crate::transcript::markers::ROLE_BRIDGE;
use crate::transcript::{Block, Source, Transcript};
use serde_json::Value;
use std::borrow::Cow;

/// What a JSON format must provide to have plans applied to it.
pub(crate) trait WireWriter {
    /// A new message of `role` (`"assistant"` or `"user"`) whose only content is `text`.
    fn text_message(&self, text: &str, role: &str) -> Value;

    /// Whether the format needs user and assistant messages to alternate, the first from the
    /// user (Anthropic); a replacement then takes the role that keeps the order, or a bridge.
    fn alternates(&self) -> bool {
        false
    }

    /// The side (`"user"` or `"assistant"`) a message of the format stands on, from its wire
    /// role (Gemini's `model` is the assistant's side); `None` without a role.
    fn side(&self, message: &Value) -> Option<&'static str> {
        match message.get("role")?.as_str()? {
            "assistant" => Some("assistant"),
            _ => Some("user"),
        }
    }

    /// One message from consecutive messages of one side (a repair's merge): the first's fields
    /// and the content of all of them in order.
    fn merged(&self, messages: Vec<Value>) -> Result<Value> {
        super::common::merged(messages)
    }

    /// `message` with `block` replaced by `text`: a tool result keeps its id and flags and gets
    /// `text` as its body; media becomes a text part. Fields not involved are kept.
    fn replace_block(&self, message: Value, block: &Block, text: &str) -> Result<Value>;

    /// Where the exact value `replace_block` removes (a tool result's body, a media part) is
    /// inside `message`; `None` when there is nothing to remove (the entry holds `null`).
    fn removed_path(&self, message: &Value, block: &Block<'_>) -> Option<Vec<PathStep>>;

    /// The string inside `message` that `replace_block` overwrites without reading (a tool
    /// result's string body, a text part's text), if there is one: the copy of a message made
    /// to be edited leaves it out instead of copying what is replaced anyway.
    fn payload<'v>(&self, message: &'v Value, block: &Block) -> Option<&'v Value>;

    /// Where the value `removed_value` takes out of `message` is, in the caller's terms: the
    /// path a host sets to put it back (`messages[3].content[1]`, `messages[4].content[0].content`).
    /// `apply` asks only for a block without a [`Self::removed_path`]; by default the message.
    /// Archive locations name the list the host passed as `messages` (what `restore` reads).
    fn location(&self, message: &Value, message_index: usize, block: &Block) -> String {
        let path = self.removed_path(message, block).unwrap_or_default();
        path_location(message_index, &path)
    }

    /// `message` without the top-level blocks `dropped` (a repair's tool calls and results):
    /// their parts leave the message, with what is nested in them; every other field stays.
    fn without_blocks(&self, message: Value, dropped: &[&Block]) -> Result<Value> {
        super::common::without_parts(message, dropped)
    }
}

/// Applies sorted, non-overlapping `edits` to `messages` (which `transcript` was read from).
/// Untouched messages move to the output as they are (borrowed input stays borrowed); edited
/// ones are copied without the content they lose.
pub(crate) fn apply<'a>(
    writer: &dyn WireWriter,
    messages: Vec<Cow<'a, Value>>,
    transcript: &Transcript,
    edits: &[Edit],
) -> Result<Applied<Vec<Cow<'a, Value>>>> {
    let mut messages: Vec<Option<Cow<'a, Value>>> = messages.into_iter().map(Some).collect();
    let mut output = Vec::with_capacity(messages.len());
    let mut origins = Vec::with_capacity(messages.len());
    let mut archive = Vec::with_capacity(edits.len());
    let mut archive_origins = Vec::with_capacity(edits.len());
    let mut next = 0; // next transcript message to copy through
    let mut edits = edits.iter().peekable();
    // A replaced message's edits and payloads, the buffers kept from message to message.
    let mut replacements = Vec::new();
    let mut payloads: Vec<&'a Value> = Vec::new();
    while next < transcript.messages.len() {
        let Some(edit) = edits.peek() else {
            copy_through(
                &mut messages,
                transcript,
                next..transcript.messages.len(),
                &mut output,
                &mut origins,
            )?;
            break;
        };
        let first = edit.first_message();
        if first > next {
            copy_through(
                &mut messages,
                transcript,
                next..first,
                &mut output,
                &mut origins,
            )?;
            next = first;
            continue;
        }
        match edit {
            Edit::ReplaceMessages {
                range, text, kind, ..
            } => {
                // A session summary stands as the user's message in every format; what replaces
                // a run is the agent's, unless the format's role order asks otherwise.
                let preferred = if *kind == ArchiveKind::Session {
                    "user"
                } else {
                    "assistant"
                };
                let before = output.last().and_then(|m| writer.side(m));
                let after = transcript.messages.get(range.end).map(|m| side(m.role));
                let (role, bridge) = if writer.alternates() {
                    arrange(preferred, before, after)
                } else {
                    (preferred, None)
                };
                let mut removed = Vec::with_capacity(range.len());
                let mut from = Vec::with_capacity(range.len());
                for i in range.clone() {
                    let message = take_message(&mut messages, transcript, i)?;
                    archive_message(
                        message,
                        source_index(transcript, i),
                        &mut removed,
                        &mut from,
                    );
                }
                archive_origins.push(
                    from.iter()
                        .any(Option::is_some)
                        .then_some(ArchiveOrigin::Messages(from)),
                );
                let replacement = text.clone().unwrap_or_default();
                if let Some(text) = text {
                    output.push(Cow::Owned(writer.text_message(text, role)));
                    origins.push(None);
                }
                let bridge = bridge.filter(|_| text.is_some());
                archive.push(ArchiveEntry {
                    id: String::new(),
                    kind: kind.as_str(),
                    content: Value::Array(removed),
                    location: messages_location(transcript, range.clone()),
                    replacement,
                });
                if let Some(bridge_role) = bridge {
                    // The bridge removes nothing: an entry of an empty range, so `restore`
                    // takes it out again.
                    output.push(Cow::Owned(writer.text_message(ROLE_BRIDGE, bridge_role)));
                    origins.push(None);
                    archive_origins.push(None);
                    let at = insertion_index(transcript, range.end);
                    archive.push(ArchiveEntry {
                        id: BRIDGE_ID.to_string(),
                        kind: kind.as_str(),
                        content: Value::Array(Vec::new()),
                        location: format!("messages[{at}..{at}]"),
                        replacement: ROLE_BRIDGE.to_string(),
                    });
                }
                next = range.end;
                edits.next();
            }
            Edit::RewriteMessages {
                range,
                drop,
                kind,
                note,
            } => {
                let (message, entry, origin) =
                    rewrite(writer, &mut messages, transcript, range.clone(), drop)?;
                output.push(Cow::Owned(message));
                origins.push(None);
                archive.push(ArchiveEntry {
                    kind: kind.as_str(),
                    replacement: note.clone(),
                    ..entry
                });
                archive_origins.push(origin);
                next = range.end;
                edits.next();
            }
            Edit::ReplaceBlock { message, .. } => {
                let index = *message;
                let original = take_message(&mut messages, transcript, index)?;
                // Every edit of this message, with what it removes and where, read from the
                // message as it was (the edits touch different blocks).
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
                    let path = writer.removed_path(&original, block);
                    // Where the removed value is, in the caller's terms: the removed path itself
                    // where there is one, so `restore` puts back exactly what was taken out.
                    let location = match &path {
                        Some(path) => path_location(source_index(transcript, index), path),
                        None => writer.location(&original, source_index(transcript, index), block),
                    };
                    let (content, origin) = match (&original, path) {
                        (Cow::Borrowed(_), Some(path)) => (
                            Value::Null,
                            Some(ArchiveOrigin::Part {
                                message: source_index(transcript, index),
                                path,
                            }),
                        ),
                        (_, path) => (
                            path.and_then(|path| value_at(&original, &path).cloned())
                                .unwrap_or(Value::Null),
                            None,
                        ),
                    };
                    archive_origins.push(origin);
                    archive.push(ArchiveEntry {
                        id: String::new(),
                        kind: kind.as_str(),
                        content,
                        location,
                        replacement: text.clone(),
                    });
                    replacements.push((block, text));
                    edits.next();
                }
                let mut current = match original {
                    Cow::Borrowed(value) => {
                        payloads.clear();
                        payloads.extend(
                            replacements
                                .iter()
                                .filter_map(|(block, _)| writer.payload(value, block)),
                        );
                        copy_without(value, &payloads)
                    }
                    Cow::Owned(value) => value,
                };
                for (block, text) in replacements.drain(..) {
                    current = writer.replace_block(current, block, text)?;
                }
                output.push(Cow::Owned(current));
                origins.push(None);
                next = index + 1;
            }
        }
    }
    Ok(Applied {
        output,
        archive,
        origins,
        archive_origins,
    })
}

/// The one message `range` becomes under a [`Edit::RewriteMessages`] (each message without its
/// dropped blocks; several merged into the first's shape), and the archive entry (kind and
/// replacement left to the caller) and origin of the messages it takes.
fn rewrite<'a>(
    writer: &dyn WireWriter,
    messages: &mut [Option<Cow<'a, Value>>],
    transcript: &Transcript,
    range: std::ops::Range<usize>,
    drop: &[(usize, usize)],
) -> Result<(Value, ArchiveEntry, Option<ArchiveOrigin>)> {
    let mut kept = Vec::with_capacity(range.len());
    let mut removed = Vec::with_capacity(range.len());
    let mut from = Vec::with_capacity(range.len());
    for index in range.clone() {
        let blocks = transcript
            .messages
            .get(index)
            .map_or(&[][..], |message| message.blocks.as_slice());
        let dropped = drop
            .iter()
            .filter(|(message, _)| *message == index)
            .map(|(_, block)| {
                blocks.get(*block).ok_or_else(|| {
                    CompactionError::range_error(
                        "plan",
                        format!("block {block} of message {index} does not exist"),
                    )
                })
            })
            .collect::<Result<Vec<&Block>>>()?;
        let message = take_message(messages, transcript, index)?;
        kept.push(writer.without_blocks(message.as_ref().clone(), &dropped)?);
        archive_message(
            message,
            source_index(transcript, index),
            &mut removed,
            &mut from,
        );
    }
    let message = match kept.len() {
        1 => kept.pop().unwrap_or_default(),
        _ => writer.merged(kept)?,
    };
    let origin = from
        .iter()
        .any(Option::is_some)
        .then_some(ArchiveOrigin::Messages(from));
    let entry = ArchiveEntry {
        id: String::new(),
        kind: "",
        content: Value::Array(removed),
        location: messages_location(transcript, range),
        replacement: String::new(),
    };
    Ok((message, entry, origin))
}

/// Records a message an edit removes: an owned one goes into the entry; an input message stays
/// where it is until the call is done, its entry saying where (`null` in its place meanwhile).
fn archive_message(
    message: Cow<'_, Value>,
    source: usize,
    removed: &mut Vec<Value>,
    from: &mut Vec<Option<usize>>,
) {
    match message {
        Cow::Borrowed(_) => {
            removed.push(Value::Null);
            from.push(Some(source));
        }
        Cow::Owned(value) => {
            removed.push(value);
            from.push(None);
        }
    }
}

/// A copy of `value` in which the strings at `payloads` (by address) are left empty.
fn copy_without(value: &Value, payloads: &[&Value]) -> Value {
    if payloads.is_empty() {
        return value.clone();
    }
    if payloads.iter().any(|payload| std::ptr::eq(*payload, value)) {
        return Value::String(String::new());
    }
    match value {
        Value::Array(items) => Value::Array(
            items
                .iter()
                .map(|item| copy_without(item, payloads))
                .collect(),
        ),
        Value::Object(fields) => Value::Object(
            fields
                .iter()
                .map(|(key, item)| (key.clone(), copy_without(item, payloads)))
                .collect(),
        ),
        other => other.clone(),
    }
}

fn copy_through<'a>(
    messages: &mut [Option<Cow<'a, Value>>],
    transcript: &Transcript,
    range: std::ops::Range<usize>,
    output: &mut Vec<Cow<'a, Value>>,
    origins: &mut Vec<Option<usize>>,
) -> Result<()> {
    for index in range {
        output.push(take_message(messages, transcript, index)?);
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

/// Moves message `index` out of `messages` (each message is used once).
fn take_message<'a>(
    messages: &mut [Option<Cow<'a, Value>>],
    transcript: &Transcript,
    index: usize,
) -> Result<Cow<'a, Value>> {
    messages
        .get_mut(source_index(transcript, index))
        .and_then(Option::take)
        .ok_or_else(|| {
            CompactionError::range_error("plan", format!("message {index} does not exist"))
        })
}

/// `messages[i]` followed by `path` (`messages[3].content[0].text`).
fn path_location(message: usize, path: &[crate::api::result::PathStep]) -> String {
    use std::fmt::Write;
    // Written into one string (not a `format!` per index): a stubbed call's location was two
    // allocations and a growth.
    let mut location = String::with_capacity(16 + 12 * path.len());
    // Writing into a `String` cannot fail.
    let _ = write!(location, "messages[{message}]");
    for step in path {
        match step {
            crate::api::result::PathStep::Key(key) => {
                location.push('.');
                location.push_str(key);
            }
            crate::api::result::PathStep::Index(index) => {
                let _ = write!(location, "[{index}]");
            }
        }
    }
    location
}

/// The id a bridge entry carries until the plan's ids are given out (`Working::apply`).
pub(crate) const BRIDGE_ID: &str = "bridge";

/// The input index a message inserted before transcript message `at` stands at.
fn insertion_index(transcript: &Transcript, at: usize) -> usize {
    match transcript.messages.get(at) {
        Some(_) => source_index(transcript, at),
        None => transcript
            .messages
            .len()
            .checked_sub(1)
            .map_or(0, |last| source_index(transcript, last) + 1),
    }
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

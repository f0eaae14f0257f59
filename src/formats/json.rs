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
use std::iter::Peekable;
use std::ops::Range;

/// What a JSON format must provide to have plans applied to it.
pub(crate) trait WireWriter {
    /// A new message of `role` (`"assistant"` or `"user"`) whose only content is `text`.
    fn text_message(&self, text: &str, role: &str) -> Value;

    /// Whether the format needs user and assistant messages to alternate, the first from the
    /// user (Anthropic); a replacement then takes the role that keeps the order, or a bridge.
    fn alternates(&self) -> bool {
        false
    }

    /// One message from consecutive messages of one side (a repair's merge): the first's fields
    /// and the content of all of them in order.
    fn merged(&self, messages: Vec<Value>) -> Result<Value> {
        super::common::merged(messages, self.parts_key())
    }

    /// The field of a message that holds its list of parts (Gemini's `parts`).
    fn parts_key(&self) -> &'static str {
        "content"
    }

    /// `message` with `block` replaced by `text`: a tool result keeps its id and flags and gets
    /// `text` as its body; media becomes a text part. Fields not involved are kept.
    fn replace_block(&self, message: Value, block: &Block, text: &str) -> Result<Value>;

    /// Where the exact value `replace_block` removes (a tool result's body, a media part) is
    /// inside `message`; `None` when there is nothing to remove (the entry holds `null`).
    fn removed_path(&self, message: &Value, block: &Block<'_>) -> Option<Vec<PathStep>>;

    /// The string inside `message` that `replace_block` overwrites without reading (by default
    /// the removed value, when it is a string): the copy of a message made to be edited leaves
    /// it out instead of copying what is replaced anyway.
    fn payload<'v>(&self, message: &'v Value, block: &Block) -> Option<&'v Value> {
        string_at(message, &self.removed_path(message, block)?)
    }

    /// Where what replacing `block` takes out of `message` is, in the caller's terms, for a block
    /// without a [`Self::removed_path`] (by default the message): the path a host sets to put it
    /// back, in the list the host passed as `messages` (what `restore` reads).
    fn location(&self, _message: &Value, message_index: usize, _block: &Block) -> String {
        path_location(message_index, &[])
    }

    /// `message` without the top-level blocks `dropped` (a repair's tool calls and results):
    /// their parts leave the message, with what is nested in them; every other field stays.
    fn without_blocks(&self, message: Value, dropped: &[&Block]) -> Result<Value> {
        super::common::without_parts(message, dropped, self.parts_key())
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
    let (len, count) = (messages.len(), edits.len());
    let mut applier = Applier {
        writer,
        transcript,
        messages: messages.into_iter().map(Some).collect(),
        next: 0,
        out: Applied {
            output: Vec::with_capacity(len),
            archive: Vec::with_capacity(count),
            origins: Vec::with_capacity(len),
            archive_origins: Vec::with_capacity(count),
        },
        replacements: Vec::new(),
        payloads: Vec::new(),
    };
    let mut edits = edits.iter().peekable();
    let len = transcript.messages.len();
    while applier.next < len {
        let Some(edit) = edits.peek() else {
            applier.copy_through(len)?;
            break;
        };
        let first = edit.first_message();
        if first > applier.next {
            applier.copy_through(first)?;
            continue;
        }
        match edit {
            Edit::ReplaceMessages {
                range, text, kind, ..
            } => applier.replace_messages(range.clone(), text.as_deref(), *kind)?,
            Edit::RewriteMessages {
                range,
                drop,
                kind,
                note,
            } => applier.rewrite_messages(range.clone(), drop, *kind, note)?,
            Edit::ReplaceBlock { message, .. } => {
                applier.replace_blocks(*message, &mut edits)?;
                continue;
            }
        }
        edits.next();
    }
    Ok(applier.out)
}

/// One application of edits in progress: the messages not used yet, the next one to copy
/// through and what the output and the archive hold so far.
struct Applier<'a, 't> {
    writer: &'t dyn WireWriter,
    transcript: &'t Transcript<'t>,
    /// The input messages, each taken out when it is used (once).
    messages: Vec<Option<Cow<'a, Value>>>,
    /// The next transcript message to copy through.
    next: usize,
    /// The output, the archive and their origins so far.
    out: Applied<Vec<Cow<'a, Value>>>,
    /// A replaced message's edits, a buffer kept from message to message.
    replacements: Vec<(&'t Block<'t>, &'t str)>,
    /// The strings of a replaced message its edits overwrite, a buffer kept likewise.
    payloads: Vec<&'a Value>,
}

impl<'a, 't> Applier<'a, 't> {
    /// Moves the untouched messages from `next` up to `end` to the output.
    fn copy_through(&mut self, end: usize) -> Result<()> {
        for index in self.next..end {
            let message = take_message(&mut self.messages, self.transcript, index)?;
            self.out.output.push(message);
            self.out
                .origins
                .push(Some(source_index(self.transcript, index)));
        }
        self.next = end;
        Ok(())
    }

    /// Puts a message the edits wrote into the output (it is no input message's copy).
    fn push_new(&mut self, message: Value) {
        self.out.output.push(Cow::Owned(message));
        self.out.origins.push(None);
    }

    /// [`Edit::ReplaceMessages`]: `range` leaves for the archive, a message of `text` (if any)
    /// takes its place, and a bridge after it where the format's role order needs one.
    fn replace_messages(
        &mut self,
        range: Range<usize>,
        text: Option<&str>,
        kind: ArchiveKind,
    ) -> Result<()> {
        let (role, bridge) = self.replacement_roles(range.end, kind);
        let replacement = text.unwrap_or_default().to_string();
        self.archive_range(range.clone(), kind, replacement, |_, _| Ok(()))?;
        if let Some(text) = text {
            self.push_new(self.writer.text_message(text, role));
            if let Some(bridge_role) = bridge {
                self.push_bridge(bridge_role, range.end, kind);
            }
        }
        self.next = range.end;
        Ok(())
    }

    /// Takes the messages of `range` into one archive entry of `kind` whose replacement is
    /// `replacement`, showing each to `each` first: an input message stays where it is until
    /// the call is done, its entry saying where (`null` in its place meanwhile).
    fn archive_range(
        &mut self,
        range: Range<usize>,
        kind: ArchiveKind,
        replacement: String,
        mut each: impl FnMut(usize, &Value) -> Result<()>,
    ) -> Result<()> {
        let mut removed = Vec::with_capacity(range.len());
        let mut from = Vec::with_capacity(range.len());
        for index in range.clone() {
            let message = take_message(&mut self.messages, self.transcript, index)?;
            each(index, &message)?;
            let (value, at) = match message {
                Cow::Borrowed(_) => (Value::Null, Some(source_index(self.transcript, index))),
                Cow::Owned(value) => (value, None),
            };
            removed.push(value);
            from.push(at);
        }
        let origin = from
            .iter()
            .any(Option::is_some)
            .then_some(ArchiveOrigin::Messages(from));
        self.out.archive_origins.push(origin);
        self.out.archive.push(ArchiveEntry {
            id: String::new(),
            kind: kind.as_str(),
            content: Value::Array(removed),
            location: messages_location(self.transcript, range),
            replacement,
        });
        Ok(())
    }

    /// The role of what replaces the messages before transcript message `end`, and the role of
    /// a bridge after it when the format's role order leaves no single role that fits.
    fn replacement_roles(
        &self,
        end: usize,
        kind: ArchiveKind,
    ) -> (&'static str, Option<&'static str>) {
        // A session summary stands as the user's message in every format; what replaces a run
        // is the agent's, unless the format's role order asks otherwise.
        let preferred = if kind == ArchiveKind::Session {
            "user"
        } else {
            "assistant"
        };
        if !self.writer.alternates() {
            return (preferred, None);
        }
        // The wire side of the message before: Gemini's `model` is the assistant's. (Every
        // message of an alternating format has a role: its reader requires one.)
        let before = self.out.output.last().map(|message| {
            match message.get("role").and_then(Value::as_str) {
                Some("assistant" | "model") => "assistant",
                _ => "user",
            }
        });
        let after = self.transcript.messages.get(end).map(|m| side(m.role));
        arrange(preferred, before, after)
    }

    /// A bridge message of `role` before transcript message `at`. It removes nothing: an entry
    /// of an empty range, so `restore` takes it out again.
    fn push_bridge(&mut self, role: &str, at: usize, kind: ArchiveKind) {
        self.push_new(self.writer.text_message(ROLE_BRIDGE, role));
        self.out.archive_origins.push(None);
        let at = insertion_index(self.transcript, at);
        self.out.archive.push(ArchiveEntry {
            id: BRIDGE_ID.to_string(),
            kind: kind.as_str(),
            content: Value::Array(Vec::new()),
            location: format!("messages[{at}..{at}]"),
            replacement: ROLE_BRIDGE.to_string(),
        });
    }

    /// [`Edit::RewriteMessages`]: the one message `range` becomes (each message without its
    /// dropped blocks; several merged into the first's shape), its messages archived.
    fn rewrite_messages(
        &mut self,
        range: Range<usize>,
        drop: &[(usize, usize)],
        kind: ArchiveKind,
        note: &str,
    ) -> Result<()> {
        let (writer, transcript) = (self.writer, self.transcript);
        let mut kept = Vec::with_capacity(range.len());
        self.archive_range(range.clone(), kind, note.to_string(), |index, message| {
            let dropped = drop
                .iter()
                .filter(|(at, _)| *at == index)
                .map(|(_, block)| block_at(transcript, index, *block))
                .collect::<Result<Vec<&Block>>>()?;
            kept.push(writer.without_blocks(message.clone(), &dropped)?);
            Ok(())
        })?;
        let message = match kept.len() {
            1 => kept.pop().unwrap_or_default(),
            _ => writer.merged(kept)?,
        };
        self.push_new(message);
        self.next = range.end;
        Ok(())
    }

    /// Every [`Edit::ReplaceBlock`] of message `index` at the front of `edits`: each archived
    /// from the message as it was (the edits touch different blocks), then made on one copy.
    fn replace_blocks(
        &mut self,
        index: usize,
        edits: &mut Peekable<std::slice::Iter<'t, Edit>>,
    ) -> Result<()> {
        let original = take_message(&mut self.messages, self.transcript, index)?;
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
            let block = block_at(self.transcript, index, *block)?;
            let input = matches!(original, Cow::Borrowed(_));
            self.archive_block((&original, input), index, block, text, *kind);
            self.replacements.push((block, text));
            edits.next();
        }
        let mut current = self.edited_copy(original);
        let writer = self.writer;
        for (block, text) in self.replacements.drain(..) {
            current = writer.replace_block(current, block, text)?;
        }
        self.push_new(current);
        self.next = index + 1;
        Ok(())
    }

    /// The archive entry (and its origin) of what replacing `block` of message `index` removes,
    /// read from `original` (`input`: an input message, which keeps the value until the end).
    fn archive_block(
        &mut self,
        (original, input): (&Value, bool),
        index: usize,
        block: &Block,
        text: &str,
        kind: ArchiveKind,
    ) {
        let source = source_index(self.transcript, index);
        let path = self.writer.removed_path(original, block);
        // Where the removed value is, in the caller's terms: the removed path itself where
        // there is one, so `restore` puts back exactly what was taken out.
        let location = match &path {
            Some(path) => path_location(source, path),
            None => self.writer.location(original, source, block),
        };
        let (content, origin) = match (input, path) {
            (true, Some(path)) => (
                Value::Null,
                Some(ArchiveOrigin::Part {
                    message: source,
                    path,
                }),
            ),
            (_, path) => (
                path.and_then(|path| value_at(original, &path).cloned())
                    .unwrap_or(Value::Null),
                None,
            ),
        };
        self.out.archive_origins.push(origin);
        self.out.archive.push(ArchiveEntry {
            id: String::new(),
            kind: kind.as_str(),
            content,
            location,
            replacement: text.to_string(),
        });
    }

    /// The message to make the pending replacements on: an input message is copied without the
    /// strings they overwrite; one an earlier step wrote is used as it is.
    fn edited_copy(&mut self, original: Cow<'a, Value>) -> Value {
        match original {
            Cow::Borrowed(value) => {
                self.payloads.clear();
                let writer = self.writer;
                self.payloads.extend(
                    self.replacements
                        .iter()
                        .filter_map(|(block, _)| writer.payload(value, block)),
                );
                copy_without(value, &self.payloads)
            }
            Cow::Owned(value) => value,
        }
    }
}

/// Block `block` of transcript message `index`, or the error for a plan that names another.
pub(crate) fn block_at<'t>(
    transcript: &'t Transcript,
    index: usize,
    block: usize,
) -> Result<&'t Block<'t>> {
    transcript
        .messages
        .get(index)
        .and_then(|message| message.blocks.get(block))
        .ok_or_else(|| {
            CompactionError::range_error(
                "plan",
                format!("block {block} of message {index} does not exist"),
            )
        })
}

/// The value at `path` in `message` when it is a string.
pub(crate) fn string_at<'v>(message: &'v Value, path: &[PathStep]) -> Option<&'v Value> {
    value_at(message, path).filter(|value| value.is_string())
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
pub(crate) fn path_location(message: usize, path: &[PathStep]) -> String {
    use std::fmt::Write;
    // Written into one string (not a `format!` per index): a stubbed call's location was two
    // allocations and a growth.
    let mut location = String::with_capacity(16 + 12 * path.len());
    // Writing into a `String` cannot fail.
    let _ = write!(location, "messages[{message}]");
    for step in path {
        let _ = match step {
            PathStep::Key(key) => write!(location, ".{key}"),
            PathStep::Index(index) => write!(location, "[{index}]"),
        };
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

fn messages_location(transcript: &Transcript, range: Range<usize>) -> String {
    let start = source_index(transcript, range.start);
    let end = source_index(transcript, range.end.saturating_sub(1)) + 1;
    if end == start + 1 {
        format!("messages[{start}]")
    } else {
        format!("messages[{start}..{end}]")
    }
}

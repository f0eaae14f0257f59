//! [`Working`]: the context as a tier is compacting it. A tier applies one or more plans to it
//! (auto strips media, then summarises runs over the stripped result); each application goes
//! through the format's adapter, re-reads the messages it changed and extends the archive.
//!
//! Nothing of the input is copied to be worked on: unchanged messages stay borrowed from the
//! caller's input until the result is built, and only edited messages are owned.

use crate::api::context::{ContextInput, FormatChoice};
use crate::api::host_value::HostValueKey;
use crate::api::result::{ArchiveEntry, ArchiveOrigin, SummariserUsage};
use crate::error::Result;
use crate::formats::{self, detect};
use crate::plan::loop_state::Replaced;
use crate::plan::{Edit, Plan, archive_id, bridge_id};
use crate::transcript::counting::message_tokens;
use crate::transcript::{Format, Message, Source, Transcript};
use serde_json::Value;
use std::borrow::Cow;

/// The current context: borrowed where it is the input unchanged, owned where a step wrote it.
#[derive(Debug, Clone, PartialEq)]
pub enum Current<'a> {
    /// Messages in the host's format. `Borrowed` ones are unchanged input messages (their
    /// `origins` entry says which); `Owned` ones were edited or written by a step.
    Messages(Vec<Cow<'a, Value>>),
    /// Flat text.
    Text(Cow<'a, str>),
}

/// The context under compaction, with everything the tiers have decided so far.
#[derive(Debug, Clone)]
pub struct Working<'a> {
    /// The current context.
    pub context: Current<'a>,
    /// The current context in the internal model.
    pub transcript: Transcript<'a>,
    /// What has been removed so far, in the order it was removed. Content that is input
    /// content as it was is not copied: the entry holds `null` and `archive_origins` says where
    /// it is, until the engine moves or copies it in at the end.
    pub archive: Vec<ArchiveEntry>,
    /// For each archive entry, where its content is in the input (see [`ArchiveOrigin`]).
    pub archive_origins: Vec<Option<ArchiveOrigin>>,
    /// What the tier did, in words, one entry per step.
    pub notes: Vec<String>,
    /// Warnings collected from the steps.
    pub warnings: Vec<String>,
    /// A step fell back from the summariser to the structural digest.
    pub degraded: bool,
    /// The session summary, for `session_memory`.
    pub summary: Option<String>,
    /// The summariser's spend over all calls.
    pub summariser_usage: Option<SummariserUsage>,
    /// For each current message, the input message it is an unchanged copy of (empty for text).
    pub origins: Vec<Option<usize>>,
    /// Tokens of each current message once counted (messages a step copied through keep theirs).
    counted: Vec<Option<u64>>,
    /// The key of the input's host-value placeholders (binary data, URLs).
    host_values: Option<&'a HostValueKey>,
    /// Plans applied so far.
    pub plans_applied: usize,
    /// Where the loop's decisions stand (the stub frontier), for `TierResult.state`.
    pub loop_marks: LoopMarks,
    /// What a deferring tier found a batch would cost (`TierResult.cache` when it deferred).
    pub cache_report: Option<crate::policy::cache::CacheReport>,
}

/// The decisions of a loop that the history alone does not hold (docs/design.md §11, "State"), as a
/// call found them (from the host's `state`) and left them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LoopMarks {
    /// micro's stub frontier: tool results of the steps before it are stubbed.
    pub micro_frontier: usize,
    /// The summaries and digests written in place of messages (auto, session_memory), one list
    /// per plan, in the order they were applied, each in the numbering of the context it was
    /// applied to: applied in that order to the same history, they give the same messages.
    pub replaced: Vec<Vec<crate::plan::loop_state::Replaced>>,
}

impl<'a> Working<'a> {
    /// Reads the host's input (detecting the message format when asked to); with
    /// `host_values`, binary values and URLs the host keeps are known by their facts (see
    /// [`crate::api::host_value`]).
    pub fn read(input: &'a ContextInput, host_values: Option<&'a HostValueKey>) -> Result<Self> {
        let (context, transcript, origins) = match input {
            ContextInput::Text(text) => (
                Current::Text(Cow::Borrowed(text)),
                formats::text::read(text),
                Vec::new(),
            ),
            ContextInput::Messages { messages, format } => {
                let format = match format {
                    FormatChoice::Auto => detect::detect(messages)?,
                    FormatChoice::Fixed(format) => *format,
                };
                let mut transcript = formats::read_messages(messages, format)?;
                if let Some(key) = host_values {
                    for message in &mut transcript.messages {
                        crate::api::host_value::resolve(message, key);
                    }
                }
                let origins = (0..messages.len()).map(Some).collect();
                let current = messages.iter().map(Cow::Borrowed).collect();
                (Current::Messages(current), transcript, origins)
            }
        };
        Ok(Self {
            context,
            transcript,
            archive: Vec::new(),
            archive_origins: Vec::new(),
            notes: Vec::new(),
            warnings: Vec::new(),
            degraded: false,
            summary: None,
            summariser_usage: None,
            origins,
            counted: Vec::new(),
            host_values,
            plans_applied: 0,
            loop_marks: LoopMarks::default(),
            cache_report: None,
        })
    }

    /// Tokens of the current context. Flat text is counted as one string (the seed's numbers
    /// depend on it: fences and headers count too); messages as the sum over their blocks, each
    /// message counted once per call (every call must pass the same counter).
    pub fn tokens(&mut self, counter: &dyn crate::tokens::TokenCounter) -> u64 {
        match &self.context {
            Current::Text(text) => counter.count(text),
            Current::Messages(_) => {
                self.counted.resize(self.transcript.messages.len(), None);
                self.transcript
                    .messages
                    .iter()
                    .zip(&mut self.counted)
                    .map(|(message, counted)| {
                        *counted.get_or_insert_with(|| message_tokens(message, counter))
                    })
                    .sum()
            }
        }
    }

    /// The format being compacted.
    pub fn format(&self) -> Format {
        self.transcript.format
    }

    /// The current message `index` in the host's format (`None` for flat text).
    pub fn message(&self, index: usize) -> Option<&Value> {
        match &self.context {
            Current::Messages(messages) => messages.get(index).map(|message| &**message),
            Current::Text(_) => None,
        }
    }

    /// Reads flat text again with its prose cut into sections
    /// ([`formats::text::read_sections`]), so a plan can replace the oldest of them; the text
    /// itself is unchanged. Messages are left as they are.
    pub fn read_text_sections(&mut self) {
        if let Current::Text(text) = &self.context {
            self.transcript = formats::text::read_sections(text).into_owned();
        }
    }

    /// Applies `plan`: rewrites the context, re-reads what changed, archives what was removed
    /// and records the plan's reason, warnings and spend.
    pub fn apply(&mut self, plan: Plan) -> Result<()> {
        let mut plan = plan.sorted();
        if !plan.edits.is_empty() {
            let edits = std::mem::take(&mut plan.edits);
            self.apply_edits(&edits)?;
        }
        self.record(plan);
        Ok(())
    }

    /// Makes `edits` (sorted) on the context and archives what they remove, each entry under
    /// the id of what its edit removed.
    fn apply_edits(&mut self, edits: &[Edit]) -> Result<()> {
        let replaced: Vec<Replaced> = edits.iter().filter_map(Replaced::of).collect();
        if !replaced.is_empty() {
            self.loop_marks.replaced.push(replaced);
        }
        // Ids name what each edit removes, so they are read before the edits are made.
        let ids: Vec<String> = edits
            .iter()
            .map(|edit| archive_id(&self.transcript, edit))
            .collect();
        let archive = match &mut self.context {
            Current::Text(text) => {
                let applied = formats::text::apply(text, &self.transcript, edits)?;
                self.transcript = formats::text::read(&applied.output).into_owned();
                self.context = Current::Text(Cow::Owned(applied.output));
                applied.archive
            }
            Current::Messages(messages) => {
                let current = std::mem::take(messages);
                self.apply_to_messages(current, edits)?
            }
        };
        self.push_archive(archive, ids);
        self.plans_applied += 1;
        // Flat text (and any adapter that says nothing) has no origins.
        self.archive_origins.resize(self.archive.len(), None);
        Ok(())
    }

    /// Makes `edits` on the messages `current` through the format's adapter and takes in its
    /// output: origins composed with the call's, counts kept for the messages copied through,
    /// the others read again. Returns the adapter's archive entries.
    fn apply_to_messages(
        &mut self,
        current: Vec<Cow<'a, Value>>,
        edits: &[Edit],
    ) -> Result<Vec<ArchiveEntry>> {
        let applied = formats::apply_current(current, &self.transcript, edits)?;
        let archive_origins: Vec<_> = applied
            .archive_origins
            .into_iter()
            .map(|origin| self.input_origin(origin))
            .collect();
        self.archive_origins.extend(archive_origins);
        self.origins = through(&applied.origins, &self.origins);
        self.counted = through(&applied.origins, &self.counted);
        let format = self.transcript.format;
        let before = std::mem::replace(
            &mut self.transcript,
            Transcript {
                format,
                messages: Vec::new(),
            },
        );
        self.transcript = reread(before, &applied.output, &applied.origins, self.host_values)?;
        self.context = Current::Messages(applied.output);
        Ok(applied.archive)
    }

    /// An adapter's archive origin in the input's terms: an unchanged copy of an unchanged copy
    /// is a copy of the input (the adapter's indices are the current messages', ours the
    /// input's). Moved, not copied: each is a path or a list of its own.
    fn input_origin(&self, origin: Option<ArchiveOrigin>) -> Option<ArchiveOrigin> {
        let input_index = |at: usize| -> Option<usize> { self.origins.get(at).copied().flatten() };
        match origin? {
            ArchiveOrigin::Part { message, path } => {
                input_index(message).map(|message| ArchiveOrigin::Part { message, path })
            }
            ArchiveOrigin::Messages(from) => Some(ArchiveOrigin::Messages(
                from.into_iter()
                    .map(|at| at.and_then(input_index))
                    .collect(),
            )),
        }
    }

    /// Adds `archive` under `ids`: one entry per edit, and a bridge entry after an edit whose
    /// replacement needed one (`formats::json`); the bridge's id follows its edit's.
    fn push_archive(&mut self, archive: Vec<ArchiveEntry>, ids: Vec<String>) {
        let mut ids = ids.into_iter();
        let mut last = String::new();
        for mut entry in archive {
            if entry.id == formats::json::BRIDGE_ID {
                entry.id = bridge_id(&last);
            } else if let Some(id) = ids.next() {
                entry.id = id;
                last.clone_from(&entry.id);
            }
            self.archive.push(entry);
        }
    }

    /// Records what `plan` says beside its edits: its reason, warnings, summary and spend.
    fn record(&mut self, plan: Plan) {
        if !plan.reason.is_empty() {
            self.notes.push(plan.reason);
        }
        self.warnings.extend(plan.warnings);
        self.degraded |= plan.degraded;
        if plan.summary.is_some() {
            self.summary = plan.summary;
        }
        if let Some(usage) = plan.summariser_usage {
            self.summariser_usage
                .get_or_insert_with(SummariserUsage::default)
                .add(usage);
        }
    }

    /// Gives the input back unchanged, noting why (`note`), keeping what the attempt learned:
    /// notes, warnings, spend and the session summary.
    pub fn revert(&mut self, input: &'a ContextInput, note: String) -> Result<()> {
        let fresh = Self::read(input, self.host_values)?;
        self.reset_to(fresh);
        self.notes.push(note);
        Ok(())
    }

    /// Gives back `base` (the input as repaired, `crate::repair`), noting why (`note`); the
    /// repair's archive entries stay, and so do notes, warnings, spend and the summary.
    pub fn revert_to(&mut self, base: Working<'a>, note: String) {
        self.reset_to(base);
        self.notes.push(note);
    }

    /// The context, its model, its origins and its archive as `other` has them.
    fn reset_to(&mut self, other: Working<'a>) {
        self.context = other.context;
        self.origins = other.origins;
        self.transcript = other.transcript;
        self.counted = other.counted;
        self.archive = other.archive;
        self.archive_origins = other.archive_origins;
        self.plans_applied = other.plans_applied;
        // A replacement given back is not one the output holds: the state must not name it.
        self.loop_marks.replaced = other.loop_marks.replaced;
    }
}

/// What `before` says of each message an adapter copied through (`origins`: where from).
fn through<T: Copy>(origins: &[Option<usize>], before: &[Option<T>]) -> Vec<Option<T>> {
    let of = |at: usize| before.get(at).copied().flatten();
    origins.iter().map(|origin| origin.and_then(of)).collect()
}

/// The transcript of `output`, an adapter's output over the messages `before` was read from:
/// messages copied through keep their model (moved, renumbered), the others are read.
fn reread<'a>(
    before: Transcript<'a>,
    output: &[Cow<'_, Value>],
    origins: &[Option<usize>],
    host_values: Option<&HostValueKey>,
) -> Result<Transcript<'a>> {
    let format = before.format;
    let mut old: Vec<Option<Message<'a>>> = before.messages.into_iter().map(Some).collect();
    let mut messages = Vec::with_capacity(output.len());
    for (index, value) in output.iter().enumerate() {
        let kept = origins
            .get(index)
            .copied()
            .flatten()
            .and_then(|at| old.get_mut(at)?.take());
        messages.push(match kept {
            Some(mut message) => {
                message.source = Source::Index(index);
                message
            }
            None => {
                let mut message = formats::read_message(value, index, format)?;
                if let Some(key) = host_values {
                    crate::api::host_value::resolve(&mut message, key);
                }
                message.into_owned()
            }
        });
    }
    let mut transcript = Transcript { format, messages };
    // Results paired by their places take their ids from the whole list again.
    let values: Vec<&Value> = output.iter().map(|value| &**value).collect();
    formats::registry::link(&mut transcript, &values);
    Ok(transcript)
}

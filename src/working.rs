//! [`Working`]: the context as a tier is compacting it. A tier applies one or more plans to it
//! (auto strips media, then summarises runs over the stripped result); each application goes
//! through the format's adapter, re-reads the transcript and extends the archive.

use crate::context::{ContextInput, FormatChoice};
use crate::error::Result;
use crate::formats::{self, detect};
use crate::plan::Plan;
use crate::result::{ArchiveEntry, ContextData, SummariserUsage};
use crate::transcript::{Format, Transcript};

/// The context under compaction, with everything the tiers have decided so far.
#[derive(Debug, Clone)]
pub struct Working {
    /// The current context.
    pub context: ContextData,
    /// The current context in the internal model.
    pub transcript: Transcript,
    /// What has been removed so far, in the order it was removed.
    pub archive: Vec<ArchiveEntry>,
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
}

impl Working {
    /// Reads the host's input (detecting the message format when asked to).
    pub fn read(input: &ContextInput) -> Result<Self> {
        let (context, transcript, origins) = match input {
            ContextInput::Text(text) => (
                ContextData::Text(text.clone()),
                formats::text::read(text),
                Vec::new(),
            ),
            ContextInput::Messages { messages, format } => {
                let format = match format {
                    FormatChoice::Auto => detect::detect(messages)?,
                    FormatChoice::Fixed(format) => *format,
                };
                let transcript = formats::read_messages(messages, format)?;
                let origins = (0..messages.len()).map(Some).collect();
                (ContextData::Messages(messages.clone()), transcript, origins)
            }
        };
        Ok(Self {
            context,
            transcript,
            archive: Vec::new(),
            notes: Vec::new(),
            warnings: Vec::new(),
            degraded: false,
            summary: None,
            summariser_usage: None,
            origins,
        })
    }

    /// Tokens of the current context. Flat text is counted as one string (the seed's numbers
    /// depend on it: fences and headers count too); messages as the sum over their blocks.
    pub fn tokens(&self, counter: &dyn crate::tokens::TokenCounter) -> u64 {
        match &self.context {
            ContextData::Text(text) => counter.count(text),
            ContextData::Messages(_) => self.transcript.count_tokens(counter),
        }
    }

    /// The format being compacted.
    pub fn format(&self) -> Format {
        self.transcript.format
    }

    /// Applies `plan`: rewrites the context, re-reads the transcript, archives what was removed
    /// and records the plan's reason, warnings and spend.
    pub fn apply(&mut self, plan: Plan) -> Result<()> {
        let plan = plan.sorted();
        if !plan.edits.is_empty() {
            let archive = match &self.context {
                ContextData::Text(text) => {
                    let applied = formats::text::apply(text, &self.transcript, &plan.edits)?;
                    self.transcript = formats::text::read(&applied.output);
                    self.context = ContextData::Text(applied.output);
                    applied.archive
                }
                ContextData::Messages(messages) => {
                    let applied = formats::apply_messages(messages, &self.transcript, &plan.edits)?;
                    // Compose: an unchanged copy of an unchanged copy is a copy of the input.
                    self.origins = applied
                        .origins
                        .iter()
                        .map(|origin| origin.and_then(|at| self.origins.get(at).copied().flatten()))
                        .collect();
                    self.transcript =
                        formats::read_messages(&applied.output, self.transcript.format)?;
                    self.context = ContextData::Messages(applied.output);
                    applied.archive
                }
            };
            self.archive.extend(archive);
        }
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
        Ok(())
    }

    /// Gives the input back unchanged because the result `why_not` (an invariant it would break),
    /// keeping what the attempt learned: notes, warnings, spend and the session summary.
    pub fn revert(&mut self, input: &ContextInput, before: Transcript, why_not: String) {
        self.context = match input {
            ContextInput::Text(text) => ContextData::Text(text.clone()),
            ContextInput::Messages { messages, .. } => ContextData::Messages(messages.clone()),
        };
        self.origins = match input {
            ContextInput::Text(_) => Vec::new(),
            ContextInput::Messages { messages, .. } => (0..messages.len()).map(Some).collect(),
        };
        self.transcript = before;
        self.archive.clear();
        self.notes
            .push(format!("input returned unchanged: the result {why_not}"));
    }
}

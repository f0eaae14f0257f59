//! One thing in an input that breaks its provider's rules, and the warning line that names it.

use std::fmt;

/// What is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FaultKind {
    /// A tool result with no call of its id before it.
    OrphanResult,
    /// A tool result for a call that an earlier result answered already.
    SecondResult,
    /// A tool call without a result, in a message that a later message follows (a call in the
    /// last message is the host's next action and is not one).
    UnansweredCall,
    /// A tool call whose id an earlier call (in message `first`) used, where the format needs
    /// unique ids.
    DuplicateCall {
        /// The message of the first call with the id.
        first: usize,
    },
    /// A tool result answering such a duplicate call.
    DuplicateResult,
    /// A message the repairs left with blank text only (removed whole, as no message may be
    /// empty).
    LeftEmpty,
    /// Messages `message..end` stand before the first user message, where the format needs the
    /// user first.
    BeforeFirstUser {
        /// One past the last of them.
        end: usize,
    },
    /// A message bound to the next one (a Responses `reasoning` item) whose follower the repairs
    /// removed: the provider refuses it without the item it precedes.
    LeftBehind,
    /// Messages `message..end` are a run of one role (`role`) where roles must alternate.
    SameRole {
        /// One past the last message of the run.
        end: usize,
        /// The role's wire name.
        role: &'static str,
    },
}

/// One fault, where it is: `message` is an input message index; `id` the tool id involved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fault {
    /// What is wrong.
    pub kind: FaultKind,
    /// The input message it is in (the first, for a range).
    pub message: usize,
    /// The tool id, for a tool call or result.
    pub id: Option<String>,
}

impl Fault {
    /// What the fault is in: `the tool result at messages[3] (id "c1")`, `messages[0..2]`.
    pub fn subject(&self) -> String {
        let at = self.message;
        let id = self
            .id
            .as_deref()
            .map(|id| format!(" (id {id:?})"))
            .unwrap_or_default();
        match &self.kind {
            FaultKind::OrphanResult | FaultKind::SecondResult | FaultKind::DuplicateResult => {
                format!("the tool result at messages[{at}]{id}")
            }
            FaultKind::UnansweredCall | FaultKind::DuplicateCall { .. } => {
                format!("the tool call at messages[{at}]{id}")
            }
            FaultKind::LeftEmpty | FaultKind::LeftBehind => format!("messages[{at}]"),
            FaultKind::BeforeFirstUser { end } | FaultKind::SameRole { end, .. } => range(at, *end),
        }
    }

    /// Which rule it breaks.
    pub fn problem(&self) -> String {
        match &self.kind {
            FaultKind::OrphanResult => "no call with its id comes before it".into(),
            FaultKind::SecondResult => "its call has a result already".into(),
            FaultKind::UnansweredCall => "it has no result and later messages follow it".into(),
            FaultKind::DuplicateCall { first } => {
                format!("the call at messages[{first}] has the same id, and ids must be unique")
            }
            FaultKind::DuplicateResult => "it answers a duplicate call".into(),
            FaultKind::LeftEmpty => "the repairs left it with blank text only".into(),
            FaultKind::LeftBehind => {
                "it must stay with the item after it, which the repairs removed".into()
            }
            FaultKind::BeforeFirstUser { end } => {
                let what = if *end > self.message + 1 {
                    "they come"
                } else {
                    "it comes"
                };
                format!(
                    "{what} before the first user message, and the first message must be the user's"
                )
            }
            FaultKind::SameRole { role, .. } => {
                format!("roles must alternate, and these are {role} messages in a row")
            }
        }
    }
}

/// The warning line: `repair: removed the tool result at messages[3] (id "c1"): no call with
/// its id comes before it`.
impl fmt::Display for Fault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (subject, problem) = (self.subject(), self.problem());
        match &self.kind {
            FaultKind::SameRole { role, .. } => write!(
                f,
                "repair: merged {subject} into one {role} message: {problem}"
            ),
            _ => write!(f, "repair: removed {subject}: {problem}"),
        }
    }
}

/// `messages[a]` or `messages[a..b]`.
pub(crate) fn range(start: usize, end: usize) -> String {
    if end == start + 1 {
        format!("messages[{start}]")
    } else {
        format!("messages[{start}..{end}]")
    }
}

//! The loop's state (docs/design.md §11, "State"): what a stateless host (one that sends the raw history at
//! every call: the AI SDK's `prepareStep`, an edge proxy) needs besides the history for the next
//! call to repeat this call's output byte for byte as the history grows. The history decides the
//! stub frontier by itself; what it cannot decide is what a tier did under a pressure it no
//! longer has: time_based's pruning on an idle, cold cache, and where the frontier stood when a
//! batch was deferred. Without it, the next warm call would undo time_based's stubs, and rewrite
//! the cached prefix a second time.
//!
//! The state names the history it was made for by a fingerprint: a call whose messages do not
//! extend that history, for another session or from another version, ignores it with a warning,
//! never misapplies it. A stateful host (one that keeps the output and appends to it) needs none:
//! its history holds the edits, and a state passed with it is recognised by the output's
//! fingerprint and ignored without a warning.

use crate::error::{CompactionError, Result};
use crate::plan::{ArchiveKind, Edit};
use crate::transcript::Transcript;
use serde::Serialize;
use serde_json::Value;
use xxhash_rust::xxh3::Xxh3;

/// The state's format version: a state of another version is ignored.
pub const STATE_VERSION: u64 = 1;

/// The loop's state, as `TierResult.state` gives it and `TierContext.state` takes it back.
/// Positions are counts of steps from the start, so they stay valid as the history grows at its end.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LoopState {
    /// [`STATE_VERSION`].
    pub version: u64,
    /// The session's id, hashed (16 hex digits).
    pub session: String,
    /// The messages the call was given.
    pub history: Print,
    /// The messages it returned (how a stateful host's next history starts).
    pub output: Print,
    /// micro's stub frontier: the tool results of this many steps are stubbed. Steps are
    /// counted in the history as repaired, which a history growing at its end does not change
    /// (input indices did not line up where a repair merges messages).
    pub micro_steps: u64,
    /// How many steps time_based pruned (0: never).
    pub stale_steps: u64,
    /// What auto and session_memory wrote in place of messages, one list per plan, in order
    /// (see [`crate::plan::working::LoopMarks::replaced`]).
    pub replaced: Vec<Vec<Replaced>>,
    /// A digest of the fields above (16 hex digits): a state changed on its way back is
    /// ignored, not misapplied.
    pub check: String,
}

/// A summary or digest that replaced messages `start..end`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Replaced {
    /// The first message replaced.
    pub start: u64,
    /// The message after the last one replaced.
    pub end: u64,
    /// What the replaced messages were (`run`, `turn`, `session`).
    pub kind: &'static str,
    /// The replacement's text.
    pub text: String,
}

impl Replaced {
    /// The replacement `edit` makes, if it writes a summary or digest in place of messages.
    pub fn of(edit: &Edit) -> Option<Self> {
        match edit {
            Edit::ReplaceMessages {
                range,
                text: Some(text),
                kind,
                is_summary: true,
            } => Some(Self {
                start: range.start as u64,
                end: range.end as u64,
                kind: kind.as_str(),
                text: text.clone(),
            }),
            _ => None,
        }
    }

    /// The edit that makes this replacement again.
    pub fn edit(&self) -> Option<Edit> {
        let kind = ArchiveKind::named(self.kind)?;
        let (start, end) = (
            usize::try_from(self.start).ok()?,
            usize::try_from(self.end).ok()?,
        );
        (start < end).then(|| Edit::ReplaceMessages {
            range: start..end,
            text: Some(self.text.clone()),
            kind,
            is_summary: true,
        })
    }
}

/// A fingerprint of the first `messages` messages of a list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Print {
    /// How many messages.
    pub messages: u64,
    /// Their content's digest (32 hex digits).
    pub digest: String,
}

/// What a call's messages are to the state it was given.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Admitted {
    /// No state.
    None,
    /// They extend the history the state was made for: its decisions apply.
    Extends(LoopState),
    /// They extend the state's output (a stateful host): the history holds the decisions.
    Holds,
    /// It does not apply: the warning says why.
    Ignored(String),
}

/// The digests of the first `at[i]` messages of `transcript` (one pass).
fn digests_at(transcript: &Transcript<'_>, at: &[u64]) -> Vec<Option<String>> {
    let mut hasher = Xxh3::new();
    let mut out = vec![None; at.len()];
    let record = |count: u64, hasher: &Xxh3, out: &mut Vec<Option<String>>| {
        for (slot, want) in out.iter_mut().zip(at) {
            if *want == count {
                *slot = Some(format!("{:032x}", hasher.digest128()));
            }
        }
    };
    record(0, &hasher, &mut out);
    for (index, message) in transcript.messages.iter().enumerate() {
        hasher.update(&[0xfe, message.role as u8]);
        for block in &message.blocks {
            hash_block(&mut hasher, block);
        }
        record(index as u64 + 1, &hasher, &mut out);
    }
    out
}

/// Feeds `block` to a history's digest: its kind and ids, and its text whole when short, by its
/// length and ends when long, as the correlation id covers it. A history in a loop only grows at
/// its end; an edit in the middle of a long text that keeps its length and ends goes unseen.
fn hash_block(hasher: &mut Xxh3, block: &crate::transcript::Block<'_>) {
    crate::plan::hash_kind(hasher, block);
    hasher.update(&[0xff]);
    crate::plan::hash_fingerprint(hasher, block, 0xff);
}

/// The fingerprint of all of `transcript`.
pub fn print(transcript: &Transcript<'_>) -> Print {
    let messages = transcript.messages.len() as u64;
    let digest = digests_at(transcript, &[messages])
        .pop()
        .flatten()
        .unwrap_or_default();
    Print { messages, digest }
}

/// The session id as the state carries it.
pub fn session_key(session_id: &str) -> String {
    format!("{:016x}", xxhash_rust::xxh3::xxh3_64(session_id.as_bytes()))
}

/// What `input` (the call's messages as given, before any repair) is to `state`.
pub fn admit(state: Option<LoopState>, session_id: &str, input: &Transcript<'_>) -> Admitted {
    let Some(state) = state else {
        return Admitted::None;
    };
    if state.check != state.checksum() {
        return Admitted::Ignored("state ignored: it does not match its check".into());
    }
    if state.version != STATE_VERSION {
        return Admitted::Ignored(format!(
            "state ignored: made by another version ({}, this one reads {STATE_VERSION})",
            state.version
        ));
    }
    if state.session != session_key(session_id) {
        return Admitted::Ignored("state ignored: made for another session".into());
    }
    let digests = digests_at(input, &[state.history.messages, state.output.messages]);
    let matches =
        |print: &Print, digest: &Option<String>| digest.as_deref() == Some(print.digest.as_str());
    if matches(&state.history, &digests[0])
        && state.micro_steps.max(state.stale_steps) <= state.history.messages
    {
        Admitted::Extends(state)
    } else if matches(&state.output, &digests[1]) {
        Admitted::Holds
    } else {
        Admitted::Ignored(format!(
            "state ignored: these messages do not extend the {} it was made for",
            plural(state.history.messages)
        ))
    }
}

fn plural(messages: u64) -> String {
    match messages {
        1 => "1 message".into(),
        _ => format!("{messages} messages"),
    }
}

impl LoopState {
    /// A state with its check (see [`Self::check`]).
    pub fn new(
        session_id: &str,
        history: Print,
        output: Print,
        micro_steps: u64,
        stale_steps: u64,
        replaced: Vec<Vec<Replaced>>,
    ) -> Self {
        let mut state = Self {
            version: STATE_VERSION,
            session: session_key(session_id),
            history,
            output,
            micro_steps,
            stale_steps,
            replaced,
            check: String::new(),
        };
        state.check = state.checksum();
        state
    }

    /// The digest [`Self::check`] must hold.
    pub fn checksum(&self) -> String {
        let mut hasher = Xxh3::new();
        hasher.update(b"tiered-compaction loop state");
        for number in [
            self.version,
            self.history.messages,
            self.output.messages,
            self.micro_steps,
            self.stale_steps,
        ] {
            hasher.update(&number.to_le_bytes());
        }
        for text in [&self.session, &self.history.digest, &self.output.digest] {
            hasher.update(text.as_bytes());
            hasher.update(&[0xff]);
        }
        for plan in &self.replaced {
            hasher.update(&[0xfe]);
            for replaced in plan {
                hasher.update(&replaced.start.to_le_bytes());
                hasher.update(&replaced.end.to_le_bytes());
                hasher.update(replaced.kind.as_bytes());
                hasher.update(&[0xff]);
                hasher.update(replaced.text.as_bytes());
                hasher.update(&[0xff]);
            }
        }
        format!("{:016x}", hasher.digest())
    }

    /// The largest state accepted, in bytes of JSON: a few hundred bytes, and the summaries
    /// auto and session_memory wrote.
    pub const MAX_JSON_BYTES: usize = 4 << 20;

    /// Reads a state from its JSON form; errors name the field (`state.history.digest ...`).
    pub fn from_json(value: &Value) -> Result<Self> {
        let object = value.as_object().ok_or_else(|| {
            CompactionError::type_error("state", "must be the object a result's state gave")
        })?;
        let known = [
            "version",
            "session",
            "history",
            "output",
            "microSteps",
            "staleSteps",
            "replaced",
            "check",
        ];
        if let Some(key) = object.keys().find(|key| !known.contains(&key.as_str())) {
            return Err(CompactionError::type_error(
                format!("state.{key}"),
                "is not a field of a state",
            ));
        }
        let state = Self {
            version: integer(object.get("version"), "state.version")?,
            session: hex(object.get("session"), "state.session", 16)?,
            history: read_print(object.get("history"), "state.history")?,
            output: read_print(object.get("output"), "state.output")?,
            micro_steps: integer(object.get("microSteps"), "state.microSteps")?,
            stale_steps: integer(object.get("staleSteps"), "state.staleSteps")?,
            replaced: read_replaced(object.get("replaced"))?,
            check: hex(object.get("check"), "state.check", 16)?,
        };
        Ok(state)
    }
}

fn read_replaced(value: Option<&Value>) -> Result<Vec<Vec<Replaced>>> {
    fn list<'v>(value: Option<&'v Value>, path: &str) -> Result<&'v Vec<Value>> {
        let list = value.and_then(Value::as_array);
        list.ok_or_else(|| CompactionError::type_error(path, "must be a list"))
    }
    let plans = list(value, "state.replaced")?;
    let plan = |(p, plan): (usize, &Value)| {
        let path = format!("state.replaced[{p}]");
        let entries = list(Some(plan), &path)?.iter().enumerate();
        entries
            .map(|(e, entry)| read_entry(entry, &format!("{path}[{e}]")))
            .collect()
    };
    plans.iter().enumerate().map(plan).collect()
}

/// One of a plan's [`Replaced`] at `path`.
fn read_entry(entry: &Value, path: &str) -> Result<Replaced> {
    let kind = entry
        .get("kind")
        .and_then(Value::as_str)
        .and_then(ArchiveKind::named)
        .ok_or_else(|| {
            CompactionError::type_error(format!("{path}.kind"), "must be an archive kind")
        })?;
    let text = entry
        .get("text")
        .and_then(Value::as_str)
        .ok_or_else(|| CompactionError::type_error(format!("{path}.text"), "must be a string"))?;
    Ok(Replaced {
        start: integer(entry.get("start"), &format!("{path}.start"))?,
        end: integer(entry.get("end"), &format!("{path}.end"))?,
        kind: kind.as_str(),
        text: text.to_string(),
    })
}

fn read_print(value: Option<&Value>, path: &str) -> Result<Print> {
    let object = value.and_then(Value::as_object).ok_or_else(|| {
        CompactionError::type_error(path, "must be an object { messages, digest }")
    })?;
    Ok(Print {
        messages: integer(object.get("messages"), &format!("{path}.messages"))?,
        digest: hex(object.get("digest"), &format!("{path}.digest"), 32)?,
    })
}

fn integer(value: Option<&Value>, path: &str) -> Result<u64> {
    value
        .and_then(Value::as_u64)
        .filter(|value| *value <= crate::api::input::MAX_SAFE_INTEGER as u64)
        .ok_or_else(|| {
            CompactionError::type_error(
                path,
                format!("must be an integer >= 0, got {}", shown(value)),
            )
        })
}

fn hex(value: Option<&Value>, path: &str, digits: usize) -> Result<String> {
    value
        .and_then(Value::as_str)
        .filter(|text| text.len() == digits && text.bytes().all(|b| b.is_ascii_hexdigit()))
        .map(str::to_string)
        .ok_or_else(|| {
            CompactionError::type_error(
                path,
                format!("must be {digits} hex digits, got {}", shown(value)),
            )
        })
}

/// A value as an error shows it: short.
fn shown(value: Option<&Value>) -> String {
    match value {
        None => "nothing".into(),
        Some(value) => {
            let text = value.to_string();
            match text.char_indices().nth(40) {
                Some((at, _)) => format!("{}…", &text[..at]),
                None => text,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transcript::Format;
    use serde_json::json;

    fn read(messages: &[Value]) -> Transcript<'_> {
        crate::formats::read_messages(messages, Format::OpenAi).unwrap()
    }

    fn state_for(messages: &[Value]) -> LoopState {
        let transcript = read(messages);
        LoopState::new(
            "s",
            print(&transcript),
            print(&transcript),
            1,
            0,
            Vec::new(),
        )
    }

    #[test]
    fn a_state_applies_to_histories_that_extend_its_own() {
        let short = vec![json!({"role": "user", "content": "a"})];
        let mut long = short.clone();
        long.push(json!({"role": "assistant", "content": "b"}));
        let state = state_for(&short);
        assert!(matches!(
            admit(Some(state.clone()), "s", &read(&long)),
            Admitted::Extends(_)
        ));
        let other = vec![json!({"role": "user", "content": "x"})];
        assert!(matches!(
            admit(Some(state.clone()), "s", &read(&other)),
            Admitted::Ignored(why) if why.contains("do not extend")
        ));
        assert!(matches!(
            admit(Some(state.clone()), "t", &read(&long)),
            Admitted::Ignored(why) if why.contains("another session")
        ));
        let mut old = LoopState {
            version: 0,
            ..state.clone()
        };
        assert!(matches!(
            admit(Some(old.clone()), "s", &read(&long)),
            Admitted::Ignored(why) if why.contains("its check")
        ));
        old.check = old.checksum();
        assert!(matches!(
            admit(Some(old), "s", &read(&long)),
            Admitted::Ignored(why) if why.contains("another version")
        ));
    }

    #[test]
    fn a_state_round_trips_through_json_and_bad_fields_are_named() {
        let state = state_for(&[json!({"role": "user", "content": "a"})]);
        let value = serde_json::to_value(&state).unwrap();
        assert_eq!(LoopState::from_json(&value).unwrap(), state);
        let mut bad = value.clone();
        bad["history"]["digest"] = json!("zz");
        let error = LoopState::from_json(&bad).unwrap_err().to_string();
        assert!(
            error.contains("state.history.digest must be 32 hex digits"),
            "{error}"
        );
        let mut bad = value.clone();
        bad["microSteps"] = json!(-1);
        let error = LoopState::from_json(&bad).unwrap_err().to_string();
        assert!(
            error.contains("state.microSteps must be an integer"),
            "{error}"
        );
        let mut bad = value;
        bad["extra"] = json!(1);
        assert!(LoopState::from_json(&bad).is_err());
        assert!(LoopState::from_json(&json!("x")).is_err());
    }
}

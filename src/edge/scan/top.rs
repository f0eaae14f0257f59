//! What a request body's top-level fields tell, as the pass ([`super::item`]) reads them: where
//! each message list is, and the fields that name the provider or its stored conversation.

use super::{ANTHROPIC_FIELDS, SERVER_HISTORY_FIELDS, key_is};
use crate::formats::registry;
use serde_json::Value;
use serde_json::value::RawValue;
use std::ops::Range;

/// How a message list that is an array is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Mode {
    /// Its elements as values, when each is an object with a plain first key
    /// ([`super::objects`]).
    Parse,
    /// Its elements' spans.
    Spans,
}

/// A message list as it was read.
pub(super) enum List<'de> {
    /// [`Mode::Parse`]: the elements' values and first keys.
    Objects(Vec<Value>, Vec<&'de str>),
    /// [`Mode::Spans`]: the elements' spans.
    Elements(Vec<Range<usize>>),
    /// Not an array.
    Other,
    /// An array [`Mode::Parse`] did not read through: the body is read again in [`Mode::Spans`].
    Again,
}

/// The last field of a list key.
pub(super) struct Entry<'de> {
    /// Where its value starts.
    pub start: usize,
    /// Where it ends, when the pass knows (a list read as values ends before `next_key`).
    pub end: Option<usize>,
    pub list: List<'de>,
    /// The next field's key token; `None` when the list is the last field.
    pub next_key: Option<&'de RawValue>,
}

/// What the top-level fields tell.
pub(super) struct Top<'de> {
    /// The list keys, in the order the formats are registered.
    pub keys: Vec<&'static str>,
    pub mode: Mode,
    /// The message list: the last field of the first list key present, and that key's index.
    pub list: Option<(usize, Entry<'de>)>,
    /// Per field of [`ANTHROPIC_FIELDS`], whether it is present.
    pub anthropic: [bool; ANTHROPIC_FIELDS.len()],
    /// A field of [`SERVER_HISTORY_FIELDS`] is present and not `null`.
    pub server_history: bool,
    /// The message list was the field read last: it waits for the key after it.
    waiting: bool,
}

impl<'de> Top<'de> {
    pub fn new(mode: Mode) -> Self {
        Self {
            keys: registry::list_keys().collect(),
            mode,
            list: None,
            anthropic: [false; ANTHROPIC_FIELDS.len()],
            server_history: false,
            waiting: false,
        }
    }

    /// A top-level key read: its list key's index, if it is one.
    pub fn key(&mut self, key: &'de RawValue) -> Option<usize> {
        let name = key.get();
        if let Some((_, entry)) = self.list.as_mut().filter(|_| self.waiting) {
            entry.next_key = Some(key);
        }
        self.waiting = false;
        for (field, seen) in ANTHROPIC_FIELDS.iter().zip(&mut self.anthropic) {
            *seen |= key_is(name, field);
        }
        self.keys.iter().position(|list_key| key_is(name, list_key))
    }

    /// The value of `key`, the list key `slot` (if it is one), read as `list`: its text `value`
    /// when the pass knows where it ends.
    pub fn value(&mut self, key: &str, slot: Option<usize>, entry: Entry<'de>, value: &str) {
        self.server_history |=
            value != "null" && SERVER_HISTORY_FIELDS.iter().any(|field| key_is(key, field));
        // A key registered earlier takes the place of a later one, and a later field of a key
        // the place of an earlier one, as serde_json reads them.
        if let Some(slot) =
            slot.filter(|&slot| self.list.as_ref().is_none_or(|(at, _)| slot <= *at))
        {
            self.list = Some((slot, entry));
            self.waiting = true;
        }
    }

    /// Whether the message list was not read through.
    pub fn again(&self) -> bool {
        self.list
            .as_ref()
            .is_some_and(|(_, entry)| matches!(entry.list, List::Again))
    }
}

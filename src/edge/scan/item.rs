//! The pass: a value read by serde_json where the pass knows it starts, giving where it ends. A
//! container is read through (serde_json counts its depth, which it does not for what it
//! skips), each key as a `RawValue` (its place) and each value as an [`Item`] again, so every
//! start is known before the value is read (after a key's colon, a bracket, a comma). Anything
//! else is skipped as a `RawValue`, whose place is its span: a string is checked, not decoded, a
//! number not converted, as serde_json checks what it skips. The body's top-level object is an
//! item whose fields are also told to a [`Top`].

use super::objects::Objects;
use super::span_of;
use super::top::{Entry, List, Mode, Top};
use super::walk::skip_whitespace;
use serde::de::{self, Deserialize, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;
use std::fmt;
use std::ops::Range;

/// `body` read in `mode`; `None` when it is not a JSON object, or nested deeper than serde_json
/// reads.
pub(super) fn read(body: &str, mode: Mode) -> Option<Top<'_>> {
    // Anything else is refused here, not through serde's "invalid type" error.
    let at = skip_whitespace(body.as_bytes(), 0)?;
    (body.as_bytes().get(at) == Some(&b'{')).then_some(())?;
    let mut top = Top::new(mode);
    let mut reader = serde_json::Deserializer::from_str(body);
    let item = Item {
        top: Some(&mut top),
        ..Item::new(body, at)
    };
    item.deserialize(&mut reader).ok()??;
    reader.end().ok()?;
    Some(top)
}

/// The value of `body` starting at `at`; with `elements`, an array's elements' spans are pushed
/// there. Reads to `Some(end)`, or `None` when serde_json read a value elsewhere (a bug here).
struct Item<'b, 'de> {
    body: &'de str,
    at: usize,
    elements: Option<&'b mut Vec<Range<usize>>>,
    /// The top-level object's fields are told to it.
    top: Option<&'b mut Top<'de>>,
}

impl<'de> Item<'_, 'de> {
    fn new(body: &'de str, at: usize) -> Self {
        Self {
            body,
            at,
            elements: None,
            top: None,
        }
    }
}

impl<'de> DeserializeSeed<'de> for Item<'_, 'de> {
    type Value = Option<usize>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        match self.body.as_bytes().get(self.at) {
            Some(b'{' | b'[') => deserializer.deserialize_any(self),
            _ => {
                let raw = <&RawValue>::deserialize(deserializer)?;
                let span = span_of(self.body, raw.get());
                Ok(span
                    .filter(|span| span.start == self.at)
                    .map(|span| span.end))
            }
        }
    }
}

/// Where the value after the key token ending at `key_end` starts (past the colon).
fn value_start(body: &str, key_end: usize) -> Option<usize> {
    let bytes = body.as_bytes();
    let colon = skip_whitespace(bytes, key_end)?;
    (bytes.get(colon) == Some(&b':')).then_some(())?;
    skip_whitespace(bytes, colon + 1)
}

/// Where the element after `end` (a bracket, or the element before) starts: past a comma, if
/// one follows (none does the bracket, and the closing bracket ends the list).
fn element_start(bytes: &[u8], end: usize) -> Option<usize> {
    let at = skip_whitespace(bytes, end)?;
    match bytes.get(at) {
        Some(b',') => skip_whitespace(bytes, at + 1),
        _ => Some(at),
    }
}

/// Past the `close` that ends a container after `end` (its last value, or its opening bracket).
fn closed(body: &str, end: usize, close: u8) -> Option<usize> {
    let at = skip_whitespace(body.as_bytes(), end)?;
    (body.as_bytes().get(at) == Some(&close)).then_some(at + 1)
}

/// A top-level field's value, starting at `at`, read and told to `top`: where it ends (a list
/// read as values: where it starts; the body's end is serde_json's to check).
fn top_field<'de, A: MapAccess<'de>>(
    body: &'de str,
    top: &mut Top<'de>,
    key: &'de RawValue,
    at: usize,
    fields: &mut A,
) -> Result<Option<usize>, A::Error> {
    let slot = top.key(key);
    let array = body.as_bytes().get(at) == Some(&b'[');
    let (end, list) = match slot {
        Some(_) if array && top.mode == Mode::Parse => {
            let list = match fields.next_value_seed(Objects)? {
                Some((values, first_keys)) => List::Objects(values, first_keys),
                None => List::Again,
            };
            (None, list)
        }
        _ => {
            let mut elements = Vec::new();
            let value = Item {
                elements: (slot.is_some() && array).then_some(&mut elements),
                ..Item::new(body, at)
            };
            let Some(end) = fields.next_value_seed(value)? else {
                return Ok(None);
            };
            let list = if array {
                List::Elements(elements)
            } else {
                List::Other
            };
            (Some(end), list)
        }
    };
    let entry = Entry {
        start: at,
        end,
        list,
        next_key: None,
    };
    let value = end.and_then(|end| body.get(at..end)).unwrap_or_default();
    top.value(key.get(), slot, entry, value);
    Ok(Some(end.unwrap_or(at)))
}

impl<'de> Visitor<'de> for Item<'_, 'de> {
    type Value = Option<usize>;

    fn expecting(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
        formatter.write_str("a JSON value")
    }

    scalars_give!(None);

    fn visit_map<A: MapAccess<'de>>(self, mut fields: A) -> Result<Self::Value, A::Error> {
        let (body, mut top) = (self.body, self.top);
        let mut end = self.at + 1;
        while let Some(key) = fields.next_key::<&RawValue>()? {
            let Some(at) = span_of(body, key.get()).and_then(|key| value_start(body, key.end))
            else {
                return Ok(None);
            };
            let value_end = match top.as_deref_mut() {
                Some(top) => top_field(body, top, key, at, &mut fields)?,
                None => fields.next_value_seed(Item::new(body, at))?,
            };
            match value_end {
                Some(value_end) => end = value_end,
                None => return Ok(None),
            }
        }
        Ok(match top {
            Some(_) => Some(end),
            None => closed(body, end, b'}'),
        })
    }

    fn visit_seq<A: SeqAccess<'de>>(mut self, mut items: A) -> Result<Self::Value, A::Error> {
        let bytes = self.body.as_bytes();
        let mut end = self.at + 1;
        loop {
            let Some(at) = element_start(bytes, end) else {
                return Ok(None);
            };
            match items.next_element_seed(Item::new(self.body, at))? {
                Some(Some(item_end)) => {
                    if let Some(elements) = self.elements.as_mut() {
                        elements.push(at..item_end);
                    }
                    end = item_end;
                }
                Some(None) => return Ok(None),
                None => return Ok(closed(self.body, end, b']')),
            }
        }
    }
}

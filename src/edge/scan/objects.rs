//! A message list of objects read by one serde_json reader, not one reader per message: a
//! reader's buffer for strings with escapes starts empty and grows by doubling, so a reader per
//! message grew it again for every message (13,362 of a 300-turn conversation's 131,022
//! allocations, 3,222 a call of a 300-step run's 26,400).
//!
//! serde_json gives no positions inside the value it reads, and the body path needs each
//! element's span. Each element's first key gives it: a key without escapes is borrowed from the
//! text, so its address is where it is, and between an object's brace and its first key's quote
//! there is only whitespace. An element's end is the last brace before the next element's comma
//! (the list's bracket for the last). A list any of whose elements is not an object whose first
//! key is plain text is not read here: the pass reads the body again for the elements' spans,
//! and the caller parses each.

use super::walk::before_whitespace;
use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};
use std::fmt;
use std::ops::Range;

/// The visitor methods of the scalar JSON types, each giving `$value`. Nothing here fails
/// through serde's errors: the visitors take every JSON type (the ones they do not want as
/// `None`), read with `deserialize_any`. A type refused through serde's `invalid_type` is
/// printed by `Unexpected`'s `Display`, whose floats brought core's float formatting (about 20 KB
/// of code) into the module. (Used by [`super::item`] too.)
macro_rules! scalars_give {
    ($value:expr) => {
        fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
            Ok($value)
        }
        fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
            Ok($value)
        }
        fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
            Ok($value)
        }
        fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
            Ok($value)
        }
        fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
            Ok($value)
        }
        fn visit_str<E: de::Error>(self, _: &str) -> Result<Self::Value, E> {
            Ok($value)
        }
    };
}

/// A seed that is its own visitor, read with `deserialize_any` (see [`scalars_give`]).
macro_rules! seed_by_any {
    ($seed:ty) => {
        impl<'de> DeserializeSeed<'de> for $seed {
            type Value = <Self as Visitor<'de>>::Value;

            fn deserialize<D: Deserializer<'de>>(
                self,
                deserializer: D,
            ) -> Result<Self::Value, D::Error> {
                deserializer.deserialize_any(self)
            }
        }
    };
}

/// A list's elements as values and their first keys, when each is an object whose first key
/// has no escapes; `None` otherwise, the list left where the first other element starts (the
/// caller reads the body again, each element as text).
pub(super) type Read<'de> = Option<(Vec<Value>, Vec<&'de str>)>;

/// A list that is an array, read as [`Read`] says.
pub(super) struct Objects;

seed_by_any!(Objects);

impl<'de> Visitor<'de> for Objects {
    type Value = Read<'de>;

    fn expecting(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
        formatter.write_str("a list")
    }

    scalars_give!(None);

    fn visit_map<A: MapAccess<'de>>(self, _: A) -> Result<Self::Value, A::Error> {
        Ok(None)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut items: A) -> Result<Self::Value, A::Error> {
        let (mut values, mut first_keys) = (Vec::new(), Vec::new());
        while let Some(item) = items.next_element_seed(Object)? {
            let Some((value, first_key)) = item else {
                return Ok(None);
            };
            values.push(value);
            first_keys.push(first_key);
        }
        Ok(Some((values, first_keys)))
    }
}

/// Each element's span from the elements' first keys (borrowed from `text`), in the list whose
/// `]` is at `close`.
pub(super) fn spans(text: &str, first_keys: &[&str], close: usize) -> Option<Vec<Range<usize>>> {
    let bytes = text.as_bytes();
    let base = text.as_ptr() as usize;
    let mut starts = Vec::with_capacity(first_keys.len());
    for key in first_keys {
        // The key's text follows its quote, which follows the brace (and whitespace).
        let quote = (key.as_ptr() as usize).checked_sub(base)?.checked_sub(1)?;
        (bytes.get(quote) == Some(&b'"')).then_some(())?;
        starts.push(before_whitespace(bytes, quote, b'{')?);
    }
    let mut spans = Vec::with_capacity(starts.len());
    for (index, &start) in starts.iter().enumerate() {
        let after = match starts.get(index + 1) {
            Some(&next) => before_whitespace(bytes, next, b',')?,
            None => close,
        };
        let close = before_whitespace(bytes, after, b'}')?;
        spans.push(start..close + 1);
    }
    Some(spans)
}

/// One object, read as serde_json's `Value` reads it, and its first key as borrowed text;
/// `None` for anything else (left unread: serde_json then refuses what follows).
struct Object;

seed_by_any!(Object);

impl<'de> Visitor<'de> for Object {
    type Value = Option<(Value, &'de str)>;

    fn expecting(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
        formatter.write_str("an object with a key")
    }

    scalars_give!(None);

    fn visit_seq<A: SeqAccess<'de>>(self, _: A) -> Result<Self::Value, A::Error> {
        Ok(None)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut fields: A) -> Result<Self::Value, A::Error> {
        // Not an object with a plain first key (a key with escapes, or none).
        let Some(Some(first_key)) = fields.next_key_seed(BorrowedKey)? else {
            return Ok(None);
        };
        // As serde_json's own visitor builds an object (a repeated key keeps its first place).
        let mut values = Map::new();
        values.insert(first_key.to_owned(), fields.next_value()?);
        while let Some((key, value)) = fields.next_entry()? {
            values.insert(key, value);
        }
        Ok(Some((Value::Object(values), first_key)))
    }
}

/// A key borrowed from the input; `None` for a key with escapes (which serde_json unescapes
/// into a buffer of its own).
struct BorrowedKey;

seed_by_any!(BorrowedKey);

impl<'de> Visitor<'de> for BorrowedKey {
    type Value = Option<&'de str>;

    fn expecting(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
        formatter.write_str("a key")
    }

    scalars_give!(None);

    fn visit_borrowed_str<E: de::Error>(self, key: &'de str) -> Result<Self::Value, E> {
        Ok(Some(key))
    }
}

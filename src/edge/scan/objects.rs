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
//! key is plain text is not read here (the caller reads each element on its own).

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};
use std::fmt;
use std::ops::Range;

/// The list starting at `at` in `text` (its `[`), read.
pub(super) struct List {
    /// Each element's span, without surrounding whitespace.
    pub spans: Vec<Range<usize>>,
    /// Each element, as serde_json reads it.
    pub values: Vec<Value>,
    /// The deepest nesting of containers inside an element (0 for none: no element is one).
    pub depth: usize,
    /// Where the list ends (past its `]`).
    pub end: usize,
}

/// The list starting at `at` in `text` (its `[`). `None` when serde_json refuses the list or an
/// element is not an object with a first key free of escapes.
pub(super) fn read(text: &str, at: usize) -> Option<List> {
    let mut reader = serde_json::Deserializer::from_str(text.get(at..)?).into_iter::<Objects>();
    let objects = reader.next()?.ok()?;
    objects.complete.then_some(())?;
    let end = at + reader.byte_offset();
    let spans = spans(text, &objects.first_keys, end)?;
    Some(List {
        spans,
        values: objects.values,
        depth: objects.depth,
        end,
    })
}

/// Each element's span from the addresses of the elements' first keys, in the list ending at
/// `end` (just past its `]`).
fn spans(text: &str, first_keys: &[usize], end: usize) -> Option<Vec<Range<usize>>> {
    let bytes = text.as_bytes();
    let base = text.as_ptr() as usize;
    let mut starts = Vec::with_capacity(first_keys.len());
    for &key in first_keys {
        // The key's text follows its quote, which follows the brace (and whitespace).
        let quote = key.checked_sub(base)?.checked_sub(1)?;
        (bytes.get(quote) == Some(&b'"')).then_some(())?;
        starts.push(before_whitespace(bytes, quote, b'{')?);
    }
    let mut spans = Vec::with_capacity(starts.len());
    for (index, &start) in starts.iter().enumerate() {
        let after = match starts.get(index + 1) {
            Some(&next) => before_whitespace(bytes, next, b',')?,
            None => end.checked_sub(1)?,
        };
        let close = before_whitespace(bytes, after, b'}')?;
        spans.push(start..close + 1);
    }
    Some(spans)
}

/// The position of the last byte before `at` that is not JSON whitespace, when it is `byte`.
fn before_whitespace(bytes: &[u8], at: usize, byte: u8) -> Option<usize> {
    let found = bytes
        .get(..at)?
        .iter()
        .rposition(|b| !matches!(b, b' ' | b'\t' | b'\n' | b'\r'))?;
    (bytes.get(found) == Some(&byte)).then_some(found)
}

/// A list of objects: their values, as serde_json reads them, their first keys' addresses and
/// the deepest of them. Not `complete` when the value is not a list of objects with plain first
/// keys: what is left of it from the first element that is not is skipped, not read.
///
/// Nothing here fails through serde's errors: the visitors take every JSON type (the ones they
/// do not want as "not complete"), and the list is read with `deserialize_any`. serde_json's
/// typed entry points (`deserialize_seq`, `&str`'s visitor) report another type through
/// `Unexpected`, whose `Display` prints floats, and `Error::custom` parses its message for a
/// position: the first brought core's float formatting (about 20 KB of code) into the module,
/// the second 1.3 KB more.
struct Objects {
    values: Vec<Value>,
    first_keys: Vec<usize>,
    depth: usize,
    complete: bool,
}

impl Objects {
    fn incomplete() -> Self {
        Self {
            values: Vec::new(),
            first_keys: Vec::new(),
            depth: 0,
            complete: false,
        }
    }
}

impl<'de> de::Deserialize<'de> for Objects {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(ObjectsVisitor)
    }
}

/// The visitor methods of the scalar JSON types, each giving `$value` (see [`Objects`]).
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

/// Skips what is left of a list. Read as values and dropped, not as serde's `IgnoredAny`: its
/// reader is 1 KB of code more, for lists that are rare and read again element by element.
fn skip_items<'de, A: SeqAccess<'de>>(mut items: A) -> Result<(), A::Error> {
    while items.next_element::<Value>()?.is_some() {}
    Ok(())
}

/// Skips what is left of an object, as [`skip_items`] does.
fn skip_fields<'de, A: MapAccess<'de>>(mut fields: A) -> Result<(), A::Error> {
    while fields.next_entry::<String, Value>()?.is_some() {}
    Ok(())
}

struct ObjectsVisitor;

impl<'de> Visitor<'de> for ObjectsVisitor {
    type Value = Objects;

    fn expecting(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
        formatter.write_str("a list of objects")
    }

    scalars_give!(Objects::incomplete());

    fn visit_map<A: MapAccess<'de>>(self, fields: A) -> Result<Objects, A::Error> {
        skip_fields(fields)?;
        Ok(Objects::incomplete())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut items: A) -> Result<Objects, A::Error> {
        let mut objects = Objects {
            complete: true,
            ..Objects::incomplete()
        };
        while let Some(item) = items.next_element_seed(Object)? {
            let Some((value, first_key)) = item else {
                skip_items(items)?;
                return Ok(Objects::incomplete());
            };
            // Measured as each is read: walking them all afterwards (out of cache on a long
            // list) was 1.6 % of a 2.9 MB conversation's call in wasm.
            objects.depth = objects.depth.max(super::depth(&value));
            objects.values.push(value);
            objects.first_keys.push(first_key.as_ptr() as usize);
        }
        Ok(objects)
    }
}

/// One object, read as serde_json's `Value` reads it, and its first key as borrowed text;
/// `None` for anything else (skipped).
struct Object;

impl<'de> DeserializeSeed<'de> for Object {
    type Value = Option<(Value, &'de str)>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Object {
    type Value = Option<(Value, &'de str)>;

    fn expecting(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
        formatter.write_str("an object with a key")
    }

    scalars_give!(None);

    fn visit_seq<A: SeqAccess<'de>>(self, items: A) -> Result<Self::Value, A::Error> {
        skip_items(items)?;
        Ok(None)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut fields: A) -> Result<Self::Value, A::Error> {
        let first_key = match fields.next_key_seed(BorrowedKey)? {
            Some(Some(key)) => key,
            // A key with escapes: its value and the rest are skipped.
            Some(None) => {
                fields.next_value::<Value>()?;
                skip_fields(fields)?;
                return Ok(None);
            }
            None => return Ok(None),
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

impl<'de> DeserializeSeed<'de> for BorrowedKey {
    type Value = Option<&'de str>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for BorrowedKey {
    type Value = Option<&'de str>;

    fn expecting(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
        formatter.write_str("a key")
    }

    scalars_give!(None);

    fn visit_borrowed_str<E: de::Error>(self, key: &'de str) -> Result<Self::Value, E> {
        Ok(Some(key))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, items: A) -> Result<Self::Value, A::Error> {
        skip_items(items)?;
        Ok(None)
    }

    fn visit_map<A: MapAccess<'de>>(self, fields: A) -> Result<Self::Value, A::Error> {
        skip_fields(fields)?;
        Ok(None)
    }
}

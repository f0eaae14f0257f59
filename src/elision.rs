//! Long texts known by their facts instead of their content.
//!
//! A binding can hand the core a message array without copying its long strings: each string of
//! more than [`MIN_CHARS`] code points is replaced by a *placeholder* that carries what the
//! structural tiers need of it (its first characters, its last characters, its length in code
//! points and whether it has CRLF line ends) and the index by which the binding finds the
//! original again. The JS binding builds the skeleton with one `JSON.stringify` whose replacer
//! does the swap, so a 10 MB transcript crosses into wasm as a few hundred KB.
//!
//! What may be elided: `none`, `micro` and `time_based` under the seed's counting rule read a
//! long text only through [`crate::transcript::Block`]'s facts (count, head, CRLF, fingerprint).
//! The summarising tiers, the heuristic estimator and host counters need the content, and refuse
//! elided input with an error; so does any placeholder the facts cannot stand for (one joined
//! into a longer text, an id, a head too short to decide an age tag). The binding then reads the
//! strings whole and runs again: elision can make a call cheaper, never different. A placeholder
//! inside a serialised value (a tool call's `input` holding a file) is the one case read in part:
//! its text is rebuilt with that string from [`ElidedStrings`], the rest stays elided.
//!
//! A placeholder is `{head}\0{nonce}:{index}:{chars}:{crlf}:{tail}`. The nonce is chosen per call
//! (at random by the JS binding; for a request body, from the body, and checked against the text
//! the core sees), so a host's own text cannot pass for a placeholder.

use crate::error::{CompactionError, Result};
use crate::markers;
use crate::transcript::facts::FINGERPRINT_CHARS;
pub use crate::transcript::facts::{Elided, MIN_CHARS};
use crate::transcript::{BlockKind, Message};
use std::borrow::Cow;

/// The tail a placeholder carries, in UTF-16 code units (at least 64 code points).
pub const TAIL_UNITS: usize = 128;

/// The head a placeholder carries, in UTF-16 code units, for a policy that keeps the first
/// `keep_head_chars` characters of a collapsed body: at least one code point more than that
/// (a code point is at most two units), so the cut can be decided as on the whole text.
pub fn head_units(keep_head_chars: usize) -> usize {
    keep_head_chars
        .saturating_add(1)
        .saturating_mul(2)
        .max(2 * FINGERPRINT_CHARS + 64)
}

/// The per-call marker that tells placeholders from text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ElisionKey {
    /// `\0{nonce}:`: how every placeholder's facts begin.
    opening: crate::base::marker::Opening,
}

impl ElisionKey {
    /// The key for placeholders made with `nonce` (letters and digits only).
    pub fn new(nonce: &str) -> Self {
        Self {
            opening: crate::base::marker::Opening::new(nonce, ':'),
        }
    }

    /// Whether `text` holds this key's marker anywhere (raw or JSON-escaped): a text built from
    /// placeholders (joined, serialised) that is not one itself.
    pub fn mentions(&self, text: &str) -> bool {
        self.opening.mentions(text)
    }

    /// `text` as a placeholder of this key, when it is exactly one.
    pub fn parse<'a>(&self, text: &'a str) -> Option<Placeholder<'a>> {
        // The opening starts with a NUL: a text without one (nearly all) is settled by a byte
        // scan, without setting up a substring search.
        if !text.as_bytes().contains(&0) {
            return None;
        }
        let at = text.find(self.opening.as_str())?;
        let head = &text[..at];
        let mut fields = text[at + self.opening.as_str().len()..].splitn(4, ':');
        let index = fields.next()?.parse().ok()?;
        let chars = fields.next()?.parse().ok()?;
        let crlf = match fields.next()? {
            "0" => false,
            "1" => true,
            _ => return None,
        };
        let tail = fields.next()?;
        (!self.mentions(head) && !self.mentions(tail)).then_some(Placeholder {
            head,
            index,
            facts: Elided {
                chars,
                crlf,
                tail: Cow::Borrowed(tail),
            },
        })
    }
}

/// One placeholder, read.
#[derive(Debug, Clone, PartialEq)]
pub struct Placeholder<'a> {
    /// The first characters of the text (a prefix, whole code points).
    pub head: &'a str,
    /// The binding's index of the original string.
    pub index: usize,
    /// What the tiers may know of the whole text.
    pub facts: Elided<'a>,
}

/// Where the strings behind a call's placeholders are, for the ones that must be read whole: a
/// placeholder inside a serialised value (a tool call's `input` holding a file to write) cannot
/// stand for its string there, since the text's length depends on how the string escapes.
pub trait ElidedStrings {
    /// The string behind placeholder `index`.
    fn original(&self, index: usize) -> Option<String>;
}

/// Only the trait's name, so that the structs holding one (`Working`, `Options`) still derive
/// `Debug`. Not a `Debug` supertrait: a trait object's vtable keeps its `Debug::fmt` in the wasm
/// even when nothing prints it, and an implementor's derived one (`BodyStrings` holds parsed
/// `Value`s) linked core's float formatting (`flt2dec`, about 17 KB) for nothing.
impl std::fmt::Debug for dyn ElidedStrings + '_ {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ElidedStrings")
    }
}

/// Replaces every placeholder of `key` in `values` by its string from `strings`. Returns
/// whether each found its string (a missing one stays a placeholder). Iterative: parsed values
/// nest up to 128 levels, and the wasm stack is not spent on them.
pub fn put_back<'v>(
    values: impl IntoIterator<Item = &'v mut serde_json::Value>,
    key: &ElisionKey,
    strings: &dyn ElidedStrings,
) -> bool {
    use serde_json::Value;
    let mut complete = true;
    let mut stack: Vec<&mut Value> = values.into_iter().collect();
    while let Some(value) = stack.pop() {
        match value {
            Value::String(text) => {
                if let Some(read) = key.parse(text) {
                    match strings.original(read.index) {
                        Some(original) => *text = original,
                        None => complete = false,
                    }
                }
            }
            Value::Array(items) => stack.extend(items.iter_mut()),
            Value::Object(fields) => stack.extend(fields.values_mut()),
            _ => {}
        }
    }
    complete
}

/// Turns the placeholders of `message` (read by an adapter from placeholder strings) into elided
/// blocks: the text becomes the head, the facts go to [`crate::transcript::Block::elided`].
/// Refuses, naming the message, a placeholder the facts cannot stand for: one inside a longer
/// text or an id, or a head or tail too short to decide what the structural tiers ask of the text
/// (an age tag, a stale-block marker, a pruned-body marker).
///
/// A text that is a serialised value holding placeholders (JSON-escaped, as a tool call's input
/// is written) is rebuilt with the strings from `strings`, which then are read whole.
pub fn resolve(
    message: &mut Message<'_>,
    key: &ElisionKey,
    strings: Option<&dyn ElidedStrings>,
    index: usize,
) -> Result<()> {
    for block in &mut message.blocks {
        if kind_mentions(&block.kind, key) {
            return Err(needs_content(index));
        }
        if !key.mentions(&block.text) {
            continue;
        }
        let parsed = match &block.text {
            Cow::Borrowed(text) => key
                .parse(text)
                .map(|read| (Cow::Borrowed(read.head), read.facts)),
            Cow::Owned(text) => key
                .parse(text)
                .map(|read| (Cow::Owned(read.head.to_string()), read.facts.into_owned())),
        };
        let Some((head, facts)) = parsed else {
            let rebuilt = strings.and_then(|strings| rebuild(&block.text, key, strings));
            block.set_text(Cow::Owned(rebuilt.ok_or_else(|| needs_content(index))?));
            continue;
        };
        if !decidable(&head, &facts) {
            return Err(needs_content(index));
        }
        block.set_text(head);
        block.elided = Some(facts);
    }
    Ok(())
}

/// `text`, a serialised value, with each JSON string token that is a placeholder replaced by
/// its string (escaped the same way); `None` if a placeholder is not in a string token of its
/// own (a raw one joined into prose) or a string is not there.
fn rebuild(text: &str, key: &ElisionKey, strings: &dyn ElidedStrings) -> Option<String> {
    // A raw NUL only comes from a placeholder joined as is: it cannot be delimited.
    if text.contains(key.opening.as_str()) {
        return None;
    }
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let (mut copied, mut at) = (0, 0);
    while let Some(offset) = bytes.get(at..)?.iter().position(|&b| b == b'"') {
        let start = at + offset;
        let end = crate::base::bytes::json_string_end(bytes, start)?;
        at = end;
        let token = text.get(start..end)?;
        if !key.mentions(token) {
            continue;
        }
        // Read as a Value, not a String: a typed read links serde's "invalid type" message and
        // with it core's float printing (see `formats::elision::write_message`).
        let serde_json::Value::String(decoded) = serde_json::from_str(token).ok()? else {
            return None;
        };
        let original = strings.original(key.parse(&decoded)?.index)?;
        out.push_str(text.get(copied..start)?);
        out.push_str(&serde_json::to_string(&original).ok()?);
        copied = end;
    }
    out.push_str(text.get(copied..)?);
    (!key.mentions(&out)).then_some(out)
}

/// The head and tail settle every question a structural tier asks of the whole text.
fn decidable(head: &str, facts: &Elided<'_>) -> bool {
    let start = head.trim_start();
    // An age tag, an empty text or a marker-only text would need more than the head shows.
    let age_tag_cut = start.starts_with("[age:") && !start.contains(']');
    let tail = facts.tail.trim_end();
    // A pruned-body marker must lie wholly inside the tail to be recognised as on the whole.
    let marker_cut = tail.ends_with(" chars]") && !tail.contains(markers::PRUNED_BODY_PREFIX);
    !start.is_empty()
        && !age_tag_cut
        && head.trim() != markers::STALE_BLOCK
        && !tail.is_empty()
        && !marker_cut
}

fn kind_mentions(kind: &BlockKind, key: &ElisionKey) -> bool {
    match kind {
        BlockKind::ToolCall { id, name } => key.mentions(id) || key.mentions(name),
        BlockKind::ToolResult { id, name, .. } => [id.as_deref(), name.as_deref()]
            .into_iter()
            .flatten()
            .any(|text| key.mentions(text)),
        BlockKind::Media { media_type, .. } => key.mentions(media_type),
        BlockKind::Text | BlockKind::Thinking | BlockKind::Other => false,
    }
}

fn needs_content(index: usize) -> CompactionError {
    CompactionError::type_error(
        format!("messages[{index}]"),
        "holds an elided text that must be read whole",
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn placeholder(key: &str, head: &str, index: usize, chars: usize, tail: &str) -> String {
        format!("{head}\u{0}{key}:{index}:{chars}:0:{tail}")
    }

    #[test]
    fn parses_exactly_one_placeholder() {
        let key = ElisionKey::new("k1");
        let text = placeholder("k1", "head", 3, 5000, "ta:il");
        let read = key.parse(&text).expect("a placeholder");
        assert_eq!(read.head, "head");
        assert_eq!(read.index, 3);
        assert_eq!(read.facts.chars, 5000);
        assert_eq!(read.facts.tail, "ta:il");
        assert!(key.mentions(&text));
        // Another key's placeholder, a joined pair, a serialised one: not one placeholder.
        assert!(ElisionKey::new("k2").parse(&text).is_none());
        assert!(key.parse(&format!("{text}\n{text}")).is_none());
        let escaped = serde_json::to_string(&text).expect("serialises");
        assert!(key.parse(&escaped).is_none());
        assert!(key.mentions(&escaped));
        assert!(key.parse("plain text").is_none());
        assert!(key.parse("\u{0}k1:x:1:0:").is_none());
        assert!(key.parse("\u{0}k1:1:1:2:").is_none());
    }

    #[test]
    fn head_covers_the_kept_characters() {
        assert_eq!(head_units(80), 162);
        assert_eq!(head_units(0), 128);
        assert_eq!(head_units(usize::MAX), usize::MAX);
    }
}

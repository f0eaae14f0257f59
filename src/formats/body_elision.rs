//! A request body's messages read elided (see [`crate::elision`]): each string value of more
//! than [`MIN_CHARS`] code points is replaced, in the message's JSON text, by a placeholder made
//! from its escaped text (head, tail, length, CRLF flag), and only that much smaller text is
//! parsed. The long strings are never unescaped, allocated or counted twice; a compacted body
//! writes them back as the very bytes they were ([`write_message`]).
//!
//! The placeholders' nonce is a hash of the body's length and ends; a body whose own text holds
//! it where the core would see it is read whole.

use crate::elision::{ElisionKey, MIN_CHARS};
use crate::error::{CompactionError, Result};
use crate::result::{ContextData, TierResult};
use serde_json::Value;
use std::ops::Range;

/// Code points of a long string's end that its placeholder carries (see `fingerprint`).
const TAIL_CHARS: usize = 64;

/// A body's messages with their long strings as placeholders.
#[derive(Debug)]
pub(crate) struct ElidedBody {
    /// The messages, parsed from their elided text.
    pub messages: Vec<Value>,
    /// The placeholders' key.
    pub key: ElisionKey,
    /// Each placeholder's string token in the body (quotes included), by placeholder index.
    pub tokens: Vec<Range<usize>>,
}

/// The messages at `elements` of `body`, elided, with heads long enough to cut
/// `keep_head_chars` characters; `long` are the candidates, the string values inside the
/// elements whose token is longer than [`MIN_CHARS`] bytes, in order (`body_scan`). `None`
/// when no string is long enough, or one is not plain (a lone surrogate escape, which the
/// parser refuses: the body is then read whole).
pub(crate) fn read(
    body: &str,
    elements: &[Range<usize>],
    long: &[Range<usize>],
    keep_head_chars: usize,
) -> Option<ElidedBody> {
    if long.is_empty() {
        return None;
    }
    let nonce = nonce_for(body);
    let head_chars = keep_head_chars.saturating_add(1).max(TAIL_CHARS);
    let mut tokens = Vec::new();
    let mut messages = Vec::with_capacity(elements.len());
    let mut next = 0;
    for element in elements {
        let inside = long[next..].partition_point(|token| token.start < element.end);
        let candidates = &long[next..next + inside];
        next += inside;
        let before = tokens.len();
        let text = elide_message(
            body,
            element.clone(),
            candidates,
            &nonce,
            head_chars,
            &mut tokens,
        )?;
        // Each placeholder brings the nonce once; any other occurrence is the body's own text
        // reaching the core (copied, or in a head or tail), which must not pass for one.
        if text.matches(nonce.as_str()).count() != tokens.len() - before {
            return None;
        }
        messages.push(serde_json::from_str(&text).ok()?);
    }
    (!tokens.is_empty()).then(|| ElidedBody {
        messages,
        key: ElisionKey::new(&nonce),
        tokens,
    })
}

/// The placeholders' nonce: a hash of the body's length and ends (hashing all of it was a pass
/// over megabytes), written in the letters g to v so that it never runs into the digits of the
/// `\u0000` before it. [`read`] checks that the body's own text never holds it.
fn nonce_for(body: &str) -> String {
    let bytes = body.as_bytes();
    let ends = 4096.min(bytes.len());
    let mut hasher = xxhash_rust::xxh3::Xxh3::new();
    hasher.update(&(bytes.len() as u64).to_le_bytes());
    hasher.update(&bytes[..ends]);
    hasher.update(&bytes[bytes.len() - ends..]);
    let hash = hasher.digest();
    (0..16)
        .map(|nibble| char::from(b'g' + ((hash >> (4 * nibble)) & 0xF) as u8))
        .collect()
}

/// The strings behind an elided body's placeholders, decoded from their tokens when a tier
/// must read one whole.
#[derive(Debug)]
pub(crate) struct BodyStrings<'a> {
    /// The body.
    pub body: &'a str,
    /// The elided read's tokens.
    pub elided: &'a ElidedBody,
}

impl crate::elision::ElidedStrings for BodyStrings<'_> {
    fn original(&self, index: usize) -> Option<String> {
        let token = self.body.get(self.elided.tokens.get(index)?.clone())?;
        // Read as a Value, not a String: see `write_message`.
        match serde_json::from_str(token).ok()? {
            Value::String(text) => Some(text),
            _ => None,
        }
    }
}

/// The JSON text of `body[element]` with its long string values (among `candidates`) as
/// placeholder tokens.
fn elide_message(
    body: &str,
    element: Range<usize>,
    candidates: &[Range<usize>],
    nonce: &str,
    head_chars: usize,
    tokens: &mut Vec<Range<usize>>,
) -> Option<String> {
    let mut out = String::new();
    let mut copied = element.start;
    for token in candidates {
        let raw = body.get(token.start + 1..token.end - 1)?;
        let facts = raw_facts(raw, head_chars)?;
        if facts.chars <= MIN_CHARS {
            continue;
        }
        if out.is_empty() {
            out.reserve(element.len() / 4);
        }
        out.push_str(body.get(copied..token.start)?);
        out.push('"');
        out.push_str(raw.get(..facts.head_end)?);
        out.push_str(&format!(
            "\\u0000{nonce}:{}:{}:{}:",
            tokens.len(),
            facts.chars,
            u8::from(facts.crlf)
        ));
        out.push_str(raw.get(facts.tail_start..)?);
        out.push('"');
        tokens.push(token.clone());
        copied = token.end;
    }
    if copied == element.start {
        return body.get(element).map(str::to_string);
    }
    out.push_str(body.get(copied..element.end)?);
    Some(out)
}

/// What a placeholder needs of an escaped string's text.
#[derive(Debug, PartialEq, Eq)]
struct RawFacts {
    /// Code points of the unescaped string.
    chars: usize,
    /// It has a CR LF (escaped, as JSON strings hold them).
    crlf: bool,
    /// Byte offset where the first `head_chars` code points end.
    head_end: usize,
    /// Byte offset where the last [`TAIL_CHARS`] code points begin.
    tail_start: usize,
}

/// One step of an escaped string: a run of plain bytes or one escape.
#[derive(Debug, Clone, Copy, Default)]
struct Segment {
    start: usize,
    end: usize,
    escape: bool,
}

/// Reads an escaped JSON string's text (between the quotes) without unescaping it: plain runs
/// are counted a word at a time, escapes one by one. `None` for an escape the parser would
/// refuse (a lone surrogate) or anything malformed.
fn raw_facts(text: &str, head_chars: usize) -> Option<RawFacts> {
    let raw = text.as_bytes();
    let mut chars = 0usize;
    let (mut crlf, mut after_cr) = (false, false);
    let mut head_end = None;
    // The last segments, enough to hold the tail (each holds at least one code point), in a
    // ring: `filled` counts every segment pushed.
    let mut recent = [Segment::default(); TAIL_CHARS];
    let mut filled = 0usize;
    let mut at = 0;
    while at < raw.len() {
        let (run, count) = crate::bytes::plain_run(text.get(at..)?);
        let segment = if run > 0 {
            if head_end.is_none() && chars + count >= head_chars {
                // A run ends before a `\`, always a character boundary.
                let inside = text
                    .get(at..at + run)?
                    .char_indices()
                    .nth(head_chars - chars);
                head_end = Some(at + inside.map_or(run, |(offset, _)| offset));
            }
            chars += count;
            after_cr = false;
            Segment {
                start: at,
                end: at + run,
                escape: false,
            }
        } else {
            let (len, unit) = escape(raw, at)?;
            crlf |= after_cr && unit == 0x0A;
            after_cr = unit == 0x0D;
            if head_end.is_none() && chars == head_chars {
                head_end = Some(at);
            }
            chars += 1;
            Segment {
                start: at,
                end: at + len,
                escape: true,
            }
        };
        at = segment.end;
        recent[filled % TAIL_CHARS] = segment;
        filled += 1;
    }
    let last = (0..filled.min(TAIL_CHARS)).map(|back| recent[(filled - 1 - back) % TAIL_CHARS]);
    Some(RawFacts {
        chars,
        crlf,
        head_end: head_end.unwrap_or(raw.len()),
        tail_start: tail_start(raw, last),
    })
}

/// Where the last [`TAIL_CHARS`] code points begin, from the last segments (newest first).
fn tail_start(raw: &[u8], last: impl Iterator<Item = Segment>) -> usize {
    let mut needed = TAIL_CHARS;
    for segment in last {
        if segment.escape {
            needed -= 1;
            if needed == 0 {
                return segment.start;
            }
            continue;
        }
        // A plain run is UTF-8: step back over continuation bytes to each code point's start.
        let mut at = segment.end;
        while at > segment.start {
            at -= 1;
            if raw[at] & 0xC0 != 0x80 {
                needed -= 1;
                if needed == 0 {
                    return at;
                }
            }
        }
    }
    0
}

/// The escape at `at`: its length in bytes and the UTF-16 unit it stands for (a surrogate
/// pair is read as one escape of twelve bytes).
fn escape(raw: &[u8], at: usize) -> Option<(usize, u32)> {
    let unit = match raw.get(at + 1)? {
        b'n' => 0x0A,
        b'r' => 0x0D,
        b'"' | b'\\' | b'/' | b'b' | b'f' | b't' => return Some((2, 0)),
        b'u' => hex4(raw.get(at + 2..at + 6)?)?,
        _ => return None,
    };
    if !(0xD800..0xE000).contains(&unit) {
        return Some((if raw[at + 1] == b'u' { 6 } else { 2 }, unit));
    }
    // A high surrogate must be followed by an escaped low one.
    if unit >= 0xDC00 || raw.get(at + 6..at + 8)? != b"\\u" {
        return None;
    }
    let low = hex4(raw.get(at + 8..at + 12)?)?;
    (0xDC00..0xE000).contains(&low).then_some((12, 0x1_0000))
}

fn hex4(digits: &[u8]) -> Option<u32> {
    u32::from_str_radix(std::str::from_utf8(digits).ok()?, 16).ok()
}

/// Replaces the placeholders left in `result` (archived content and, with `messages`, the
/// output messages) by the strings they stand for, decoded from the body.
pub(crate) fn put_back(result: &mut TierResult, elided: &ElidedBody, body: &str, messages: bool) {
    let mut values: Vec<&mut Value> = result.archive.iter_mut().map(|e| &mut e.content).collect();
    if messages {
        if let ContextData::Messages(output) = &mut result.context {
            values.extend(output.iter_mut());
        }
    }
    // Every token is a string of the checked body: each placeholder finds its string.
    crate::elision::put_back(values, &elided.key, &BodyStrings { body, elided });
}

/// `message` as compact JSON with its placeholders written back as the body's own tokens: the
/// bytes `serde_json::to_string` gives for the message with each placeholder a `RawValue` of its
/// token. Written by hand, not through serde_json's `raw_value` feature: that feature's `Value`
/// parser links serde's "invalid type" message, which prints floats with core's `flt2dec`
/// (about 12 KiB of gzipped wasm with the feature's own code).
pub(crate) fn write_message(
    message: &Value,
    key: &ElisionKey,
    body: &str,
    tokens: &[Range<usize>],
) -> Result<String> {
    let tokens = Tokens { key, body, tokens };
    let mut out = Vec::new();
    tokens.write(&mut out, message).map_err(|error| {
        CompactionError::type_error("body.messages", format!("could not be serialised: {error}"))
    })?;
    // Only whole `str`s and serde_json's (UTF-8) output were written.
    String::from_utf8(out).map_err(|error| {
        CompactionError::type_error("body.messages", format!("could not be serialised: {error}"))
    })
}

/// Placeholders and the body's tokens behind them.
struct Tokens<'a> {
    key: &'a ElisionKey,
    body: &'a str,
    tokens: &'a [Range<usize>],
}

impl Tokens<'_> {
    /// The token behind placeholder `text`, if it is one of this body's: a string token of a
    /// body the layout has already checked, quotes included.
    fn token(&self, text: &str) -> Option<&str> {
        let read = self.key.parse(text)?;
        self.body.get(self.tokens.get(read.index)?.clone())
    }

    /// Appends `value` as serde_json's compact writer does. Recursive: parsed values are at most
    /// 128 levels deep.
    fn write(&self, out: &mut Vec<u8>, value: &Value) -> serde_json::Result<()> {
        match value {
            Value::String(text) => match self.token(text) {
                Some(token) => out.extend_from_slice(token.as_bytes()),
                None => serde_json::to_writer(&mut *out, text)?,
            },
            Value::Array(items) => {
                out.push(b'[');
                for (index, item) in items.iter().enumerate() {
                    if index > 0 {
                        out.push(b',');
                    }
                    self.write(out, item)?;
                }
                out.push(b']');
            }
            Value::Object(fields) => {
                out.push(b'{');
                for (index, (name, item)) in fields.iter().enumerate() {
                    if index > 0 {
                        out.push(b',');
                    }
                    serde_json::to_writer(&mut *out, name)?;
                    out.push(b':');
                    self.write(out, item)?;
                }
                out.push(b'}');
            }
            other => serde_json::to_writer(&mut *out, other)?,
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn facts(text: &str, head: usize) -> RawFacts {
        let token = serde_json::to_string(text).expect("serialises");
        raw_facts(&token[1..token.len() - 1], head).expect("plain")
    }

    #[test]
    fn counts_code_points_through_escapes() {
        let text = format!("a\"b\\c\n{}é🦀\u{1}\r\nend", "x".repeat(70));
        let read = facts(&text, 5);
        assert_eq!(read.chars, text.chars().count());
        assert!(read.crlf);
        let escaped = serde_json::to_string(&text).expect("serialises");
        let raw = &escaped[1..escaped.len() - 1];
        let head: String =
            serde_json::from_str(&format!("\"{}\"", &raw[..read.head_end])).expect("head");
        assert_eq!(head, text.chars().take(5).collect::<String>());
        let tail: String =
            serde_json::from_str(&format!("\"{}\"", &raw[read.tail_start..])).expect("tail");
        let expected: String = text
            .chars()
            .skip(text.chars().count() - TAIL_CHARS)
            .collect();
        assert_eq!(tail, expected);
        assert!(!facts("a\rb\nc", 1).crlf);
    }

    #[test]
    fn writes_what_serde_json_writes() {
        // Without placeholders, `write_message` is `serde_json::to_string`, byte for byte.
        let message = serde_json::json!({
            "role": "assistant",
            "content": [{ "type": "text", "text": "a\"b\\c\n\u{1}é🦀\u{2028}" }, null, true, []],
            "numbers": [0, -1, 1.5, 0.1, 1e300, -2.5e-300, 18446744073709551615u64, -9007199254740993i64],
            "nested": { "": {}, "k\"ey": [[[]]] },
        });
        let key = ElisionKey::new("0123456789abcdef");
        let written = write_message(&message, &key, "", &[]).expect("written");
        assert_eq!(
            written,
            serde_json::to_string(&message).expect("serialises")
        );
    }

    #[test]
    fn a_body_holding_its_own_nonce_is_read_whole() {
        // The nonce hashes the length and the first and last 4 KiB: text planted in the middle
        // (a short string the core sees whole) can hold it without changing it.
        let pad = "p".repeat(5000);
        let build = |planted: &str| {
            format!(
                r#"{{"messages":[{{"role":"user","content":"{pad}"}},{{"role":"user","content":"{planted}"}},{{"role":"user","content":"{pad}"}}]}}"#
            )
        };
        let body = build(&"x".repeat(16));
        let planted = build(&nonce_for(&body));
        assert_eq!(nonce_for(&planted), nonce_for(&body));
        let planted_layout =
            super::super::body::layout(&planted, &crate::limits::Limits::default())
                .expect("valid body");
        let read_of = |body: &str, layout: &super::super::body::BodyLayout| {
            read(body, &layout.span.elements, &layout.long_strings, 80)
        };
        assert!(read_of(&planted, &planted_layout).is_none());
        let layout = super::super::body::layout(&body, &crate::limits::Limits::default())
            .expect("valid body");
        assert!(read_of(&body, &layout).is_some());
    }

    #[test]
    fn surrogate_escapes() {
        assert_eq!(raw_facts(r"\ud83e\udd80x", 1).map(|f| f.chars), Some(2));
        assert!(raw_facts(r"\ud83ex", 1).is_none());
        assert!(raw_facts(r"\udd80", 1).is_none());
        assert!(raw_facts(r"\q", 1).is_none());
    }

    #[test]
    fn elides_long_values_not_keys_and_writes_them_back() {
        let long = format!("{}\r\n{}", "é".repeat(700), "tail".repeat(200));
        let key_name = "k".repeat(2000);
        let message = serde_json::json!({ "role": "tool", "content": long, key_name.clone(): "v", "short": "s" });
        let element = serde_json::to_string(&message).expect("serialises");
        let body = format!("{{\"messages\":[{element}]}}");
        let layout = super::super::body::layout(&body, &crate::limits::Limits::default())
            .expect("valid body");
        assert_eq!(
            layout.long_strings.len(),
            1,
            "the long key is not a candidate"
        );
        let elided = read(&body, &layout.span.elements, &layout.long_strings, 80).expect("elided");
        assert_eq!(elided.tokens.len(), 1);
        let content = elided.messages[0]["content"].as_str().expect("placeholder");
        let placeholder = elided.key.parse(content).expect("a placeholder");
        assert_eq!(placeholder.facts.chars, long.chars().count());
        assert!(placeholder.facts.crlf);
        assert!(long.starts_with(placeholder.head) && placeholder.head.chars().count() == 81);
        assert!(long.ends_with(&*placeholder.facts.tail));
        assert_eq!(elided.messages[0][key_name.as_str()], "v");
        let written = write_message(&elided.messages[0], &elided.key, &body, &elided.tokens)
            .expect("written");
        assert_eq!(
            serde_json::from_str::<Value>(&written).expect("json"),
            message
        );
        // Nothing long: nothing to elide.
        let short = r#"{"messages":[{"role":"user","content":"hi"}]}"#;
        let elements = std::iter::once(13..short.len() - 2).collect::<Vec<_>>();
        assert!(read(short, &elements, &[], 80).is_none());
    }
}

//! A request body's messages read elided (see [`crate::elision`]): each string value of more
//! than [`MIN_CHARS`] code points is replaced, in the message's JSON text, by a placeholder made
//! from its escaped text (head, tail, length, CRLF flag), and only that much smaller text is
//! parsed. The core never unescapes or copies the long strings and reads each once (their facts
//! come from the checking pass, `scan`); a compacted body writes them back as the very
//! bytes they were ([`write_message_into`]), and only what goes to the archive is decoded (by the
//! binding, once the result is built).
//!
//! The placeholders' nonce is a hash of the body's length and ends; a body whose own text holds
//! it where the core would see it is read whole.

use super::scan::{LongString, TAIL_CHARS};
use crate::elision::{ElisionKey, MIN_CHARS};
use crate::error::{CompactionError, Result};
use crate::result::{ContextData, TierResult};
use serde_json::Value;
use std::ops::Range;

/// A body's messages with their long strings as placeholders.
///
/// Room for more of what a long string is known by (a stub that keeps a long body's error lines
/// and paths): `scan` already walks each long string's bytes once, in wasm, to find its facts
/// (`TextFacts`); more facts found on that walk would go there and on here, as a list by
/// placeholder index beside `tokens`, for the tiers to read through the placeholder's index
/// (the placeholder text itself need not grow). A fact too dear to find for every string can
/// instead be read from the string whole, on demand: `BodyStrings` decodes any token from the
/// body text, which an elided read holds to the end (`super::source::BodySource`).
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
/// elements whose token is longer than [`MIN_CHARS`] bytes, in order (`scan`). `None`
/// when no string is long enough, or one is not plain (a lone surrogate escape, which the
/// parser refuses: the body is then read whole).
pub(crate) fn read(
    body: &str,
    elements: &[Range<usize>],
    long: &[LongString],
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
        let inside = long[next..].partition_point(|long| long.token.start < element.end);
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
/// placeholder tokens; `None` when one is not plain.
fn elide_message(
    body: &str,
    element: Range<usize>,
    candidates: &[LongString],
    nonce: &str,
    head_chars: usize,
    tokens: &mut Vec<Range<usize>>,
) -> Option<String> {
    let mut out = String::new();
    let mut copied = element.start;
    for LongString { token, facts } in candidates {
        let facts = facts.as_ref()?;
        if facts.chars <= MIN_CHARS {
            continue;
        }
        let raw = body.get(token.start + 1..token.end - 1)?;
        if out.is_empty() {
            out.reserve(element.len() / 4);
        }
        out.push_str(body.get(copied..token.start)?);
        out.push('"');
        out.push_str(raw.get(..head_end(raw.as_bytes(), head_chars)?)?);
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

/// Where the first `head_chars` code points of the escaped string text `raw` end (its end when
/// it is shorter); an escaped surrogate pair is one.
fn head_end(raw: &[u8], head_chars: usize) -> Option<usize> {
    let mut at = 0;
    for _ in 0..head_chars {
        match raw.get(at) {
            None => break,
            Some(b'\\') => at += crate::base::unescape::escape(raw, at)?.len,
            Some(&lead) => at += usize::from(lead.leading_ones().max(1) as u8),
        }
    }
    Some(at.min(raw.len()))
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

/// [`write_message_into`] as a `String` of its own.
#[cfg(test)]
pub(crate) fn write_message(
    message: &Value,
    key: &ElisionKey,
    body: &str,
    tokens: &[Range<usize>],
) -> Result<String> {
    let mut out = String::new();
    write_message_into(&mut out, message, key, body, tokens)?;
    Ok(out)
}

/// Appends `message` to `out` as compact JSON with its placeholders written back as the body's
/// own tokens: the bytes `serde_json::to_string` gives for the message with each placeholder a
/// `RawValue` of its token. Written by hand, not through serde_json's `raw_value` feature: that feature's `Value`
/// parser links serde's "invalid type" message, which prints floats with core's `flt2dec`
/// (about 12 KiB of gzipped wasm with the feature's own code).
pub(crate) fn write_message_into(
    out: &mut String,
    message: &Value,
    key: &ElisionKey,
    body: &str,
    tokens: &[Range<usize>],
) -> Result<()> {
    // The token behind a placeholder of this body's: a string token of a body the layout has
    // already checked, quotes included.
    let token = |text: &str| {
        let read = key.parse(text)?;
        body.get(tokens.get(read.index)?.clone())
    };
    super::write::write_value(out, message, &token).map_err(|error| {
        CompactionError::type_error("body.messages", format!("could not be serialised: {error}"))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The scanner's facts of the escaped string text `raw` as a message's value, and where
    /// its first `head` code points end; `None` facts for a lone surrogate.
    fn raw_read(raw: &str, head: usize) -> Option<(Option<super::super::scan::TextFacts>, usize)> {
        let body = format!("{{\"messages\":[\"{raw}\"]}}");
        let scan = super::super::scan::scan(&body)?;
        let long = scan.long_strings.first().expect("a long string").clone();
        Some((long.facts, head_end(raw.as_bytes(), head)?))
    }

    /// Checks the facts of `text` against its decoded characters.
    fn check_facts(text: &str, head: usize) -> std::result::Result<(), String> {
        let token = serde_json::to_string(text).expect("serialises");
        check_raw(text, &token[1..token.len() - 1], head)?;
        // As ASCII-only writers (Python's json.dumps) send it: every other character a `\u`
        // escape, two (a surrogate pair) beyond the BMP.
        let ascii: String = token[1..token.len() - 1]
            .encode_utf16()
            .map(|unit| match unit {
                0..0x80 => char::from(unit as u8).to_string(),
                _ => format!("\\u{unit:04x}"),
            })
            .collect();
        check_raw(text, &ascii, head)
    }

    /// [`check_facts`] of `text` escaped as `raw`.
    fn check_raw(text: &str, raw: &str, head: usize) -> std::result::Result<(), String> {
        let (facts, head_end) = raw_read(raw, head).ok_or("scanner refused")?;
        let facts = facts.ok_or("not plain")?;
        let decode = |part: &str| serde_json::from_str::<Value>(&format!("\"{part}\"")).ok();
        let chars: Vec<char> = text.chars().collect();
        let expected_head: String = chars.iter().take(head).collect();
        let expected_tail: String = chars[chars.len().saturating_sub(TAIL_CHARS)..]
            .iter()
            .collect();
        let checks = [
            (facts.chars == chars.len(), "chars"),
            (facts.crlf == text.contains("\r\n"), "crlf"),
            (
                decode(&raw[..head_end]) == Some(Value::String(expected_head)),
                "head",
            ),
            (
                decode(&raw[facts.tail_start..]) == Some(Value::String(expected_tail)),
                "tail",
            ),
        ];
        match checks.iter().find(|(ok, _)| !ok) {
            Some((_, what)) => Err(format!("{what} of {text:?}")),
            None => Ok(()),
        }
    }

    #[test]
    fn counts_code_points_through_escapes() {
        let pad = "x".repeat(MIN_CHARS);
        let text = format!("a\"b\\c\n{pad}é🦀\u{1}\r\nend\\\"\u{7f}");
        check_facts(&text, 5).unwrap();
        check_facts(&format!("{pad}a\rb\nc"), 1).unwrap();
        check_facts(&"\n".repeat(MIN_CHARS + 1), 80).unwrap();
        check_facts(&"🦀".repeat(MIN_CHARS + 1), 2000).unwrap();
    }

    proptest::proptest! {
        #[test]
        fn facts_agree_with_the_decoded_text(
            text in "[a-z\"\\\\\r\n\u{1}\u{7f}é€🦀]{1025,1300}",
            head in 0usize..100,
        ) {
            proptest::prop_assert_eq!(check_facts(&text, head), Ok(()));
        }
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
        let pad = "y".repeat(MIN_CHARS);
        let facts = |raw: &str| raw_read(&format!("{pad}{raw}"), 1).map(|(facts, _)| facts);
        let chars = facts(r"\ud83e\udd80x").flatten().map(|facts| facts.chars);
        assert_eq!(chars, Some(MIN_CHARS + 2), "a pair is one code point");
        assert_eq!(facts(r"\ud83ex"), Some(None), "lone: read whole");
        assert_eq!(facts(r"\udd80"), Some(None));
        assert_eq!(facts(r"\ud83e\u0041"), Some(None));
        assert_eq!(facts(r"\q"), None, "not JSON");
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

//! A request body checked and laid out in one pass: whether it is JSON, where its top-level
//! message list (`messages`, or another format's list key: the Responses API's `input`,
//! Gemini's `contents`) and each element are, which Anthropic-only field it has, whether it
//! continues a conversation the provider stores, and which string values inside the list are
//! long enough to elide ([`crate::elision::MIN_CHARS`]).
//!
//! The scanner accepts exactly the texts serde_json's parser accepts, up to 127 levels of
//! nesting (the parser's grammar, read from its `ignore_value`: its whitespace, escapes, number
//! syntax, no raw control characters in strings, nothing after the value). Anything else makes
//! it give up, and serde_json then reads the body to name the fault with its own message
//! (`edge::body::layout`). So a valid body is read once, not once by serde_json to check it
//! and again to find its spans: the pass was a third of the edge path's time.

mod objects;

use crate::base::unescape::escape;
use crate::elision::MIN_CHARS;
use crate::formats::registry;
use serde_json::Value;
use std::ops::Range;

/// Top-level fields only an Anthropic request has (`anthropic_version` is Bedrock's and Vertex's).
pub(crate) const ANTHROPIC_FIELDS: [&str; 2] = ["system", "anthropic_version"];

/// Top-level fields (not `null`) of a Responses request whose conversation the provider stores.
const SERVER_HISTORY_FIELDS: [&str; 2] = ["previous_response_id", "conversation"];

/// Nesting the scanner follows; deeper bodies are left to serde_json (which stops at 128).
const MAX_DEPTH: usize = 127;

/// What one pass over a valid body found.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Scan {
    /// The span of the message list's value (the last one, as serde_json reads duplicate keys)
    /// and, when it is an array, of its elements (without surrounding whitespace). The list is
    /// the first registered list key the body has (`messages`, `input`, `contents`).
    pub messages: Option<(Range<usize>, Vec<Range<usize>>)>,
    /// That list's key.
    pub list_key: Option<&'static str>,
    /// A field of [`SERVER_HISTORY_FIELDS`] is present and not `null`.
    pub server_history: bool,
    /// The deepest nesting of containers, the top-level object included.
    pub deepest: usize,
    /// The first Anthropic-only field present.
    pub anthropic_field: Option<&'static str>,
    /// The string values (not keys) inside the list whose escaped text is longer than
    /// [`MIN_CHARS`] bytes, in order (none when the pass parsed the elements).
    pub long_strings: Vec<LongString>,
    /// The list's elements as values, when the pass was asked to parse them ([`scan_parsing`])
    /// and serde_json read every one (else the caller parses each from its span).
    pub values: Option<Vec<Value>>,
}

/// A long string value inside the messages, and what the pass learnt of its text on the way:
/// what an elided read needs (see `elision`) without reading the text again.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct LongString {
    /// The token, quotes included.
    pub token: Range<usize>,
    /// Its text's facts; `None` when an escape is a lone surrogate (which the parser refuses in
    /// a string it reads: such a body is read whole).
    pub facts: Option<TextFacts>,
}

/// Facts of a string token's text (the bytes between its quotes).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct TextFacts {
    /// Code points of the unescaped string.
    pub chars: usize,
    /// It has a CR LF (escaped, as JSON strings hold them).
    pub crlf: bool,
    /// Byte offset in the text where its last [`TAIL_CHARS`] code points begin (0 when shorter).
    pub tail_start: usize,
}

/// Code points of a long string's end that its placeholder carries (see `transcript::facts::fingerprint`).
pub(crate) const TAIL_CHARS: usize = 64;

/// Scans `body`, a JSON object; `None` when it is anything else, or not JSON, or nested deeper
/// than [`MAX_DEPTH`].
pub(crate) fn scan(body: &str) -> Option<Scan> {
    scan_with(body, false)
}

/// [`scan`], parsing the list's elements as it passes them (for a body read whole): serde_json
/// checks each element as it reads it, so the pass does not check it first. (Parsing them after
/// the pass went over each element's bytes twice: the pass was a third as long as the parse.)
/// The long strings are not looked for.
pub(crate) fn scan_parsing(body: &str) -> Option<Scan> {
    scan_with(body, true)
}

fn scan_with(body: &str, parse: bool) -> Option<Scan> {
    let mut cursor = Cursor {
        text: body,
        bytes: body.as_bytes(),
        at: 0,
        deepest: 1,
    };
    cursor.skip_whitespace();
    cursor.expect(b'{')?;
    let keys: Vec<&'static str> = registry::list_keys().collect();
    // Per list key: the value's span, its elements and its long strings.
    type List = (
        Range<usize>,
        Vec<Range<usize>>,
        Vec<LongString>,
        Option<Vec<Value>>,
    );
    let mut lists: Vec<Option<List>> = vec![None; keys.len()];
    let mut fields = [false; ANTHROPIC_FIELDS.len()];
    let mut server_history = false;
    cursor.skip_whitespace();
    if cursor.peek()? == b'}' {
        cursor.at += 1;
    } else {
        loop {
            let key = body.get(cursor.key()?)?;
            if let Some(slot) = keys.iter().position(|name| key_is(key, name)) {
                // A later list of a key replaces an earlier one, its long strings included.
                let mut long_strings = Vec::new();
                cursor.skip_whitespace();
                let start = cursor.at;
                let (elements, values) = if cursor.peek()? == b'[' {
                    cursor.elements(&mut long_strings, parse)?
                } else {
                    cursor.value(1, None)?;
                    (Vec::new(), None)
                };
                lists[slot] = Some((start..cursor.at, elements, long_strings, values));
            } else {
                cursor.skip_whitespace();
                let null = cursor.peek()? == b'n';
                cursor.value(1, None)?;
                server_history |= !null && SERVER_HISTORY_FIELDS.iter().any(|f| key_is(key, f));
            }
            for (field, seen) in ANTHROPIC_FIELDS.iter().zip(&mut fields) {
                *seen |= key_is(key, field);
            }
            cursor.skip_whitespace();
            match cursor.next()? {
                b',' => {}
                b'}' => break,
                _ => return None,
            }
        }
    }
    cursor.skip_whitespace();
    (cursor.at == body.len()).then_some(())?;
    let anthropic_field = ANTHROPIC_FIELDS
        .iter()
        .zip(fields)
        .find_map(|(field, seen)| seen.then_some(*field));
    let found = keys
        .iter()
        .zip(lists)
        .find_map(|(key, list)| Some((*key, list?)));
    let (list_key, messages, long_strings, values) = match found {
        Some((key, (span, elements, long, values))) => {
            (Some(key), Some((span, elements)), long, values)
        }
        None => (None, None, Vec::new(), None),
    };
    Some(Scan {
        messages,
        list_key,
        server_history,
        deepest: cursor.deepest,
        anthropic_field,
        long_strings,
        values,
    })
}

/// Whether the raw JSON string `raw` (quotes included) decodes to `name`. Escapes are decoded
/// only when present: a key spelled `"mess\u0061ges"` is still `messages`.
pub(crate) fn key_is(raw: &str, name: &str) -> bool {
    let plain = raw
        .strip_prefix('"')
        .and_then(|rest| rest.strip_suffix('"'));
    match plain {
        Some(plain) if !plain.contains('\\') => plain == name,
        // Read as a Value, not a String: a String target links serde's "invalid type" message,
        // which prints floats with core's flt2dec (src/decimal.rs).
        _ => matches!(
            serde_json::from_str::<serde_json::Value>(raw),
            Ok(serde_json::Value::String(decoded)) if decoded == name
        ),
    }
}

/// A list's elements: their spans and, when they were parsed, their values.
type Elements = (Vec<Range<usize>>, Option<Vec<Value>>);

/// A byte cursor that checks JSON as it skips it.
struct Cursor<'a> {
    /// The text, for serde_json (`bytes` are its bytes).
    text: &'a str,
    bytes: &'a [u8],
    at: usize,
    /// The deepest nesting seen, the top-level object being level 1.
    deepest: usize,
}

impl Cursor<'_> {
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.at).copied()
    }

    fn next(&mut self) -> Option<u8> {
        let byte = self.peek()?;
        self.at += 1;
        Some(byte)
    }

    fn expect(&mut self, byte: u8) -> Option<()> {
        (self.next()? == byte).then_some(())
    }

    fn skip_whitespace(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.at += 1;
        }
    }

    /// An object key and its colon (whitespace before both skipped): the key's token.
    fn key(&mut self) -> Option<Range<usize>> {
        self.skip_whitespace();
        let key = self.string()?;
        self.skip_whitespace();
        self.expect(b':')?;
        Some(key)
    }

    /// The elements of the array starting here, each a value at level 2; their long string
    /// values go to `long`, or with `parse` they are read as values.
    fn elements(&mut self, long: &mut Vec<LongString>, parse: bool) -> Option<Elements> {
        if parse && let Some(elements) = self.objects() {
            return Some(elements);
        }
        self.expect(b'[')?;
        self.deepest = self.deepest.max(2);
        let mut elements = Vec::new();
        let mut values = parse.then(Vec::new);
        self.skip_whitespace();
        if self.peek()? == b']' {
            self.at += 1;
            return Some((elements, values));
        }
        loop {
            self.skip_whitespace();
            let start = self.at;
            match values
                .as_mut()
                .and_then(|values| Some((values, self.parsed()?)))
            {
                Some((values, value)) => values.push(value),
                None => {
                    // Not parsed, or serde_json refused it: the pass checks it (a lone surrogate
                    // escape is JSON, but no `String`; the caller reads each element to say so).
                    values = None;
                    self.at = start;
                    self.value(2, Some(long))?;
                }
            }
            elements.push(start..self.at);
            self.skip_whitespace();
            match self.next()? {
                b',' => {}
                b']' => return Some((elements, values)),
                _ => return None,
            }
        }
    }

    /// The list of objects starting here read by one serde_json reader ([`objects`]); the cursor
    /// moves past it. `None` (the cursor where it was) when [`objects::read`] does not read it,
    /// or an element is nested deeper than the pass follows.
    fn objects(&mut self) -> Option<Elements> {
        let list = objects::read(self.text, self.at)?;
        let deepest = 2 + list.depth;
        (deepest <= MAX_DEPTH).then_some(())?;
        self.deepest = self.deepest.max(deepest);
        self.at = list.end;
        Some((list.spans, Some(list.values)))
    }

    /// The element starting here (at level 2) read by serde_json, which checks it as the pass
    /// would; the cursor moves past it. `None` (the cursor where it was) when serde_json refuses
    /// it, or it is nested deeper than the pass follows.
    fn parsed(&mut self) -> Option<Value> {
        let mut reader =
            serde_json::Deserializer::from_str(self.text.get(self.at..)?).into_iter::<Value>();
        let value = reader.next()?.ok()?;
        let deepest = 2 + depth(&value);
        (deepest <= MAX_DEPTH).then_some(())?;
        self.deepest = self.deepest.max(deepest);
        self.at += reader.byte_offset();
        Some(value)
    }

    /// Checks the value starting here (after whitespace) inside `outer` containers,
    /// iteratively; string values longer than [`MIN_CHARS`] bytes go to `long` when given.
    fn value(&mut self, outer: usize, mut long: Option<&mut Vec<LongString>>) -> Option<()> {
        // A bit per open container, innermost lowest: 1 for an object, 0 for an array.
        let mut open: u128 = 0;
        let mut level = 0usize;
        loop {
            self.skip_whitespace();
            match self.peek()? {
                opening @ (b'{' | b'[') => {
                    level += 1;
                    if outer + level > MAX_DEPTH {
                        return None;
                    }
                    self.deepest = self.deepest.max(outer + level);
                    let object = opening == b'{';
                    open = open << 1 | u128::from(object);
                    self.at += 1;
                    self.skip_whitespace();
                    if self.peek()? != if object { b'}' } else { b']' } {
                        if object {
                            self.key()?;
                        }
                        continue;
                    }
                    self.at += 1;
                    level -= 1;
                    open >>= 1;
                }
                b'"' => match long.as_deref_mut() {
                    Some(long) => {
                        if let Some(string) = self.counted_string()? {
                            long.push(string);
                        }
                    }
                    None => {
                        self.string()?;
                    }
                },
                b't' => self.literal(b"true")?,
                b'f' => self.literal(b"false")?,
                b'n' => self.literal(b"null")?,
                _ => self.number()?,
            }
            // A value ended: close what ends with it, up to the next value.
            loop {
                if level == 0 {
                    return Some(());
                }
                self.skip_whitespace();
                let object = open & 1 == 1;
                match self.next()? {
                    b',' => {
                        if object {
                            self.key()?;
                        }
                        break;
                    }
                    b'}' if object => {}
                    b']' if !object => {}
                    _ => return None,
                }
                level -= 1;
                open >>= 1;
            }
        }
    }

    /// The string token starting here (quotes included): no raw control character, only the
    /// escapes JSON has (`\u` with four hex digits; surrogates are the reader's concern, as in
    /// serde_json's `ignore_str`).
    fn string(&mut self) -> Option<Range<usize>> {
        let start = self.at;
        (self.peek()? == b'"').then_some(())?;
        let mut at = start + 1;
        loop {
            // The count is not wanted here (keys and values outside the messages: few bytes).
            at += crate::base::bytes::string_run(self.bytes.get(at..)?).0;
            match *self.bytes.get(at)? {
                b'"' => {
                    self.at = at + 1;
                    return Some(start..self.at);
                }
                b'\\' => at += escape(self.bytes, at)?.len,
                _ => return None,
            }
        }
    }

    /// [`Self::string`] for a value inside the messages, counting its code points and noting
    /// what else an elided read needs as it goes (one pass over the bytes); the facts when the
    /// token is longer than [`MIN_CHARS`] bytes.
    fn counted_string(&mut self) -> Option<Option<LongString>> {
        let start = self.at;
        (self.peek()? == b'"').then_some(())?;
        let mut at = start + 1;
        let (mut chars, mut crlf, mut after_cr, mut lone) = (0usize, false, false, false);
        // The last escapes (start, end), in a ring: `escapes` counts every one pushed.
        let mut recent = [(0usize, 0usize); TAIL_CHARS];
        let mut escapes = 0usize;
        loop {
            let (run, count) = crate::base::bytes::string_run(self.bytes.get(at..)?);
            chars += count;
            after_cr &= run == 0;
            at += run;
            match *self.bytes.get(at)? {
                b'"' => break,
                b'\\' => {
                    let escape = escape(self.bytes, at)?;
                    lone |= escape.lone;
                    crlf |= after_cr && escape.unit == 0x0A;
                    after_cr = escape.unit == 0x0D;
                    recent[escapes % TAIL_CHARS] = (at, at + escape.len);
                    escapes += 1;
                    chars += 1;
                    at += escape.len;
                }
                _ => return None,
            }
        }
        self.at = at + 1;
        let token = start..self.at;
        if token.len() - 2 <= MIN_CHARS {
            return Some(None);
        }
        let text = start + 1..at;
        let facts = (!lone).then(|| TextFacts {
            chars,
            crlf,
            tail_start: tail_start(self.bytes, text.clone(), &recent, escapes) - text.start,
        });
        Some(Some(LongString { token, facts }))
    }

    fn literal(&mut self, word: &[u8]) -> Option<()> {
        let end = self.at + word.len();
        (self.bytes.get(self.at..end)? == word).then_some(())?;
        self.at = end;
        Some(())
    }

    /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`; what follows is the caller's
    /// to check (a digit after a leading `0` is then refused, as serde_json refuses it).
    fn number(&mut self) -> Option<()> {
        if self.peek()? == b'-' {
            self.at += 1;
        }
        match self.next()? {
            b'0' => {}
            b'1'..=b'9' => self.digits(),
            _ => return None,
        }
        if self.peek() == Some(b'.') {
            self.at += 1;
            self.some_digits()?;
        }
        if matches!(self.peek(), Some(b'e' | b'E')) {
            self.at += 1;
            if matches!(self.peek(), Some(b'+' | b'-')) {
                self.at += 1;
            }
            self.some_digits()?;
        }
        Some(())
    }

    fn digits(&mut self) {
        while matches!(self.peek(), Some(b'0'..=b'9')) {
            self.at += 1;
        }
    }

    fn some_digits(&mut self) -> Option<()> {
        let start = self.at;
        self.digits();
        (self.at > start).then_some(())
    }
}

/// How many containers `value` nests (0 for a scalar): serde_json stops at 128 levels, so the
/// recursion is bounded.
fn depth(value: &Value) -> usize {
    match value {
        Value::Array(items) => 1 + items.iter().map(depth).max().unwrap_or(0),
        Value::Object(fields) => 1 + fields.values().map(depth).max().unwrap_or(0),
        _ => 0,
    }
}

/// Where the last [`TAIL_CHARS`] code points of the string text at `text` begin, walking back
/// from its end: over an escape in one step (the ring `recent` holds the last ones, `escapes`
/// counts all), over plain UTF-8 a code point at a time.
fn tail_start(
    bytes: &[u8],
    text: Range<usize>,
    recent: &[(usize, usize); TAIL_CHARS],
    mut escapes: usize,
) -> usize {
    let mut at = text.end;
    for _ in 0..TAIL_CHARS {
        if at == text.start {
            break;
        }
        // At most TAIL_CHARS steps: every escape stepped over is still in the ring.
        let last = recent[escapes.wrapping_sub(1) % TAIL_CHARS];
        if escapes > 0 && last.1 == at {
            at = last.0;
            escapes -= 1;
            continue;
        }
        at -= 1;
        while at > text.start && bytes[at] & 0xC0 == 0x80 {
            at -= 1;
        }
    }
    at
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::Value;

    /// serde_json's verdict on `text` as JSON, nesting limit aside.
    fn serde_accepts(text: &str) -> bool {
        serde_json::from_str::<serde::de::IgnoredAny>(text).is_ok()
    }

    #[test]
    fn refuses_what_serde_json_refuses() {
        for body in [
            "",
            " ",
            "{",
            "{}x",
            "{,}",
            "{\"a\":1,}",
            "{\"a\":[1,]}",
            "{\"a\":[,1]}",
            "{\"a\" 1}",
            "{\"a\":01}",
            "{\"a\":-}",
            "{\"a\":1.}",
            "{\"a\":.5}",
            "{\"a\":1e}",
            "{\"a\":1e+}",
            "{\"a\":+1}",
            "{\"a\":tru}",
            "{\"a\":nulll}",
            "{\"a\":\"\\x\"}",
            "{\"a\":\"\\u12g4\"}",
            "{\"a\":\"\\u12\"}",
            "{\"a\":\"tab\there\"}",
            "{\"a\":\"nul\u{0}\"}",
            "{\"a\":\"open}",
            "{\"a\":{\"b\":1]}",
            "{\"a\":[1}",
            "{'a':1}",
            "{\"a\":NaN}",
            "\u{feff}{}",
            "{\"a\":1}{}",
        ] {
            assert!(!serde_accepts(body), "serde_json accepts {body:?}");
            assert_eq!(scan(body), None, "{body:?}");
            assert_eq!(scan_parsing(body), None, "{body:?}");
        }
    }

    #[test]
    fn accepts_what_serde_json_accepts() {
        for body in [
            "{}",
            " \t\r\n{ } \n",
            "{\"a\":-0.5e-3,\"b\":[true,false,null,{},[]],\"c\":\"\\u00e9\\ud800\\/\\\"\"}",
            "{\"a\":1E+9,\"b\":0,\"c\":-0,\"d\":[[[[]]]],\"e\":\"\u{7f}é😀\"}",
            "{\"a\":{\"a\":{\"a\":{}}},\"a\":1}",
        ] {
            assert!(serde_accepts(body), "serde_json refuses {body:?}");
            assert!(scan(body).is_some(), "{body:?}");
            assert!(scan_parsing(body).is_some(), "{body:?}");
        }
        // Valid JSON, but not an object: the caller names it.
        assert_eq!(scan("[]"), None);
    }

    #[test]
    fn depth_is_counted_and_bounded() {
        depth_is_counted_and_bounded_by(scan);
        depth_is_counted_and_bounded_by(scan_parsing);
    }

    #[test]
    fn parsed_elements_are_serde_jsons_values() {
        let body = "{\"messages\": [ {\"a\":[1.5e3,\"\\u00e9\"]} ,2,\"x\" , null],\"m\":1}";
        let scanned = scan_parsing(body).expect("valid");
        assert_eq!(scanned.messages, scan(body).expect("valid").messages);
        let Ok(serde_json::Value::Object(mut parsed)) = serde_json::from_str(body) else {
            panic!("valid");
        };
        let Some(serde_json::Value::Array(expected)) = parsed.remove("messages") else {
            panic!("an array");
        };
        assert_eq!(scanned.values, Some(expected));
        // A lone surrogate escape is JSON but no string value: the caller reads each element.
        let lone = scan_parsing("{\"messages\":[\"\\ud800\",1]}").expect("valid");
        assert_eq!(lone.values, None);
        assert_eq!(lone.messages.map(|(_, elements)| elements.len()), Some(2));
    }

    fn depth_is_counted_and_bounded_by(scan: fn(&str) -> Option<Scan>) {
        let nested = |depth: usize| {
            format!(
                "{{\"messages\":[{}1{}]}}",
                "[".repeat(depth),
                "]".repeat(depth)
            )
        };
        assert_eq!(scan(&nested(0)).map(|scan| scan.deepest), Some(2));
        assert_eq!(scan(&nested(3)).map(|scan| scan.deepest), Some(5));
        assert_eq!(
            scan(&nested(MAX_DEPTH - 2)).map(|s| s.deepest),
            Some(MAX_DEPTH)
        );
        assert_eq!(scan(&nested(MAX_DEPTH - 1)), None);
        assert_eq!(
            scan(&nested(100_000)),
            None,
            "iterative: no stack to overflow"
        );
        let deep_object = format!("{{\"x\":{}1{}}}", "{\"k\":".repeat(5), "}".repeat(5));
        assert_eq!(scan(&deep_object).map(|scan| scan.deepest), Some(6));
    }

    #[test]
    fn long_strings_are_values_inside_the_last_messages() {
        let long = "x".repeat(MIN_CHARS + 1);
        let exact = "y".repeat(MIN_CHARS);
        let body = format!(
            "{{\"system\":\"{long}\",\"messages\":[{{\"content\":\"{long}\"}}],\
             \"messages\":[{{\"{long}\":\"{exact}\",\"content\":[\"{long}\", 1]}}, \"{long}\"]}}"
        );
        let scan = scan(&body).expect("valid");
        let texts: Vec<&str> = scan
            .long_strings
            .iter()
            .map(|l| &body[l.token.clone()])
            .collect();
        let token = format!("\"{long}\"");
        assert_eq!(texts, vec![token.as_str(), token.as_str()]);
        let (array, elements) = scan.messages.expect("found");
        assert!(
            scan.long_strings
                .iter()
                .all(|l| array.start < l.token.start)
        );
        let facts = scan.long_strings[0].facts.as_ref().expect("plain");
        assert_eq!((facts.chars, facts.crlf), (MIN_CHARS + 1, false));
        assert_eq!(elements.len(), 2);
        assert_eq!(scan.anthropic_field, Some("system"));
    }

    #[test]
    fn the_list_is_the_first_registered_key_present() {
        let scanned =
            scan(r#"{"contents":[1],"input":[2, 3],"previous_response_id":"r"}"#).expect("valid");
        assert_eq!(scanned.list_key, Some("input"));
        assert_eq!(
            scanned.messages.map(|(_, elements)| elements.len()),
            Some(2)
        );
        assert!(scanned.server_history);
        let both = scan(r#"{"input":[2],"messages":[1],"conversation":null}"#).expect("valid");
        assert_eq!(both.list_key, Some("messages"));
        assert!(!both.server_history, "a null conversation is none");
        let gemini = scan(r#"{"systemInstruction":{"parts":[]},"contents":[]}"#).expect("valid");
        assert_eq!(gemini.list_key, Some("contents"));
        let none = scan(r#"{"model":"m"}"#).expect("valid");
        assert_eq!((none.list_key, none.messages), (None, None));
    }

    /// serde_json's reading of the `messages` array of `text`.
    fn serde_messages(text: &str) -> Option<Vec<Value>> {
        match serde_json::from_str::<Value>(text).ok()? {
            Value::Object(mut top) => match top.remove("messages")? {
                Value::Array(items) => Some(items),
                _ => None,
            },
            _ => None,
        }
    }

    /// JSON text of messages: strings with every kind of escape, numbers of every kind.
    fn message_text() -> impl Strategy<Value = String> {
        let leaf = prop_oneof![
            Just("\"a\\n\\\"b\\\\c\\/\\b\\f\\r\\t\"".to_string()),
            Just("\"\\u00e9\\u20ac\\ud83d\\ude00\\u0000é😀\"".to_string()),
            Just("\"\\ud800\"".to_string()),
            Just("\"\\udc00x\"".to_string()),
            Just("\"\\ud800\\u0041\"".to_string()),
            "\"[a-z \\\\n]{0,12}\"".prop_map(String::from),
            "-?(0|[1-9][0-9]{0,22})(\\.[0-9]{1,20})?([eE][+-]?[0-9]{1,3})?",
            Just("1e400".to_string()),
            Just("-0".to_string()),
            Just("18446744073709551616".to_string()),
            Just("true".to_string()),
            Just("null".to_string()),
        ];
        leaf.prop_recursive(4, 24, 4, |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..4)
                    .prop_map(|items| format!("[ {} ]", items.join(" , "))),
                proptest::collection::vec(("[ab]{1,2}", inner), 0..4).prop_map(|fields| {
                    let fields: Vec<String> = fields
                        .iter()
                        .map(|(k, v)| format!("\"{k}\" :{v}"))
                        .collect();
                    format!("{{{}}}", fields.join(","))
                }),
            ]
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]
        #[test]
        fn parsed_values_are_serde_jsons(items in proptest::collection::vec(message_text(), 0..4)) {
            let text = format!("{{\"messages\":[{}]}}", items.join(","));
            let parsing = scan_parsing(&text);
            prop_assert_eq!(parsing.is_some(), scan(&text).is_some(), "{:?}", text);
            if let Some(values) = parsing.and_then(|s| s.values) {
                prop_assert_eq!(Some(values), serde_messages(&text), "{:?}", text);
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]
        #[test]
        fn lists_of_objects_read_at_once_are_read_as_each(
            items in proptest::collection::vec(message_text(), 0..5),
            pad in "[ \t\n\r]{0,2}",
        ) {
            // Objects (most read by one reader) and other values (read one by one), padded.
            let items: Vec<String> = items
                .iter()
                .map(|item| match item.starts_with('{') {
                    true => item.replacen('{', &format!("{{{pad}\"k\"{pad}:{pad}1{pad},"), 1),
                    false => item.clone(),
                })
                .map(|item| format!("{pad}{item}{pad}"))
                .collect();
            let text = format!("{{\"messages\":[{}]}}", items.join(","));
            let (parsing, scanned) = (scan_parsing(&text), scan(&text));
            prop_assert_eq!(parsing.is_some(), scanned.is_some(), "{:?}", text);
            if let Some(values) = parsing.as_ref().and_then(|s| s.values.clone()) {
                prop_assert_eq!(Some(values), serde_messages(&text), "{:?}", text);
            }
            // The depth read from values can be less than the text's (a repeated key's first
            // value is not in them), as it was when each element was read on its own.
            prop_assert!(
                parsing.as_ref().map(|s| s.deepest) <= scanned.as_ref().map(|s| s.deepest),
                "{:?}",
                text
            );
            prop_assert_eq!(
                parsing.map(|s| s.messages),
                scanned.map(|s| s.messages),
                "{:?}",
                text
            );
        }
    }

    #[test]
    fn objects_are_read_at_once_or_each_on_its_own() {
        for body in [
            "{\"messages\": [ {\"role\":\"user\"} , {\n\"a\" : [1,{\"b\":2}]}\t]}",
            // An escaped first key, an empty object, a repeated key: each element on its own
            // for the first two, the same values either way.
            "{\"messages\":[{\"\\u0072ole\":1},{\"x\":2}]}",
            "{\"messages\":[{\"x\":2},{ }]}",
            "{\"messages\":[{\"x\":2,\"y\":3,\"x\":4}]}",
            "{\"messages\":[{\"\":1},{ \"\" : {\"\":[]} }]}",
            "{\"messages\":[]}",
        ] {
            let parsing = scan_parsing(body).expect("valid");
            assert_eq!(
                parsing.messages,
                scan(body).expect("valid").messages,
                "{body}"
            );
            assert_eq!(parsing.values, serde_messages(body), "{body}");
        }
        let body = "{\"messages\":[ {\"a\":1} ,{\"b\":{\"c\":[]}}]}";
        let list = objects::read(body, 12).expect("objects");
        let texts: Vec<&str> = list.spans.iter().map(|span| &body[span.clone()]).collect();
        assert_eq!(texts, ["{\"a\":1}", "{\"b\":{\"c\":[]}}"]);
        assert_eq!(
            (list.values.len(), list.depth, &body[list.end..]),
            (2, 3, "}")
        );
        assert!(
            objects::read("[{\"\\n\":1}]", 0).is_none(),
            "an escaped first key"
        );
        assert!(objects::read("[{}]", 0).is_none(), "no first key");
        let empty_key = objects::read("[ {\"\":1}]", 0)
            .map(|list| (list.spans.len(), list.spans.first().cloned(), list.end));
        assert_eq!(
            empty_key,
            Some((1, Some(2..8), 9)),
            "an empty first key is text too"
        );
        assert!(objects::read("[1]", 0).is_none(), "not an object");
    }

    fn jsonish() -> impl Strategy<Value = String> {
        let piece = prop_oneof![
            Just("{".to_string()),
            Just("}".to_string()),
            Just("[".to_string()),
            Just("]".to_string()),
            Just(",".to_string()),
            Just(":".to_string()),
            Just(" ".to_string()),
            Just("\"messages\"".to_string()),
            Just("\"system\"".to_string()),
            Just("\"a\\n\\u00e9\"".to_string()),
            Just("\"\\".to_string()),
            Just("\"".to_string()),
            Just("\t".to_string()),
            Just("\u{1}".to_string()),
            "-?[0-9]{1,3}(\\.[0-9]{0,2})?([eE][+-]?[0-9]{0,2})?",
            Just("true".to_string()),
            Just("nul".to_string()),
            Just("null".to_string()),
        ];
        proptest::collection::vec(piece, 0..24).prop_map(|pieces| pieces.concat())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]
        #[test]
        fn agrees_with_serde_json_on_json_like_text(text in jsonish()) {
            let object = text.trim_start().starts_with('{');
            prop_assert_eq!(scan(&text).is_some(), object && serde_accepts(&text), "{:?}", text);
            let (parsing, scanned) = (scan_parsing(&text), scan(&text));
            if let Some(values) = parsing.as_ref().and_then(|s| s.values.clone()) {
                prop_assert_eq!(Some(values), serde_messages(&text), "{:?}", text);
            }
            prop_assert_eq!(
                parsing.map(|s| (s.messages, s.deepest)),
                scanned.map(|s| (s.messages, s.deepest)),
                "{:?}",
                text
            );
        }
    }
}

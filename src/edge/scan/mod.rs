//! A request body checked and laid out in one pass: whether it is JSON, where its top-level
//! message list (`messages`, or another format's list key: the Responses API's `input`,
//! Gemini's `contents`) and each element are, which Anthropic-only field it has, whether it
//! continues a conversation the provider stores.
//!
//! The scanner accepts exactly the texts serde_json's parser accepts, up to 127 levels of
//! nesting (the parser's grammar, read from its `ignore_value`: its whitespace, escapes, number
//! syntax, no raw control characters in strings, nothing after the value). Anything else makes
//! it give up, and serde_json then reads the body to name the fault with its own message
//! (`edge::layout`). So a valid body is read once, not once by serde_json to check it
//! and again to find its spans: the pass was a third of the edge path's time.

mod objects;

use crate::base::bytes::{escape_len, find_escaped};
use crate::formats::registry;
use serde_json::Value;
use std::ops::Range;

/// Top-level fields only an Anthropic request has (`anthropic_version` is Bedrock's and Vertex's).
const ANTHROPIC_FIELDS: [&str; 2] = ["system", "anthropic_version"];

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
    /// The list's elements as values, when the pass was asked to parse them ([`scan_parsing`])
    /// and serde_json read every one (else the caller parses each from its span).
    pub values: Option<Vec<Value>>,
}

/// Scans `body`, a JSON object; `None` when it is anything else, or not JSON, or nested deeper
/// than [`MAX_DEPTH`].
pub(crate) fn scan(body: &str) -> Option<Scan> {
    scan_with(body, false)
}

/// [`scan`], parsing the list's elements as it passes them (a body read from its text):
/// serde_json checks each element as it reads it, so the pass does not check it first. (Parsing
/// them after the pass went over each element's bytes twice: the pass was a third as long as the
/// parse.)
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
    // Per list key: the value's span, its elements and their values.
    type List = (Range<usize>, Vec<Range<usize>>, Option<Vec<Value>>);
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
                // A later list of a key replaces an earlier one.
                cursor.skip_whitespace();
                let start = cursor.at;
                let (elements, values) = if cursor.peek()? == b'[' {
                    cursor.elements(parse)?
                } else {
                    cursor.value(1)?;
                    (Vec::new(), None)
                };
                lists[slot] = Some((start..cursor.at, elements, values));
            } else {
                cursor.skip_whitespace();
                let null = cursor.peek()? == b'n';
                cursor.value(1)?;
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
    let (list_key, messages, values) = match found {
        Some((key, (span, elements, values))) => (Some(key), Some((span, elements)), values),
        None => (None, None, None),
    };
    Some(Scan {
        messages,
        list_key,
        server_history,
        deepest: cursor.deepest,
        anthropic_field,
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

    /// The elements of the array starting here, each a value at level 2; with `parse` they are
    /// read as values.
    fn elements(&mut self, parse: bool) -> Option<Elements> {
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
                    self.value(2)?;
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

    /// Checks the value starting here (after whitespace) inside `outer` containers, iteratively.
    fn value(&mut self, outer: usize) -> Option<()> {
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
                b'"' => {
                    self.string()?;
                }
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
            let rest = self.bytes.get(at..)?;
            at += find_escaped(rest).unwrap_or(rest.len());
            match *self.bytes.get(at)? {
                b'"' => {
                    self.at = at + 1;
                    return Some(start..self.at);
                }
                b'\\' => at += escape_len(self.bytes, at)?,
                _ => return None,
            }
        }
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

    /// The text of the message list of `body` and of each element, when the list is an array.
    fn located(body: &str) -> Option<(&str, Vec<&str>)> {
        let (array, elements) = scan(body)?.messages?;
        let texts = elements
            .iter()
            .map(|element| &body[element.clone()])
            .collect();
        (body.as_bytes().get(array.start) == Some(&b'[')).then(|| (&body[array], texts))
    }

    #[test]
    fn locates_messages_among_other_fields() {
        let body = r#" { "model" : "gpt-4o", "tools": [{"messages": [1]}],
            "messages" : [ {"role":"user","content":"a \"quoted\" ] } , \\"} ,
              {"role": "assistant", "content": [ {"type":"text","text":"[{"}]}
            ] , "stream": true, "n": -1.5e3, "x": null }"#;
        let (array, elements) = located(body).expect("found");
        assert!(array.starts_with("[ {\"role\":\"user\""));
        assert!(array.ends_with("}]}\n            ]"));
        assert_eq!(
            elements,
            vec![
                r#"{"role":"user","content":"a \"quoted\" ] } , \\"}"#,
                r#"{"role": "assistant", "content": [ {"type":"text","text":"[{"}]}"#,
            ]
        );
    }

    #[test]
    fn nested_messages_keys_do_not_count() {
        let body = r#"{"metadata":{"messages":[1,2]},"messages":[]}"#;
        assert_eq!(located(body), Some(("[]", vec![])));
        assert_eq!(located(r#"{"metadata":{"messages":[1]}}"#), None);
    }

    #[test]
    fn escaped_and_duplicate_keys_follow_serde_json() {
        let body = r#"{"mess\u0061ges":[1],"messages":[2, 3]}"#;
        assert_eq!(located(body), Some(("[2, 3]", vec!["2", "3"])));
        let body = r#"{"messages":[2],"mess\u0061ges":[1]}"#;
        assert_eq!(located(body), Some(("[1]", vec!["1"])));
        assert_eq!(
            serde_messages(body),
            Some(vec![Value::from(1)]),
            "serde_json agrees"
        );
    }

    #[test]
    fn non_ascii_and_scalars() {
        let body = "{\"messages\":[\"h\u{e9}\u{1F600}\\\"\", 12, true ,null,{\"k\":\"\u{2028}\"}]}";
        let (_, elements) = located(body).expect("found");
        assert_eq!(
            elements,
            vec![
                "\"h\u{e9}\u{1F600}\\\"\"",
                "12",
                "true",
                "null",
                "{\"k\":\"\u{2028}\"}"
            ]
        );
    }

    #[test]
    fn scanner_never_panics_on_broken_text() {
        for body in [
            "",
            "{",
            "{\"messages\"",
            "{\"messages\":",
            "{\"messages\":[",
            "{\"messages\":[\"",
            "{\"messages\":[1,",
            "{\"messages\":{}}",
            "[]",
            "{\"a\":\"\\",
            "{\"messages\":]}",
            "{\"messages\":[}]}",
        ] {
            assert_eq!(located(body), None, "{body:?}");
        }
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

//! A request body checked and laid out in one pass of serde_json: whether it is JSON, where its
//! top-level message list (`messages`, or another format's list key: the Responses API's
//! `input`, Gemini's `contents`) and each element are, which Anthropic-only field it has,
//! whether it continues a conversation the provider stores.
//!
//! serde_json checks the text; the pass knows where it is from `RawValue` spans ([`item`]); a
//! body read from its text has its list's elements read as values in the same pass
//! ([`objects`]). A body is accepted exactly when serde_json reads it as an object within its
//! depth, every value checked as it checks what it skips (not whether a number fits an `f64` or
//! a `\u` escape is a whole character); anything else gives `None`, and serde_json then reads
//! the body to name the fault in its own words (`edge::layout`).
//!
//! It replaced a hand-written checker of serde_json's grammar (issue 30, `bench/builds.mjs`,
//! wasm): body calls within noise, a 10 MB body's layout a median 1.02x (every key and leaf
//! goes through serde_json's `RawValue` path), the module 218 B smaller gzipped. Each element
//! as one `RawValue`, its depth counted over its text after, was 1.12x on that body (a second
//! walk of its bytes).

#[macro_use]
mod objects;
mod item;
mod top;
mod walk;

use serde_json::Value;
use std::ops::Range;
use top::{Entry, List, Mode};

/// Top-level fields only an Anthropic request has (`anthropic_version` is Bedrock's and Vertex's).
const ANTHROPIC_FIELDS: [&str; 2] = ["system", "anthropic_version"];

/// Top-level fields (not `null`) of a Responses request whose conversation the provider stores.
const SERVER_HISTORY_FIELDS: [&str; 2] = ["previous_response_id", "conversation"];

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
    /// The first Anthropic-only field present.
    pub anthropic_field: Option<&'static str>,
    /// The list's elements as values, when the pass was asked to parse them ([`scan`])
    /// and read them: each an object whose first key is plain text, read by serde_json (else
    /// the caller parses each from its span).
    pub values: Option<Vec<Value>>,
}

/// Scans `body`, a JSON object; `None` when it is anything else, or not JSON, or nested deeper
/// than serde_json reads (127 levels). With `parse` (a body read from its text), the list's
/// elements are parsed as the pass meets them: serde_json checks each as it reads it, so the
/// pass does not check it first. (Parsing them after the pass went over each element's bytes
/// twice: the pass was a third as long as the parse.)
pub(crate) fn scan(body: &str, parse: bool) -> Option<Scan> {
    let mode = if parse { Mode::Parse } else { Mode::Spans };
    // A list the pass did not read as values, or a value serde_json checks but does not read (a
    // lone surrogate escape, a number too large): read again, each element as text.
    let top = match item::read(body, mode) {
        Some(top) if !top.again() => top,
        _ if parse => item::read(body, Mode::Spans)?,
        _ => return None,
    };
    let anthropic_field = ANTHROPIC_FIELDS
        .iter()
        .zip(top.anthropic)
        .find_map(|(field, seen)| seen.then_some(*field));
    let found = top
        .list
        .and_then(|(slot, entry)| Some((*top.keys.get(slot)?, entry)));
    let (list_key, messages, values) = match found {
        Some((key, entry)) => {
            let (array, elements, values) = located(body, entry)?;
            (Some(key), Some((array, elements)), values)
        }
        None => (None, None, None),
    };
    Some(Scan {
        messages,
        list_key,
        server_history: top.server_history,
        anthropic_field,
        values,
    })
}

/// The span of a list's value, of its elements and, with `parse`, their values.
type Located = (Range<usize>, Vec<Range<usize>>, Option<Vec<Value>>);

/// Where the list of `entry` and its elements are in `body`, and their values.
fn located(body: &str, entry: Entry<'_>) -> Option<Located> {
    let bytes = body.as_bytes();
    let end = match (entry.end, entry.next_key) {
        (Some(end), _) => end,
        // A list read as values ends before the next key's comma, or the body's closing brace.
        (None, Some(next)) => {
            let comma = walk::before_whitespace(bytes, span_of(body, next.get())?.start, b',')?;
            walk::end_before(bytes, comma)?
        }
        (None, None) => {
            let brace = walk::before_whitespace(bytes, bytes.len(), b'}')?;
            walk::end_before(bytes, brace)?
        }
    };
    let array = entry.start..end;
    match entry.list {
        List::Objects(values, first_keys) => {
            let elements = objects::spans(body, &first_keys, array.end.checked_sub(1)?)?;
            Some((array, elements, Some(values)))
        }
        // Not read as values: the caller reads each element.
        List::Elements(elements) => Some((array, elements, None)),
        List::Other => Some((array, Vec::new(), None)),
        List::Again => None,
    }
}

/// The span of `part`, a slice of `body`, in it.
pub(super) fn span_of(body: &str, part: &str) -> Option<Range<usize>> {
    let start = (part.as_ptr() as usize).checked_sub(body.as_ptr() as usize)?;
    let end = start.checked_add(part.len())?;
    (end <= body.len()).then_some(start..end)
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

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::Value;

    /// The deepest nesting serde_json reads (it stops at 128), the top-level object being level 1.
    const MAX_DEPTH: usize = 127;

    fn scan(body: &str) -> Option<Scan> {
        super::scan(body, false)
    }

    fn scan_parsing(body: &str) -> Option<Scan> {
        super::scan(body, true)
    }

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
        let body = "{\"messages\": [ {\"a\":[1.5e3,\"\\u00e9\"]} ,{\"b\":null}],\"m\":1}";
        let scanned = scan_parsing(body).expect("valid");
        assert_eq!(scanned.messages, scan(body).expect("valid").messages);
        let Ok(serde_json::Value::Object(mut parsed)) = serde_json::from_str(body) else {
            panic!("valid");
        };
        let Some(serde_json::Value::Array(expected)) = parsed.remove("messages") else {
            panic!("an array");
        };
        assert_eq!(scanned.values, Some(expected));
        // Not all objects, or a lone surrogate escape (JSON, but no string value), or a number
        // too large: the caller reads each element (and says which it cannot).
        for body in [
            "{\"messages\":[{\"a\":1},2,\"x\",null]}",
            "{\"messages\":[{\"a\":\"\\ud800\"},{\"a\":1}]}",
            "{\"messages\":[{\"a\":1e400},{\"a\":1}]}",
        ] {
            let scanned = scan_parsing(body).expect("valid");
            assert_eq!(scanned.values, None, "{body}");
            assert_eq!(scanned.messages, scan(body).expect("valid").messages);
        }
    }

    fn depth_is_counted_and_bounded_by(scan: fn(&str) -> Option<Scan>) {
        let nested = |depth: usize, open: &str, close: &str| {
            let deep = format!("{}1{}", open.repeat(depth), close.repeat(depth));
            [
                format!("{{\"messages\":[{deep}]}}"),
                format!("{{\"messages\":[{{\"role\":\"user\",\"content\":{deep}}}]}}"),
                format!("{{\"x\":[{deep}],\"messages\":[]}}"),
                format!("{{\"messages\":[],\"x\":[{deep}]}}"),
                format!("{{\"messages\":{{\"x\":[{deep}]}}}}"),
                // A repeated key's first value is not in the values read, but is in the body.
                format!("{{\"messages\":[{{\"a\":[{deep}],\"a\":1}}]}}"),
            ]
        };
        for (open, close) in [("[", "]"), ("{\"k\":", "}")] {
            // Accepted exactly when serde_json reads the body as a value (at most 127 levels).
            for depth in MAX_DEPTH - 5..=MAX_DEPTH {
                for body in nested(depth, open, close) {
                    let reference = serde_json::from_str::<Value>(&body).is_ok();
                    assert_eq!(scan(&body).is_some(), reference, "{depth} {body}");
                }
            }
            // The top level, the list and 125 more.
            let [at_limit, ..] = nested(MAX_DEPTH - 2, open, close);
            assert!(scan(&at_limit).is_some());
            let [over, ..] = nested(MAX_DEPTH - 1, open, close);
            assert_eq!(scan(&over), None);
            for body in nested(100_000, open, close) {
                assert_eq!(scan(&body), None, "iterative: no stack to overflow");
            }
        }
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
            // An escaped first key, an empty object: each element on its own (no values); a
            // repeated key, an empty first key: read at once.
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
            if let Some(values) = parsing.values {
                assert_eq!(Some(values), serde_messages(body), "{body}");
            }
        }
        // Read in the pass (as values), or again as text: objects whose first key is plain text.
        let read_at_once = |body: &str| {
            let top = item::read(body, Mode::Parse);
            top.is_some_and(|top| {
                matches!(
                    &top.list,
                    Some((
                        _,
                        Entry {
                            list: List::Objects(..),
                            ..
                        }
                    ))
                )
            })
        };
        assert!(read_at_once(
            "{\"messages\":[ {\"a\":1} ,{\"b\":{\"c\":[]}}]}"
        ));
        assert!(
            read_at_once("{\"messages\":[ {\"\":1}]}"),
            "an empty first key is text too"
        );
        assert!(
            !read_at_once("{\"messages\":[{\"\\n\":1}]}"),
            "an escaped first key"
        );
        assert!(!read_at_once("{\"messages\":[{}]}"), "no first key");
        assert!(
            !read_at_once("{\"messages\":[{\"a\":1},1]}"),
            "not an object"
        );
        let body = "{\"messages\":[ {\"a\":1} ,{\"b\":{\"c\":[]}}\n] }";
        let (_, elements) = scan_parsing(body).and_then(|s| s.messages).expect("found");
        let texts: Vec<&str> = elements.iter().map(|span| &body[span.clone()]).collect();
        assert_eq!(texts, ["{\"a\":1}", "{\"b\":{\"c\":[]}}"]);
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
                parsing.map(|s| s.messages),
                scanned.map(|s| s.messages),
                "{:?}",
                text
            );
        }
    }
}

//! A JSON string token's text, unescaped: what `JSON.parse` of the token gives, as UTF-8. The
//! binding builds a compacted body's archive from the string tokens behind its placeholders
//! (`wasm::skeleton`). Tool output has an escape every 30 bytes or so (`\n`, `\"`); per MB of
//! it, in V8, the host's `JSON.parse` of each token took 1.1 ms, serde_json (built for size) and
//! wasm-bindgen's string about twice that, and this loop 0.33 ms (plus 0.3 ms for the host's
//! `TextDecoder` to make the string). It copies the plain runs between escapes a word at a time
//! (`crate::base::bytes`' word helpers; not its `find_quote_or_backslash`: calling it from a second
//! place kept it from being inlined into the body scanner, which then slowed down).

use crate::base::bytes::{equal, word};

/// The UTF-8 text of the string that `inner`, the text between a JSON string token's quotes,
/// stands for; `None` when an escape is not one JSON has or is a `\u` escape of a lone
/// surrogate (the caller then asks the host, whose `JSON.parse` keeps lone surrogates).
/// `inner` is from a body the parser accepted: a raw `"` or control character is not looked for.
#[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))] // the binding's
pub(crate) fn unescape(inner: &[u8]) -> Option<Vec<u8>> {
    // Escapes only ever shrink (`\n` is one byte, `\u20ac` three, a pair of `\u` escapes four),
    // so the text fits in `inner.len()` bytes, and `len <= at` all along.
    let mut text = vec![0u8; inner.len()];
    let out = text.as_mut_slice();
    let (mut len, mut at) = (0, 0);
    loop {
        // The plain run, a word at a time: each word is stored whole before it is searched (a
        // `memory.copy` per run cost more than the search, runs being some thirty bytes); the
        // bytes from the backslash on are written over. The last few bytes one at a time.
        let slash = loop {
            if at + 8 <= inner.len() {
                let x = word(&inner[at..at + 8]);
                store(out, len, x);
                let hits = equal(x, b'\\');
                if hits != 0 {
                    let plain = (hits.trailing_zeros() / 8) as usize;
                    len += plain;
                    break at + plain;
                }
                at += 8;
                len += 8;
            } else if at == inner.len() {
                text.truncate(len);
                return Some(text);
            } else if inner[at] == b'\\' {
                break at;
            } else {
                out[len] = inner[at];
                at += 1;
                len += 1;
            }
        };
        // The escape grammar is [`escape`], which the body scanner shares; a lone surrogate has no
        // UTF-8, and only the host's `JSON.parse` keeps it.
        let escape = escape(inner, slash)?;
        at = slash + escape.len;
        if let Ok(byte) = u8::try_from(escape.unit) {
            if byte.is_ascii() {
                // `\n`, `\"` and the like: most escapes, one byte each.
                out[len] = byte;
                len += 1;
                continue;
            }
        }
        let ch = char::from_u32(escape.unit).filter(|_| !escape.lone)?;
        len += ch.encode_utf8(&mut out[len..]).len();
    }
}

/// Writes `word` into the eight bytes of `bytes` from `at` (there are). Byte by byte after one
/// bounds check, which the compiler makes one store (a `&mut bytes[at..at + 8]` stayed a call).
#[inline(always)]
#[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))] // the binding's
fn store(bytes: &mut [u8], at: usize, word: u64) {
    if bytes.len() >= 8 && at <= bytes.len() - 8 {
        let word = word.to_le_bytes();
        bytes[at] = word[0];
        bytes[at + 1] = word[1];
        bytes[at + 2] = word[2];
        bytes[at + 3] = word[3];
        bytes[at + 4] = word[4];
        bytes[at + 5] = word[5];
        bytes[at + 6] = word[6];
        bytes[at + 7] = word[7];
    }
}

/// Position of the first `\` in `bytes`.
#[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))] // the binding's
pub(crate) fn find_backslash(bytes: &[u8]) -> Option<usize> {
    let mut at = 0;
    while at + 8 <= bytes.len() {
        let hits = equal(word(&bytes[at..at + 8]), b'\\');
        if hits != 0 {
            return Some(at + (hits.trailing_zeros() / 8) as usize);
        }
        at += 8;
    }
    while at < bytes.len() {
        if bytes[at] == b'\\' {
            return Some(at);
        }
        at += 1;
    }
    None
}

/// One escape of a string's text.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Escape {
    /// Bytes: 2, 6 for `\uXXXX`, 12 for an escaped surrogate pair (read as one).
    pub len: usize,
    /// The code point it stands for (a pair's whole code point; a lone surrogate's own value).
    pub unit: u32,
    /// A surrogate without its other half.
    pub lone: bool,
}

/// The escape starting at `at` (a `\`); `None` where serde_json refuses it.
// Inlined into its four walks: called once per escape (one every ~30 bytes of tool output), a
// call was 5-10 % of the edge path.
#[inline(always)]
pub(crate) fn escape(bytes: &[u8], at: usize) -> Option<Escape> {
    let unit = match bytes.get(at + 1)? {
        b'"' => 0x22,
        b'\\' => 0x5C,
        b'/' => 0x2F,
        b'b' => 0x08,
        b'f' => 0x0C,
        b'n' => 0x0A,
        b'r' => 0x0D,
        b't' => 0x09,
        b'u' => return unicode_escape(bytes, at),
        _ => return None,
    };
    Some(Escape {
        len: 2,
        unit,
        lone: false,
    })
}

/// A `\uXXXX` escape at `at`, read with the low half that follows a high surrogate.
fn unicode_escape(bytes: &[u8], at: usize) -> Option<Escape> {
    let unit = crate::base::bytes::hex4(bytes.get(at + 2..at + 6)?)?;
    let surrogate = (0xD800..0xE000).contains(&unit);
    if surrogate && unit < 0xDC00 && bytes.get(at + 6..at + 8) == Some(b"\\u") {
        let low = bytes
            .get(at + 8..at + 12)
            .and_then(crate::base::bytes::hex4);
        if let Some(low) = low.filter(|low| (0xDC00..0xE000).contains(low)) {
            return Some(Escape {
                len: 12,
                unit: 0x1_0000 + ((unit - 0xD800) << 10) + (low - 0xDC00),
                lone: false,
            });
        }
    }
    Some(Escape {
        len: 6,
        unit,
        lone: surrogate,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn text(inner: &str) -> Option<String> {
        unescape(inner.as_bytes()).map(|bytes| String::from_utf8(bytes).unwrap())
    }

    /// serde_json's reading of the token `"inner"`.
    fn serde(inner: &str) -> Option<String> {
        match serde_json::from_str(&format!("\"{inner}\"")).ok()? {
            serde_json::Value::String(text) => Some(text),
            _ => None,
        }
    }

    #[test]
    fn decodes_every_escape() {
        let inner = r#"plain \n\"\\\/\b\f\r\t \u00e9\u20AC\ud83d\ude00 é😀中文 end"#;
        assert_eq!(
            text(inner).as_deref(),
            Some("plain \n\"\\/\u{8}\u{c}\r\t é€😀 é😀中文 end")
        );
        assert_eq!(text(inner), serde(inner));
        assert_eq!(text("").as_deref(), Some(""));
        assert_eq!(
            text("no escapes at all").as_deref(),
            Some("no escapes at all")
        );
        assert_eq!(
            text(r"\u0000\u001f\ufeff").as_deref(),
            Some("\u{0}\u{1f}\u{feff}")
        );
        let escaped = format!("{}\\n", "\\\\".repeat(8));
        assert_eq!(text(&escaped), Some(format!("{}\n", "\\".repeat(8))));
    }

    #[test]
    fn refuses_what_json_does_not_have() {
        for inner in [
            r"\",
            r"\x",
            r"\u12",
            r"\u12g4",
            r"\u+123",
            r"\ud83d",
            r"\ud83dx",
            r"\ud83d\n",
            r"\ud83d\u0041",
            r"\ude00",
        ] {
            assert_eq!(text(inner), None, "{inner}");
            assert_eq!(serde(inner), None, "{inner}");
        }
    }

    #[test]
    fn finds_the_first_backslash() {
        for len in 0..24 {
            for at in 0..=len {
                let mut bytes = vec![b'a'; len];
                if at < len {
                    bytes[at] = b'\\';
                }
                assert_eq!(find_backslash(&bytes), (at < len).then_some(at));
            }
        }
        assert_eq!(find_backslash("é€😀\\\\".as_bytes()), Some(9));
    }

    proptest! {
        #[test]
        fn reads_what_serde_json_writes(original in "\\PC{0,60}|[\u{0}-\u{7f}]{0,60}|[a\\\\\"\n\u{e9}\u{1f600}]{0,60}") {
            let token = serde_json::to_string(&original).unwrap();
            prop_assert_eq!(text(&token[1..token.len() - 1]), Some(original));
        }

        #[test]
        fn agrees_with_serde_json(parts in proptest::collection::vec(prop_oneof![
            Just("\\n".to_string()), Just("\\\"".to_string()), Just("\\/".to_string()),
            Just("\\ud83d".to_string()), Just("\\ude00".to_string()), Just("\\u12".to_string()),
            Just("\\q".to_string()), Just("abcdefghi".to_string()), Just("é😀中".to_string()),
            (0u32..0x10000).prop_map(|unit| format!("\\u{unit:04x}")),
            (0u32..0x10000).prop_map(|unit| format!("\\u{unit:04X}")),
        ], 0..12)) {
            let inner = parts.concat();
            prop_assert_eq!(text(&inner), serde(&inner));
        }
    }
}

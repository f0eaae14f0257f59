//! Values the binding keeps in the host, handed to the core as placeholders: binary data (an
//! image or file given as bytes) known by its length and hash, and URL objects known by their
//! text. The core never reads such a value: it measures a binary value as its base64 text,
//! names it by its hash, and the binding puts the host's own object back wherever a
//! placeholder is left in the output or the archive.
//!
//! A placeholder is a whole string: `\0{nonce}#{index}:b:{bytes}:{sha256}` for binary data
//! (then, for an image, `:{head}`: base64 of its first bytes, whose header gives its size, see
//! [`crate::media::bill`]),
//! `\0{nonce}#{index}:u:{text}` for a URL. The nonce is chosen per call by the binding, so a
//! host's own text cannot pass for a placeholder; `index` is the binding's, and is never shown
//! (what the core writes from a placeholder is its facts: see [`resolve`]).

use crate::transcript::binary::Binary;
use crate::transcript::{BlockKind, Message};
use std::borrow::Cow;

/// The per-call marker of host-value placeholders.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostValueKey {
    /// `\0{nonce}#`: how every placeholder begins.
    opening: crate::base::marker::Opening,
}

/// One placeholder, read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HostValue<'a> {
    /// Binary data: its length and the SHA-256 of its bytes (64 hex digits).
    Binary {
        /// Bytes.
        bytes: u64,
        /// The SHA-256 of the bytes, lowercase hex.
        sha256: &'a str,
        /// Base64 of the value's first bytes (empty when the binding sent none).
        head: &'a str,
    },
    /// A URL object: its text (`href`).
    Url(&'a str),
}

impl HostValueKey {
    /// The key for placeholders made with `nonce` (letters and digits only).
    pub fn new(nonce: &str) -> Self {
        Self {
            opening: crate::base::marker::Opening::new(nonce, '#'),
        }
    }

    /// Whether `text` holds this key's marker anywhere (raw or JSON-escaped).
    pub fn mentions(&self, text: &str) -> bool {
        self.opening.mentions(text)
    }

    /// `text` as a placeholder of this key, with the binding's index, when it is exactly one.
    pub fn parse<'a>(&self, text: &'a str) -> Option<(usize, HostValue<'a>)> {
        let rest = text.strip_prefix(self.opening.as_str())?;
        let (index, rest) = rest.split_once(':')?;
        let index = index.parse().ok()?;
        let value = match rest.split_at_checked(2)? {
            ("b:", facts) => {
                let (bytes, rest) = facts.split_once(':')?;
                let (sha256, head) = rest.split_once(':').unwrap_or((rest, ""));
                let valid = sha256.len() == 64 && sha256.bytes().all(|b| b.is_ascii_hexdigit());
                HostValue::Binary {
                    bytes: bytes.parse().ok()?,
                    sha256: valid.then_some(sha256)?,
                    head,
                }
            }
            ("u:", href) => HostValue::Url(href),
            _ => return None,
        };
        Some((index, value))
    }
}

/// Turns the placeholders of `message` into what the tiers work on: a block whose text is a
/// binary placeholder gets its [`Binary`] facts and the hash as its text; a URL's block gets
/// the URL's text (media: a link, not inline data). A text that is a serialised value holding
/// placeholders (a part kept whole and counted by its JSON) has each replaced by what it stands
/// for, so neither the nonce nor the index reaches a count, a stub or a summary.
pub fn resolve(message: &mut Message<'_>, key: &HostValueKey) {
    for block in &mut message.blocks {
        if !key.mentions(&block.text) {
            continue;
        }
        // Owned: a hash or a URL's text is short, and one path is less code in the wasm.
        let parsed = key.parse(&block.text).map(|(_, value)| match value {
            HostValue::Binary {
                bytes,
                sha256,
                head,
            } => (
                Some(Binary {
                    bytes,
                    sha256: sha256.to_string(),
                    size: crate::media::header::image_size_of_base64(head),
                }),
                sha256.to_string(),
            ),
            HostValue::Url(href) => (None, href.to_string()),
        });
        match parsed {
            Some((Some(binary), hash)) => {
                block.binary = Some(binary);
                block.set_text(Cow::Owned(hash));
            }
            Some((None, href)) => {
                if let BlockKind::Media { inline, .. } = &mut block.kind {
                    *inline = false;
                }
                block.set_text(Cow::Owned(href));
            }
            None => {
                if let Some(text) = rewrite(&block.text, key) {
                    block.set_text(Cow::Owned(text));
                }
            }
        }
    }
}

/// What a placeholder stands for in a text the library writes: a URL's text, or a binary
/// value's length and hash.
pub fn describe(value: &HostValue<'_>) -> String {
    match value {
        HostValue::Binary { bytes, sha256, .. } => {
            format!("[binary: {bytes} bytes, sha256:{sha256}]")
        }
        HostValue::Url(href) => (*href).to_string(),
    }
}

/// `text`, a serialised value, with each JSON string token that is a placeholder replaced by
/// the JSON string of what it stands for; `None` if there is none or the text is not JSON.
fn rewrite(text: &str, key: &HostValueKey) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let (mut copied, mut at, mut changed) = (0, 0, false);
    while let Some(offset) = bytes.get(at..)?.iter().position(|&b| b == b'"') {
        let start = at + offset;
        let end = crate::base::bytes::json_string_end(bytes, start)?;
        at = end;
        let token = text.get(start..end)?;
        if !key.mentions(token) {
            continue;
        }
        // A Value, not a String: a typed read links serde's "invalid type" message and with it
        // core's float printing (flt2dec).
        let Ok(serde_json::Value::String(decoded)) = serde_json::from_str(token) else {
            continue;
        };
        let Some((_, value)) = key.parse(&decoded) else {
            continue;
        };
        out.push_str(text.get(copied..start)?);
        out.push_str(&serde_json::to_string(&describe(&value)).ok()?);
        copied = end;
        changed = true;
    }
    out.push_str(text.get(copied..)?);
    changed.then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transcript::{Block, Role, Source};

    const HASH: &str = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08";

    #[test]
    fn parses_binary_and_url_placeholders_of_its_key_only() {
        let key = HostValueKey::new("n1");
        let binary = format!("\u{0}n1#3:b:1048576:{HASH}");
        assert_eq!(
            key.parse(&binary),
            Some((
                3,
                HostValue::Binary {
                    bytes: 1_048_576,
                    sha256: HASH,
                    head: ""
                }
            ))
        );
        // An image's first bytes ride along: a PNG header of 640 × 480.
        let png = "iVBORw0KGgoAAAANSUhEUgAAAoAAAAHgCAYAAAA";
        let with_head = format!("\u{0}n1#3:b:1048576:{HASH}:{png}");
        assert!(matches!(
            key.parse(&with_head),
            Some((3, HostValue::Binary { head, .. })) if head == png
        ));
        let url = "\u{0}n1#0:u:https://x.test/a:b.png";
        assert_eq!(
            key.parse(url),
            Some((0, HostValue::Url("https://x.test/a:b.png")))
        );
        assert!(HostValueKey::new("n2").parse(&binary).is_none());
        assert!(key.parse(&format!("x{binary}")).is_none());
        assert!(key.parse("\u{0}n1#1:b:12:abc").is_none());
        assert!(key.parse("\u{0}n1#1:q:12").is_none());
        assert!(key.mentions(&serde_json::to_string(&binary).expect("serialises")));
        assert!(!key.mentions("plain"));
    }

    #[test]
    fn resolves_media_and_serialised_values() {
        let key = HostValueKey::new("n1");
        let binary = format!("\u{0}n1#0:b:5:{HASH}");
        let url = "\u{0}n1#1:u:https://x.test/a.png".to_string();
        let part = serde_json::json!({"type": "custom", "data": binary}).to_string();
        let media = |text: &str| {
            Block::new(
                BlockKind::Media {
                    media_type: "image".into(),
                    inline: true,
                },
                Cow::Owned(text.to_string()),
                vec![0],
            )
        };
        let mut message = Message {
            role: Role::User,
            blocks: vec![
                media(&binary),
                media(&url),
                Block::new(BlockKind::Other, Cow::Owned(part), vec![2]),
            ],
            source: Source::Index(0),
            explicit_age: None,
            is_library_summary: false,
            bound_to_next: false,
            output_item: false,
        };
        resolve(&mut message, &key);
        let [image, link, other] = &message.blocks[..] else {
            panic!("three blocks")
        };
        assert_eq!(image.text, HASH);
        assert_eq!(image.binary.as_ref().map(|b| b.bytes), Some(5));
        assert_eq!(image.chars(), 8);
        assert_eq!(link.text, "https://x.test/a.png");
        assert!(matches!(link.kind, BlockKind::Media { inline: false, .. }));
        assert_eq!(
            other.text,
            format!(r#"{{"type":"custom","data":"[binary: 5 bytes, sha256:{HASH}]"}}"#)
        );
    }
}

//! The placeholder that stands for stripped media (auto): its type, its size in bytes and a hash
//! of its bytes. The same bytes get the same placeholder in every format and however the host
//! sent them: a base64 string, a data URL, or binary data the binding keeps in the host (whose
//! length and hash it hands over, see [`crate::api::host_value`]). Base64 is decoded to be hashed;
//! data that is not base64 (a plain-text data URL, a text document) is hashed as its UTF-8.
//! What media costs in a request, as each provider bills it, is [`bill`]'s.

pub mod bill;
pub mod header;

use crate::transcript::markers;
use crate::transcript::{Block, BlockKind};
use sha2::{Digest, Sha256};

/// Hex digits of the hash a placeholder shows (128 bits: enough to match against an archive).
const SHOWN_HEX: usize = 32;

/// The placeholder for the inline media `block`.
pub fn placeholder(block: &Block<'_>) -> String {
    let media_type = match &block.kind {
        BlockKind::Media { media_type, .. } => media_type.as_str(),
        _ => "file",
    };
    let (bytes, hex) = match &block.binary {
        Some(binary) => {
            let shown = binary.sha256.get(..SHOWN_HEX).unwrap_or(&binary.sha256);
            (binary.bytes, shown.to_string())
        }
        None => {
            let (bytes, hash) = digest(&block.text);
            let hex = hash.iter().take(SHOWN_HEX / 2).map(|b| format!("{b:02x}"));
            (bytes, hex.collect())
        }
    };
    let bytes = usize::try_from(bytes).unwrap_or(usize::MAX);
    markers::media_placeholder(media_type, bytes, &hex)
}

/// The payload of `data` and whether it is base64: a data URL's payload (base64 when its header
/// says so), else all of `data`, taken to be base64.
fn payload(data: &str) -> (&str, bool) {
    match data
        .strip_prefix("data:")
        .and_then(|rest| rest.split_once(','))
    {
        Some((header, payload)) => (payload, header.ends_with(";base64")),
        None => (data, true),
    }
}

/// The length and SHA-256 of the bytes `data` stands for: a data URL's payload or bare base64,
/// decoded; anything else as its UTF-8.
fn digest(data: &str) -> (u64, [u8; 32]) {
    let plain = |text: &str| (text.len() as u64, Sha256::digest(text.as_bytes()).into());
    let (payload, base64) = payload(data);
    let mut hasher = Sha256::new();
    let decoded = base64
        .then(|| crate::base::base64::decode_into(payload.as_bytes(), &mut |b| hasher.update(b)))
        .flatten();
    match decoded {
        Some(bytes) => (bytes, hasher.finalize().into()),
        None => plain(payload),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transcript::binary::Binary;
    use std::borrow::Cow;

    fn media(text: &str) -> Block<'static> {
        Block::new(
            BlockKind::Media {
                media_type: "image/png".into(),
                inline: true,
            },
            Cow::Owned(text.to_string()),
            vec![0],
        )
    }

    #[test]
    fn the_same_bytes_get_the_same_placeholder_however_they_came() {
        // "hello" = aGVsbG8=; SHA-256 of "hello".
        let sha = "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824";
        let expected = format!("[media removed: image/png, 5 bytes, sha256:{}]", &sha[..32]);
        assert_eq!(placeholder(&media("aGVsbG8=")), expected);
        assert_eq!(placeholder(&media("aGVsbG8")), expected);
        assert_eq!(
            placeholder(&media("data:image/png;base64,aGVsbG8=")),
            expected
        );
        let mut binary = media(sha);
        binary.binary = Some(Binary {
            bytes: 5,
            sha256: sha.to_string(),
            size: None,
        });
        assert_eq!(placeholder(&binary), expected);
        // Not base64: hashed as text.
        assert_eq!(placeholder(&media("data:text/plain,hello")), expected);
    }
}

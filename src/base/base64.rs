//! Base64 decoding into a sink, without a buffer: media placeholders hash the decoded bytes of
//! a base64 payload (so the same bytes get the same hash whether the host sent them as base64,
//! as a data URL or as binary), and a 4 MB image is not copied again to be hashed.

/// Decodes `text` (standard or URL-safe alphabet, padding optional, ASCII whitespace skipped,
/// as MIME line breaks are) and hands the bytes to `sink` in chunks. Returns how many bytes it
/// decoded, or `None` if `text` is not base64 (a character outside the alphabet, data after
/// padding, a lone trailing character), in which case `sink` may have seen a prefix.
pub fn decode_into(text: &[u8], sink: &mut dyn FnMut(&[u8])) -> Option<u64> {
    let mut chunk = [0u8; 768];
    let mut filled = 0;
    let mut total: u64 = 0;
    let (mut bits, mut count) = (0u32, 0u8);
    let mut padded = false;
    for &byte in text {
        if byte.is_ascii_whitespace() {
            continue;
        }
        if byte == b'=' {
            padded = true;
            continue;
        }
        if padded {
            return None; // data after padding
        }
        bits = (bits << 6) | u32::from(sextet(byte)?);
        count += 1;
        if count == 4 {
            chunk[filled..filled + 3].copy_from_slice(&bits.to_be_bytes()[1..]);
            filled += 3;
            (bits, count) = (0, 0);
            if filled == chunk.len() {
                sink(&chunk);
                total += filled as u64;
                filled = 0;
            }
        }
    }
    // Two or three characters left carry one or two bytes (the high ones of the group they
    // start); one carries none and is not base64.
    if count == 1 {
        return None;
    }
    let tail = usize::from(count.saturating_sub(1));
    let group = (bits << (6 * (4 - u32::from(count)))).to_be_bytes();
    chunk[filled..filled + tail].copy_from_slice(&group[1..=tail]);
    filled += tail;
    sink(&chunk[..filled]);
    Some(total + filled as u64)
}

/// The length of the base64 text (padded) of `bytes` bytes.
pub fn encoded_len(bytes: u64) -> u64 {
    bytes.div_ceil(3).saturating_mul(4)
}

fn sextet(byte: u8) -> Option<u8> {
    Some(match byte {
        b'A'..=b'Z' => byte - b'A',
        b'a'..=b'z' => byte - b'a' + 26,
        b'0'..=b'9' => byte - b'0' + 52,
        b'+' | b'-' => 62,
        b'/' | b'_' => 63,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode(text: &str) -> Option<Vec<u8>> {
        let mut out = Vec::new();
        let len = decode_into(text.as_bytes(), &mut |bytes| out.extend_from_slice(bytes))?;
        assert_eq!(len as usize, out.len());
        Some(out)
    }

    #[test]
    fn decodes_padded_unpadded_and_wrapped_text() {
        assert_eq!(decode("").as_deref(), Some(&b""[..]));
        assert_eq!(decode("aGk=").as_deref(), Some(&b"hi"[..]));
        assert_eq!(decode("aGk").as_deref(), Some(&b"hi"[..]));
        assert_eq!(decode("aGVs\r\nbG8=").as_deref(), Some(&b"hello"[..]));
        assert_eq!(decode("-_-_").as_deref(), decode("+/+/").as_deref());
        let long: Vec<u8> = (0..=255u8).cycle().take(5000).collect();
        let text = encode(&long);
        assert_eq!(text.len() as u64, encoded_len(5000));
        assert_eq!(decode(&text), Some(long));
    }

    #[test]
    fn refuses_what_is_not_base64() {
        assert_eq!(decode("a"), None);
        assert_eq!(decode("aGk=x"), None);
        assert_eq!(decode("data:image/png;base64,aGk="), None);
        assert_eq!(decode("héllo"), None);
    }

    fn encode(bytes: &[u8]) -> String {
        const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        let mut out = String::new();
        for group in bytes.chunks(3) {
            let n =
                group.iter().fold(0u32, |n, b| n << 8 | u32::from(*b)) << (8 * (3 - group.len()));
            for at in 0..4 {
                out.push(if at <= group.len() {
                    ALPHABET[(n >> (18 - 6 * at) & 63) as usize] as char
                } else {
                    '='
                });
            }
        }
        out
    }
}

//! What a media file's own bytes say about its bill: an image's width and height from its header
//! (PNG, JPEG, GIF, WebP), a PDF's pages. Hand-written rather than an image crate: four header
//! layouts are about 150 lines, and the decoders of the `image` crate would add hundreds of KB
//! to the wasm for pixels this never reads.

/// An image's size in pixels.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Size {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
}

/// The size in the header of an image that starts with `head` (its first bytes: a JPEG's size
/// can come after its metadata, so as many as [`HEAD_BYTES`]), or `None` when the header is of
/// no known format, cut short or says 0 pixels.
pub fn image_size(head: &[u8]) -> Option<Size> {
    let size = if head.starts_with(b"\x89PNG\r\n\x1a\n") {
        png(head)
    } else if head.starts_with(b"GIF87a") || head.starts_with(b"GIF89a") {
        gif(head)
    } else if head.starts_with(b"\xff\xd8") {
        jpeg(head)
    } else if head.starts_with(b"RIFF") && head.get(8..12) == Some(b"WEBP") {
        webp(head)
    } else {
        None
    }?;
    (size.width > 0 && size.height > 0).then_some(size)
}

/// The size in the header of the image whose first bytes are base64 `head`.
pub fn image_size_of_base64(head: &str) -> Option<Size> {
    image_size(&decode(head.as_bytes())?)
}

/// The bytes base64 `text` decodes to (`None` if it is not base64).
pub(super) fn decode(text: &[u8]) -> Option<Vec<u8>> {
    let mut bytes = Vec::new();
    crate::base::base64::decode_into(text, &mut |chunk| bytes.extend_from_slice(chunk))?;
    Some(bytes)
}

/// How many of an image's first bytes [`image_size`] may need (a JPEG's EXIF block comes
/// before its size and is at most 64 KiB).
pub const HEAD_BYTES: usize = 80 * 1024;

/// The big-endian integer in the `n` bytes at `at`.
fn be(bytes: &[u8], at: usize, n: usize) -> Option<u32> {
    let field = bytes.get(at..at + n)?;
    Some(field.iter().fold(0, |v, &b| v << 8 | u32::from(b)))
}

/// The little-endian integer in the `n` bytes at `at`.
fn le(bytes: &[u8], at: usize, n: usize) -> Option<u32> {
    let field = bytes.get(at..at + n)?;
    Some(field.iter().rev().fold(0, |v, &b| v << 8 | u32::from(b)))
}

/// PNG: the IHDR chunk comes first, width and height big-endian at bytes 16 and 20.
fn png(head: &[u8]) -> Option<Size> {
    (head.get(12..16)? == b"IHDR").then_some(())?;
    Some(Size {
        width: be(head, 16, 4)?,
        height: be(head, 20, 4)?,
    })
}

/// GIF: the logical screen's width and height, little-endian at bytes 6 and 8.
fn gif(head: &[u8]) -> Option<Size> {
    Some(Size {
        width: le(head, 6, 2)?,
        height: le(head, 8, 2)?,
    })
}

/// JPEG: the segments from byte 2, each `FF marker length...`, up to a start-of-frame marker
/// (C0-CF but C4 DHT, C8 JPG, CC DAC), whose height and width are at bytes 5 and 7 of it.
fn jpeg(head: &[u8]) -> Option<Size> {
    let mut at = 2;
    loop {
        // Markers may be padded with extra FF bytes.
        while *head.get(at)? == 0xff && *head.get(at + 1)? == 0xff {
            at += 1;
        }
        if *head.get(at)? != 0xff {
            return None;
        }
        let marker = *head.get(at + 1)?;
        match marker {
            0xc0..=0xcf if !matches!(marker, 0xc4 | 0xc8 | 0xcc) => {
                return Some(Size {
                    width: be(head, at + 7, 2)?,
                    height: be(head, at + 5, 2)?,
                });
            }
            // Standalone markers (restart, start of image, TEM) have no length.
            0xd0..=0xd8 | 0x01 => at += 2,
            // End of image or start of scan before a frame: no size to find.
            0xd9 | 0xda => return None,
            _ => at += 2 + usize::try_from(be(head, at + 2, 2)?).ok()?,
        }
    }
}

/// WebP: a `VP8 ` (lossy), `VP8L` (lossless) or `VP8X` (extended) chunk at byte 12.
fn webp(head: &[u8]) -> Option<Size> {
    match head.get(12..16)? {
        // Lossy: 14-bit width and height at bytes 26 and 28, after the frame tag and start code.
        b"VP8 " => Some(Size {
            width: le(head, 26, 2)? & 0x3fff,
            height: le(head, 28, 2)? & 0x3fff,
        }),
        // Lossless: after the signature byte 0x2f, 14 bits of width - 1, then of height - 1.
        b"VP8L" => {
            let bits = le(head, 21, 4)?;
            Some(Size {
                width: (bits & 0x3fff) + 1,
                height: ((bits >> 14) & 0x3fff) + 1,
            })
        }
        // Extended: canvas width - 1 and height - 1, 24 bits each, at bytes 24 and 27.
        b"VP8X" => Some(Size {
            width: le(head, 24, 3)? + 1,
            height: le(head, 27, 3)? + 1,
        }),
        _ => None,
    }
}

/// Counts a PDF's pages as its bytes go by: the page objects, `/Type /Page` (whitespace allowed
/// between, not `/Pages`, the tree's nodes). Pages inside compressed object streams are not
/// seen (their PDF then counts by its size: see [`super::bill`]).
#[derive(Debug, Default)]
pub struct PdfPages {
    /// Bytes of `/Type /Page` matched so far.
    matched: usize,
    /// Page objects seen.
    pub pages: u64,
}

impl PdfPages {
    /// Feeds the next bytes of the file.
    pub fn feed(&mut self, bytes: &[u8]) {
        const TYPE: &[u8] = b"/Type";
        const PAGE: &[u8] = b"/Page";
        for &byte in bytes {
            self.matched = match self.matched {
                // After `/Type`: whitespace, then `/Page`.
                n if n == TYPE.len() && byte.is_ascii_whitespace() => n,
                // After `/Type /Page`: a page unless `s` follows.
                n if n == TYPE.len() + PAGE.len() => {
                    self.pages += u64::from(byte != b's');
                    usize::from(byte == b'/')
                }
                n if n < TYPE.len() && TYPE[n] == byte => n + 1,
                n if n >= TYPE.len() && PAGE[n - TYPE.len()] == byte => n + 1,
                _ => usize::from(byte == b'/'),
            };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A PNG signature and IHDR chunk of `width` × `height`.
    fn png_header(width: u32, height: u32) -> Vec<u8> {
        let mut bytes = b"\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR".to_vec();
        bytes.extend(width.to_be_bytes());
        bytes.extend(height.to_be_bytes());
        bytes.extend([8, 6, 0, 0, 0, 0, 0, 0, 0]);
        bytes
    }

    #[test]
    fn reads_the_size_of_each_format() {
        assert_eq!(
            image_size(&png_header(1092, 1092)),
            Some(Size {
                width: 1092,
                height: 1092
            })
        );
        let mut gif = b"GIF89a".to_vec();
        gif.extend([0x20, 0x03, 0x58, 0x02, 0, 0, 0]);
        assert_eq!(
            image_size(&gif),
            Some(Size {
                width: 800,
                height: 600
            })
        );
        // JPEG: SOI, an APP0 segment of 16 bytes, then SOF0 (height 480, width 640).
        let mut jpeg = vec![0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10];
        jpeg.extend([0u8; 14]);
        jpeg.extend([0xff, 0xc0, 0x00, 0x11, 0x08, 0x01, 0xe0, 0x02, 0x80, 0x03]);
        assert_eq!(
            image_size(&jpeg),
            Some(Size {
                width: 640,
                height: 480
            })
        );
        // WebP lossy, lossless and extended.
        let riff = |chunk: &[u8], body: &[u8]| {
            let mut bytes = b"RIFF\0\0\0\0WEBP".to_vec();
            bytes.extend(chunk);
            bytes.extend(body);
            bytes
        };
        let lossy = riff(
            b"VP8 ",
            &[
                &[0u8; 4][..],
                &[0, 0, 0, 0x9d, 0x01, 0x2a],
                &[0x80, 0x02, 0xe0, 0x01],
            ]
            .concat(),
        );
        assert_eq!(
            image_size(&lossy),
            Some(Size {
                width: 640,
                height: 480
            })
        );
        // Lossless: width - 1 = 639, height - 1 = 479 packed in 14-bit fields.
        let bits: u32 = 639 | (479 << 14);
        let lossless = riff(
            b"VP8L",
            &[&[0u8; 4][..], &[0x2f], &bits.to_le_bytes()].concat(),
        );
        assert_eq!(
            image_size(&lossless),
            Some(Size {
                width: 640,
                height: 480
            })
        );
        let extended = riff(
            b"VP8X",
            &[&[0u8; 8][..], &[0x7f, 0x02, 0x00, 0xdf, 0x01, 0x00]].concat(),
        );
        assert_eq!(
            image_size(&extended),
            Some(Size {
                width: 640,
                height: 480
            })
        );
        for broken in [
            &b"\x89PNG\r\n\x1a\n"[..],
            b"GIF89a\x01",
            b"\xff\xd8\xff",
            b"hello",
            b"",
        ] {
            assert_eq!(image_size(broken), None, "{broken:?}");
        }
    }

    #[test]
    fn counts_pdf_page_objects_across_chunks() {
        let pdf = b"%PDF-1.4\n1 0 obj << /Type /Pages /Count 3 >>\n2 0 obj <</Type/Page>>\n3 0 obj << /Type  /Page /Parent 1 0 R >>\n4 0 obj <</Type\n/Page>>";
        for chunk in [1, 3, 7, pdf.len()] {
            let mut pages = PdfPages::default();
            for part in pdf.chunks(chunk) {
                pages.feed(part);
            }
            assert_eq!(pages.pages, 3, "chunks of {chunk}");
        }
    }
}

//! What a provider bills for an image, a document or a file in a request, never its base64 text
//! (a 148 KB screenshot is about 50,000 tokens as text, 810 as Anthropic bills it). The format
//! names the provider; the rules are the providers' published ones:
//!
//! - **Anthropic** (vision guide): an image is scaled to fit 1568 pixels on its long edge and
//!   about 1.15 megapixels, then costs ⌈width × height / 750⌉ tokens, at most 1,600 (200 × 200:
//!   54; 1000 × 1000: 1,334; 1092 × 1092: 1,590). A PDF page costs its text (1,500 to 3,000
//!   tokens a page: [`PAGE_TEXT_TOKENS`], the low end) and its image (a page at the size cap:
//!   1,600).
//! - **OpenAI** (vision guide, GPT-4o and its kin): `detail: "low"` costs 85; otherwise the image
//!   is scaled to fit 2048 × 2048, then its short side to 768, and costs 85 + 170 per 512-pixel
//!   tile (1024 × 1024: 765; 2048 × 4096: 1,105). A PDF page costs its text and an image of the
//!   page (a letter page at high detail: 765).
//! - **Gemini** (token guide): an image of at most 384 pixels both ways costs 258; a larger one
//!   258 per 768 × 768 tile (600 × 400: 258). A PDF page costs 258.
//! - **AI SDK** messages name no provider: they are billed by Anthropic's rule, the highest of the
//!   three for a screenshot, so that the window is not under-counted.
//!
//! Where the bytes say nothing (a URL, a file id, a header the library cannot read), an image is
//! taken to be [`DEFAULT_IMAGE`] (1092 × 1092, the largest square Anthropic bills unscaled) and a
//! PDF one page; a PDF whose page objects are compressed has a page per [`BYTES_PER_PAGE`]. A
//! text document (`text/*`, JSON, XML, ...) is its text, counted as text; any other file (audio,
//! an archive) is billed as the default image.

use super::header::{self, HEAD_BYTES, PdfPages, Size};
use crate::tokens::TokenCounter;
use crate::transcript::{Block, BlockKind, Format};

/// Whose rules bill media.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Provider {
    /// Anthropic's Messages API.
    Anthropic,
    /// OpenAI's Chat Completions and Responses APIs.
    OpenAi,
    /// Google's Gemini API.
    Gemini,
}

/// The size an image is taken to be when its bytes do not say.
pub const DEFAULT_IMAGE: Size = Size {
    width: 1092,
    height: 1092,
};

/// A PDF page's text, in tokens: the low end of Anthropic's published 1,500 to 3,000 a page.
pub const PAGE_TEXT_TOKENS: u64 = 1500;

/// Bytes of a PDF per page when its page objects cannot be counted (compressed object streams).
pub const BYTES_PER_PAGE: u64 = 50_000;

impl Provider {
    /// The provider whose rules bill media in `format` (`None` for flat text, counted as text).
    pub fn of(format: Format) -> Option<Self> {
        match format {
            Format::Anthropic | Format::AiSdk => Some(Self::Anthropic),
            Format::OpenAi | Format::Responses => Some(Self::OpenAi),
            Format::Gemini => Some(Self::Gemini),
            Format::Text => None,
        }
    }

    /// Tokens of an image of `size` (`low_detail`: OpenAI's `detail: "low"`).
    pub fn image(self, size: Size, low_detail: bool) -> u64 {
        let (width, height) = (f64::from(size.width), f64::from(size.height));
        match self {
            Self::Anthropic => {
                let scale = (1568.0 / width.max(height)).min(1.0);
                ((width * scale * height * scale / 750.0).ceil() as u64).min(1600)
            }
            Self::OpenAi if low_detail => 85,
            Self::OpenAi => {
                let fit = (2048.0 / width.max(height)).min(1.0);
                let (width, height) = (width * fit, height * fit);
                let short = (768.0 / width.min(height)).min(1.0);
                let tiles = (width * short / 512.0).ceil() * (height * short / 512.0).ceil();
                85 + 170 * tiles as u64
            }
            Self::Gemini if size.width <= 384 && size.height <= 384 => 258,
            Self::Gemini => 258 * ((width / 768.0).ceil() * (height / 768.0).ceil()) as u64,
        }
    }

    /// Tokens of `pages` pages of a PDF.
    pub fn pdf(self, pages: u64) -> u64 {
        let page = match self {
            // A letter page rendered at the long-edge limit is over the area cap.
            Self::Anthropic => PAGE_TEXT_TOKENS + 1600,
            Self::OpenAi => PAGE_TEXT_TOKENS + self.image(LETTER_PAGE, false),
            Self::Gemini => 258,
        };
        pages.max(1).saturating_mul(page)
    }
}

/// A US Letter page at 200 dots per inch.
const LETTER_PAGE: Size = Size {
    width: 1700,
    height: 2200,
};

/// What a media block holds, as far as its bill goes.
enum Kind {
    Image,
    Pdf,
    Text,
    Other,
}

/// The kind of a MIME type (`image/png`) or of the coarse kind a format names (`image`, `file`).
fn kind_of(media_type: &str) -> Kind {
    let is = |prefix: &str| {
        media_type
            .get(..prefix.len())
            .is_some_and(|head| head.eq_ignore_ascii_case(prefix))
    };
    let ends = |suffix: &str| media_type.ends_with(suffix);
    if is("image") {
        Kind::Image
    } else if is("application/pdf") || is("pdf") {
        Kind::Pdf
    } else if is("text/") || ends("json") || ends("xml") || ends("yaml") || ends("javascript") {
        Kind::Text
    } else {
        Kind::Other
    }
}

/// Tokens of the media block `block` as `provider` bills it; a text document's text is counted
/// by `text`.
pub fn bill(block: &Block<'_>, provider: Provider, text: &dyn TokenCounter) -> u64 {
    let BlockKind::Media { media_type, inline } = &block.kind else {
        return text.count(&block.text);
    };
    let kind = kind_of(media_type);
    if let Some(binary) = &block.binary {
        // The bytes stay with the host: their size, and an image's header when it sent one.
        return match (kind, binary.size) {
            (_, Some(size)) => provider.image(size, block.low_detail),
            (Kind::Pdf, None) => provider.pdf(binary.bytes.div_ceil(BYTES_PER_PAGE)),
            (Kind::Text, None) => binary.bytes.div_ceil(4),
            _ => provider.image(DEFAULT_IMAGE, block.low_detail),
        };
    }
    if !inline {
        // A URL or a file id: nothing to read.
        return match kind {
            Kind::Pdf => provider.pdf(1),
            _ => provider.image(DEFAULT_IMAGE, block.low_detail),
        };
    }
    let (payload, base64) = super::payload(&block.text);
    if !base64 {
        // A plain-text data URL is its text.
        return text.count(payload);
    }
    // Inline data: base64, or a text document's own text.
    let head = decoded_head(payload);
    if let Some(size) = header::image_size(&head) {
        return provider.image(size, block.low_detail);
    }
    match kind {
        _ if matches!(kind, Kind::Pdf) || head.starts_with(b"%PDF") => pdf_bill(payload, provider),
        Kind::Text => match header::decode(payload.as_bytes()).map(String::from_utf8) {
            Some(Ok(decoded)) => text.count(&decoded),
            // Not base64 (an Anthropic text document's own text), or not UTF-8.
            _ => text.count(payload),
        },
        _ => provider.image(DEFAULT_IMAGE, block.low_detail),
    }
}

/// The first bytes ([`HEAD_BYTES`] at most) that base64 `payload` decodes to (none if it is not
/// base64).
fn decoded_head(payload: &str) -> Vec<u8> {
    // Four characters make three bytes; a cut inside a whitespace run or padding is harmless.
    let mut end = (HEAD_BYTES / 3 * 4).min(payload.len());
    while !payload.is_char_boundary(end) {
        end -= 1;
    }
    let prefix = payload.as_bytes().get(..end - end % 4).unwrap_or_default();
    header::decode(prefix).unwrap_or_default()
}

/// Tokens of a PDF in base64 `payload`: its page objects counted as it is decoded.
fn pdf_bill(payload: &str, provider: Provider) -> u64 {
    let mut pages = PdfPages::default();
    let bytes =
        crate::base::base64::decode_into(payload.as_bytes(), &mut |chunk| pages.feed(chunk));
    let pages = match (pages.pages, bytes) {
        (0, Some(bytes)) => bytes.div_ceil(BYTES_PER_PAGE),
        (0, None) => 1,
        (pages, _) => pages,
    };
    provider.pdf(pages)
}

/// A counter that bills media blocks as `provider` does and counts everything else with `text`.
pub struct Billed<'a> {
    text: &'a dyn TokenCounter,
    provider: Provider,
}

impl<'a> Billed<'a> {
    /// `text`, with media billed as `provider` bills it.
    pub fn new(text: &'a dyn TokenCounter, provider: Provider) -> Self {
        Self { text, provider }
    }
}

impl TokenCounter for Billed<'_> {
    fn count(&self, text: &str) -> u64 {
        self.text.count(text)
    }

    fn count_with_chars(&self, text: &str, chars: usize) -> u64 {
        self.text.count_with_chars(text, chars)
    }

    fn counts_chars(&self) -> bool {
        self.text.counts_chars()
    }

    fn count_base64(&self, chars: u64) -> u64 {
        self.text.count_base64(chars)
    }

    fn count_media(&self, block: &Block<'_>) -> Option<u64> {
        // A counter that bills media itself is asked first.
        let own = self.text.count_media(block);
        Some(own.unwrap_or_else(|| bill(block, self.provider, self.text)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tokens::SeedRule;
    use std::borrow::Cow;

    fn size(width: u32, height: u32) -> Size {
        Size { width, height }
    }

    /// The examples each provider publishes beside its rule.
    #[test]
    fn bills_the_providers_published_examples() {
        // Anthropic, "Calculate image costs": ~54, ~1334, ~1590 tokens.
        assert_eq!(Provider::Anthropic.image(size(200, 200), false), 54);
        assert_eq!(Provider::Anthropic.image(size(1000, 1000), false), 1334);
        assert_eq!(Provider::Anthropic.image(size(1092, 1092), false), 1590);
        // Scaled down to the limits: never more than about 1,600.
        assert_eq!(Provider::Anthropic.image(size(4000, 3000), false), 1600);
        assert_eq!(Provider::Anthropic.image(size(1568, 300), false), 628);
        // OpenAI, "Calculating costs": 765, 1105, and 85 whatever the size at low detail.
        assert_eq!(Provider::OpenAi.image(size(1024, 1024), false), 765);
        assert_eq!(Provider::OpenAi.image(size(2048, 4096), false), 1105);
        assert_eq!(Provider::OpenAi.image(size(4096, 8192), true), 85);
        assert_eq!(Provider::OpenAi.image(size(512, 512), false), 255);
        // Gemini: 258 up to 384 × 384 (and 600 × 400: one tile), else 258 per 768 tile.
        assert_eq!(Provider::Gemini.image(size(384, 384), false), 258);
        assert_eq!(Provider::Gemini.image(size(600, 400), false), 258);
        assert_eq!(Provider::Gemini.image(size(1024, 1024), false), 1032);
        // A page of a PDF.
        assert_eq!(Provider::Anthropic.pdf(2), 6200);
        assert_eq!(Provider::OpenAi.pdf(1), 1500 + 765);
        assert_eq!(Provider::Gemini.pdf(3), 774);
    }

    fn media(media_type: &str, data: &str) -> Block<'static> {
        Block::new(
            BlockKind::Media {
                media_type: media_type.into(),
                inline: !data.starts_with("https://"),
            },
            Cow::Owned(data.to_string()),
            vec![0],
        )
    }

    fn base64(bytes: &[u8]) -> String {
        const ALPHABET: &[u8; 64] =
            b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        let mut out = String::new();
        for chunk in bytes.chunks(3) {
            let n = chunk
                .iter()
                .enumerate()
                .fold(0u32, |n, (i, &b)| n | u32::from(b) << (16 - 8 * i));
            for k in 0..=chunk.len() {
                out.push(char::from(ALPHABET[(n >> (18 - 6 * k) & 63) as usize]));
            }
            out.extend(std::iter::repeat_n('=', 3 - chunk.len()));
        }
        out
    }

    fn png(width: u32, height: u32) -> Vec<u8> {
        let mut bytes = b"\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR".to_vec();
        bytes.extend(width.to_be_bytes());
        bytes.extend(height.to_be_bytes());
        bytes.extend([8, 6, 0, 0, 0]);
        // Compressed pixels look random: as long as a real screenshot's.
        bytes.extend((0..3000u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8));
        bytes
    }

    #[test]
    fn reads_the_size_from_the_data_in_every_form() {
        let seed = SeedRule::default();
        let data = base64(&png(1000, 1000));
        for text in [data.clone(), format!("data:image/png;base64,{data}")] {
            let block = media("image/png", &text);
            assert_eq!(bill(&block, Provider::Anthropic, &seed), 1334);
            assert_eq!(bill(&block, Provider::OpenAi, &seed), 765);
            let mut low = block.clone();
            low.low_detail = true;
            assert_eq!(bill(&low, Provider::OpenAi, &seed), 85);
        }
        // A URL, and a header the library cannot read: the default image.
        for block in [
            media("image", "https://example.com/cat.png"),
            media("image/png", &base64(b"not an image at all")),
        ] {
            assert_eq!(bill(&block, Provider::Anthropic, &seed), 1590);
            assert_eq!(bill(&block, Provider::Gemini, &seed), 1032);
        }
        // A text document is its text; a plain-text data URL too.
        let text = "a text document of some words ".repeat(20);
        assert_eq!(
            bill(
                &media("text/plain", &base64(text.as_bytes())),
                Provider::Anthropic,
                &seed
            ),
            seed.count(&text)
        );
        assert_eq!(
            bill(&media("text/plain", &text), Provider::Anthropic, &seed),
            seed.count(&text)
        );
        // A PDF of two page objects, and one whose pages cannot be counted.
        let pdf = b"%PDF-1.7\n1 0 obj <</Type /Pages /Count 2>>\n2 0 obj <</Type /Page>>\n3 0 obj <</Type /Page>>\n";
        let block = media("application/pdf", &base64(pdf));
        assert_eq!(bill(&block, Provider::Gemini, &seed), 516);
        let opaque = media("application/pdf", &base64(&[b'x'; 120_000]));
        assert_eq!(bill(&opaque, Provider::Gemini, &seed), 3 * 258);
    }

    #[test]
    fn binary_values_are_billed_by_the_head_the_binding_sent() {
        let seed = SeedRule::default();
        let mut block = media("image/png", "hash");
        block.binary = Some(crate::transcript::binary::Binary {
            bytes: 148_489,
            sha256: "0".repeat(64),
            size: Some(size(1200, 800)),
        });
        assert_eq!(bill(&block, Provider::Anthropic, &seed), 1280);
        if let Some(binary) = &mut block.binary {
            binary.size = None;
        }
        assert_eq!(bill(&block, Provider::Anthropic, &seed), 1590);
    }
}

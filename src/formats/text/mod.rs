//! The flat-text adapter: the seed's one-string context read into a [`Transcript`] and edited in
//! place.
//!
//! The text is cut into contiguous *segments* that cover it exactly; each becomes one assistant
//! message (flat text has no user or system roles) with one block and a `Source::Span` of
//! **byte** offsets into the text:
//!
//! - a tool-result fence: a line of three or more backticks followed by `tool_result`, up to the
//!   end of its closing fence line (line ending excluded), or to the end of the text when it is
//!   never closed. Fence lines inside the body nest (see `fences::Levels`), so a fenced code sample in a
//!   tool's output does not end the tool result early. The block's text is the body.
//! - media: a markdown image whose target is a data URI, or a fenced block whose body starts with
//!   a data URI. The block's text is the data URI's payload (what follows its comma, whitespace
//!   removed), so the same image hashes the same as in the JSON formats, which carry bare base64.
//! - prose: everything else, cut where a line starts (after optional whitespace) with an
//!   `[age:N]` tag.
//!
//! Every segment carries the age of the newest tag at or before its start. Tool-result bodies are
//! opaque: nothing inside them is a tag or media of its own.
//!
//! [`apply`] copies the text through and rewrites only what the edits name; every rewrite is
//! recorded with its exact removed substring and its code-point location, so the input can always
//! be restored from the output and the archive.
//!
//! The parts, each a file, in the order they build on each other:
//!
//! - `lines`: lines and their endings (`\n`, `\r\n`) in byte offsets;
//! - `fences`: fence lines and tool-result fences, with the nesting rule;
//! - `media`: data-URI images, inline and fenced;
//! - `segment`: cutting the text into segments and segments into messages ([`read`]);
//! - `sections`: prose cut finer, into paragraphs, for `auto`'s budget ([`read_sections`]);
//! - `splice`: rewriting the text as a plan's edits say ([`apply`]).

mod fences;
mod lines;
mod media;
mod sections;
mod segment;
mod splice;

pub use sections::{SECTION_CHARS, read_sections};
pub use splice::apply;

use crate::transcript::{Format, Transcript};

/// Reads flat text into a transcript of [`Format::Text`]: one assistant message per segment.
pub fn read(text: &str) -> Transcript<'_> {
    Transcript {
        format: Format::Text,
        messages: segment::segments(text),
    }
}

//! Where a request body comes from and where the compacted one goes: the one seam between the
//! body path ([`super::body::compact`], which decides everything) and a host's strings.
//!
//! The core reads a body through a [`BodySource`] and writes the new one through its
//! [`Splice`]. The native source is a `&str` (the result is a `String`); the JS binding's holds
//! the caller's `JsString` and a UTF-8 copy of it (`binding/src/body.rs`), and its result is the
//! caller's string with the changed messages spliced in, so unchanged bytes never leave the host.
//! A source only answers where bytes are; when to read what, and which message is copied or
//! written, is the core's.

use super::span::{MessagesSpan, scanner_disagrees};
use crate::api::result::TierResult;
use crate::error::Result;
use std::borrow::Cow;
use std::ops::Range;

/// A request body as the core reads it: its UTF-8 text (for the layout, and the messages of a
/// body small enough), each message's JSON text on its own, and the output's pieces.
///
/// Order of calls, all from [`super::body::compact`]: [`text`](Self::text) to lay the body out,
/// then [`laid_out`](Self::laid_out) once. A large body may then
/// [`release_text`](Self::release_text), and takes [`message`](Self::message) for each element.
/// The output is [`unchanged`](Self::unchanged) or a [`splice`](Self::splice);
/// [`originals`](Self::originals) ends the call.
pub trait BodySource {
    /// A compacted body.
    type Body;
    /// What the binding needs, besides the result, to hand the archive's values back exactly.
    type Originals;
    /// The output being written.
    type Splice<'s>: Splice<Body = Self::Body>
    where
        Self: 's;

    /// The body's UTF-8 text; empty once [`release_text`](Self::release_text) has let it go.
    fn text(&self) -> &str;

    /// The body is laid out: its messages are at `span`, in bytes of [`text`](Self::text) (still
    /// held). A source whose host indexes its strings another way maps the positions now.
    fn laid_out(&mut self, span: &MessagesSpan);

    /// The body is large: the text may go before the messages are read, if the
    /// host can give each message on its own (so the body and all its values are never in
    /// memory together). A source whose text is the caller's own has nothing to let go.
    fn release_text(&mut self);

    /// Element `index`'s JSON text: from the text while it is held, else from the host's string.
    /// Empty when there is no such element (the parser then reports it).
    fn message(&self, span: &MessagesSpan, index: usize) -> Cow<'_, str>;

    /// The body as it came, for an output that is every message unchanged.
    fn unchanged(&self) -> Self::Body;

    /// A new body holding everything before the `messages` array, with room for `reserve` more
    /// bytes of the array (the array's bytes copied as they were, and its brackets and commas).
    fn splice<'s>(&'s self, span: &'s MessagesSpan, reserve: usize) -> Result<Self::Splice<'s>>;

    /// The `result` is final: the host's own values of what it archived, where the
    /// host holds them more exactly than the text did (a JS string's lone surrogates, which its
    /// UTF-8 copy could not keep); `None` when the text was exact.
    fn originals(self, result: &TierResult) -> Option<Self::Originals>;
}

/// A compacted body being written: the bytes before the `messages` array are in; then the array,
/// piece by piece; [`finish`](Self::finish) adds what follows it.
pub trait Splice {
    /// The body written.
    type Body;
    /// Appends element `index` of the body as its original bytes.
    fn push_original(&mut self, index: usize) -> Result<()>;
    /// Appends `text`.
    fn push_text(&mut self, text: &str) {
        self.written().push_str(text);
    }
    /// The text written since the last original, to append to (an edited message is written
    /// into it directly, not made a `String` of its own and copied).
    fn written(&mut self) -> &mut String;
    /// Appends the bytes after the `messages` array: the new body.
    fn finish(self) -> Self::Body;
}

/// The native source: the body is the caller's `&str`, and its own UTF-8 text.
impl BodySource for &str {
    type Body = String;
    type Originals = ();
    type Splice<'s>
        = StrSplice<'s>
    where
        Self: 's;

    fn text(&self) -> &str {
        self
    }

    fn laid_out(&mut self, _span: &MessagesSpan) {}

    fn release_text(&mut self) {}

    fn message(&self, span: &MessagesSpan, index: usize) -> Cow<'_, str> {
        let element = span.elements.get(index).cloned();
        Cow::Borrowed(element.and_then(|at| self.get(at)).unwrap_or_default())
    }

    fn unchanged(&self) -> String {
        self.to_string()
    }

    fn splice<'s>(&'s self, span: &'s MessagesSpan, reserve: usize) -> Result<StrSplice<'s>> {
        let array = &span.array;
        let (Some(before), Some(after)) = (self.get(..array.start), self.get(array.end..)) else {
            return Err(scanner_disagrees());
        };
        // (The output of a tier is usually much smaller than the body: reserving the body's size
        // would double the memory a large body needs.)
        let mut out = String::with_capacity(before.len() + reserve + after.len());
        out.push_str(before);
        Ok(StrSplice {
            body: self,
            elements: &span.elements,
            after,
            out,
        })
    }

    fn originals(self, _result: &TierResult) -> Option<()> {
        None
    }
}

/// A new body written as a `String`.
pub struct StrSplice<'s> {
    body: &'s str,
    elements: &'s [Range<usize>],
    after: &'s str,
    out: String,
}

impl Splice for StrSplice<'_> {
    type Body = String;

    fn push_original(&mut self, index: usize) -> Result<()> {
        let element = self.elements.get(index).cloned();
        let original = element.and_then(|at| self.body.get(at));
        self.out.push_str(original.ok_or_else(scanner_disagrees)?);
        Ok(())
    }

    fn written(&mut self) -> &mut String {
        &mut self.out
    }

    fn finish(mut self) -> String {
        self.out.push_str(self.after);
        self.out
    }
}

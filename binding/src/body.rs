//! `compactRequestBody`'s source: the caller's `JsString` as the core's body path
//! ([`compaction::edge::body::compact`]) reads it. The body is copied into wasm once; when the
//! core lets a large body's copy go, each message is read from its own slice of the caller's
//! string, so the body and all its values are never in wasm at once. The compacted body is the
//! caller's string with the changed messages spliced in: the rest is never copied back.

use crate::skeleton::Originals;
use crate::surrogates::{Crossed, Window};
use crate::text;
use compaction::api::result::{ArchiveOrigin, TierResult};
use compaction::edge::source::{BodySource, Splice};
use compaction::edge::span::{MessagesSpan, scanner_disagrees, utf16_positions};
use compaction::error::Result;
use js_sys::JsString;
use std::borrow::Cow;
use std::ops::Range;

/// The caller's body and its UTF-8 copy.
pub struct JsBody<'b> {
    /// The caller's string.
    body: &'b JsString,
    /// The string as it crossed, lone surrogates mapped one for one (offsets hold).
    crossed: Crossed,
    /// Its UTF-8 copy, until the core lets it go.
    text: Option<String>,
    /// Whether the body is all ASCII (a byte is then a UTF-16 unit).
    ascii: bool,
    /// The layout in UTF-16 units of `body`.
    units: Units,
}

impl<'b> JsBody<'b> {
    /// The caller's `body`, copied into wasm (its size checked before by the caller).
    pub fn new(body: &'b JsString) -> Self {
        // Copied first: the copy says whether the host has anything to map (nearly never); asking
        // the host cost more than the copy (1.4 ms on a 1 MB body, against 0.3 ms).
        let (mut text, mut ascii) = text::to_utf8(body);
        let crossed = if crate::surrogates::may_need_crossing(&text) {
            crate::surrogates::cross_request_body(body, Window::NONE)
        } else {
            Crossed::as_is(body)
        };
        // Without a window or a loss, the crossed text is the caller's: the copy stands.
        if crossed.window != Window::NONE || crossed.lossy {
            (text, ascii) = text::to_utf8(&crossed.text);
        }
        Self {
            body,
            crossed,
            text: Some(text),
            ascii,
            units: Units::default(),
        }
    }

    /// The window the body's lone surrogates crossed in.
    pub fn window(&self) -> Window {
        self.crossed.window
    }
}

impl BodySource for JsBody<'_> {
    type Body = JsString;
    type Originals = Originals;
    type Splice<'s>
        = JsSplice<'s>
    where
        Self: 's;

    fn text(&self) -> &str {
        self.text.as_deref().unwrap_or_default()
    }

    fn laid_out(&mut self, span: &MessagesSpan) {
        self.units = Units::of(self.text(), self.ascii, span);
    }

    fn release_text(&mut self) {
        self.text = None;
    }

    fn message(&self, span: &MessagesSpan, index: usize) -> Cow<'_, str> {
        match &self.text {
            Some(text) => {
                let element = span.elements.get(index).cloned();
                Cow::Borrowed(element.and_then(|at| text.get(at)).unwrap_or_default())
            }
            None => match self.units.elements.get(index) {
                Some(at) => Cow::Owned(text::to_string(&self.crossed.text.slice(at.start, at.end))),
                None => Cow::Borrowed(""),
            },
        }
    }

    fn unchanged(&self) -> JsString {
        self.body.clone()
    }

    fn splice<'s>(&'s self, _span: &'s MessagesSpan, _reserve: usize) -> Result<JsSplice<'s>> {
        Ok(JsSplice {
            body: self.body,
            window: self.crossed.window,
            units: &self.units,
            spliced: self.body.slice(0, self.units.array.start),
            pending: String::new(),
        })
    }

    fn originals(self, result: &TierResult) -> Option<Originals> {
        // A well-formed string's UTF-8 copy is exact (escaped lone surrogates are mapped back by
        // the window). The host said whether it is as the body crossed (`raw`, else `lossy`):
        // `JsString::is_valid_utf16` costs a `charCodeAt` call per unit.
        if !self.crossed.raw && !self.crossed.lossy {
            return Originals::of_window(self.crossed.window);
        }
        // Otherwise the messages the archive took from are parsed from the caller's own string
        // (`JSON.parse` keeps lone surrogates), and the archive's values come from them.
        let messages = js_sys::Array::new_with_length(self.units.elements.len() as u32);
        let parse = |at: usize| {
            let span = self.units.elements.get(at);
            let text = span.map(|span| self.body.slice(span.start, span.end));
            if let Some(Ok(value)) = text.map(|text| crate::skeleton::json_parse(&text)) {
                messages.set(at as u32, value);
            }
        };
        for origin in result.archive_origins.iter().flatten() {
            match origin {
                ArchiveOrigin::Part { message, .. } => parse(*message),
                ArchiveOrigin::Messages(from) => from.iter().flatten().for_each(|at| parse(*at)),
            }
        }
        let mut originals = Originals::default();
        (originals.messages, originals.window) = (Some(messages), self.crossed.window);
        Some(originals)
    }
}

/// A compacted body as a JS string: slices of the caller's, joined with what wasm wrote.
pub struct JsSplice<'s> {
    body: &'s JsString,
    /// The window the body's lone surrogates crossed in: what wasm wrote is mapped back.
    window: Window,
    units: &'s Units,
    /// The body so far.
    spliced: JsString,
    /// Text written since the last slice, joined in one piece.
    pending: String,
}

impl Splice for JsSplice<'_> {
    type Body = JsString;

    fn push_original(&mut self, index: usize) -> Result<()> {
        let span = self
            .units
            .elements
            .get(index)
            .ok_or_else(scanner_disagrees)?;
        self.spliced = self
            .spliced
            .concat(&self.window.to_js_json(&self.pending))
            .concat(&self.body.slice(span.start, span.end));
        self.pending.clear();
        Ok(())
    }

    fn written(&mut self) -> &mut String {
        &mut self.pending
    }

    fn finish(self) -> JsString {
        self.spliced
            .concat(&self.window.to_js_json(&self.pending))
            .concat(&self.body.slice(self.units.array.end, self.body.length()))
    }
}

/// The layout's positions in UTF-16 units, as JS strings are indexed.
#[derive(Default)]
struct Units {
    array: Range<u32>,
    elements: Vec<Range<u32>>,
}

impl Units {
    fn of(text: &str, ascii: bool, span: &MessagesSpan) -> Self {
        let mut bytes = Vec::with_capacity(2 + 2 * span.elements.len());
        bytes.push(span.array.start);
        for element in &span.elements {
            bytes.extend([element.start, element.end]);
        }
        bytes.push(span.array.end);
        let units = if ascii {
            bytes.iter().map(|&at| at as u32).collect()
        } else {
            utf16_positions(text, &bytes)
        };
        let last = units.len() - 1;
        Self {
            array: units[0]..units[last],
            elements: units[1..last]
                .chunks_exact(2)
                .map(|pair| pair[0]..pair[1])
                .collect(),
        }
    }
}

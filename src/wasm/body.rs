//! `compactRequestBody` in the binding. The body is copied into wasm once, to be checked and laid
//! out (`edge::body::layout`). Read elided, the copy holds the long strings: it is kept until
//! the result is built, and the archive's strings are decoded from it one at a time. Read
//! whole, a small body's messages are read from the copy; a large body's copy is let go and
//! each message is read from its own slice of the caller's string, so that the whole body and
//! all its values are never in wasm memory at once.
//! The compacted body is the caller's string with the changed messages spliced in: unchanged
//! messages (and everything around the array) are slices of it, never copied back from wasm.

use super::skeleton::{BodyTokens, Originals};
use super::text;
use crate::context::CompactOptions;
use crate::edge::body::{self as core_body, BodyLayout, Call, ElidedBody, utf16_positions};
use crate::error::{CompactionError, Result};
use crate::pressure::BudgetPressure;
use crate::result::{ContextData, TierResult};
use js_sys::JsString;
use std::ops::Range;
use wasm_bindgen::JsValue;

/// Up to this size, a body read whole is read from the copy made for its layout; above it, from
/// slices of the caller's string after the copy is let go (see the module doc).
const READ_FROM_COPY_MAX_BYTES: usize = 1 << 20;

/// Compacts the request body `body`; see [`crate::edge::body::compact_request_body`]. Read
/// elided where the tier allows (the long strings stay in the copy made for the layout, edited
/// messages get their bytes back, and the archive its strings); otherwise each message from
/// its own slice.
pub async fn compact(
    body: &JsString,
    session_id: &str,
    pressure: BudgetPressure,
    cost_per_1k_tokens: Option<f64>,
    options: &CompactOptions<'_>,
) -> Result<(JsString, TierResult, Option<Originals>)> {
    let (text, ascii) = text::to_utf8(body);
    let call = Call::new(&text, session_id, &pressure, cost_per_1k_tokens, options)?;
    let units = Units::of(&text, ascii, &call.layout);
    if let Some((output, result, elided)) = compact_elided(body, &text, &call, &units).await {
        // The text goes with the archive's strings, which are decoded from it.
        let originals = originals(body, text, ascii, elided);
        return Ok((output, result, Some(originals)));
    }
    let messages = if text.len() <= READ_FROM_COPY_MAX_BYTES {
        // Read whole from the copy already made: copying each message in again cost more than
        // the copy's memory, at this size.
        let pieces = call.layout.span.elements.iter();
        pieces
            .map(|element| core_body::parse_message(text.get(element.clone()).unwrap_or_default()))
            .collect::<Result<Vec<_>>>()?
    } else {
        // Read whole, each message from its own slice: the body's copy can go first.
        drop(text);
        let mut messages = Vec::with_capacity(units.elements.len());
        for element in &units.elements {
            let piece = body.slice(element.start, element.end);
            messages.push(core_body::parse_message(&text::to_string(&piece))?);
        }
        messages
    };
    let input_len = messages.len();
    let result = call.run(messages, None).await?;
    let output = splice(body, &units, input_len, &result, None)?;
    Ok((output, result, None))
}

/// The call on elided messages, when the tier allows and the core takes it; `None` reads the
/// body whole (which also reports any error).
async fn compact_elided(
    body: &JsString,
    text: &str,
    call: &Call<'_>,
    units: &Units,
) -> Option<(JsString, TierResult, ElidedBody)> {
    let mut elided = core_body::read_elided(text, call)?;
    let input_len = elided.messages.len();
    let messages = std::mem::take(&mut elided.messages);
    let result = call.run(messages, Some((text, &elided))).await.ok()?;
    let output = splice(body, units, input_len, &result, Some((text, &elided))).ok()?;
    Some((output, result, elided))
}

/// The strings behind the placeholders left in the result's archive: their tokens in the body
/// `text` read (`ascii` when it is all ASCII), and in the caller's own string.
fn originals(body: &JsString, text: String, ascii: bool, elided: ElidedBody) -> Originals {
    let positions: Vec<usize> = elided
        .tokens
        .iter()
        .flat_map(|token| [token.start, token.end])
        .collect();
    let units = if ascii {
        positions.iter().map(|&at| at as u32).collect()
    } else {
        utf16_positions(&text, &positions)
    };
    let tokens = BodyTokens {
        body: body.clone(),
        text,
        ascii,
        bytes: elided.tokens,
        units: units.chunks_exact(2).map(|pair| pair[0]..pair[1]).collect(),
    };
    Originals::in_body(elided.key, tokens)
}

/// The layout's positions in UTF-16 units, as JS strings are indexed.
struct Units {
    array: Range<u32>,
    elements: Vec<Range<u32>>,
}

impl Units {
    fn of(text: &str, ascii: bool, layout: &BodyLayout) -> Self {
        let span = &layout.span;
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

/// The caller's `body` with its messages replaced by the result's; the body itself when every
/// message is its own unchanged copy.
/// With `elided`, edited messages write their placeholders back as the body's bytes.
fn splice(
    body: &JsString,
    units: &Units,
    input_len: usize,
    result: &TierResult,
    elided: Option<(&str, &ElidedBody)>,
) -> Result<JsString> {
    let ContextData::Messages(output) = &result.context else {
        return Err(CompactionError::type_error(
            "body.messages",
            "came back from the engine as flat text",
        ));
    };
    let origins = &result.origins;
    let unchanged = output.len() == input_len
        && (0..input_len).all(|index| origins.get(index) == Some(&Some(index)));
    if unchanged {
        return Ok(body.clone());
    }
    // Slices only when the elements are the ones read (they always are).
    let originals: &[Range<u32>] = if units.elements.len() == input_len {
        &units.elements
    } else {
        &[]
    };
    let mut spliced = body.slice(0, units.array.start);
    let mut pending = String::from("[");
    for (index, message) in output.iter().enumerate() {
        if index > 0 {
            pending.push(',');
        }
        let original = origins
            .get(index)
            .copied()
            .flatten()
            .and_then(|at| originals.get(at));
        match original {
            Some(span) => {
                spliced = spliced
                    .concat(&JsValue::from_str(&pending))
                    .concat(&body.slice(span.start, span.end));
                pending.clear();
            }
            None => pending.push_str(&match elided {
                Some((text, elided)) => core_body::write_message(message, text, Some(elided))?,
                None => core_body::write_message(message, "", None)?,
            }),
        }
    }
    pending.push(']');
    Ok(spliced
        .concat(&JsValue::from_str(&pending))
        .concat(&body.slice(units.array.end, body.length())))
}

//! The edge-proxy path: a provider request body (JSON string) in, the same body with its
//! message list compacted, every other byte unchanged. The list is found by the registered
//! formats' list keys (`formats::registry`): `messages` (OpenAI Chat Completions, Anthropic,
//! the AI SDK), `input` (the Responses API; `instructions` stays outside it) or `contents`
//! (Gemini; `systemInstruction` stays outside it).
//!
//! One pass of `scan` checks the body as JSON (serde_json names the fault when it does
//! not pass) and finds the byte span of the top-level `messages` array and of each of its
//! elements, so the output can be spliced into the original string. A body read whole has its
//! messages parsed in that pass (`scan::scan_parsing`); otherwise each is parsed on its own
//! (elided where the tier allows, `elision`). Messages the tier left untouched are copied as
//! their original bytes (whitespace, key order, escapes and number spellings included); only
//! new or edited messages are serialised, compactly, straight into the output (`edge::write`).
//! serde_json's `RawValue` could give the same spans but needs the `raw_value` feature, and the
//! scanner is small.
//!
//! `compact` is the one implementation of the path, for any `source::BodySource`: the native
//! [`compact_request_body`] runs it on a `&str`, the JS binding on the caller's `JsString`.

use super::elision::{self, ElidedBody};
use super::scan;
#[cfg(test)]
use super::scan::ANTHROPIC_FIELDS;
use super::source::{BodySource, Splice};
pub(crate) use super::span::{MessagesSpan, scanner_disagrees};
use crate::base::bytes as base_bytes;
use crate::context::{CompactOptions, ContextInput, FormatChoice, TierContext};
use crate::error::{CompactionError, Result};
use crate::formats::detect::{Evidence, first_evidence, format_name};
use crate::formats::registry;
use crate::loop_state::LoopState;
use crate::pressure::BudgetPressure;
#[cfg(test)]
use crate::pressure::json_type;
use crate::result::{ContextData, TierResult};
use crate::tier::Tier;
use crate::transcript::Format;
#[cfg(test)]
use serde_json::Map;
use serde_json::Value;
use std::ops::Range;

/// Up to this size, a body read whole is read from the UTF-8 text made for its layout; above
/// it, the source lets that text go first and gives each message on its own
/// ([`BodySource::release_text`]). For the JS binding: copying each message in again cost more
/// than the copy's memory up to this size (a second copy was 8 % of a 2.9 MB body's call);
/// above it, the body and all its values are never in wasm memory at once.
pub(crate) const READ_FROM_COPY_MAX_BYTES: usize = 4 << 20;

/// Compacts the `messages` of an OpenAI Chat Completions or Anthropic Messages request body.
/// Returns the new body and the result; bytes outside `messages` are copied through, and so are
/// the bytes of every message the tier did not change.
///
/// The format is Anthropic when the body has a top-level `system` (or `anthropic_version`) and
/// the messages carry no evidence of another format; otherwise it is detected from the messages.
pub async fn compact_request_body(
    body: &str,
    session_id: &str,
    pressure: BudgetPressure,
    cost_per_1k_tokens: Option<f64>,
    options: &CompactOptions<'_>,
) -> Result<(String, TierResult)> {
    let request = BodyRequest {
        session_id,
        pressure,
        cost_per_1k_tokens,
        state: None,
    };
    let (body, result, _) = compact(body, &request, options).await?;
    Ok((body, result))
}

/// [`compact_request_body`] as one call of a loop (docs/design.md §11): `state` is the previous call's
/// `TierResult::state` for this session (a proxy keeps it between requests), and the result's
/// `state` is the one to keep for the next request.
pub async fn compact_request_body_in_loop(
    body: &str,
    request: &BodyRequest<'_>,
    options: &CompactOptions<'_>,
) -> Result<(String, TierResult)> {
    let (body, result, _) = compact(body, request, options).await?;
    Ok((body, result))
}

/// What a `compactRequestBody` call is given beside the body and the options.
#[derive(Debug, Clone)]
pub struct BodyRequest<'a> {
    /// The session.
    pub session_id: &'a str,
    /// The pressure.
    pub pressure: BudgetPressure,
    /// The price, when given.
    pub cost_per_1k_tokens: Option<f64>,
    /// The previous call's state for this session, when the host keeps one.
    pub state: Option<LoopState>,
}

/// [`compact_request_body`] on any source: the new body, the result and, after an elided run,
/// what stands for the strings behind the placeholders left in the result.
///
/// Read elided where the tier allows (the long strings stay in the source's text, edited
/// messages get their bytes back, and the result its strings: [`BodySource::put_back`]); any
/// refusal or error on elided input reads the body whole, which decides (and reports errors).
/// Read whole, a body of more than [`READ_FROM_COPY_MAX_BYTES`] lets its text go first.
pub(crate) async fn compact<S: BodySource>(
    mut source: S,
    request: &BodyRequest<'_>,
    options: &CompactOptions<'_>,
) -> Result<(S::Body, TierResult, Option<S::Originals>)> {
    let mut call = Call::new(source.text(), request, options)?;
    source.laid_out(&call.layout.span);
    if let Some((body, mut result, elided)) = compact_elided(&source, &call).await {
        let originals = source.put_back(&mut result, elided);
        return Ok((body, result, Some(originals)));
    }
    if source.text().len() > READ_FROM_COPY_MAX_BYTES {
        source.release_text();
    }
    let span = &call.layout.span;
    let mut messages = match call.values.take() {
        Some(values) if values.len() == span.elements.len() => values,
        _ => {
            let mut messages = Vec::with_capacity(span.elements.len());
            for index in 0..span.elements.len() {
                messages.push(parse_message(&source.message(span, index))?);
            }
            messages
        }
    };
    if call.layout.string_list {
        messages = messages.into_iter().map(one_user_message).collect();
    }
    let input_len = messages.len();
    let result = call.run(messages, None).await?;
    let output = context_messages(&result)?;
    let body = splice_messages(&source, span, input_len, output, &result.origins, None)?;
    let originals = source.whole_read(&result);
    Ok((body, result, originals))
}

/// The call on elided messages, when the tier allows and the core takes it; `None` reads the
/// body whole. (Its own function, so that the elided read is let go before a read whole.)
async fn compact_elided<S: BodySource>(
    source: &S,
    call: &Call<'_>,
) -> Option<(S::Body, TierResult, ElidedBody)> {
    let text = source.text();
    let mut elided = read_elided(text, call)?;
    let input_len = elided.messages.len();
    let messages = std::mem::take(&mut elided.messages);
    let result = call.run(messages, Some((text, &elided))).await.ok()?;
    let output = context_messages(&result).ok()?;
    let span = &call.layout.span;
    let body = splice_messages(
        source,
        span,
        input_len,
        output,
        &result.origins,
        Some((text, &elided)),
    )
    .ok()?;
    Some((body, result, elided))
}

/// One `compactRequestBody` call: the body's layout and the call's arguments, for reading its
/// messages one way or the other.
pub(crate) struct Call<'a> {
    /// The body's layout.
    pub layout: BodyLayout,
    /// The messages, read as the body was laid out when it will be read whole
    /// ([`scan::scan_parsing`]).
    pub values: Option<Vec<Value>>,
    /// The session, pressure, price and state.
    pub request: &'a BodyRequest<'a>,
    /// The options.
    pub options: &'a CompactOptions<'a>,
}

impl<'a> Call<'a> {
    /// The call on `body` (checked and laid out here: [`layout`]'s errors).
    pub(crate) fn new(
        body: &str,
        request: &'a BodyRequest<'a>,
        options: &'a CompactOptions<'a>,
    ) -> Result<Self> {
        // A body read whole (the tier reads long strings whole, and the body is small enough to
        // be read from its text) has its messages read in the layout's pass.
        let whole = body.len() <= READ_FROM_COPY_MAX_BYTES && !may_read_elided(request, options);
        let (layout, values) = layout_with(body, &options.policy.limits(), whole)?;
        Ok(Self {
            layout,
            values,
            request,
            options,
        })
    }

    /// Compacts `messages` (read from the body, elided under `elision` or whole).
    /// With `elided`, the messages hold its placeholders (and a tier reads the few strings it
    /// must from `body`).
    pub(crate) async fn run(
        &self,
        messages: Vec<Value>,
        elided: Option<(&str, &ElidedBody)>,
    ) -> Result<TierResult> {
        let format = format_for(&self.layout, &messages)?;
        let request = self.request;
        let mut ctx = TierContext::new(
            request.session_id,
            request.pressure,
            ContextInput::Messages {
                messages,
                format: FormatChoice::Fixed(format),
            },
        );
        if let Some(cost) = request.cost_per_1k_tokens {
            ctx.cost_per_1k_tokens = cost;
        }
        ctx.state = request.state.clone();
        // Only the Responses API keeps a conversation on the server, by these fields.
        ctx.server_history =
            self.layout.server_history && registry::structured(format)?.string_list;
        if self.layout.string_list {
            // One user message, the task: nothing to compact, whatever the pressure says.
            let mut result =
                crate::engine::compact_with_tier_owned(Tier::None, ctx, self.options).await?;
            result.reason = format!(
                "body.{} is a plain string (one user message): nothing to compact",
                self.layout.list_key
            );
            return Ok(result);
        }
        let Some((body, elided)) = elided else {
            return crate::engine::compact_owned(ctx, self.options).await;
        };
        ctx.elision = Some(elided.key.clone());
        let strings = elision::BodyStrings { body, elided };
        let options = CompactOptions {
            elided_strings: Some(&strings),
            ..self.options.clone()
        };
        crate::engine::compact_owned(ctx, &options).await
    }
}

/// The body's messages read elided, when the tier the pressure selects may run on them and
/// some string is long enough.
fn read_elided(body: &str, call: &Call<'_>) -> Option<ElidedBody> {
    (!call.layout.string_list).then_some(())?;
    may_read_elided(call.request, call.options).then_some(())?;
    elision::read(
        body,
        &call.layout.span.elements,
        &call.layout.long_strings,
        call.options.policy.micro_keep_head_chars,
    )
}

/// Whether the call may read long strings elided: the tier allows it, and there is no state (a
/// state's fingerprints are of whole texts).
fn may_read_elided(request: &BodyRequest<'_>, options: &CompactOptions<'_>) -> bool {
    let tier = crate::policy::select_tier(&request.pressure, &options.policy);
    request.state.is_none() && crate::engine::may_read_elided(tier, options)
}

/// The result's messages.
fn context_messages(result: &TierResult) -> Result<&[Value]> {
    match &result.context {
        ContextData::Messages(output) => Ok(output),
        ContextData::Text(_) => Err(CompactionError::type_error(
            "body.messages",
            "came back from the engine as flat text",
        )),
    }
}

/// A plain-string list's text (a string token read as JSON) as the one user message it is.
fn one_user_message(text: Value) -> Value {
    crate::formats::common::object(vec![("role", "user".into()), ("content", text)])
}

/// A request body checked and measured, before its messages are read: where they are, and the
/// top-level field that makes a plain list Anthropic. Nothing of the body is copied, so a caller
/// can let the body go and read each message on its own ([`parse_message`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct BodyLayout {
    /// The message list and its elements (a plain string list: the string, its one element).
    pub span: MessagesSpan,
    /// The list's key (`messages`, `input`, `contents`).
    pub list_key: &'static str,
    /// The list is a plain string, one user message (a Responses `input`).
    pub string_list: bool,
    /// `system` or `anthropic_version`, when the body has one.
    pub anthropic_field: Option<&'static str>,
    /// The body continues a conversation the provider stores ([`scan::Scan::server_history`]).
    pub server_history: bool,
    /// The long string values inside the messages ([`scan::Scan::long_strings`]).
    pub long_strings: Vec<scan::LongString>,
}

/// Checks `body` against the limits and as JSON and finds its messages (one pass,
/// [`scan`]): the errors of reading it whole, in the same order, with serde_json's words.
pub(crate) fn layout(body: &str, limits: &crate::limits::Limits) -> Result<BodyLayout> {
    Ok(layout_with(body, limits, false)?.0)
}

/// [`layout`], and with `parse` the messages read as values on the way when serde_json reads
/// them all ([`scan::scan_parsing`]; a plain string list's are not).
fn layout_with(
    body: &str,
    limits: &crate::limits::Limits,
    parse: bool,
) -> Result<(BodyLayout, Option<Vec<Value>>)> {
    // Refuse an oversized body before parsing it (the engine checks `messages` again, as JSON).
    limits.validate().map_err(|e| e.under("policy"))?;
    limits.check_text("body", body)?;
    let scanned = if parse {
        scan::scan_parsing(body)
    } else {
        scan::scan(body)
    };
    let top = scanned.ok_or_else(|| refusal(body))?;
    // The scanner follows 127 levels; the parser stops at 128. Near it, the parser decides.
    if top.deepest >= 120 {
        serde_json::from_str::<Value>(body).map_err(body_error)?;
    }
    let (Some((array, mut elements)), Some(list_key)) = (top.messages, top.list_key) else {
        return Err(CompactionError::type_error(
            "body.messages",
            "is required (or body.input for the OpenAI Responses API, body.contents for Gemini)",
        ));
    };
    let first = body.as_bytes().get(array.start).copied();
    let string_list = first == Some(b'"')
        && registry::with_list_key(list_key)
            .any(|adapter| adapter.structured.as_ref().is_some_and(|s| s.string_list));
    if string_list {
        elements = vec![array.clone()];
    } else if first != Some(b'[') {
        return Err(CompactionError::type_error(
            format!("body.{list_key}"),
            format!(": expected an array, got {}", type_at(first)),
        ));
    }
    let layout = BodyLayout {
        span: MessagesSpan { array, elements },
        list_key,
        string_list,
        anthropic_field: top.anthropic_field,
        server_history: top.server_history,
        long_strings: top.long_strings,
    };
    Ok((layout, top.values.filter(|_| !string_list)))
}

/// Why the scanner gave up on `body`: serde_json's error, or the body is not an object (or is
/// nested too deep for the parser).
fn refusal(body: &str) -> CompactionError {
    if let Err(error) = serde_json::from_str::<serde::de::IgnoredAny>(body) {
        return body_error(error);
    }
    let first = body.trim_start().as_bytes().first().copied();
    if first != Some(b'{') {
        return CompactionError::type_error(
            "body",
            format!(": expected a JSON object, got {}", type_at(first)),
        );
    }
    match serde_json::from_str::<Value>(body) {
        Err(error) => body_error(error),
        Ok(_) => scanner_disagrees(),
    }
}

/// One message's JSON text (an element of a body [`layout`] accepted) as a value.
pub(crate) fn parse_message(text: &str) -> Result<Value> {
    serde_json::from_str(text).map_err(|_| scanner_disagrees())
}

/// The body's parse error (a too deep body is a range error).
fn body_error(error: serde_json::Error) -> CompactionError {
    // serde_json stops at 128 levels of nesting: valid JSON, but too deep to read.
    if error.to_string().starts_with("recursion limit exceeded") {
        CompactionError::range_error(
            "body",
            format!(": nesting deeper than 128 levels ({error})"),
        )
    } else {
        CompactionError::parse_error("body", format!("is not valid JSON: {error}"))
    }
}

/// The JSON type of the valid value starting with `byte`.
fn type_at(byte: Option<u8>) -> &'static str {
    match byte {
        Some(b'{') => "object",
        Some(b'[') => "array",
        Some(b'"') => "string",
        Some(b't' | b'f') => "boolean",
        Some(b'n') => "null",
        _ => "number",
    }
}

/// Parses the body; it must be a JSON object.
#[cfg(test)]
pub(crate) fn parse_body(body: &str) -> Result<Map<String, Value>> {
    let value: Value = serde_json::from_str(body).map_err(body_error)?;
    match value {
        Value::Object(request) => Ok(request),
        other => Err(CompactionError::type_error(
            "body",
            format!(": expected a JSON object, got {}", json_type(&other)),
        )),
    }
}

/// Moves the `messages` array out of the parsed request (it can be large; no copy is needed).
#[cfg(test)]
fn take_messages(request: &mut Map<String, Value>) -> Result<Vec<Value>> {
    match request.remove("messages") {
        Some(Value::Array(messages)) => Ok(messages),
        None => Err(CompactionError::type_error("body.messages", "is required")),
        Some(other) => Err(CompactionError::type_error(
            "body.messages",
            format!(": expected an array, got {}", json_type(&other)),
        )),
    }
}

/// The request's format: evidence in the messages wins; a top-level `system` makes a plain list
/// Anthropic, and contradicts OpenAI evidence (Chat Completions has no top-level system). The AI
/// SDK's call options also have a top-level `system`, so AI SDK evidence is compatible with it.
#[cfg(test)]
pub(crate) fn request_format(request: &Map<String, Value>, messages: &[Value]) -> Result<Format> {
    let field = ANTHROPIC_FIELDS
        .into_iter()
        .find(|field| request.contains_key(*field));
    format_of_evidence(field, first_evidence(messages)?)
}

/// The format of a body laid out as `layout` whose list holds `messages`: the one format of its
/// list key (`input`, `contents`), or among those of `messages` as [`request_format`] says.
/// Evidence of a format whose list has another key is an error naming both.
fn format_for(layout: &BodyLayout, messages: &[Value]) -> Result<Format> {
    // Looked for once: the evidence is most of a format's cost on a long list.
    let evidence = first_evidence(messages)?;
    if let Some(evidence) = &evidence {
        let key = registry::adapter(evidence.format).list_key;
        if key != layout.list_key {
            return Err(evidence.in_list(layout.list_key));
        }
    }
    let mut formats = registry::with_list_key(layout.list_key);
    match (formats.next(), formats.next()) {
        (Some(only), None) => Ok(only.format),
        _ => format_of_evidence(layout.anthropic_field, evidence),
    }
}

/// The format of a `messages` list whose first format-specific evidence is `evidence`, given the
/// Anthropic-only top-level field the request has, if any.
fn format_of_evidence(field: Option<&str>, evidence: Option<Evidence<'_>>) -> Result<Format> {
    match (field, evidence) {
        (Some(field), Some(evidence)) if evidence.format == Format::OpenAi => {
            Err(CompactionError::type_error(
                format!("body.{field}"),
                format!(
                    ": a top-level \"{field}\" is Anthropic but messages[{}] is {}",
                    evidence.message,
                    format_name(evidence.format)
                ),
            ))
        }
        (_, Some(evidence)) => Ok(evidence.format),
        (Some(_), None) => Ok(Format::Anthropic),
        (None, None) => Ok(Format::OpenAi),
    }
}

/// Finds the top-level `messages` array of a body. A duplicated key resolves to its last
/// occurrence, as serde_json does. `None` when there is no such array or the body is not JSON.
#[cfg(test)]
pub(crate) fn locate_messages(body: &str) -> Option<MessagesSpan> {
    let (array, elements) = scan::scan(body)?.messages?;
    (body.as_bytes().get(array.start) == Some(&b'[')).then_some(MessagesSpan { array, elements })
}

/// The UTF-16 positions of the ascending byte positions `at` of `text`.
// The binding's: JS strings are indexed in UTF-16 units.
#[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
pub(crate) fn utf16_positions(text: &str, at: &[usize]) -> Vec<u32> {
    let bytes = text.as_bytes();
    let mut positions = Vec::with_capacity(at.len());
    let (mut from, mut units) = (0usize, 0u32);
    for &to in at {
        let to = to.min(bytes.len()).max(from);
        // A character is one unit, two from four bytes on (`base::bytes`).
        units += base_bytes::utf16_units(&bytes[from..to]) as u32;
        positions.push(units);
        from = to;
    }
    positions
}

/// The body of `source` with its `messages` array (at `span`, `input_len` messages) replaced by
/// `output`.
///
/// An output message whose origin is input message `i` (an unchanged copy, see
/// [`TierResult::origins`]) is copied as the original bytes of element `i`; the others are
/// serialised compactly. When every message is its own unchanged copy the body is returned as
/// it was, whitespace inside the array included. With `elided` (the text read and its elided
/// read), edited messages write their placeholders back as the body's own tokens.
pub(crate) fn splice_messages<S: BodySource>(
    source: &S,
    span: &MessagesSpan,
    input_len: usize,
    output: &[Value],
    origins: &[Option<usize>],
    elided: Option<(&str, &ElidedBody)>,
) -> Result<S::Body> {
    let unchanged = output.len() == input_len
        && (0..input_len).all(|index| origins.get(index) == Some(&Some(index)));
    if unchanged {
        return Ok(source.unchanged());
    }
    // Copying bytes is only sound if the spans are the elements serde_json read (they always are).
    let originals: &[Range<usize>] = if span.elements.len() == input_len {
        &span.elements
    } else {
        &[]
    };
    // Room for what is copied as it was; serialised messages grow it as needed.
    let kept: usize = origins
        .iter()
        .filter_map(|origin| originals.get((*origin)?))
        .map(|original| original.len() + 1)
        .sum();
    let mut spliced = source.splice(span, kept + 2)?;
    spliced.push_text("[");
    for (index, message) in output.iter().enumerate() {
        if index > 0 {
            spliced.push_text(",");
        }
        let original = origins
            .get(index)
            .copied()
            .flatten()
            .filter(|&at| at < originals.len());
        match original {
            Some(at) => spliced.push_original(at)?,
            None => write_message(spliced.written(), message, elided)?,
        }
    }
    spliced.push_text("]");
    Ok(spliced.finish())
}

/// Appends `message` as compact JSON to `out`; with `elided` (the text read and its elided
/// read), its placeholders are the body's own tokens again.
fn write_message(
    out: &mut String,
    message: &Value,
    elided: Option<(&str, &ElidedBody)>,
) -> Result<()> {
    match elided {
        Some((text, elided)) => {
            elision::write_message_into(out, message, &elided.key, text, &elided.tokens)
        }
        None => super::write::write_value(out, message, &|_| None).map_err(|error| {
            CompactionError::type_error(
                "body.messages",
                format!("could not be serialised: {error}"),
            )
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn span_texts<'a>(body: &'a str, span: &MessagesSpan) -> (&'a str, Vec<&'a str>) {
        (
            &body[span.array.clone()],
            span.elements.iter().map(|e| &body[e.clone()]).collect(),
        )
    }

    #[test]
    fn locates_messages_among_other_fields() {
        let body = r#" { "model" : "gpt-4o", "tools": [{"messages": [1]}],
            "messages" : [ {"role":"user","content":"a \"quoted\" ] } , \\"} ,
              {"role": "assistant", "content": [ {"type":"text","text":"[{"}]}
            ] , "stream": true, "n": -1.5e3, "x": null }"#;
        let span = locate_messages(body).expect("found");
        let (array, elements) = span_texts(body, &span);
        assert!(array.starts_with("[ {\"role\":\"user\""));
        assert!(array.ends_with("}]}\n            ]"));
        assert_eq!(
            elements,
            vec![
                r#"{"role":"user","content":"a \"quoted\" ] } , \\"}"#,
                r#"{"role": "assistant", "content": [ {"type":"text","text":"[{"}]}"#,
            ]
        );
    }

    #[test]
    fn nested_messages_keys_do_not_count() {
        let body = r#"{"metadata":{"messages":[1,2]},"messages":[]}"#;
        let span = locate_messages(body).expect("found");
        assert_eq!(span_texts(body, &span), ("[]", vec![]));
        assert_eq!(locate_messages(r#"{"metadata":{"messages":[1]}}"#), None);
    }

    #[test]
    fn escaped_and_duplicate_keys_follow_serde_json() {
        let body = r#"{"mess\u0061ges":[1],"messages":[2, 3]}"#;
        let span = locate_messages(body).expect("found");
        assert_eq!(span_texts(body, &span), ("[2, 3]", vec!["2", "3"]));
        let body = r#"{"messages":[2],"mess\u0061ges":[1]}"#;
        let span = locate_messages(body).expect("found");
        assert_eq!(span_texts(body, &span), ("[1]", vec!["1"]));
        assert_eq!(messages_of(body), vec![json!(1)], "serde_json agrees");
    }

    #[test]
    fn non_ascii_and_scalars() {
        let body = "{\"messages\":[\"h\u{e9}\u{1F600}\\\"\", 12, true ,null,{\"k\":\"\u{2028}\"}]}";
        let span = locate_messages(body).expect("found");
        let (_, elements) = span_texts(body, &span);
        assert_eq!(
            elements,
            vec![
                "\"h\u{e9}\u{1F600}\\\"\"",
                "12",
                "true",
                "null",
                "{\"k\":\"\u{2028}\"}"
            ]
        );
    }

    #[test]
    fn scanner_never_panics_on_broken_text() {
        for body in [
            "",
            "{",
            "{\"messages\"",
            "{\"messages\":",
            "{\"messages\":[",
            "{\"messages\":[\"",
            "{\"messages\":[1,",
            "{\"messages\":{}}",
            "[]",
            "{\"a\":\"\\",
            "{\"messages\":]}",
            "{\"messages\":[}]}",
        ] {
            assert_eq!(locate_messages(body), None, "{body:?}");
        }
    }

    #[test]
    fn positions_count_utf16_units() {
        let text = "a\u{e9}\u{20ac}\u{1F600}b";
        let bytes: Vec<usize> = text
            .char_indices()
            .map(|(at, _)| at)
            .chain([text.len()])
            .collect();
        assert_eq!(utf16_positions(text, &bytes), vec![0, 1, 2, 3, 5, 6]);
        for (at, ch) in text.char_indices() {
            let units: usize = text[..at].chars().map(char::len_utf16).sum();
            assert_eq!(utf16_positions(text, &[at])[0] as usize, units, "{ch}");
        }
    }

    #[test]
    fn layout_refuses_exactly_what_the_parser_refuses() {
        let limits = crate::limits::Limits::default();
        for depth in 110..140 {
            for (open, close) in [("[", "]"), ("{\"k\":", "}")] {
                let deep = format!("{}1{}", open.repeat(depth), close.repeat(depth));
                for body in [
                    format!("{{\"messages\":[{{\"role\":\"user\",\"content\":{deep}}}]}}"),
                    format!("{{\"x\":{deep},\"messages\":[]}}"),
                ] {
                    let parsed = serde_json::from_str::<Value>(&body);
                    let laid_out = layout(&body, &limits);
                    assert_eq!(laid_out.is_ok(), parsed.is_ok(), "{depth} {open}");
                    if let Err(error) = laid_out {
                        assert_eq!(error, body_error(parsed.unwrap_err()));
                    }
                }
            }
        }
    }

    #[test]
    fn deep_nesting_is_the_parsers_to_refuse() {
        let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
        let body = format!("{{\"messages\":[{deep}]}}");
        let error = layout(&body, &crate::limits::Limits::default()).expect_err("too deep");
        assert_eq!(
            error,
            body_error(serde_json::from_str::<Value>(&body).unwrap_err())
        );
        assert!(
            error.to_string().contains("nesting deeper than 128 levels"),
            "{error}"
        );
    }

    fn messages_of(body: &str) -> Vec<Value> {
        match parse_body(body).expect("valid").remove("messages") {
            Some(Value::Array(messages)) => messages,
            _ => panic!("no messages"),
        }
    }

    const BODY: &str = "{\n  \"model\": \"gpt-4o\",\n  \"messages\": [\n    {\"role\": \"system\", \"content\": \"be brief\"},\n    {\"role\": \"assistant\",   \"content\": \"caf\\u00e9\", \"tool_calls\": [{\"id\": \"c\", \"type\": \"function\", \"function\": {\"name\": \"f\", \"arguments\": \"{}\"}}]},\n    {\"role\": \"tool\", \"tool_call_id\": \"c\", \"content\": \"long body\", \"x\": 1.0},\n    {\"role\": \"user\", \"content\": \"next\"}\n  ],\n  \"temperature\": 0.20\n}\n";

    #[test]
    fn unchanged_output_returns_the_body_as_is() {
        let input = messages_of(BODY);
        let span = locate_messages(BODY).expect("found");
        assert_eq!(
            splice_messages(
                &BODY,
                &span,
                input.len(),
                &input,
                &[Some(0), Some(1), Some(2), Some(3)],
                None
            ),
            Ok(BODY.to_string())
        );
    }

    #[test]
    fn edited_message_is_the_only_one_reserialised() {
        let input = messages_of(BODY);
        let span = locate_messages(BODY).expect("found");
        let mut output = input.clone();
        output[2]["content"] = json!("short");
        let origins = [Some(0), Some(1), None, Some(3)];
        let spliced =
            splice_messages(&BODY, &span, input.len(), &output, &origins, None).expect("spliced");
        assert_eq!(
            spliced,
            "{\n  \"model\": \"gpt-4o\",\n  \"messages\": [{\"role\": \"system\", \"content\": \"be brief\"},{\"role\": \"assistant\",   \"content\": \"caf\\u00e9\", \"tool_calls\": [{\"id\": \"c\", \"type\": \"function\", \"function\": {\"name\": \"f\", \"arguments\": \"{}\"}}]},{\"role\":\"tool\",\"tool_call_id\":\"c\",\"content\":\"short\",\"x\":1.0},{\"role\": \"user\", \"content\": \"next\"}],\n  \"temperature\": 0.20\n}\n"
        );
        let reparsed: Value = serde_json::from_str(&spliced).expect("valid JSON");
        assert_eq!(reparsed["messages"], Value::Array(output));
    }

    #[test]
    fn replaced_range_keeps_later_originals() {
        let input = messages_of(BODY);
        let span = locate_messages(BODY).expect("found");
        let output = vec![
            input[0].clone(),
            json!({"role":"assistant","content":"[digest]"}),
            input[3].clone(),
        ];
        let origins = [Some(0), None, Some(3)];
        let spliced =
            splice_messages(&BODY, &span, input.len(), &output, &origins, None).expect("spliced");
        assert!(spliced.contains(
            "[{\"role\": \"system\", \"content\": \"be brief\"},{\"role\":\"assistant\",\"content\":\"[digest]\"},{\"role\": \"user\", \"content\": \"next\"}]"
        ));
        assert!(spliced.ends_with("],\n  \"temperature\": 0.20\n}\n"));
        let output: Vec<Value> = vec![];
        let spliced =
            splice_messages(&BODY, &span, input.len(), &output, &[], None).expect("spliced");
        assert!(spliced.contains("\"messages\": [],\n"));
    }

    #[test]
    fn body_errors_name_the_body() {
        let error = parse_body("{\"messages\": [}").unwrap_err();
        assert_eq!(error.kind, crate::error::ErrorKind::Parse);
        assert_eq!(
            error.to_string(),
            "body is not valid JSON: expected value at line 1 column 15"
        );
        assert_eq!(
            parse_body("[1]").unwrap_err().to_string(),
            "body: expected a JSON object, got array"
        );
        let mut request = parse_body("{\"model\":\"m\"}").expect("valid");
        assert_eq!(
            take_messages(&mut request).unwrap_err().to_string(),
            "body.messages is required"
        );
        let mut request = parse_body("{\"messages\":{}}").expect("valid");
        assert_eq!(
            take_messages(&mut request).unwrap_err().to_string(),
            "body.messages: expected an array, got object"
        );
    }

    #[test]
    fn request_formats() {
        let plain = vec![json!({"role":"user","content":"hi"})];
        let openai = vec![json!({"role":"assistant","content":null,"tool_calls":[]})];
        let anthropic =
            vec![json!({"role":"user","content":[{"type":"tool_result","tool_use_id":"t"}]})];
        let ai_sdk = vec![json!({"role":"assistant","content":[{"type":"reasoning","text":"r"}]})];
        let with_system = parse_body("{\"system\":\"s\"}").expect("valid");
        let without = parse_body("{\"model\":\"m\"}").expect("valid");
        assert_eq!(request_format(&without, &plain), Ok(Format::OpenAi));
        assert_eq!(request_format(&with_system, &plain), Ok(Format::Anthropic));
        assert_eq!(request_format(&without, &anthropic), Ok(Format::Anthropic));
        assert_eq!(
            request_format(&with_system, &anthropic),
            Ok(Format::Anthropic)
        );
        assert_eq!(request_format(&with_system, &ai_sdk), Ok(Format::AiSdk));
        assert_eq!(request_format(&without, &openai), Ok(Format::OpenAi));
        assert_eq!(
            request_format(&with_system, &openai)
                .unwrap_err()
                .to_string(),
            "body.system: a top-level \"system\" is Anthropic but messages[0] is OpenAI"
        );
        let bedrock = parse_body("{\"anthropic_version\":\"bedrock-2023-05-31\"}").expect("valid");
        assert_eq!(request_format(&bedrock, &plain), Ok(Format::Anthropic));
    }

    fn any_json() -> impl proptest::strategy::Strategy<Value = Value> {
        use proptest::prelude::*;
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i64>().prop_map(|n| json!(n)),
            (-1.0e9f64..1.0e9).prop_map(|x| json!(x)),
            "[a-z\"\\\\/\u{0}-\u{1f}\u{e9}\u{2028}\u{1F600}\\[\\]{},: ]{0,8}"
                .prop_map(Value::String),
        ];
        leaf.prop_recursive(4, 48, 5, |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
                proptest::collection::vec(("[a-z\"\\\\]{0,4}", inner), 0..5)
                    .prop_map(|fields| Value::Object(fields.into_iter().collect())),
            ]
        })
    }

    proptest::proptest! {
        #[test]
        fn spans_agree_with_serde_json(
            messages in proptest::collection::vec(any_json(), 0..5),
            before in any_json(),
            after in any_json(),
            pretty in proptest::prelude::any::<bool>(),
        ) {
            let request = json!({"before": before, "messages": messages, "after": after});
            let body = if pretty {
                serde_json::to_string_pretty(&request)
            } else {
                serde_json::to_string(&request)
            }
            .expect("serialises");
            // Compared with serde_json's own reading of the body, as production does: without
            // its `float_roundtrip` feature a float may not read back as the value written.
            let messages = messages_of(&body);
            let span = locate_messages(&body).expect("found");
            proptest::prop_assert_eq!(span.elements.len(), messages.len());
            for (element, message) in span.elements.iter().zip(&messages) {
                let parsed: Value = serde_json::from_str(&body[element.clone()]).expect("valid span");
                proptest::prop_assert_eq!(&parsed, message);
            }
            let mut output = messages.clone();
            output.push(json!({"role": "assistant", "content": "new"}));
            let origins: Vec<_> = (0..messages.len()).map(Some).chain([None]).collect();
            let spliced = splice_messages(&body.as_str(), &span, messages.len(), &output, &origins, None).expect("spliced");
            proptest::prop_assert_eq!(&spliced[..span.array.start], &body[..span.array.start]);
            proptest::prop_assert!(spliced.ends_with(&body[span.array.end..]));
            let reparsed: Value = serde_json::from_str(&spliced).expect("valid JSON");
            proptest::prop_assert_eq!(&reparsed["messages"], &Value::Array(output));
        }
    }

    #[test]
    fn end_to_end_keeps_bytes_outside_messages() {
        let pressure = BudgetPressure::new(1.0, 0.0, 0.0, false).expect("valid pressure");
        let options = CompactOptions::default();
        let (body, result) =
            pollster::block_on(compact_request_body(BODY, "s1", pressure, None, &options))
                .expect("compacts");
        assert_eq!(result.tier, crate::tier::Tier::None);
        assert_eq!(body, BODY);
    }

    /// A source that records what the core asks of it and, like the binding's, reads each
    /// message from the host's string (here the same text) once its text is let go.
    struct Recorder<'a> {
        host: &'a str,
        text: Option<&'a str>,
        log: std::rc::Rc<std::cell::RefCell<Vec<String>>>,
    }

    struct RecorderSplice<'s> {
        inner: super::super::source::StrSplice<'s>,
        log: std::rc::Rc<std::cell::RefCell<Vec<String>>>,
    }

    impl Recorder<'_> {
        fn note(&self, what: String) {
            self.log.borrow_mut().push(what);
        }
    }

    impl BodySource for Recorder<'_> {
        type Body = String;
        type Originals = ();
        type Splice<'s>
            = RecorderSplice<'s>
        where
            Self: 's;

        fn text(&self) -> &str {
            self.text.unwrap_or_default()
        }

        fn laid_out(&mut self, span: &MessagesSpan) {
            self.note(format!("laid out {}", span.elements.len()));
        }

        fn release_text(&mut self) {
            self.note("release".into());
            self.text = None;
        }

        fn message(&self, span: &MessagesSpan, index: usize) -> std::borrow::Cow<'_, str> {
            let from = if self.text.is_some() { "text" } else { "host" };
            self.note(format!("message {index} from {from}"));
            let element = span.elements.get(index).cloned();
            let read = self.text.unwrap_or(self.host);
            std::borrow::Cow::Borrowed(element.and_then(|at| read.get(at)).unwrap_or_default())
        }

        fn unchanged(&self) -> String {
            self.note("unchanged".into());
            self.host.to_string()
        }

        fn splice<'s>(
            &'s self,
            span: &'s MessagesSpan,
            reserve: usize,
        ) -> Result<RecorderSplice<'s>> {
            self.note("splice".into());
            Ok(RecorderSplice {
                inner: BodySource::splice(&self.host, span, reserve)?,
                log: self.log.clone(),
            })
        }

        fn whole_read(self, result: &TierResult) -> Option<()> {
            self.note("whole read".into());
            self.host.whole_read(result)
        }

        fn put_back(self, result: &mut TierResult, elided: ElidedBody) {
            self.note("put back".into());
            self.host.put_back(result, elided);
        }
    }

    impl Splice for RecorderSplice<'_> {
        type Body = String;

        fn push_original(&mut self, index: usize) -> Result<()> {
            self.log.borrow_mut().push(format!("original {index}"));
            self.inner.push_original(index)
        }

        fn written(&mut self) -> &mut String {
            self.inner.written()
        }

        fn finish(self) -> String {
            self.log.borrow_mut().push("finish".into());
            self.inner.finish()
        }
    }

    /// The seed's rule as a host counter: a tier then reads the body whole.
    struct SeedAsHost;

    impl crate::tokens::TokenCounter for SeedAsHost {
        fn count(&self, text: &str) -> u64 {
            crate::tokens::estimate_tokens(text)
        }
    }

    /// An OpenAI body of `calls` tool calls, each with a result of `chars` characters, and a
    /// last user turn (micro then prunes every result).
    fn tool_body(calls: usize, chars: usize) -> String {
        let output = "x".repeat(chars);
        let mut messages = vec![r#"{"role":"user","content":"Fix it."}"#.to_string()];
        for call in 0..calls {
            messages.push(format!(r#"{{"role":"assistant","content":null,"tool_calls":[{{"id":"c{call}","type":"function","function":{{"name":"bash","arguments":"{{}}"}}}}]}}"#));
            messages.push(format!(
                r#"{{"role":"tool","tool_call_id":"c{call}","content":"{output}"}}"#
            ));
        }
        messages.push(r#"{"role":"user","content":"next"}"#.to_string());
        format!(
            "{{\"model\":\"m\",\"messages\":[{}],\"n\":1}}",
            messages.join(",\n ")
        )
    }

    /// The log of the core's calls on a [`Recorder`] of `body`, and the outcome, which must be
    /// the native source's.
    fn recorded(body: &str, options: &CompactOptions<'_>) -> (Vec<String>, String) {
        recorded_at(body, options, 3.0)
    }

    /// [`recorded`] at turn `turn` (turn 1 selects `none`, turn 3 `micro`).
    fn recorded_at(body: &str, options: &CompactOptions<'_>, turn: f64) -> (Vec<String>, String) {
        let pressure = BudgetPressure::new(turn, 0.2, 0.0, false).expect("valid pressure");
        let log = std::rc::Rc::default();
        let source = Recorder {
            host: body,
            text: Some(body),
            log: std::rc::Rc::clone(&log),
        };
        let request = BodyRequest {
            session_id: "s",
            pressure,
            cost_per_1k_tokens: None,
            state: None,
        };
        let (out, result, _) =
            pollster::block_on(compact(source, &request, options)).expect("compacts");
        let (native, native_result) =
            pollster::block_on(compact_request_body(body, "s", pressure, None, options))
                .expect("compacts");
        assert_eq!((&out, &result), (&native, &native_result));
        let log = log.borrow().clone();
        (log, out)
    }

    #[test]
    fn the_core_decides_how_a_body_is_read() {
        // Every step stubbed as it leaves the tail: the bodies are far smaller than a batch.
        let mut unbatched = CompactOptions::default();
        unbatched.policy.cache.batch_tokens = 0;
        let whole = CompactOptions {
            counter: Some(&SeedAsHost),
            ..unbatched.clone()
        };
        // Five steps: the two oldest tool results are outside the protected tail.
        let small = tool_body(5, 2000);
        // Elided (tier none counting by the seed's rule, the one that reads long strings by
        // their facts): nothing changes.
        let seed = CompactOptions {
            token_estimator: Some(crate::tokens::TokenEstimator::Seed),
            ..CompactOptions::default()
        };
        let (log, out) = recorded_at(&small, &seed, 1.0);
        assert_eq!(log, ["laid out 12", "unchanged", "put back"]);
        assert_eq!(out, small);
        // micro reads whole, the messages read in the layout's pass over the text; the edited
        // results are written, the rest copied.
        let stubbed: Vec<String> = ["laid out 12".to_string(), "splice".to_string()]
            .into_iter()
            .chain(
                [0, 1, 3, 5, 6, 7, 8, 9, 10, 11]
                    .into_iter()
                    .map(|index| format!("original {index}")),
            )
            .chain(["finish".to_string(), "whole read".to_string()])
            .collect();
        let (log, out) = recorded(&small, &unbatched);
        assert_eq!(log, stubbed);
        assert!(
            out.contains("[tool result body pruned: 2000 chars; recall: a"),
            "{out}"
        );
        // The same with a host counter.
        let (log, _) = recorded(&small, &whole);
        assert_eq!(log, stubbed);
        // Whole and large: the text goes first, then each message from the host's string.
        let large = tool_body(500, 8500);
        assert!(large.len() > READ_FROM_COPY_MAX_BYTES);
        let (log, _) = recorded(&large, &whole);
        assert_eq!(
            log[..3],
            ["laid out 1002", "release", "message 0 from host"]
        );
        assert!(log.contains(&"message 1001 from host".to_string()));
        assert!(!log.iter().any(|entry| entry.ends_with("from text")));
        // Nothing changed: the body as it came.
        let (log, out) = recorded(BODY, &unbatched);
        assert_eq!(log, ["laid out 4", "unchanged", "whole read"]);
        assert_eq!(out, BODY);
    }
}

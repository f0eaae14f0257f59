//! The edge-proxy path (see [`super`]), every byte outside the message list unchanged. The list
//! is found by the registered formats' list keys (`formats::registry`): `messages` (OpenAI Chat
//! Completions, Anthropic, the AI SDK), `input` (the Responses API; `instructions` stays outside
//! it) or `contents` (Gemini; `systemInstruction` stays outside it).
//!
//! [`compact`] is the one implementation of the path, for any `source::BodySource`: the native
//! [`compact_request_body`] runs it on a `&str`, the JS binding on the caller's `JsString`.

use super::format::format_for;
use super::layout::{BodyLayout, layout_with, parse_message};
use super::source::BodySource;
use super::splice::splice_messages;
use crate::api::context::{CompactOptions, ContextInput, FormatChoice, TierContext};
use crate::api::result::{ContextData, TierResult};
use crate::error::{CompactionError, Result};
use crate::formats::registry;
use crate::plan::loop_state::LoopState;
use crate::policy::pressure::BudgetPressure;
use crate::policy::tier::Tier;
use serde_json::Value;

/// Up to this size, a body has its messages read from the UTF-8 text made for its layout; above
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
    compact_request_body_in_loop(body, &request, options).await
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

/// [`compact_request_body`] on any source: the new body, the result and what the source gives
/// to hand the archive's values back exactly ([`BodySource::originals`]).
pub async fn compact<S: BodySource>(
    mut source: S,
    request: &BodyRequest<'_>,
    options: &CompactOptions<'_>,
) -> Result<(S::Body, TierResult, Option<S::Originals>)> {
    let small = source.text().len() <= READ_FROM_COPY_MAX_BYTES;
    let (layout, values) = layout_with(source.text(), &options.policy.limits(), small)?;
    source.laid_out(&layout.span);
    if !small {
        source.release_text();
    }
    let span = &layout.span;
    let mut messages = match values {
        Some(values) if values.len() == span.elements.len() => values,
        _ => (0..span.elements.len())
            .map(|index| parse_message(&source.message(span, index)))
            .collect::<Result<_>>()?,
    };
    if layout.string_list {
        messages = messages.into_iter().map(one_user_message).collect();
    }
    let input_len = messages.len();
    // What the list's text spans bounds its messages' size as JSON (a plain string list's one
    // message is built here, not read: it is measured).
    let source_bytes = (!layout.string_list).then(|| span.array.len());
    let result = run(&layout, messages, source_bytes, request, options).await?;
    let output = context_messages(&result)?;
    let body = splice_messages(&source, span, input_len, output, &result.origins)?;
    let originals = source.originals(&result);
    Ok((body, result, originals))
}

/// Compacts `messages`, the list of a body laid out as `layout`, read from `source_bytes` bytes
/// of its text (`None`: built here, not read).
async fn run(
    layout: &BodyLayout,
    messages: Vec<Value>,
    source_bytes: Option<usize>,
    request: &BodyRequest<'_>,
    options: &CompactOptions<'_>,
) -> Result<TierResult> {
    let format = format_for(layout, &messages)?;
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
    ctx.server_history = layout.server_history && registry::structured(format)?.string_list;
    if !layout.string_list {
        return crate::engine::compact_read_from(None, ctx, options, source_bytes).await;
    }
    // One user message, the task: nothing to compact, whatever the pressure says.
    let mut result = crate::engine::compact_with_tier_owned(Tier::None, ctx, options).await?;
    result.reason = format!(
        "body.{} is a plain string (one user message): nothing to compact",
        layout.list_key
    );
    Ok(result)
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

#[cfg(test)]
mod tests {
    use super::super::source::Splice;
    use super::super::span::MessagesSpan;
    use super::*;

    const BODY: &str = "{\n  \"model\": \"gpt-4o\",\n  \"messages\": [\n    {\"role\": \"system\", \"content\": \"be brief\"},\n    {\"role\": \"assistant\",   \"content\": \"caf\\u00e9\", \"tool_calls\": [{\"id\": \"c\", \"type\": \"function\", \"function\": {\"name\": \"f\", \"arguments\": \"{}\"}}]},\n    {\"role\": \"tool\", \"tool_call_id\": \"c\", \"content\": \"long body\", \"x\": 1.0},\n    {\"role\": \"user\", \"content\": \"next\"}\n  ],\n  \"temperature\": 0.20\n}\n";

    #[test]
    fn end_to_end_keeps_bytes_outside_messages() {
        let pressure = BudgetPressure::new(1.0, 0.0, 0.0, false).expect("valid pressure");
        let options = CompactOptions::default();
        let (body, result) =
            pollster::block_on(compact_request_body(BODY, "s1", pressure, None, &options))
                .expect("compacts");
        assert_eq!(result.tier, crate::policy::tier::Tier::None);
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

        fn originals(self, result: &TierResult) -> Option<()> {
            self.note("originals".into());
            self.host.originals(result)
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
        let host = CompactOptions {
            counter: Some(&SeedAsHost),
            ..unbatched.clone()
        };
        // Five steps: the two oldest tool results are outside the protected tail.
        let small = tool_body(5, 2000);
        // Tier none (turn 1): nothing changes, and the body comes back as it came.
        let (log, out) = recorded_at(&small, &unbatched, 1.0);
        assert_eq!(log, ["laid out 12", "unchanged", "originals"]);
        assert_eq!(out, small);
        // micro: the messages read in the layout's pass over the text; the edited results are
        // written, the rest copied.
        let stubbed: Vec<String> = ["laid out 12".to_string(), "splice".to_string()]
            .into_iter()
            .chain(
                [0, 1, 3, 5, 6, 7, 8, 9, 10, 11]
                    .into_iter()
                    .map(|index| format!("original {index}")),
            )
            .chain(["finish".to_string(), "originals".to_string()])
            .collect();
        let (log, out) = recorded(&small, &unbatched);
        assert_eq!(log, stubbed);
        assert!(
            out.contains("[tool result body pruned: 2000 chars; recall: a"),
            "{out}"
        );
        // The same with a host counter.
        let (log, _) = recorded(&small, &host);
        assert_eq!(log, stubbed);
        // Large: the text goes first, then each message from the host's string.
        let large = tool_body(500, 8500);
        assert!(large.len() > READ_FROM_COPY_MAX_BYTES);
        let (log, _) = recorded(&large, &host);
        assert_eq!(
            log[..3],
            ["laid out 1002", "release", "message 0 from host"]
        );
        assert!(log.contains(&"message 1001 from host".to_string()));
        assert!(!log.iter().any(|entry| entry.ends_with("from text")));
        // Nothing changed: the body as it came.
        let (log, out) = recorded(BODY, &unbatched);
        assert_eq!(log, ["laid out 4", "unchanged", "originals"]);
        assert_eq!(out, BODY);
    }
}

//! Input limits: the largest context and the deepest JSON nesting a call accepts, checked on
//! plain values (a text, a message list). The engine checks them before the input is read, so an oversized or pathologically nested input is refused
//! with a `RangeError` naming the field and the limit, never a stack overflow or an exhausted
//! memory.
//!
//! Every walk here is iterative (an explicit stack), so measuring a 100,000-level value is as
//! safe as measuring a flat one. The defaults are generous: 32 MiB is the request size the
//! Anthropic Messages API itself accepts (anything larger would be refused by the provider after
//! compaction anyway), and 64 levels is several times what any provider's message shape needs
//! (an Anthropic tool call's input sits at level 4).
//!
//! What a limit cannot prevent: a host that *owns* a deeply nested `serde_json::Value` pays for
//! serde_json's recursive `Drop` (and `Clone`, `PartialEq`, `Display`) when it uses it; see
//! [`drop_iteratively`].

use crate::error::{CompactionError, Result};
use serde_json::Value;
use std::fmt::Write;

/// Default of [`Limits::max_input_bytes`]: 32 MiB.
pub const DEFAULT_MAX_INPUT_BYTES: usize = 32 * 1024 * 1024;
/// Default of [`Limits::max_nesting_depth`]: 64 levels.
pub const DEFAULT_MAX_NESTING_DEPTH: usize = 64;

/// The size and depth limits of one call. `Default` gives 32 MiB and 64 levels.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Largest input accepted, in bytes: UTF-8 bytes of a text context, bytes of the compact JSON
    /// serialisation of a messages context (JS: `policy.maxInputBytes`).
    pub max_input_bytes: usize,
    /// Deepest nesting of objects and arrays accepted inside one message; the message object
    /// itself is level 1 (JS: `policy.maxNestingDepth`).
    pub max_nesting_depth: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            max_input_bytes: DEFAULT_MAX_INPUT_BYTES,
            max_nesting_depth: DEFAULT_MAX_NESTING_DEPTH,
        }
    }
}

impl Limits {
    /// Checks the limits themselves: both at least 1. Errors name the JS option.
    pub fn validate(&self) -> Result<()> {
        for (name, value) in [
            ("maxInputBytes", self.max_input_bytes),
            ("maxNestingDepth", self.max_nesting_depth),
        ] {
            if value == 0 {
                return Err(CompactionError::range_error(
                    name,
                    "must be an integer >= 1, got 0",
                ));
            }
        }
        Ok(())
    }

    /// Checks the size of a string field at `path` (`text`, `body`).
    pub fn check_text(&self, path: &str, text: &str) -> Result<()> {
        self.check_size(path, text.len(), "")
    }

    /// Checks a size a binding measured without copying the input into the core: `bytes` of
    /// the value at `path`, as JSON when `as_json` (the error reads as [`Self::check_text`]'s or
    /// [`Self::check_messages`]' would).
    pub fn check_measured(&self, path: &str, bytes: usize, as_json: bool) -> Result<()> {
        self.check_size(path, bytes, if as_json { " as JSON" } else { "" })
    }

    /// Checks the depth of every message and the size of the whole list as JSON. Depth is
    /// checked first and stops at the first message too deep; the size is exact. Each message is
    /// first bounded by assuming the worst escaping (six bytes a byte); then, message by message,
    /// the bound gives way to the exact length until the sum is within the limit. A list well
    /// under the limit reads no string's bytes, one near it reads only as many as it takes (at
    /// 10 MB against 32 MiB about half; all of them took a third of a `none` call), and one over
    /// it is measured exactly for the error.
    pub fn check_messages(&self, messages: &[Value]) -> Result<()> {
        self.check_messages_read_from(messages, None)
    }

    /// [`Self::check_messages`] for `messages` parsed from `source_bytes` bytes of JSON text (a
    /// request body's message list). Parsing never lengthens what compact JSON writes back, but
    /// for numbers (`1E3` is written `1000.0`): no string is written longer than its source
    /// text, whitespace goes, a repeated key keeps one value. So when the source plus what every
    /// number could grow by (its written length less the one byte its source took at least)
    /// fits the limit, no string is measured: at 10 MB that was 9 % of a `none` call.
    pub fn check_messages_read_from(
        &self,
        messages: &[Value],
        source_bytes: Option<usize>,
    ) -> Result<()> {
        let bounds = self.message_lens(messages, string_len_bound)?;
        let read_from = |source: usize| source as u64 + number_growth(messages);
        if source_bytes.is_some_and(|source| read_from(source) <= self.max_input_bytes as u64) {
            return Ok(());
        }
        let frame = 2 + messages.len().saturating_sub(1) as u64;
        // In u64: what is subtracted below is exactly what was added, even where a bound saturated.
        let mut total = bounds.iter().fold(frame, |sum, &len| sum + len as u64);
        let mut stack = Vec::new();
        for (message, &bound) in messages.iter().zip(&bounds) {
            if total <= self.max_input_bytes as u64 {
                return Ok(());
            }
            let exact = measure_on(&mut stack, message, usize::MAX, string_len).unwrap_or(bound);
            total = total - bound as u64 + exact as u64;
        }
        self.check_size(
            "messages",
            usize::try_from(total).unwrap_or(usize::MAX),
            " as JSON",
        )
    }

    /// The compact JSON length of each of `messages`, with strings measured by `string_len`, or
    /// the error of the first message nested too deep.
    fn message_lens(
        &self,
        messages: &[Value],
        string_len: fn(&str) -> usize,
    ) -> Result<Vec<usize>> {
        // One stack for every message: a fresh one each was an allocation and its growth per
        // message.
        let mut stack = Vec::new();
        let mut lens = Vec::with_capacity(messages.len());
        for (index, message) in messages.iter().enumerate() {
            let measured = measure_on(&mut stack, message, self.max_nesting_depth, string_len)
                .map_err(|too_deep| {
                    CompactionError::range_error(
                        format!("messages[{index}]{too_deep}"),
                        format!(
                            ": nesting deeper than {} levels (maxNestingDepth)",
                            self.max_nesting_depth
                        ),
                    )
                })?;
            lens.push(measured);
        }
        Ok(lens)
    }

    fn check_size(&self, path: &str, bytes: usize, unit: &str) -> Result<()> {
        if bytes > self.max_input_bytes {
            return Err(CompactionError::range_error(
                path,
                format!(
                    ": {bytes} bytes{unit} exceeds maxInputBytes {}",
                    self.max_input_bytes
                ),
            ));
        }
        Ok(())
    }
}

/// The nesting depth of `value`: 0 for a scalar, 1 for a container of scalars, and so on.
/// Iterative: any depth is measured without recursion.
pub fn depth(value: &Value) -> usize {
    let mut deepest = 0;
    let mut stack = vec![(value, 0usize)];
    while let Some((value, above)) = stack.pop() {
        match value {
            Value::Array(items) => {
                deepest = deepest.max(above + 1);
                stack.extend(items.iter().map(|item| (item, above + 1)));
            }
            Value::Object(fields) => {
                deepest = deepest.max(above + 1);
                stack.extend(fields.values().map(|item| (item, above + 1)));
            }
            _ => {}
        }
    }
    deepest
}

/// The length in bytes of `serde_json::to_string(value)`, computed without serialising and
/// without recursion.
pub fn json_len(value: &Value) -> usize {
    measure_on(&mut Vec::new(), value, usize::MAX, string_len).unwrap_or(usize::MAX)
}

/// Drops `value` without recursion. serde_json's own `Drop` recurses once per level: measured
/// with serde_json 1.0.154 in a debug build, about 6,900 levels of nested objects (11,900 of
/// arrays) overflow a 2 MiB thread stack (the test harness's default), about 27,000 (47,000)
/// the 8 MiB main thread; release builds go about 3 to 5 times deeper. A host that owns a value
/// it could not vouch for (one these limits refused, say) can drop it through here.
pub fn drop_iteratively(value: Value) {
    let mut stack = vec![value];
    while let Some(value) = stack.pop() {
        // Only containers go on the stack; scalars drop where they are (a result's list has a
        // `null` left for every message moved out of it).
        match value {
            Value::Array(items) => stack.extend(items.into_iter().filter(is_container)),
            Value::Object(fields) => stack.extend(
                fields
                    .into_iter()
                    .map(|(_, item)| item)
                    .filter(is_container),
            ),
            _ => {}
        }
    }
}

fn is_container(value: &Value) -> bool {
    matches!(value, Value::Array(_) | Value::Object(_))
}

/// The compact JSON length of `root` (strings and keys measured by `string_len`), or — when a
/// container sits deeper than `max_depth` — the path segment of the root's child it sits under,
/// e.g. `.content` or `[0]`. `stack` (left empty when it returns `Ok`) holds `(value, depth
/// above it, index of the root's child it sits under)` of what is still to measure.
fn measure_on<'v>(
    stack: &mut Vec<(&'v Value, usize, Option<usize>)>,
    root: &'v Value,
    max_depth: usize,
    string_len: fn(&str) -> usize,
) -> std::result::Result<usize, String> {
    stack.clear();
    stack.push((root, 0, None));
    let mut bytes = 0usize;
    while let Some((value, above, top)) = stack.pop() {
        let depth = above + 1;
        // Children go on the stack last first, so the first too-deep one in document order
        // is the one reported.
        let child = |(index, item)| (item, depth, top.or(Some(index)));
        let len = match value {
            Value::Null | Value::Bool(true) => 4,
            Value::Bool(false) => 5,
            Value::Number(number) => number_len(number),
            Value::String(text) => string_len(text),
            _ if depth > max_depth => return Err(segment(root, top)),
            Value::Array(items) => {
                stack.extend(items.iter().enumerate().rev().map(child));
                2 + items.len().saturating_sub(1)
            }
            Value::Object(fields) => {
                stack.extend(fields.values().enumerate().rev().map(child));
                2 + fields.len().saturating_sub(1)
                    + fields.keys().map(|key| string_len(key) + 1).sum::<usize>()
            }
        };
        bytes = bytes.saturating_add(len);
    }
    Ok(bytes)
}

/// The most that numbers in `messages` can add to their source's length when written back: each
/// number's written length less the one byte it took at least. Iterative, like [`measure_on`].
fn number_growth(messages: &[Value]) -> u64 {
    let mut stack: Vec<&Value> = messages.iter().collect();
    let mut growth = 0u64;
    while let Some(value) = stack.pop() {
        match value {
            Value::Number(number) => growth += number_len(number).saturating_sub(1) as u64,
            Value::Array(items) => stack.extend(items),
            Value::Object(fields) => stack.extend(fields.values()),
            _ => {}
        }
    }
    growth
}

/// The path segment of the root's child number `top` (`.content`, `["a key"]`, `[0]`); empty
/// when the root itself is too deep.
fn segment(root: &Value, top: Option<usize>) -> String {
    match (root, top) {
        (Value::Array(_), Some(index)) => format!("[{index}]"),
        (Value::Object(fields), Some(index)) => match fields.keys().nth(index) {
            Some(key) if is_identifier(key) => format!(".{key}"),
            // The key as a JSON string; through `compact_json`, not Value's Display, which
            // would keep a second copy of serde_json's serializer in the wasm.
            Some(key) => format!(
                "[{}]",
                crate::base::json::compact_json(&Value::String(key.clone()))
            ),
            None => String::new(),
        },
        _ => String::new(),
    }
}

fn is_identifier(key: &str) -> bool {
    key.chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_' || c == '$')
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$')
}

/// A bound the bytes serde_json writes for `text` never exceed: every byte escaped the longest way.
fn string_len_bound(text: &str) -> usize {
    text.len().saturating_mul(6).saturating_add(2)
}

/// Bytes serde_json writes for `text` as a JSON string, quotes included.
fn string_len(text: &str) -> usize {
    text.len() + crate::base::bytes::json_escape_overhead(text.as_bytes()) + 2
}

/// Bytes serde_json writes for `number`.
fn number_len(number: &serde_json::Number) -> usize {
    struct Count(usize);
    impl Write for Count {
        fn write_str(&mut self, text: &str) -> std::fmt::Result {
            self.0 += text.len();
            Ok(())
        }
    }
    let mut count = Count(0);
    let _ = write!(count, "{number}");
    count.0
}

//! The one internal conversation model every tier works on. Format adapters (`formats/`) read the
//! host's wire format into a [`Transcript`] and apply a tier's [`crate::plan::Plan`] back to it;
//! tiers never see a wire format. A transcript is an outline: roles, tool ids, the text of each
//! block (what tokens are counted on and what summaries are made of) and where each came from.

pub mod binary;
mod char_count;
pub mod counting;
pub mod fingerprint;
pub mod markers;
pub mod pairing;
pub mod protect;
pub mod render;
pub mod steps;
#[cfg(test)]
pub(crate) mod test_builders;

use binary::Binary;
use char_count::CharCount;
use fingerprint::Fingerprint;
use std::borrow::Cow;

/// Who wrote a message, normalised across formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// A system prompt (OpenAI `system`, Anthropic's top-level `system` never appears here).
    System,
    /// An OpenAI `developer` message: treated like a system prompt.
    Developer,
    /// A message of the user. Whether it holds the user's own words is [`Message::has_user_words`].
    User,
    /// The model's turn: text, tool calls, thinking.
    Assistant,
    /// A tool-result message (OpenAI / AI SDK `tool`).
    Tool,
}

/// What a block holds. Its tool ids and names are borrowed from the input where it holds them
/// as strings, as a block's text is (copying them was about 5 % of the allocations of a call on
/// a long run).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BlockKind<'a> {
    /// Prose.
    Text,
    /// A tool call; its arguments (as JSON text) are the block's text.
    ToolCall {
        /// The call id the result refers to.
        id: Cow<'a, str>,
        /// The tool's name.
        name: Cow<'a, str>,
    },
    /// A tool result; its body (text parts joined) is the block's text.
    ToolResult {
        /// The call id this result answers (`None` in flat text, which has no ids).
        id: Option<Cow<'a, str>>,
        /// The tool's name where the format carries it.
        name: Option<String>,
        /// The result is marked as an error.
        is_error: bool,
    },
    /// An image, document or file; the block's text is its data (base64 or URL), or the hash of
    /// a binary value the host keeps ([`Block::binary`]).
    Media {
        /// MIME type where known (`image/png`), else a coarse kind (`image`).
        media_type: String,
        /// The data is inline (base64 / data URI), not a URL reference.
        inline: bool,
    },
    /// Model reasoning (`thinking`, `reasoning`).
    Thinking,
    /// Anything else: kept as is, counted by its JSON text.
    Other,
}

/// One piece of a message's content.
#[derive(Debug, Clone, PartialEq)]
pub struct Block<'a> {
    /// What the block holds.
    pub kind: BlockKind<'a>,
    /// Its text: prose, tool arguments, tool-result body, media data. Borrowed from the input
    /// wherever the input holds it as one string (most of any context), so reading a context
    /// copies none of its content. Changed through [`Self::set_text`] (its code points are
    /// counted once).
    pub text: Cow<'a, str>,
    /// Where it sits inside its message's content: `[]` for a string content, `[2]` for
    /// `content[2]`, `[2, 1]` for media nested in `content[2]` (an image inside a tool result).
    /// Only media is nested: nested text is part of its parent's text.
    pub path: Vec<usize>,
    /// Set when the block's data is a binary value the binding keeps in the host (see
    /// [`crate::api::host_value`]): `text` is then its hash, and it counts as its base64 text (or as
    /// billed: [`crate::media::bill`]).
    pub binary: Option<Binary>,
    /// Media sent with OpenAI's `detail: "low"` (a fixed 85 tokens as OpenAI bills it).
    pub low_detail: bool,
    /// The text's code points, once counted.
    chars: CharCount,
    /// Its tokens, once counted (a call counts with one counter).
    tokens: CharCount,
}

impl BlockKind<'_> {
    /// The kind with its ids and names owned.
    pub fn into_owned(self) -> BlockKind<'static> {
        match self {
            BlockKind::Text => BlockKind::Text,
            BlockKind::ToolCall { id, name } => BlockKind::ToolCall {
                id: Cow::Owned(id.into_owned()),
                name: Cow::Owned(name.into_owned()),
            },
            BlockKind::ToolResult { id, name, is_error } => BlockKind::ToolResult {
                id: id.map(|id| Cow::Owned(id.into_owned())),
                name,
                is_error,
            },
            BlockKind::Media { media_type, inline } => BlockKind::Media { media_type, inline },
            BlockKind::Thinking => BlockKind::Thinking,
            BlockKind::Other => BlockKind::Other,
        }
    }
}

impl<'a> Block<'a> {
    /// A block of `kind` holding `text` at `path`.
    pub fn new(kind: BlockKind<'a>, text: Cow<'a, str>, path: Vec<usize>) -> Self {
        Self {
            kind,
            text,
            path,
            binary: None,
            low_detail: false,
            chars: CharCount::default(),
            tokens: CharCount::default(),
        }
    }

    /// Replaces the text (what it counted goes with it).
    pub fn set_text(&mut self, text: Cow<'a, str>) {
        self.text = text;
        self.chars.clear();
        self.tokens.clear();
    }

    /// The block with its text owned.
    pub fn into_owned(self) -> Block<'static> {
        Block {
            kind: self.kind.into_owned(),
            text: Cow::Owned(self.text.into_owned()),
            path: self.path,
            binary: self.binary,
            low_detail: self.low_detail,
            chars: self.chars,
            tokens: self.tokens,
        }
    }

    /// The text's length in code points.
    pub fn chars(&self) -> usize {
        if let Some(binary) = &self.binary {
            return usize::try_from(binary.base64_len()).unwrap_or(usize::MAX);
        }
        self.text_chars()
    }

    /// The code points of `text` itself, counted once.
    fn text_chars(&self) -> usize {
        self.chars
            .get_or(|| crate::base::bytes::count_chars(&self.text))
    }

    /// The text has a CRLF line end.
    pub fn has_crlf(&self) -> bool {
        self.binary.is_none() && has_crlf(&self.text)
    }

    /// What of the text a correlation id covers.
    pub fn fingerprint(&self) -> Fingerprint<'_> {
        fingerprint::fingerprint_counted(&self.text, || self.text_chars())
    }

    /// The tool-call id this block carries, as a call or as a result.
    pub fn tool_id(&self) -> Option<&str> {
        match &self.kind {
            BlockKind::ToolCall { id, .. } => Some(id),
            BlockKind::ToolResult { id: Some(id), .. } => Some(id),
            _ => None,
        }
    }

    /// Whether the block sits inside another block (media inside a tool result).
    pub fn is_nested(&self) -> bool {
        self.path.len() > 1
    }
}

/// Where a message came from in the host's input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// Index in the host's message array.
    Index(usize),
    /// Byte range `[start, end)` of a segment of a flat-text context (archive locations are
    /// converted to code points by the adapter).
    Span {
        /// Start of the segment, in bytes.
        start: usize,
        /// End of the segment (exclusive), in bytes.
        end: usize,
    },
}

/// One message of the conversation.
#[derive(Debug, Clone, PartialEq)]
pub struct Message<'a> {
    /// Normalised role.
    pub role: Role,
    /// Content blocks, in order (nested parts follow their parent).
    pub blocks: Vec<Block<'a>>,
    /// Where it came from.
    pub source: Source,
    /// An explicit `[age:N]` tag at the start of its text, which overrides the computed age.
    pub explicit_age: Option<u64>,
    /// This message is a summary or digest this library wrote (loop guard, idempotence).
    pub is_library_summary: bool,
    /// This message must stay directly before the one after it: an edit of a range of messages
    /// takes both or neither (an OpenAI Responses `reasoning` item and the item it precedes,
    /// which the API refuses apart).
    pub bound_to_next: bool,
    /// One output item of a model call that the format stores as several list items (OpenAI
    /// Responses: `reasoning`, `message` and `function_call` items). Consecutive assistant items
    /// are one model call, so one step; results may stand after other items of their call.
    pub output_item: bool,
}

impl Message<'_> {
    /// The message with its blocks' text owned.
    pub fn into_owned(self) -> Message<'static> {
        Message {
            role: self.role,
            blocks: self.blocks.into_iter().map(Block::into_owned).collect(),
            source: self.source,
            explicit_age: self.explicit_age,
            is_library_summary: self.is_library_summary,
            bound_to_next: self.bound_to_next,
            output_item: self.output_item,
        }
    }

    /// A user message that holds words of the user, not only tool results (Anthropic carries tool
    /// results in `user` messages; those are the agent's work, not the user's words).
    pub fn has_user_words(&self) -> bool {
        // A summary, digest or bridge this library wrote as a user message is not the user's.
        self.role == Role::User
            && !self.is_library_summary
            && self.blocks.iter().any(|block| {
                !matches!(block.kind, BlockKind::ToolResult { .. }) && !block.is_nested()
            })
    }

    /// A system or developer prompt.
    pub fn is_system(&self) -> bool {
        matches!(self.role, Role::System | Role::Developer)
    }

    /// The message carries tool calls or tool results.
    pub fn has_tool_blocks(&self) -> bool {
        self.blocks.iter().any(|block| {
            matches!(
                block.kind,
                BlockKind::ToolCall { .. } | BlockKind::ToolResult { .. }
            )
        })
    }
}

/// Which wire format a transcript was read from. Names, readers and writers are registered in
/// `crate::formats::registry`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// OpenAI Chat Completions messages.
    OpenAi,
    /// Anthropic Messages API messages.
    Anthropic,
    /// Vercel AI SDK `ModelMessage`s.
    AiSdk,
    /// OpenAI Responses API `input` items.
    Responses,
    /// Gemini `contents`.
    Gemini,
    /// The seed's flat text.
    Text,
}

/// A conversation in the internal model.
#[derive(Debug, Clone, PartialEq)]
pub struct Transcript<'a> {
    /// The format it was read from.
    pub format: Format,
    /// Messages in order.
    pub messages: Vec<Message<'a>>,
}

impl Transcript<'_> {
    /// The transcript with every block's text owned.
    pub fn into_owned(self) -> Transcript<'static> {
        Transcript {
            format: self.format,
            messages: self.messages.into_iter().map(Message::into_owned).collect(),
        }
    }

    /// Index of the first message with user words (the task), if any.
    pub fn task_index(&self) -> Option<usize> {
        self.messages.iter().position(Message::has_user_words)
    }

    /// Index of the newest message with user words: the latest turn starts there.
    pub fn latest_turn_start(&self) -> Option<usize> {
        self.messages.iter().rposition(Message::has_user_words)
    }

    /// Age of each message in turns: the number of newer user-word messages, or its explicit
    /// `[age:N]` tag. Turn boundaries are user-word messages, so a turn's agent blocks share its age.
    pub fn ages(&self) -> Vec<u64> {
        let mut ages = vec![0; self.messages.len()];
        let mut newer_turns = 0u64;
        for (index, message) in self.messages.iter().enumerate().rev() {
            ages[index] = message.explicit_age.unwrap_or(newer_turns);
            if message.has_user_words() {
                newer_turns += 1;
            }
        }
        ages
    }
}

/// Whether `text` has a CR LF line end (one fast byte search settles most texts).
pub fn has_crlf(text: &str) -> bool {
    text.as_bytes().contains(&b'\r') && text.contains("\r\n")
}

/// Parses an explicit `[age:N]` tag at the start of `text` (leading whitespace allowed).
pub fn parse_age_tag(text: &str) -> Option<u64> {
    let rest = text.trim_start().strip_prefix("[age:")?;
    let end = rest.find(']')?;
    let digits = &rest[..end];
    if digits.is_empty() || digits.len() > 18 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn age_tags() {
        assert_eq!(parse_age_tag("[age:12] very old"), Some(12));
        assert_eq!(parse_age_tag("   [age:3]x"), Some(3));
        assert_eq!(parse_age_tag("[age:] x"), None);
        assert_eq!(parse_age_tag("[age:-1] x"), None);
        assert_eq!(parse_age_tag("x [age:1]"), None);
    }
}

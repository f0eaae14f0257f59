//! The read side the JSON adapters share: content walked part by part ([`content_blocks`],
//! [`parts_with_results`]) and the blocks parts become. Each adapter says only what its parts are.

use super::common::{
    Content, Object, Path, content_of, data_uri_media_type, object_at, optional_str, required_str,
};
use crate::base::json::compact_json;
use crate::error::Result;
use crate::transcript::{Block, BlockKind, Message, Role, Source};
use serde_json::Value;
use std::borrow::Cow;

/// A part of a content list as the walk ([`content_blocks`]) hands it to a format: the value, as
/// an object, its `type`, where it is (`messages[3].content[1]`) and its index in the list.
#[derive(Clone, Copy)]
pub(crate) struct Part<'v, 'p> {
    pub value: &'v Value,
    pub object: &'v Object,
    pub kind: &'v str,
    pub path: &'p Path<'p>,
    pub index: usize,
}

/// The blocks of `object.content` (see [`content_of`]): a string is one text block, nothing is
/// none, and each part of a list (an object with a `type`) pushes its blocks through `part` (a
/// tool result its nested media after itself).
pub(crate) fn content_blocks<'v>(
    object: &'v Object,
    path: &Path<'_>,
    absent_ok: bool,
    mut part: impl FnMut(Part<'v, '_>, &mut Vec<Block<'v>>) -> Result<()>,
) -> Result<Vec<Block<'v>>> {
    match content_of(object, path, absent_ok)? {
        Content::Text(text) => Ok(string_content(text)),
        Content::Parts(parts) => {
            let mut blocks = Vec::with_capacity(parts.len());
            each_part(parts, path, "content", |at| part(at, &mut blocks))?;
            Ok(blocks)
        }
        Content::Absent => Ok(Vec::new()),
    }
}

/// Each part of `list`, the array at `<path>.<field>`, as a [`Part`] to `each` (a part that is not
/// an object with a `type` is an error naming it).
pub(crate) fn each_part<'v>(
    list: &'v [Value],
    path: &Path<'_>,
    field: &str,
    mut each: impl FnMut(Part<'v, '_>) -> Result<()>,
) -> Result<()> {
    for (index, value) in list.iter().enumerate() {
        let path = path.item(field, index);
        let object = object_at(value, &path)?;
        let kind = required_str(object, &path, "type")?;
        each(Part {
            value,
            object,
            kind,
            path: &path,
            index,
        })?;
    }
    Ok(())
}

/// The walk of a content list whose tool results carry nested media (Anthropic's `tool_result`,
/// the AI SDK's `tool-result`): a part of type `result_type` gives its result and the media nested
/// in it (`result`), any other part its one block (`block`).
pub(crate) fn parts_with_results<'v>(
    object: &'v Object,
    path: &Path<'_>,
    result_type: &str,
    result: fn(&Part<'v, '_>) -> Result<Vec<Block<'v>>>,
    block: fn(&Part<'v, '_>) -> Result<Block<'v>>,
) -> Result<Vec<Block<'v>>> {
    content_blocks(object, path, false, |part, blocks| {
        if part.kind == result_type {
            blocks.extend(result(&part)?);
        } else {
            blocks.push(block(&part)?);
        }
        Ok(())
    })
}

/// A media block for data that may be a `data:` URI, a URL or bare base64.
pub(crate) fn media_block<'v>(
    data: &'v str,
    media_type: Option<&str>,
    fallback: &str,
    path: Vec<usize>,
) -> Block<'v> {
    let is_url = data.starts_with("http://") || data.starts_with("https://");
    let media_type = media_type.or_else(|| data_uri_media_type(data));
    let data = Cow::Borrowed(data);
    media(media_type.unwrap_or(fallback), !is_url, data, path)
}

/// A text block of the required string field `field` (a part's `text`, a refusal's `refusal`).
pub(crate) fn text_field<'v>(
    object: &'v Object,
    path: &Path<'_>,
    field: &str,
    block_path: Vec<usize>,
) -> Result<Block<'v>> {
    let text = required_str(object, path, field)?;
    Ok(Block::new(BlockKind::Text, Cow::Borrowed(text), block_path))
}

/// A thinking block of the string field `field`, empty when there is none (redacted thinking
/// may carry its data elsewhere).
pub(crate) fn thinking_field<'v>(object: &'v Object, field: &str, at: Vec<usize>) -> Block<'v> {
    let text = optional_str(object, field).unwrap_or_default();
    Block::new(BlockKind::Thinking, Cow::Borrowed(text), at)
}

/// A media block: data of `media_type`, inline or a reference (a URL, a file id).
pub(crate) fn media<'v>(
    media_type: impl Into<String>,
    inline: bool,
    data: Cow<'v, str>,
    path: Vec<usize>,
) -> Block<'v> {
    let media_type = media_type.into();
    Block::new(BlockKind::Media { media_type, inline }, data, path)
}

/// Inline file data, a `data:` URI or bare base64, of the URI's media type (else `file`).
pub(crate) fn file_data(data: &str, path: Vec<usize>) -> Block<'_> {
    let media_type = data_uri_media_type(data).unwrap_or("file");
    media(media_type, true, Cow::Borrowed(data), path)
}

/// The media type of OpenAI's `input_audio` of `format` (`wav`): `audio/wav`, else `audio`.
pub(crate) fn audio_type(format: Option<&str>) -> String {
    format.map_or_else(|| "audio".into(), |format| format!("audio/{format}"))
}

/// A tool call's block: its id, its name and its input's text.
pub(crate) fn call_block<'v>(
    id: &'v str,
    name: &'v str,
    input: Cow<'v, str>,
    path: Vec<usize>,
) -> Block<'v> {
    let (id, name) = (Cow::Borrowed(id), Cow::Borrowed(name));
    Block::new(BlockKind::ToolCall { id, name }, input, path)
}

/// A tool result's block: its call's id, the tool's name where the format gives it, the error flag.
pub(crate) fn result_block<'v>(
    (id, name, is_error): (&'v str, Option<String>, bool),
    text: Cow<'v, str>,
    path: Vec<usize>,
) -> Block<'v> {
    let id = Some(Cow::Borrowed(id));
    Block::new(BlockKind::ToolResult { id, name, is_error }, text, path)
}

/// A tool result's body as its items give it: their texts joined by newlines (one text as it
/// is: most bodies are one string), and its media as blocks nested after the result's.
#[derive(Default)]
pub(crate) struct ResultBody<'v> {
    text: Option<Cow<'v, str>>,
    nested: Vec<Block<'v>>,
}

impl<'v> ResultBody<'v> {
    /// A body of one text.
    pub(crate) fn of(text: Cow<'v, str>) -> Self {
        Self {
            text: Some(text),
            nested: Vec::new(),
        }
    }

    /// Adds the text of an item.
    pub(crate) fn text(&mut self, text: Cow<'v, str>) {
        self.text = Some(match self.text.take() {
            None => text,
            Some(before) => {
                let mut joined = before.into_owned();
                joined.push('\n');
                joined.push_str(&text);
                Cow::Owned(joined)
            }
        });
    }

    /// Adds an item read as `block`: media is nested; anything else counts as body text.
    pub(crate) fn item(&mut self, block: Block<'v>) {
        match block.kind {
            BlockKind::Media { .. } => self.nested.push(block),
            _ => self.text(block.text),
        }
    }

    /// Adds the items of `list`, the array at `<path>.<field>`: those `media` reads as a block
    /// by [`Self::item`], a `text` item by its text, any other by its JSON.
    pub(crate) fn items(
        &mut self,
        list: &'v [Value],
        path: &Path<'_>,
        field: &str,
        mut media: impl FnMut(&Part<'v, '_>) -> Result<Option<Block<'v>>>,
    ) -> Result<()> {
        each_part(list, path, field, |item| {
            match media(&item)? {
                Some(block) => self.item(block),
                None if item.kind == "text" => {
                    self.text(Cow::Borrowed(required_str(item.object, item.path, "text")?));
                }
                None => self.text(Cow::Owned(compact_json(item.value))),
            }
            Ok(())
        })
    }

    /// The result's block (`result`: its id, tool name and error flag) at `path`, then the media.
    pub(crate) fn blocks(
        self,
        result: (&'v str, Option<String>, bool),
        path: Vec<usize>,
    ) -> Vec<Block<'v>> {
        let text = self.text.unwrap_or_default();
        let mut blocks = Vec::with_capacity(1 + self.nested.len());
        blocks.push(result_block(result, text, path));
        blocks.extend(self.nested);
        blocks
    }
}

/// The body of a tool result whose `object.content` (see [`content_of`]) is its body: a string,
/// or parts read by [`ResultBody::items`].
pub(crate) fn content_body<'v>(
    object: &'v Object,
    path: &Path<'_>,
    absent_ok: bool,
    media: impl FnMut(&Part<'v, '_>) -> Result<Option<Block<'v>>>,
) -> Result<ResultBody<'v>> {
    let mut body = ResultBody::default();
    match content_of(object, path, absent_ok)? {
        Content::Text(text) => body.text(Cow::Borrowed(text)),
        Content::Parts(parts) => body.items(parts, path, "content", media)?,
        Content::Absent => {}
    }
    Ok(body)
}

/// A part kept as it is and counted by its JSON text.
pub(crate) fn other_block(part: &Value, path: Vec<usize>) -> Block<'static> {
    Block::new(BlockKind::Other, Cow::Owned(compact_json(part)), path)
}

/// The blocks of a plain-string content: one text block at path `[]`.
pub(crate) fn string_content(text: &str) -> Vec<Block<'_>> {
    vec![Block::new(BlockKind::Text, Cow::Borrowed(text), Vec::new())]
}

/// The finished message: its explicit age and library-summary flag come from its first text block.
pub(crate) fn finish_message(role: Role, blocks: Vec<Block<'_>>, index: usize) -> Message<'_> {
    let first_text = blocks
        .iter()
        .find(|block| block.kind == BlockKind::Text)
        .map(|block| &*block.text);
    Message {
        role,
        explicit_age: first_text.and_then(crate::transcript::parse_age_tag),
        is_library_summary: first_text.is_some_and(crate::transcript::markers::is_library_text),
        blocks,
        source: Source::Index(index),
        bound_to_next: false,
        output_item: false,
    }
}

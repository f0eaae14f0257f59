//! What the harness compares: a transcript, an applied plan and an error, each written as JSON
//! (the form the expected files hold), and the edits a fixture names, read from JSON.

use serde_json::{Map, Value, json};
use tiered_compaction::CompactionError;
use tiered_compaction::api::result::ArchiveEntry;
use tiered_compaction::formats::Applied;
use tiered_compaction::plan::{ArchiveKind, Edit};
use tiered_compaction::transcript::pairing;
use tiered_compaction::transcript::steps::Steps;
use tiered_compaction::transcript::{Block, BlockKind, Format, Message, Source, Transcript};

/// A transcript as the expected `read.json` holds it: every message with its role, flags and
/// blocks, then what the rest of the library derives from it (pairing, steps, repairs).
/// `text` is the flat text a text transcript's spans point into.
pub fn transcript(transcript: &Transcript, text: Option<&str>) -> Value {
    let steps = Steps::of(transcript);
    let messages: Vec<Value> = transcript
        .messages
        .iter()
        .enumerate()
        .map(|(index, message)| {
            let step = steps.of.get(index).copied().flatten();
            self::message(message, index, step, text)
        })
        .collect();
    let mut doc = Map::new();
    doc.insert(
        "format".into(),
        json!(tiered_compaction::formats::registry::name(
            transcript.format
        )),
    );
    doc.insert("messages".into(), Value::Array(messages));
    if transcript.format != Format::Text {
        doc.insert("steps".into(), json!(steps.starts));
        doc.insert("paired_ids".into(), json!(pairing::paired_ids(transcript)));
        doc.insert(
            "misplaced_results".into(),
            json!(pairing::misplaced_results(transcript)),
        );
        let faults: Vec<String> = tiered_compaction::repair::find_with(transcript, false)
            .faults
            .iter()
            .map(ToString::to_string)
            .collect();
        doc.insert("repair_faults".into(), json!(faults));
    }
    Value::Object(doc)
}

fn message(message: &Message, index: usize, step: Option<usize>, text: Option<&str>) -> Value {
    let mut out = Map::new();
    // `system`, `developer`, `user`, `assistant`, `tool`.
    let role = format!("{:?}", message.role).to_lowercase();
    out.insert("role".into(), json!(role));
    match (&message.source, text) {
        (Source::Span { start, end }, Some(text)) => {
            out.insert("piece".into(), json!(text.get(*start..*end)));
        }
        (Source::Index(at), _) if *at == index => {}
        (source, _) => {
            out.insert("source".into(), json!(format!("{source:?}")));
        }
    }
    let flags = [
        ("library_summary", message.is_library_summary),
        ("bound_to_next", message.bound_to_next),
        ("output_item", message.output_item),
        ("user_words", message.has_user_words()),
        ("result_carrier", pairing::is_result_carrier(message)),
    ];
    if let Some(age) = message.explicit_age {
        out.insert("age".into(), json!(age));
    }
    if let Some(step) = step {
        out.insert("step".into(), json!(step));
    }
    for (name, set) in flags {
        if set {
            out.insert(name.into(), Value::Bool(true));
        }
    }
    out.insert(
        "blocks".into(),
        Value::Array(message.blocks.iter().map(block).collect()),
    );
    Value::Object(out)
}

/// A block: its kind and what the kind carries, its path, its text.
fn block(block: &Block) -> Value {
    let mut out = Map::new();
    let kind = match &block.kind {
        BlockKind::Text => "text",
        BlockKind::Thinking => "thinking",
        BlockKind::Other => "other",
        BlockKind::ToolCall { id, name } => {
            out.insert("id".into(), json!(id));
            out.insert("name".into(), json!(name));
            "tool_call"
        }
        BlockKind::ToolResult { id, name, is_error } => {
            out.insert("id".into(), json!(id));
            if let Some(name) = name {
                out.insert("name".into(), json!(name));
            }
            if *is_error {
                out.insert("is_error".into(), Value::Bool(true));
            }
            "tool_result"
        }
        BlockKind::Media { media_type, inline } => {
            out.insert("media_type".into(), json!(media_type));
            out.insert("inline".into(), json!(inline));
            if block.low_detail {
                out.insert("low_detail".into(), Value::Bool(true));
            }
            "media"
        }
    };
    let mut ordered = Map::new();
    ordered.insert("kind".into(), json!(kind));
    ordered.extend(out);
    ordered.insert("path".into(), json!(block.path));
    ordered.insert("text".into(), json!(block.text));
    Value::Object(ordered)
}

/// An applied plan: the output (messages or text), the archive, and the output read again.
pub fn applied<T: Into<Value>>(applied: Applied<T>, reread: Value) -> Map<String, Value> {
    let mut out = Map::new();
    out.insert("output".into(), applied.output.into());
    out.insert(
        "archive".into(),
        Value::Array(applied.archive.iter().map(entry).collect()),
    );
    out.insert("reread".into(), reread);
    out
}

fn entry(entry: &ArchiveEntry) -> Value {
    let mut out = Map::new();
    if !entry.id.is_empty() {
        out.insert("id".into(), json!(entry.id));
    }
    out.insert("kind".into(), json!(entry.kind));
    out.insert("location".into(), json!(entry.location));
    out.insert("content".into(), entry.content.clone());
    out.insert("replacement".into(), json!(entry.replacement));
    Value::Object(out)
}

/// An error as the expected files hold it: its kind and its message.
pub fn error(error: &CompactionError) -> Value {
    json!({"kind": kind(error.kind), "message": error.to_string()})
}

/// The edits of a fixture: `{"replace_block": [message, block], "text", "kind"}`,
/// `{"replace_messages": [start, end], "text" (or null), "kind", "is_summary"}`,
/// `{"rewrite_messages": [start, end], "drop": [[message, block], ...], "kind", "note"}`.
pub fn edits(value: &Value) -> Result<Vec<Edit>, String> {
    let list = value.as_array().ok_or("\"edits\" must be an array")?;
    list.iter().map(edit).collect()
}

fn edit(value: &Value) -> Result<Edit, String> {
    let pair = |key: &str| -> Option<(usize, usize)> {
        let pair = value.get(key)?.as_array()?;
        Some((
            pair.first()?.as_u64()? as usize,
            pair.get(1)?.as_u64()? as usize,
        ))
    };
    let kind = value
        .get("kind")
        .and_then(Value::as_str)
        .ok_or_else(|| format!("edit {value}: \"kind\" is required"))?;
    let kind = ArchiveKind::parse(kind, "kind").map_err(|error| error.to_string())?;
    let text = || {
        value
            .get("text")
            .and_then(Value::as_str)
            .map(str::to_string)
    };
    if let Some((message, block)) = pair("replace_block") {
        let text = text().ok_or_else(|| format!("edit {value}: \"text\" is required"))?;
        return Ok(Edit::ReplaceBlock {
            message,
            block,
            text,
            kind,
        });
    }
    if let Some((start, end)) = pair("replace_messages") {
        return Ok(Edit::ReplaceMessages {
            range: start..end,
            text: text(),
            kind,
            is_summary: value.get("is_summary") == Some(&Value::Bool(true)),
        });
    }
    if let Some((start, end)) = pair("rewrite_messages") {
        let drop = value
            .get("drop")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|pair| {
                Some((
                    pair.get(0)?.as_u64()? as usize,
                    pair.get(1)?.as_u64()? as usize,
                ))
            })
            .collect();
        let note = value
            .get("note")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string();
        return Ok(Edit::RewriteMessages {
            range: start..end,
            drop,
            kind,
            note,
        });
    }
    Err(format!(
        "edit {value}: one of \"replace_block\", \"replace_messages\", \"rewrite_messages\""
    ))
}

fn kind(kind: tiered_compaction::ErrorKind) -> &'static str {
    match kind {
        tiered_compaction::ErrorKind::Type => "type",
        tiered_compaction::ErrorKind::Range => "range",
        tiered_compaction::ErrorKind::Parse => "parse",
        tiered_compaction::ErrorKind::Callback => "callback",
        _ => "other",
    }
}

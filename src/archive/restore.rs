//! `restore`: the input again, from a result's output and its archive (invariant 2: nothing a
//! tier removes is unrecoverable). Entries are undone last to first. A message-range entry
//! (`messages[a..b]`) puts its messages back where its replacement stands; a block entry
//! (`messages[i].content[k]...`) puts its value back at its path; a text entry (`text[a..b]`,
//! code points) puts its substring back. Locations refer to the input of the plan that made the
//! entry: a plan's entries are consecutive and, where they replace ranges, share one kind, so
//! entries are undone plan by plan (runs of one kind). A chain of results restores step by step:
//! restore the newest result, then the one before it on that, and so on.

use crate::api::result::{ArchiveEntry, ContextData};
use crate::error::{CompactionError, Result};
use serde_json::Value;

/// The input of the call that gave `output` and `archive`.
pub fn restore(output: &ContextData, archive: &[ArchiveEntry]) -> Result<ContextData> {
    Ok(match output {
        ContextData::Text(text) => ContextData::Text(restore_text(text, archive)?),
        ContextData::Messages(messages) => {
            ContextData::Messages(restore_messages(messages.clone(), archive)?)
        }
    })
}

fn bad_location(index: usize, problem: &str) -> CompactionError {
    CompactionError::type_error(format!("archive[{index}].location"), problem.to_string())
}

fn bad_content(index: usize, problem: &str) -> CompactionError {
    CompactionError::type_error(format!("archive[{index}].content"), problem.to_string())
}

/// `a..b` (or `a`, meaning `a..a+1`) inside `prefix[...]` at the start of `location`.
fn range(location: &str, prefix: &str, index: usize) -> Result<(usize, usize)> {
    let inner = location
        .strip_prefix(prefix)
        .and_then(|rest| rest.strip_prefix('['))
        .and_then(|rest| rest.split(']').next())
        .ok_or_else(|| bad_location(index, &format!("must start with {prefix}[")))?;
    let number = |text: &str| {
        text.parse::<usize>()
            .map_err(|_| bad_location(index, "has a range that is not two indices"))
    };
    match inner.split_once("..") {
        Some((a, b)) if number(a)? <= number(b)? => Ok((number(a)?, number(b)?)),
        Some(_) => Err(bad_location(
            index,
            "has a range that ends before it starts",
        )),
        None => Ok((number(inner)?, number(inner)? + 1)),
    }
}

fn restore_text(text: &str, archive: &[ArchiveEntry]) -> Result<String> {
    let mut chars: Vec<char> = text.chars().collect();
    // The archive's plans (runs of entries of one kind, with their indices), newest first.
    let entries: Vec<_> = archive.iter().enumerate().collect();
    for plan in entries.chunk_by(|(_, a), (_, b)| a.kind == b.kind).rev() {
        // Where each replacement stands in the output: its input start shifted by the growth
        // of the entries before it in the same plan.
        let mut shift: isize = 0;
        let mut placed = Vec::with_capacity(plan.len());
        for &(index, entry) in plan {
            let (a, b) = range(&entry.location, "text", index)?;
            let replacement = entry.replacement.chars().count();
            placed.push((a as isize + shift, replacement, index, entry));
            shift += replacement as isize - (b - a) as isize;
        }
        for (start, replacement, index, entry) in placed.into_iter().rev() {
            let content = entry
                .content
                .as_str()
                .ok_or_else(|| bad_content(index, "must be a string for a text context"))?;
            let start =
                usize::try_from(start).map_err(|_| bad_location(index, "is out of range"))?;
            let end = start + replacement;
            let stands: Option<String> = chars.get(start..end).map(|c| c.iter().collect());
            if stands.as_deref() != Some(entry.replacement.as_str()) {
                return Err(bad_location(
                    index,
                    "does not hold the entry's replacement in this text (restore the newest result first)",
                ));
            }
            chars.splice(start..end, content.chars());
        }
    }
    Ok(chars.into_iter().collect())
}

fn restore_messages(mut out: Vec<Value>, archive: &[ArchiveEntry]) -> Result<Vec<Value>> {
    // The archive's plans (runs of entries of one kind, with their indices), newest first.
    let entries: Vec<_> = archive.iter().enumerate().collect();
    for plan in entries.chunk_by(|(_, a), (_, b)| a.kind == b.kind).rev() {
        let mut shift: isize = 0;
        let mut placed = Vec::with_capacity(plan.len());
        for &(index, entry) in plan {
            if is_range(&entry.location) {
                let (a, b) = range(&entry.location, "messages", index)?;
                let inserted = usize::from(!entry.replacement.is_empty());
                placed.push((Some(a as isize + shift), inserted, index, entry));
                shift += inserted as isize - (b - a) as isize;
            } else {
                placed.push((None, 0, index, entry));
            }
        }
        for (start, inserted, index, entry) in placed.into_iter().rev() {
            match start {
                Some(start) => {
                    let removed = entry.content.as_array().ok_or_else(|| {
                        bad_content(index, "must be an array of messages for a message range")
                    })?;
                    let start = usize::try_from(start)
                        .ok()
                        .filter(|start| start + inserted <= out.len())
                        .ok_or_else(|| bad_location(index, "is out of range"))?;
                    out.splice(start..start + inserted, removed.iter().cloned());
                }
                None => set_path(&mut out, &entry.location, entry.content.clone(), index)?,
            }
        }
    }
    Ok(out)
}

fn is_range(location: &str) -> bool {
    location.starts_with("messages[") && !location.contains('.') || location.contains("..")
}

/// Sets the value at `messages[i].key[k]...`.
fn set_path(messages: &mut [Value], location: &str, value: Value, index: usize) -> Result<()> {
    let (message, _) = range(location, "messages", index)?;
    let rest = location
        .find(']')
        .map(|at| &location[at + 1..])
        .unwrap_or_default();
    let mut target = messages
        .get_mut(message)
        .ok_or_else(|| bad_location(index, "names a message the output does not have"))?;
    for segment in segments(rest).ok_or_else(|| bad_location(index, "is not a field path"))? {
        target = match segment {
            Segment::Key(key) => target
                .as_object_mut()
                .and_then(|object| object.get_mut(key))
                .ok_or_else(|| bad_location(index, "names a field the output does not have"))?,
            Segment::Index(at) => target
                .get_mut(at)
                .ok_or_else(|| bad_location(index, "names an item the output does not have"))?,
        };
    }
    *target = value;
    Ok(())
}

enum Segment<'a> {
    Key(&'a str),
    Index(usize),
}

fn segments(path: &str) -> Option<Vec<Segment<'_>>> {
    let mut out = Vec::new();
    let mut rest = path;
    while !rest.is_empty() {
        if let Some(after) = rest.strip_prefix('.') {
            let end = after.find(['.', '[']).unwrap_or(after.len());
            out.push(Segment::Key(&after[..end]));
            rest = &after[end..];
        } else {
            let after = rest.strip_prefix('[')?;
            let end = after.find(']')?;
            out.push(Segment::Index(after[..end].parse().ok()?));
            rest = &after[end + 1..];
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn entry(
        kind: &'static str,
        location: &str,
        content: Value,
        replacement: &str,
    ) -> ArchiveEntry {
        ArchiveEntry {
            id: "a0".into(),
            kind,
            content,
            location: location.into(),
            replacement: replacement.into(),
        }
    }

    #[test]
    fn undoes_blocks_ranges_and_text() {
        let output = ContextData::Messages(vec![
            json!({"role": "user", "content": "go"}),
            json!({"role": "assistant", "content": "[digest]"}),
            json!({"role": "tool", "tool_call_id": "c2", "content": "stub"}),
        ]);
        let archive = vec![
            entry(
                "tool_result",
                "messages[3].content",
                json!("long body"),
                "stub",
            ),
            entry(
                "run",
                "messages[1..3]",
                json!([{"a": 1}, {"b": 2}]),
                "[digest]",
            ),
        ];
        let restored = restore(&output, &archive).unwrap();
        assert_eq!(
            restored,
            ContextData::Messages(vec![
                json!({"role": "user", "content": "go"}),
                json!({"a": 1}),
                json!({"b": 2}),
                json!({"role": "tool", "tool_call_id": "c2", "content": "long body"}),
            ])
        );
        let text = ContextData::Text("ab[x]cd".into());
        let archive = vec![entry("turn", "text[2..6]", json!("long"), "[x]")];
        assert_eq!(
            restore(&text, &archive).unwrap(),
            ContextData::Text("ablongcd".into())
        );
    }

    #[test]
    fn a_foreign_archive_is_an_error_naming_the_entry() {
        let text = ContextData::Text("abc".into());
        let archive = vec![entry("turn", "text[1..2]", json!("x"), "[not here]")];
        let error = restore(&text, &archive).unwrap_err();
        assert_eq!(error.path, "archive[0].location");
        let messages = ContextData::Messages(vec![json!({"role": "user"})]);
        let archive = vec![entry("tool_result", "messages[4].content", json!("x"), "y")];
        assert_eq!(
            restore(&messages, &archive).unwrap_err().path,
            "archive[0].location"
        );
    }
}

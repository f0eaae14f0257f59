//! Restores a tier's input from its output and archive, the way a host would: entries are undone
//! last to first; a message-range entry (`messages[a..b]`) puts its messages back where its
//! replacement stands, a block entry (`messages[i].content[k]...`) puts its value back at its
//! path, a text entry (`text[a..b]`, code points of that step's input) puts its substring back.
//! Entries of one step are consecutive and share a kind; locations refer to that step's input.

use serde_json::Value;
use tiered_compaction::{ArchiveEntry, ContextData};

/// The input, rebuilt from `output` and `archive`.
pub fn restore(output: &ContextData, archive: &[ArchiveEntry]) -> ContextData {
    match output {
        ContextData::Text(text) => ContextData::Text(restore_text(text, archive)),
        ContextData::Messages(messages) => {
            ContextData::Messages(restore_messages(messages, archive))
        }
    }
}

fn steps(archive: &[ArchiveEntry]) -> Vec<&[ArchiveEntry]> {
    archive.chunk_by(|a, b| a.kind == b.kind).collect()
}

fn range(location: &str, prefix: &str) -> (usize, usize) {
    let inner = location
        .strip_prefix(prefix)
        .and_then(|rest| rest.strip_prefix('['))
        .and_then(|rest| rest.split(']').next())
        .unwrap_or_else(|| panic!("bad location {location}"));
    match inner.split_once("..") {
        Some((a, b)) => (a.parse().unwrap(), b.parse().unwrap()),
        None => {
            let a: usize = inner.parse().unwrap();
            (a, a + 1)
        }
    }
}

fn restore_text(text: &str, archive: &[ArchiveEntry]) -> String {
    let mut chars: Vec<char> = text.chars().collect();
    for step in steps(archive).into_iter().rev() {
        // Output position of each entry's replacement: its input start shifted by the growth of
        // the entries before it in the same step.
        let mut shift: isize = 0;
        let mut placed = Vec::new();
        for entry in step {
            let (a, b) = range(&entry.location, "text");
            let replacement = entry.replacement.chars().count();
            placed.push(((a as isize + shift) as usize, replacement, entry));
            shift += replacement as isize - (b - a) as isize;
        }
        for (start, replacement, entry) in placed.into_iter().rev() {
            let content: Vec<char> = entry
                .content
                .as_str()
                .expect("text archive holds strings")
                .chars()
                .collect();
            let replaced: String = chars[start..start + replacement].iter().collect();
            assert_eq!(
                replaced, entry.replacement,
                "replacement of {} not where expected",
                entry.id
            );
            chars.splice(start..start + replacement, content);
        }
    }
    chars.into_iter().collect()
}

fn restore_messages(messages: &[Value], archive: &[ArchiveEntry]) -> Vec<Value> {
    let mut out = messages.to_vec();
    for step in steps(archive).into_iter().rev() {
        let mut shift: isize = 0;
        let mut placed = Vec::new();
        for entry in step {
            if is_range(&entry.location) {
                let (a, b) = range(&entry.location, "messages");
                let inserted = usize::from(!entry.replacement.is_empty());
                placed.push(((a as isize + shift) as usize, inserted, entry));
                shift += inserted as isize - (b - a) as isize;
            } else {
                placed.push((0, 0, entry));
            }
        }
        for (start, inserted, entry) in placed.into_iter().rev() {
            if is_range(&entry.location) {
                let removed = entry
                    .content
                    .as_array()
                    .expect("message entries hold arrays")
                    .clone();
                out.splice(start..start + inserted, removed);
            } else {
                set_path(&mut out, &entry.location, entry.content.clone());
            }
        }
    }
    out
}

fn is_range(location: &str) -> bool {
    location.starts_with("messages[") && !location.contains('.') || location.contains("..")
}

/// Sets the value at `messages[i].key[k]...`.
fn set_path(messages: &mut [Value], location: &str, value: Value) {
    let (index, rest) = {
        let (a, _) = range(location, "messages");
        let rest = &location[location.find(']').unwrap() + 1..];
        (a, rest)
    };
    let mut target = &mut messages[index];
    for segment in segments(rest) {
        target = match segment {
            Segment::Key(key) => &mut target[key.as_str()],
            Segment::Index(i) => &mut target[i],
        };
    }
    *target = value;
}

enum Segment {
    Key(String),
    Index(usize),
}

fn segments(path: &str) -> Vec<Segment> {
    let mut out = Vec::new();
    let mut rest = path;
    while !rest.is_empty() {
        if let Some(after) = rest.strip_prefix('.') {
            let end = after.find(['.', '[']).unwrap_or(after.len());
            out.push(Segment::Key(after[..end].to_string()));
            rest = &after[end..];
        } else if let Some(after) = rest.strip_prefix('[') {
            let end = after.find(']').expect("closing bracket");
            out.push(Segment::Index(after[..end].parse().expect("index")));
            rest = &after[end + 1..];
        } else {
            panic!("bad path {path}");
        }
    }
    out
}

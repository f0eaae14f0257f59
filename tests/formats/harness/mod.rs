//! The fixture harness: every folder `tests/fixtures/formats/<format>/<case>/` is one case of
//! the format whose option name is `<format>` (`registry::by_name`), run through the public API.
//!
//! A case holds its input (`input.json`, a message list; `input.txt` for flat text) and what is
//! expected of it:
//! - `read.json`: the input read (`render::transcript`; flat text with its token estimate);
//!   every case has one;
//! - `sections.json` (flat text): the input read into sections (`text::read_sections`);
//! - `apply/<name>.json`: `edits` to apply to the input and what they give: the `output` and the
//!   `archive` (flat text: and the output's token estimate), or an `error`; the output read
//!   again is `reread` to the checks;
//! - `checks.json`: properties the case's old unit tests asserted (see `checks`).
//!
//! Beside the cases, a format's folder may hold `errors.json` (inputs the reader refuses, with
//! the error each gives) and `detect.json` (lists detection reads as this format, or refuses).
//!
//! Every case also checks what holds for any input: a message list detects as its folder's
//! format, an applied plan restores to the input, flat text's segments cover the text, and every
//! tier keeps the format and restores the input (`tiers`).
//!
//! `UPDATE_FIXTURES=1 cargo test --test formats` writes `read.json`, `sections.json` and the
//! expected fields of `apply/*.json` from what the adapters do now: review the diff before
//! committing it. `errors.json`, `detect.json` and `checks.json` are assertions written by hand
//! and are never rewritten. `FIXTURE=openai/conversation` runs the cases whose name holds it.

mod checks;
mod layout;
mod render;
mod tiers;

use serde_json::{Map, Value};
use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use tiered_compaction::api::result::ArchiveEntry;
use tiered_compaction::formats::{apply_messages, detect::detect, read_messages, registry, text};
use tiered_compaction::plan::Edit;
use tiered_compaction::transcript::Format;
use tiered_compaction::{ContextData, estimate_tokens, restore};

/// Where the fixtures are.
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/formats")
}

/// What a run of the harness found.
#[derive(Default)]
struct Report {
    cases: usize,
    failures: Vec<String>,
}

impl Report {
    fn fail(&mut self, case: &str, problem: impl std::fmt::Display) {
        self.failures.push(format!("{case}: {problem}"));
    }
}

/// Runs every fixture case; panics listing every case that failed.
pub fn run() {
    let update = std::env::var_os("UPDATE_FIXTURES").is_some();
    let filter = std::env::var("FIXTURE").unwrap_or_default();
    let mut report = Report::default();
    for name in registered() {
        if filter.is_empty() && !root().join(&name).is_dir() {
            report.fail(&name, "a registered format needs a folder of fixtures");
        }
    }
    for folder in folders(&root()) {
        let name = file_name(&folder);
        let Some(format) = registry::by_name(&name) else {
            report.fail(&name, "no format of this name is registered");
            continue;
        };
        if name.contains(&filter) || filter.is_empty() {
            tables(format, &folder, &name, &mut report);
        }
        for case in folders(&folder) {
            let label = format!("{name}/{}", file_name(&case));
            if !label.contains(&filter) {
                continue;
            }
            report.cases += 1;
            if let Err(problem) = run_case(format, &case, update) {
                report.fail(&label, problem);
            }
        }
    }
    assert!(report.cases > 0, "no fixture case matched {filter:?}");
    assert!(
        report.failures.is_empty(),
        "{} of {} fixture cases failed (UPDATE_FIXTURES=1 rewrites the expected files; review \
         the diff):\n\n{}",
        report.failures.len(),
        report.cases,
        report.failures.join("\n\n")
    );
}

/// The option names of the registered formats (`"openai", "anthropic", ...`).
fn registered() -> Vec<String> {
    registry::quoted_names()
        .split(", ")
        .map(|name| name.trim_matches('"').to_string())
        .collect()
}

fn folders(dir: &Path) -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> = fs::read_dir(dir)
        .map(|entries| entries.flatten().map(|entry| entry.path()).collect())
        .unwrap_or_default();
    found.retain(|path| path.is_dir());
    found.sort();
    found
}

fn file_name(path: &Path) -> String {
    path.file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_default()
}

fn read_json(path: &Path) -> Result<Value, String> {
    let text = fs::read_to_string(path).map_err(|error| format!("{}: {error}", path.display()))?;
    serde_json::from_str(&text).map_err(|error| format!("{}: {error}", path.display()))
}

/// Compares `actual` with the JSON in `path`, or writes it there when updating.
fn expect_file(path: &Path, actual: &Value, update: bool) -> Result<(), String> {
    if update {
        return fs::write(path, layout::write(actual))
            .map_err(|error| format!("{}: {error}", path.display()));
    }
    let expected = read_json(path)?;
    same(&file_name(path), &expected, actual)
}

/// Whether two documents are equal, field order included; else where they part.
fn same(what: &str, expected: &Value, actual: &Value) -> Result<(), String> {
    let (expected, actual) = (layout::write(expected), layout::write(actual));
    if expected == actual {
        return Ok(());
    }
    let (e, a): (Vec<&str>, Vec<&str>) = (expected.lines().collect(), actual.lines().collect());
    let at = e.iter().zip(&a).take_while(|(x, y)| x == y).count();
    let from = at.saturating_sub(2);
    Err(format!(
        "{what} differs at line {}:\nexpected:\n{}\nactual:\n{}",
        at + 1,
        e[from..(at + 3).min(e.len())].join("\n"),
        a[from..(at + 3).min(a.len())].join("\n")
    ))
}

/// `errors.json` (each row's `input` read as this format gives its `error`) and `detect.json`
/// (each row's `input` detects as this format, or gives its `error`) of a format's folder.
fn tables(format: Format, folder: &Path, name: &str, report: &mut Report) {
    table(folder, "errors.json", name, report, |row| {
        let input = row["input"].as_array().cloned().unwrap_or_default();
        let actual = match read_messages(&input, format) {
            Ok(_) => Value::String("read without an error".into()),
            Err(error) => render::error(&error),
        };
        (row["error"].clone(), actual)
    });
    table(folder, "detect.json", name, report, |row| {
        let input = row["input"].as_array().cloned().unwrap_or_default();
        let actual = match detect(&input) {
            Ok(found) => Value::String(registry::name(found).into()),
            Err(error) => render::error(&error),
        };
        let expected = row.get("error").cloned();
        (
            expected.unwrap_or_else(|| Value::String(name.into())),
            actual,
        )
    });
}

/// Checks every row of the table `file` in `folder`: `check` gives what is expected of the row
/// and what it gave.
fn table(
    folder: &Path,
    file: &str,
    name: &str,
    report: &mut Report,
    check: impl Fn(&Value) -> (Value, Value),
) {
    let path = folder.join(file);
    if !path.exists() {
        return;
    }
    report.cases += 1;
    let rows = match read_json(&path) {
        Ok(Value::Array(rows)) => rows,
        Ok(_) => return report.fail(name, format!("{file} must be an array of rows")),
        Err(problem) => return report.fail(name, problem),
    };
    for (at, row) in rows.iter().enumerate() {
        let (expected, actual) = check(row);
        if expected != actual {
            let label = row.get("name").map_or(at.to_string(), ToString::to_string);
            report.fail(
                &format!("{name}/{file} {label}"),
                format!("expected {expected}, got {actual}"),
            );
        }
    }
}

/// The documents a case produced, by name (`input`, `read`, `apply/<name>`), for its checks.
type Docs = BTreeMap<String, Value>;

fn run_case(format: Format, dir: &Path, update: bool) -> Result<(), String> {
    let mut docs = Docs::new();
    if format == Format::Text {
        text_case(dir, update, &mut docs)?;
    } else {
        messages_case(format, dir, update, &mut docs)?;
    }
    tiers::every_tier(format, &tiers::context(&docs["input"]))?;
    let checks = dir.join("checks.json");
    if checks.exists() {
        checks::run(&read_json(&checks)?, &docs)?;
    }
    Ok(())
}

fn messages_case(format: Format, dir: &Path, update: bool, docs: &mut Docs) -> Result<(), String> {
    let input = read_json(&dir.join("input.json"))?;
    let messages = input.as_array().ok_or("input.json must be an array")?;
    let read = |messages: &[Value]| match read_messages(messages, format) {
        Ok(transcript) => render::transcript(&transcript, None),
        Err(error) => render::error(&error),
    };
    match detect(messages) {
        Ok(found) if found == format => {}
        other => {
            return Err(format!(
                "the input does not detect as its format: {other:?}"
            ));
        }
    }
    let transcript = read_messages(messages, format).map_err(|error| error.to_string())?;
    docs.insert("read".into(), read(messages));
    expect_file(&dir.join("read.json"), &docs["read"], update)?;
    for file in apply_files(dir) {
        let mut spec = read_json(&file)?;
        let edits = render::edits(&spec["edits"])?;
        let doc = match apply_messages(messages, &transcript, &edits) {
            Ok(applied) => {
                let output = ContextData::Messages(applied.output.clone());
                let input = ContextData::Messages(messages.clone());
                restores(&file, &edits, &applied.archive, &output, &input)?;
                let reread = read(&applied.output);
                render::applied(applied, reread)
            }
            Err(error) => Map::from_iter([("error".to_string(), render::error(&error))]),
        };
        expect_apply(&file, &mut spec, doc, update, docs)?;
    }
    docs.insert("input".into(), input);
    Ok(())
}

fn text_case(dir: &Path, update: bool, docs: &mut Docs) -> Result<(), String> {
    let path = dir.join("input.txt");
    let input =
        fs::read_to_string(&path).map_err(|error| format!("{}: {error}", path.display()))?;
    let transcript = text::read(&input);
    covers(&input, &transcript)?;
    let mut read = render::transcript(&transcript, Some(&input));
    read["tokens"] = estimate_tokens(&input).into();
    docs.insert("read".into(), read);
    expect_file(&dir.join("read.json"), &docs["read"], update)?;
    let sections = dir.join("sections.json");
    if sections.exists() {
        let read = text::read_sections(&input);
        covers(&input, &read)?;
        docs.insert("sections".into(), render::transcript(&read, Some(&input)));
        expect_file(&sections, &docs["sections"], update)?;
    }
    for file in apply_files(dir) {
        let mut spec = read_json(&file)?;
        let edits = render::edits(&spec["edits"])?;
        let doc = match text::apply(&input, &transcript, &edits) {
            Ok(applied) => {
                if applied.archive.len() != edits.len() {
                    return Err(format!("{}: one archive entry per edit", file_name(&file)));
                }
                let output = ContextData::Text(applied.output.clone());
                let original = ContextData::Text(input.clone());
                restores(&file, &edits, &applied.archive, &output, &original)?;
                let again = text::read(&applied.output);
                let reread = render::transcript(&again, Some(&applied.output));
                let tokens = estimate_tokens(&applied.output);
                let mut doc = render::applied(applied, reread);
                doc.insert("tokens".into(), tokens.into());
                doc
            }
            Err(error) => Map::from_iter([("error".to_string(), render::error(&error))]),
        };
        expect_apply(&file, &mut spec, doc, update, docs)?;
    }
    docs.insert("input".into(), Value::String(input));
    Ok(())
}

/// The archive of an applied plan restores its input. `restore` reads a plan's entries as runs
/// of one kind where they replace ranges (a tier's plan is so): a fixture mixing a range edit
/// with edits of other kinds is not checked.
fn restores(
    file: &Path,
    edits: &[Edit],
    archive: &[ArchiveEntry],
    output: &ContextData,
    input: &ContextData,
) -> Result<(), String> {
    let ranges = edits
        .iter()
        .any(|edit| !matches!(edit, Edit::ReplaceBlock { .. }));
    if ranges && archive.iter().any(|entry| entry.kind != archive[0].kind) {
        return Ok(());
    }
    match restore(output, archive) {
        Ok(restored) if restored == *input => Ok(()),
        other => Err(format!(
            "{}: the archive does not restore the input: {other:?}",
            file_name(file)
        )),
    }
}

/// Flat text's segments are contiguous and reach the end.
fn covers(
    text: &str,
    transcript: &tiered_compaction::transcript::Transcript,
) -> Result<(), String> {
    let mut at = 0;
    for message in &transcript.messages {
        match &message.source {
            tiered_compaction::transcript::Source::Span { start, end } if *start == at => at = *end,
            other => return Err(format!("segment {other:?} does not start at {at}")),
        }
    }
    if at == text.len() {
        Ok(())
    } else {
        Err(format!("the segments end at {at} of {}", text.len()))
    }
}

fn apply_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = fs::read_dir(dir.join("apply"))
        .map(|entries| entries.flatten().map(|entry| entry.path()).collect())
        .unwrap_or_default();
    files.retain(|path| path.extension().is_some_and(|ext| ext == "json"));
    files.sort();
    files
}

/// Compares (or, updating, writes) the expected fields of an `apply/*.json` file (all but the
/// output read again); its `description` and `edits` are the fixture's own and stay.
fn expect_apply(
    file: &Path,
    spec: &mut Value,
    doc: Map<String, Value>,
    update: bool,
    docs: &mut Docs,
) -> Result<(), String> {
    let name = format!(
        "apply/{}",
        file.file_stem()
            .map(|s| s.to_string_lossy())
            .unwrap_or_default()
    );
    let fields = spec
        .as_object_mut()
        .ok_or("an apply file must be an object")?;
    let own: Map<String, Value> = ["description", "edits"]
        .into_iter()
        .filter_map(|key| Some((key.to_string(), fields.get(key)?.clone())))
        .collect();
    let mut actual = own.clone();
    // The output read again is for the checks only: the input's `read.json` shows the reader.
    actual.extend(doc.clone().into_iter().filter(|(key, _)| key != "reread"));
    let result = if update {
        fs::write(file, layout::write(&Value::Object(actual)))
            .map_err(|error| format!("{}: {error}", file.display()))
    } else {
        same(&format!("{name}.json"), spec, &Value::Object(actual))
    };
    docs.insert(name, Value::Object(doc));
    result
}

use super::lines::{is_report, last_nonblank, last_nonblank_by_lines, trim};
use super::references::{Words, strip_line_number};
use super::words::{lines_with_words, word_at};
use super::*;

#[test]
fn finds_paths_urls_and_errors() {
    let text =
        "edited src/lib.rs and ./README.md, see https://docs.rs/serde.\nerror: cannot find `Foo`";
    let found = references(text, 10);
    assert_eq!(
        found,
        ["src/lib.rs", "./README.md", "https://docs.rs/serde"]
    );
    assert!(is_error_line("error: cannot find `Foo`"));
    assert!(is_error_line("TypeError: x is undefined"));
    assert!(is_error_line("test users ... FAILED"));
    assert!(!is_error_line("all good"));
    assert!(!is_path("and/or"));
    assert!(!is_path("1/2"));
    assert_eq!(
        references("at src/a.rs:42:7 and src/a.rs:9", 10),
        ["src/a.rs"]
    );
}

#[test]
fn repeats_that_differ_in_numbers_count_once() {
    let text = "Error: timeout after 3000 ms (id 4f3a9b2c1d)\nok\nError: timeout after 5000 ms (id 77aa00ff11)\nError: refused";
    assert_eq!(
        error_lines(text, 8),
        [
            "Error: timeout after 3000 ms (id 4f3a9b2c1d)",
            "Error: refused"
        ]
    );
    assert_eq!(shape("line 42, col 7"), shape("line 57, col 9"));
    assert_ne!(shape("read a.rs"), shape("read b.rs"));
}

/// The char-level versions these byte loops replaced, kept as the oracle.
mod oracle {
    pub fn shape(line: &str) -> String {
        let mut out = String::new();
        let mut in_token = false;
        for token in line.split_inclusive(|c: char| !c.is_ascii_alphanumeric()) {
            let (word, rest) = match token.char_indices().last() {
                Some((at, c)) if !c.is_ascii_alphanumeric() => (&token[..at], &token[at..]),
                _ => (token, ""),
            };
            let numeric = word.bytes().any(|b| b.is_ascii_digit())
                && (word.bytes().all(|b| b.is_ascii_hexdigit())
                    || word.len() >= 8
                    || word.bytes().all(|b| b.is_ascii_digit() || b == b'x'));
            if numeric {
                if !in_token {
                    out.push('#');
                }
                in_token = true;
            } else {
                out.push_str(word);
                in_token = false;
            }
            out.push_str(rest);
        }
        out
    }

    pub fn is_report(line: &str) -> bool {
        let lower = line.trim().to_ascii_lowercase();
        const REPORTS: [&str; 12] = [
            "error:",
            "error[",
            "error ",
            "exception:",
            "traceback",
            "panicked",
            "fatal:",
            "failed",
            "failure:",
            "fail:",
            "not ok",
            "✗",
        ];
        REPORTS.iter().any(|report| lower.contains(report))
            || lower.split(':').next().is_some_and(|head| {
                head.ends_with("error") || head.ends_with("exception") || head.ends_with("warning")
            })
    }

    pub fn is_error_line(line: &str) -> bool {
        let line = line.trim();
        if line.len() < 4 || line.len() > 4000 {
            return false;
        }
        let bytes = line.as_bytes();
        bytes.windows(2).enumerate().any(|(at, pair)| {
            matches!(
                (pair[0] | 0x20, pair[1] | 0x20),
                (b'e', b'r' | b'x') | (b'f' | b'p', b'a') | (b't', b'r')
            ) && super::super::words::WORDS.iter().any(|word| {
                bytes
                    .get(at..at + word.len())
                    .is_some_and(|here| here.eq_ignore_ascii_case(word))
            })
        })
    }

    pub fn last_line(text: &str) -> Option<&str> {
        let mut lines = text.lines().filter(|line| !line.trim().is_empty());
        let last = lines.next_back()?;
        lines.next().map(|_| {
            crate::base::cut::head(crate::base::cut::trim(last), super::super::MAX_LINE_CHARS)
        })
    }

    pub fn word_at(bytes: &[u8], at: usize) -> bool {
        super::super::words::WORDS.iter().any(|word| {
            bytes
                .get(at..at + word.len())
                .is_some_and(|here| here.eq_ignore_ascii_case(word))
        })
    }

    pub fn error_line_starts(text: &str) -> Vec<(usize, &str)> {
        let base = text.as_ptr() as usize;
        text.lines()
            .filter(|line| is_error_line(line))
            .map(|line| (line.as_ptr() as usize - base, line))
            .collect()
    }

    /// `error_lines` before it stopped at `max` reports.
    pub fn error_lines(text: &str, max: usize) -> Vec<&str> {
        let mut seen = std::collections::HashSet::new();
        let mut found: Vec<(usize, bool, &str)> = Vec::new();
        for (at, line) in text.lines().enumerate() {
            if is_error_line(line) && seen.insert(shape(line.trim())) {
                found.push((at, is_report(line), line));
            }
        }
        if found.len() > max {
            found.sort_by_key(|(at, report, _)| (!report, *at));
            found.truncate(max);
            found.sort_by_key(|(at, ..)| *at);
        }
        found
            .into_iter()
            .map(|(_, _, line)| {
                crate::base::cut::head(crate::base::cut::trim(line), super::super::MAX_LINE_CHARS)
            })
            .collect()
    }

    /// `references`, `tokens`, `strip_line_number` and `is_path` before they were byte
    /// loops.
    pub fn references(text: &str, max: usize) -> Vec<&str> {
        let mut seen = std::collections::HashSet::new();
        tokens(text)
            .filter(|token| seen.insert(*token))
            .take(max)
            .collect()
    }

    pub fn tokens(text: &str) -> impl Iterator<Item = &str> {
        words(text)
            .into_iter()
            .filter(|word| !closing_tag(text, word))
            .flat_map(|token| {
                let backticked = token.strip_prefix('`').and_then(|t| t.strip_suffix('`'));
                backticked.into_iter().chain(std::iter::once(token))
            })
            .flat_map(split_escapes)
            .map(|token| token.trim_end_matches(['.', ':', ';', '`', '!', '?']))
            .map(|token| token.trim_start_matches('`'))
            .map(strip_line_number)
            .filter(|token| super::super::is_url(token) || is_path(token))
    }

    /// A word with a `/` in pieces at each JSON escape of a line break, tab or quote.
    fn split_escapes(word: &str) -> Vec<&str> {
        if !word.contains('/') {
            return vec![word];
        }
        let mut pieces = Vec::new();
        let mut rest = word;
        while let Some(at) = ["\\n", "\\t", "\\r", "\\\""]
            .iter()
            .filter_map(|escape| rest.find(escape))
            .min()
        {
            pieces.push(&rest[..at]);
            rest = &rest[at + 2..];
        }
        pieces.push(rest);
        pieces
    }

    /// `word`, a slice of `text`, names a closing tag: `/` right after `<`, or a one-word name
    /// in brackets (`[/INST]`).
    fn closing_tag(text: &str, word: &str) -> bool {
        let start = word.as_ptr() as usize - text.as_ptr() as usize;
        let Some(name) = word.strip_prefix('/') else {
            return false;
        };
        let one_word =
            !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        text[..start].ends_with('<')
            || (text[..start].ends_with('[')
                && one_word
                && text[start + word.len()..].starts_with(']'))
    }

    pub fn strip_line_number(token: &str) -> &str {
        let mut token = token;
        while let Some((before, after)) = token.rsplit_once(':') {
            if !after.is_empty() && after.bytes().all(|b| b.is_ascii_digit()) {
                token = before;
            } else {
                break;
            }
        }
        token
    }

    pub fn is_path(token: &str) -> bool {
        if token.len() < 3 || token.len() > 200 || token.contains("://") {
            return false;
        }
        let has_separator = token.contains('/') || token.contains('\\');
        let file_name = token.rsplit(['/', '\\']).next().unwrap_or(token);
        let number = file_name.chars().all(|c| c.is_ascii_digit() || c == '.');
        let has_extension = file_name.rsplit_once('.').is_some_and(|(stem, ext)| {
            !number
                && !stem.is_empty()
                && (1..=8).contains(&ext.len())
                && ext.chars().all(|c| c.is_ascii_alphanumeric())
        });
        let rooted = token.starts_with('/') || token.starts_with("./") || token.starts_with("~/");
        has_separator && (has_extension || rooted) && token.chars().all(|c| !c.is_control())
    }

    pub fn words(text: &str) -> Vec<&str> {
        text.split(|c: char| {
            c.is_whitespace()
                || matches!(
                    c,
                    '"' | '\'' | '(' | ')' | '<' | '>' | ',' | '[' | ']' | '{' | '}' | '='
                )
        })
        .filter(|token| token.bytes().any(|b| b == b'/' || b == b'\\'))
        .collect()
    }
}

/// Text made of the pieces the scanners care about: error words in any case, separators,
/// digits, hex, line ends, Unicode whitespace and other non-ASCII characters.
fn pieces() -> impl proptest::strategy::Strategy<Value = String> {
    use proptest::prelude::*;
    let piece = prop::sample::select(vec![
        "Error",
        "ERROR:",
        "error[",
        "fail",
        "FAILED",
        "failure:",
        "FaTaL",
        "panicked",
        "Traceback",
        "exception",
        "warning:",
        "er",
        "ex",
        "pa",
        "t",
        "e",
        " ",
        "  ",
        "\n",
        "\r\n",
        "\r",
        "\t",
        "\u{b}",
        "\u{85}",
        "\u{a0}",
        "\u{3000}",
        "\u{2028}",
        "é",
        "✗",
        "日本",
        "/",
        "\\",
        "src/a.rs",
        ":42",
        "0x7f",
        "12345678",
        "abc",
        "deadbeef",
        "https://x.io/a",
        "\"",
        "'",
        "(",
        ")",
        ",",
        "=",
        "[",
        "`",
        ".",
        "-",
        "not ok",
        "#",
        ":",
        ":7",
        "./",
        "~/",
        "//",
        "http://",
        "https://a.b/c",
        "`src/b.rs`",
        "\\n",
        "\\t",
        "\\\"",
        "M  a/b.md\\nM",
        ".rs",
        ".toolongext",
        "!",
        "?",
        ";",
        "\u{1}",
        "\u{7f}",
        "\u{80}",
        "\u{9f}",
        "\u{1680}",
        "\u{2000}",
        "\u{200a}",
        "\u{202f}",
        "\u{205f}",
        "\u{2029}",
        "\u{e000}",
        "€",
        "x",
        "9",
        "a1",
        "F",
        "7x",
        "0-",
        "1é",
        "<",
        ">",
        "</Tip>",
        "[/INST]",
        "2.5",
    ]);
    prop::collection::vec(piece, 0..60).prop_map(|pieces| pieces.concat())
}

proptest::proptest! {
    #[test]
    fn byte_loops_agree_with_the_char_level_versions(text in pieces()) {
        let lines: Vec<(usize, &str)> = lines_with_words(&text)
            .filter(|(_, line)| is_error_line(line))
            .collect();
        proptest::prop_assert_eq!(lines, oracle::error_line_starts(&text));
        proptest::prop_assert_eq!(
            Words { text: &text, from: 0 }.collect::<Vec<_>>(),
            oracle::words(&text)
        );
        proptest::prop_assert_eq!(
            tokens(&text).collect::<Vec<_>>(),
            oracle::tokens(&text).collect::<Vec<_>>()
        );
        for max in [0, 1, 3, 10, 40] {
            proptest::prop_assert_eq!(references(&text, max), oracle::references(&text, max));
        }
        for word in text.split([' ', '\n']) {
            proptest::prop_assert_eq!(is_path(word), oracle::is_path(word));
            proptest::prop_assert_eq!(strip_line_number(word), oracle::strip_line_number(word));
        }
        for at in 0..=text.len() {
            proptest::prop_assert_eq!(word_at(text.as_bytes(), at), oracle::word_at(text.as_bytes(), at));
        }
        proptest::prop_assert_eq!(trim(&text), text.trim());
        proptest::prop_assert_eq!(last_line(&text), oracle::last_line(&text));
        proptest::prop_assert_eq!(last_nonblank(&text), last_nonblank_by_lines(&text));
        for line in text.lines() {
            proptest::prop_assert_eq!(trim(line), line.trim());
            proptest::prop_assert_eq!(is_error_line(line), oracle::is_error_line(line));
            proptest::prop_assert_eq!(shape(line), oracle::shape(line));
            proptest::prop_assert_eq!(is_report(line), oracle::is_report(line));
        }
        proptest::prop_assert_eq!(shape(&text), oracle::shape(&text));
        for max in [0, 1, 2, 8] {
            proptest::prop_assert_eq!(error_lines(&text, max), oracle::error_lines(&text, max));
        }
    }
}

#[test]
fn last_line_only_of_several() {
    assert_eq!(last_line("one line"), None);
    assert_eq!(last_line("a\nb\n\n  "), Some("b"));
}

/// A tool's output kept as JSON text runs its lines together with `\\n` escapes: each line's path
/// still counts (a `git status` of 92 paths in a real Codex run kept none of them).
#[test]
fn paths_in_json_escaped_output() {
    let body = r#"{"output":"On branch main\nM  .github/actions/run.yml\nM  codex-cli/bin/codex.js\n?? docs/notes.md\t(new)\n","metadata":{"exit_code":0}}"#;
    assert_eq!(
        references(body, 10),
        vec![
            ".github/actions/run.yml",
            "codex-cli/bin/codex.js",
            "docs/notes.md"
        ]
    );
    // A Windows path keeps its `\n`: no `/` in it.
    assert_eq!(references(r"C:\new\file.txt", 10), vec![r"C:\new\file.txt"]);
}

/// A listing that names twelve folders before its files: the stub's ten slots keep the files
/// (and the URL) first, then folders in the room left, all in the body's order.
#[test]
fn stubs_keep_files_before_folders() {
    let folders: Vec<String> = (0..12).map(|k| format!("/work/crates/c{k}")).collect();
    let body = format!(
        "Checking {}\nrunning tests/a.rs tests/b.rs see https://docs.rs/x then src/main.rs",
        folders.join(" ")
    );
    let kept = stub_references(&body, 10);
    assert_eq!(kept.len(), 10);
    assert_eq!(
        &kept[6..],
        [
            "tests/a.rs",
            "tests/b.rs",
            "https://docs.rs/x",
            "src/main.rs"
        ]
    );
    assert_eq!(
        &kept[..6],
        &folders
            .iter()
            .take(6)
            .map(String::as_str)
            .collect::<Vec<_>>()[..]
    );
    // Ten or fewer: all of them, as `references` finds them.
    assert_eq!(
        stub_references("a src/x.rs /opt/bin", 10),
        vec!["src/x.rs", "/opt/bin"]
    );
}

/// Documentation pages as agents fetch them: closing tags are markup, not paths; the page's real
/// paths and URLs are what a stub keeps.
#[test]
fn markup_is_not_taken_for_paths() {
    let html = r#"<!DOCTYPE html>
<html lang="en">
<head><title>Install</title><link rel="stylesheet" href="/assets/site.css"></head>
<body>
<nav><ul><li><a href="/docs/intro">Intro</a></li><li><a href="https://example.com/docs/install">Install</a></li></ul></nav>
<main><h1>Install</h1><p>Edit <code>src/routes/users.ts:42</code> and restart.</p>
<pre><code>cp config/app.example.toml config/app.toml</code></pre>
<img src="/img/logo.png" alt="logo"/><br/><td>3/4.5</td>
</main></body></html>"#;
    assert_eq!(
        references(html, 10),
        [
            "/assets/site.css",
            "/docs/intro",
            "https://example.com/docs/install",
            "src/routes/users.ts",
            "config/app.example.toml",
            "config/app.toml",
            "/img/logo.png"
        ]
    );
    let mdx = r#"---
title: Quickstart
---
import { Tip } from '/snippets/tip.mdx'

<Tip>
Run the server from `./bin/serve.sh` and open http://localhost:3000/dashboard.
</Tip>

<Note>Settings live in ~/.config/acme/settings.json.</Note>
<Steps>
  <Step title="Install">Install the CLI.</Step>
</Steps>
<Card title="API" href="/api-reference/introduction" />"#;
    assert_eq!(
        references(mdx, 10),
        [
            "/snippets/tip.mdx",
            "./bin/serve.sh",
            "http://localhost:3000/dashboard",
            "~/.config/acme/settings.json",
            "/api-reference/introduction"
        ]
    );
    let jsx = r#"import Layout from "../components/Layout.jsx";
export default function Page() {
  return (
    <Layout title="Users">
      <UserTable rows={rows} />
      <a href="/users/new">New user</a>
      <Footer>{/* see docs/footer.md */}</Footer>
    </Layout>
  );
}"#;
    assert_eq!(
        references(jsx, 10),
        ["../components/Layout.jsx", "/users/new", "docs/footer.md"]
    );
    let xml = r#"<?xml version="1.0" encoding="UTF-8"?>
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modules><module>core</module><module>web</module></modules>
  <build><resources><resource>src/main/resources/application.yml</resource></resources></build>
  <ns:config><ns:path>/var/lib/app/data.db</ns:path></ns:config>
</project>"#;
    assert_eq!(
        references(xml, 10),
        [
            "http://maven.apache.org/POM/4.0.0",
            "src/main/resources/application.yml",
            "/var/lib/app/data.db"
        ]
    );
    // Chat-template and BBCode closing tags too; a bracketed path stays a path.
    assert_eq!(
        references(
            "[INST] read it [/INST] see [/usr/lib/x.so] and [/quote]",
            10
        ),
        ["/usr/lib/x.so"]
    );
    // Real paths stay paths, whatever their shape.
    for path in [
        "src/routes/users.ts",
        "/usr/lib/x.so",
        "C:\\x\\y.txt",
        "/workspace",
        "./a",
        "~/notes.md",
        "data/2024.csv",
        "/usr/lib/libc.so.6",
    ] {
        assert!(is_path(path), "{path}");
    }
    for not_a_path in ["1/2.5", "v1/3.14", "and/or", "br/"] {
        assert!(!is_path(not_a_path), "{not_a_path}");
    }
}

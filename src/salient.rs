//! What matters in a long body: the lines naming an error, exception, failure, panic or
//! traceback, its last line, and the file paths and URLs it names. A stub keeps these when the
//! body goes (micro, time_based), a digest lists them (auto), and `mustKeep` asks a summary to
//! carry them.

use crate::base::cut;
use crate::base::hash::FastSet;
use crate::base::sort;

/// At most this many lines that matter per stub.
pub const MAX_LINES: usize = 8;
/// Each kept line is cut to this many code points.
pub const MAX_LINE_CHARS: usize = 160;
/// At most this many paths and URLs per stub.
pub const MAX_REFERENCES: usize = 10;

/// Whether `line` names an error, exception, failure, panic or traceback (any case, inside a
/// word too: `TypeError`, `AssertionFailed`).
pub fn is_error_line(line: &str) -> bool {
    let line = line.trim();
    if line.len() < 4 || line.len() > 4000 {
        return false;
    }
    const WORDS: [&[u8]; 6] = [
        b"error",
        b"exception",
        b"fail",
        b"panic",
        b"traceback",
        b"fatal",
    ];
    // One pass over the bytes, no copy: at each first letter of a word (any case), compare the
    // word there. Lowercasing each line first was a tenth of a micro call on logs.
    let bytes = line.as_bytes();
    bytes.windows(2).enumerate().any(|(at, pair)| {
        // The words' first two letters (any case): `er`, `ex`, `fa`, `pa`, `tr`.
        matches!(
            (pair[0] | 0x20, pair[1] | 0x20),
            (b'e', b'r' | b'x') | (b'f' | b'p', b'a') | (b't', b'r')
        ) && WORDS.iter().any(|word| {
            bytes
                .get(at..at + word.len())
                .is_some_and(|here| here.eq_ignore_ascii_case(word))
        })
    })
}

/// `line` with its numbers, hex runs and ids blanked, so repeats that differ only in those
/// count once (`line 42` and `line 57`, `0x7ffd…` and `0x7ffe…`).
pub fn shape(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
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

/// Whether `line` (an error line) reads as a report of one (`error: …`, `Traceback`, `FAILED`,
/// `panicked at`), not merely a name with an error word in it (`SyntaxError(…)` in source code).
fn is_report(line: &str) -> bool {
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

/// The distinct lines of `text` that matter, in their order in the text, each cut to
/// [`MAX_LINE_CHARS`] code points, at most `max`: reports of errors first, then other lines
/// with an error word, when there are more than `max`.
pub fn error_lines(text: &str, max: usize) -> Vec<&str> {
    let mut seen = FastSet::default();
    let mut found: Vec<(usize, bool, &str)> = Vec::new();
    for (at, line) in text.lines().enumerate() {
        if is_error_line(line) && seen.insert(shape(line.trim())) {
            found.push((at, is_report(line), line));
        }
    }
    if found.len() > max {
        // Reports first, each group in text order; then back to text order.
        found = sort::sorted_by_key(found, &|(at, report, _): &(usize, bool, &str)| {
            (!report, *at)
        });
        found.truncate(max);
        found = sort::sorted_by_key(found, &|(at, ..): &(usize, bool, &str)| *at);
    }
    found
        .into_iter()
        .map(|(_, _, line)| cut::head(cut::trim(line), MAX_LINE_CHARS))
        .collect()
}

/// The last non-empty line of `text` when it has more than one line, cut to
/// [`MAX_LINE_CHARS`] code points.
pub fn last_line(text: &str) -> Option<&str> {
    let mut lines = text.lines().filter(|line| !line.trim().is_empty());
    let last = lines.next_back()?;
    lines
        .next()
        .map(|_| cut::head(cut::trim(last), MAX_LINE_CHARS))
}

/// The distinct file paths and URLs `text` names, in order, at most `max`.
pub fn references(text: &str, max: usize) -> Vec<&str> {
    let mut seen = FastSet::default();
    tokens(text)
        .filter(|token| seen.insert(*token))
        .take(max)
        .collect()
}

/// File paths, URLs and `backticked` identifiers in `text`, repeats included.
pub fn tokens(text: &str) -> impl Iterator<Item = &str> {
    // A path or URL has a separator: words without one (nearly all) are passed over at once.
    let has_separator = |token: &&str| token.bytes().any(|b| b == b'/' || b == b'\\');
    text.split(|c: char| {
        c.is_whitespace()
            || matches!(
                c,
                '"' | '\'' | '(' | ')' | '<' | '>' | ',' | '[' | ']' | '{' | '}' | '='
            )
    })
    .filter(has_separator)
    .flat_map(|token| {
        let backticked = token.strip_prefix('`').and_then(|t| t.strip_suffix('`'));
        backticked.into_iter().chain(std::iter::once(token))
    })
    .map(|token| token.trim_end_matches(['.', ':', ';', '`', '!', '?']))
    .map(|token| token.trim_start_matches('`'))
    .map(strip_line_number)
    .filter(|token| is_url(token) || is_path(token))
}

/// `src/a.rs:42:7` → `src/a.rs` (a compiler's location names the file).
fn strip_line_number(token: &str) -> &str {
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

/// An http(s) URL.
pub fn is_url(token: &str) -> bool {
    (token.starts_with("https://") || token.starts_with("http://")) && token.len() > 10
}

/// A file path: a separator and a file extension, or rooted (`/`, `./`, `~/`).
pub fn is_path(token: &str) -> bool {
    if token.len() < 3 || token.len() > 200 || token.contains("://") {
        return false;
    }
    let has_separator = token.contains('/') || token.contains('\\');
    let file_name = token.rsplit(['/', '\\']).next().unwrap_or(token);
    let has_extension = file_name.rsplit_once('.').is_some_and(|(stem, ext)| {
        !stem.is_empty()
            && (1..=8).contains(&ext.len())
            && ext.chars().all(|c| c.is_ascii_alphanumeric())
    });
    let rooted = token.starts_with('/') || token.starts_with("./") || token.starts_with("~/");
    has_separator && (has_extension || rooted) && token.chars().all(|c| !c.is_control())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_paths_urls_and_errors() {
        let text = "edited src/lib.rs and ./README.md, see https://docs.rs/serde.\nerror: cannot find `Foo`";
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

    #[test]
    fn last_line_only_of_several() {
        assert_eq!(last_line("one line"), None);
        assert_eq!(last_line("a\nb\n\n  "), Some("b"));
    }
}

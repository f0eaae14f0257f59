//! Stubs: what stands in for a tool-result body (or a long string inside a tool call's input)
//! once a tier removed it to the archive. A stub keeps what matters of the body (see
//! [`crate::salient`]) and names the archive entry it can be recalled by, and is at most half
//! the body's length: when the kept lines would make it longer, fewer are kept.
//!
//! ```text
//! FAIL test/users.test.ts                       ← micro: the first characters
//! TypeError: Cannot read properties of undefined ← the lines that matter (≤ 8)
//! Tests: 1 failed, 41 passed                    ← the last line
//! src/routes/users.ts test/users.test.ts        ← paths and URLs (≤ 10)
//! [tool result body pruned: 5321 chars; recall: a3f9c1b2e07d4]
//! ```
//!
//! time_based's stub starts `[stale block pruned: bash, 5321 chars; recall: …]` instead of a
//! head and the marker, and keeps the same facts. Flat text keeps the seed's marker (no recall
//! id; its entries are found by location).

use crate::base::bytes;
use crate::base::cut;
use crate::salient::{self, MAX_LINES, MAX_REFERENCES};
use crate::transcript::markers;

/// How a stub begins and ends.
pub enum Frame<'a> {
    /// micro: the body's first `keep` characters, then the facts, then the pruned-body marker.
    Head {
        /// Code points of the body to keep at the start.
        keep: usize,
        /// The archive id to name (`None` in flat text).
        recall: Option<&'a str>,
    },
    /// time_based: the stale-block marker naming the tool, then the facts.
    Stale {
        /// The tool's name, where known.
        tool: Option<&'a str>,
        /// The archive id to name.
        recall: &'a str,
    },
}

/// The stub of `body` (`chars` code points, CRLF line ends or not), or `None` when even the
/// frame alone is not shorter than the body.
pub fn stub(body: &str, chars: usize, crlf: bool, frame: &Frame<'_>) -> Option<String> {
    let newline = if crlf { "\r\n" } else { "\n" };
    let (opening, closing) = match frame {
        Frame::Head { keep, recall } => (
            cut::trim_end(cut::head(body, *keep)).to_string(),
            markers::pruned_body_recall(chars, *recall),
        ),
        Frame::Stale { tool, recall } => (markers::stale_stub(*tool, chars, recall), String::new()),
    };
    // The frame always fits; the facts only within half the body.
    let mut budget = Budget {
        used: bytes::count_chars(&opening) + bytes::count_chars(&closing) + newline.len(),
        limit: chars / 2,
    };
    if budget.used >= chars {
        return None;
    }
    let mut lines: Vec<&str> = Vec::new();
    let mut shown = Shown::new(&opening);
    let found = salient::error_lines(body, MAX_LINES);
    for line in found.into_iter().chain(salient::last_line(body)) {
        if !shown.holds(line) && budget.take(bytes::count_chars(line) + newline.len()) {
            shown.add(line);
            lines.push(line);
        }
    }
    let mut references: Vec<&str> = Vec::new();
    for reference in salient::stub_references(body, MAX_REFERENCES) {
        // Joined on one line by spaces: the first takes a line break, the others a space.
        let separator = if references.is_empty() {
            newline.len()
        } else {
            1
        };
        if !shown.holds(reference) && budget.take(bytes::count_chars(reference) + separator) {
            references.push(reference);
        }
    }
    let references = references.join(" ");
    // The shown text is the opening and the kept lines with a byte between each: room for
    // them, the other pieces and every line break, allocated once.
    let room = shown.text.len() + references.len() + closing.len() + 3 * newline.len();
    let mut out = String::with_capacity(room + lines.len() * newline.len());
    out.push_str(&opening);
    let pieces = lines
        .into_iter()
        .chain((!references.is_empty()).then_some(references.as_str()))
        .chain((!closing.is_empty()).then_some(closing.as_str()));
    // Each piece on a line of its own after the opening, even an empty head (the seed's shape).
    for piece in pieces {
        out.push_str(newline);
        out.push_str(piece);
    }
    Some(out)
}

/// What a stub shows already: its opening and the lines it keeps, each after a line feed, so
/// whether a line or path is there is one search, not one per piece (no line or path asked
/// about holds a line feed: lines are split at them, paths at whitespace, so none is found
/// across two pieces). The text's byte pairs are marked in a 2,048-bit set as it grows: a
/// needle with a pair the text lacks is not in it, and is not searched for. Searching the head
/// and each kept line for each of up to 19 lines and paths took 20.0M instructions over the
/// 300-step agent run's three calls; one search of the joined text 14.4M; with the set, about
/// 6M with the marking.
struct Shown {
    text: String,
    pairs: [u64; 32],
}

impl Shown {
    fn new(opening: &str) -> Self {
        // Room for the opening and a few kept lines (each at most MAX_LINE_CHARS code points).
        let mut shown = Shown {
            text: String::with_capacity(opening.len() + 1024),
            pairs: [0; 32],
        };
        shown.text.push_str(opening);
        shown.mark(0);
        shown
    }

    /// Adds `line` after a line feed.
    fn add(&mut self, line: &str) {
        let from = self.text.len().saturating_sub(1);
        self.text.push('\n');
        self.text.push_str(line);
        self.mark(from);
    }

    /// Marks the pairs of bytes that start at `from` or later.
    fn mark(&mut self, from: usize) {
        for pair in self
            .text
            .as_bytes()
            .get(from..)
            .unwrap_or_default()
            .windows(2)
        {
            let (word, bit) = pair_bit(pair[0], pair[1]);
            self.pairs[word] |= bit;
        }
    }

    /// Whether the text holds `needle`.
    fn holds(&self, needle: &str) -> bool {
        let marked = |pair: &[u8]| {
            let (word, bit) = pair_bit(pair[0], pair[1]);
            self.pairs[word] & bit != 0
        };
        needle.as_bytes().windows(2).all(marked) && holds(&self.text, needle)
    }
}

/// Where the pair of bytes `a`, `b` is marked in [`Shown`]'s set: the word by `a`'s low five
/// bits, the bit by `b`'s low six.
#[inline(always)]
fn pair_bit(a: u8, b: u8) -> (usize, u64) {
    (usize::from(a & 0x1F), 1 << (b & 0x3F))
}

/// Whether `haystack` holds `needle`: the needle's first two bytes found eight positions at a
/// time, the rest compared there. `str::contains` builds a two-way searcher for each call, and a
/// stub asks this of its head and kept lines for each of up to 19 lines and paths (a tenth of a
/// micro call on 1-5 KB outputs); a path's first byte alone (`s` of `src/`) matched too often.
fn holds(haystack: &str, needle: &str) -> bool {
    let (haystack, needle) = (haystack.as_bytes(), needle.as_bytes());
    let (first, second) = match needle {
        [] => return true,
        [only] => return haystack.contains(only),
        [first, second, ..] => (*first, *second),
    };
    let found = |at: usize| haystack.get(at..at + needle.len()) == Some(needle);
    let mut at = 0;
    while at + 9 <= haystack.len() {
        let x = bytes::word(&haystack[at..at + 8]);
        let y = bytes::word(&haystack[at + 1..at + 9]);
        // Every real pair is marked (a borrow only adds marks above one): each is checked.
        let mut marks = bytes::equal(x, first) & bytes::equal(y, second);
        while marks != 0 {
            if found(at + (marks.trailing_zeros() / 8) as usize) {
                return true;
            }
            marks &= marks - 1;
        }
        at += 8;
    }
    (at..haystack.len()).any(found)
}

/// Code points a stub may still take.
struct Budget {
    used: usize,
    limit: usize,
}

impl Budget {
    /// Takes `chars` code points (a piece and its separator) if they fit.
    fn take(&mut self, chars: usize) -> bool {
        let fits = self.used + chars <= self.limit;
        if fits {
            self.used += chars;
        }
        fits
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn head(recall: Option<&str>) -> Frame<'_> {
        Frame::Head { keep: 20, recall }
    }

    #[test]
    fn keeps_errors_last_line_and_paths_within_half() {
        let body = format!(
            "running tests\n{}error[E0425]: cannot find `x` in src/lib.rs:4:9\n{}test result: FAILED. 1 passed; 1 failed\n",
            "ok line\n".repeat(60),
            "more output at https://example.com/log\n".repeat(10),
        );
        let chars = body.chars().count();
        let out = stub(&body, chars, false, &head(Some("a0123456789ab"))).expect("a stub");
        assert!(out.starts_with("running tests\nok lin\n"), "{out}");
        assert!(
            out.contains("error[E0425]: cannot find `x` in src/lib.rs:4:9"),
            "{out}"
        );
        assert!(
            out.contains("test result: FAILED. 1 passed; 1 failed"),
            "{out}"
        );
        assert!(out.contains("https://example.com/log"), "{out}");
        assert!(
            out.ends_with(&format!(
                "[tool result body pruned: {chars} chars; recall: a0123456789ab]"
            )),
            "{out}"
        );
        assert!(out.chars().count() <= chars / 2);
    }

    #[test]
    fn the_size_rule_wins_over_the_lines() {
        let error = format!("Error: {}", "something broke ".repeat(9).trim_end());
        // Head, marker and the error line would pass half of a 300-char body: the line goes.
        let body = format!("{}\n{error}", "x".repeat(300 - error.chars().count() - 1));
        let out = stub(&body, 300, false, &head(None)).expect("a stub");
        assert!(!out.contains("Error"), "{out}");
        assert!(out.chars().count() <= 150, "{out}");
        // In a 600-char body it fits.
        let body = format!("{}\n{error}", "x".repeat(600 - error.chars().count() - 1));
        let out = stub(&body, 600, false, &head(None)).expect("a stub");
        assert!(out.contains(&error), "{out}");
        assert!(out.chars().count() <= 300, "{out}");
        // A body the frame alone does not shrink gets no stub.
        assert_eq!(stub("short", 5, false, &head(Some("a0123456789ab"))), None);
    }

    #[test]
    fn holds_as_contains_does() {
        for (haystack, needle) in [
            ("", ""),
            ("abc", ""),
            ("", "a"),
            ("abc", "abc"),
            ("abc", "abcd"),
            ("xxabcx", "abc"),
            ("aab", "ab"),
            ("éa", "a"),
            ("ab", "b"),
            ("ab", "ba"),
            ("0123456789abcdef", "9a"),
            ("0123456789abcdef", "89abcdef"),
            ("0123456789abcdef", "89abcdefg"),
            ("aaaaaaaaaaaaaaaaab", "ab"),
            ("xxxxxxxxxxxxxxxxxxxxxxxxsrc/a.rs:4 src/b.rs", "src/b.rs"),
            ("xxxxxxxxxxxxxxxxxxxxxxxxsrc/a.rs:4 src/b.rs", "src/c.rs"),
        ] {
            assert_eq!(
                holds(haystack, needle),
                haystack.contains(needle),
                "{haystack:?} {needle:?}"
            );
        }
    }

    /// `stub` before what it shows was one text with a set of byte pairs: each piece searched
    /// with `str::contains`.
    fn oracle_stub(body: &str, chars: usize, crlf: bool, frame: &Frame<'_>) -> Option<String> {
        let newline = if crlf { "\r\n" } else { "\n" };
        let (opening, closing) = match frame {
            Frame::Head { keep, recall } => (
                cut::trim_end(cut::head(body, *keep)).to_string(),
                markers::pruned_body_recall(chars, *recall),
            ),
            Frame::Stale { tool, recall } => {
                (markers::stale_stub(*tool, chars, recall), String::new())
            }
        };
        let mut budget = Budget {
            used: opening.chars().count() + closing.chars().count() + newline.len(),
            limit: chars / 2,
        };
        if budget.used >= chars {
            return None;
        }
        let mut lines: Vec<&str> = Vec::new();
        let shown = |text: &str, lines: &[&str]| {
            opening.contains(text) || lines.iter().any(|line| line.contains(text))
        };
        for line in salient::error_lines(body, MAX_LINES) {
            if !shown(line, &lines) && budget.take(line.chars().count() + newline.len()) {
                lines.push(line);
            }
        }
        if let Some(last) = salient::last_line(body) {
            if !shown(last, &lines) && budget.take(last.chars().count() + newline.len()) {
                lines.push(last);
            }
        }
        let mut references: Vec<&str> = Vec::new();
        for reference in salient::stub_references(body, MAX_REFERENCES) {
            let separator = if references.is_empty() {
                newline.len()
            } else {
                1
            };
            if !shown(reference, &lines) && budget.take(reference.chars().count() + separator) {
                references.push(reference);
            }
        }
        let references = references.join(" ");
        let mut out = opening.clone();
        let pieces = lines
            .into_iter()
            .chain((!references.is_empty()).then_some(references.as_str()))
            .chain((!closing.is_empty()).then_some(closing.as_str()));
        for piece in pieces {
            out.push_str(newline);
            out.push_str(piece);
        }
        Some(out)
    }

    /// Bodies of lines with errors, paths and repeats, in any mix.
    fn bodies() -> impl proptest::strategy::Strategy<Value = String> {
        use proptest::prelude::*;
        let piece = prop::sample::select(vec![
            "Error: x",
            "error: cannot find src/a.rs",
            "FAILED src/b.rs:4:2",
            "panicked at src/a.rs",
            "Traceback",
            " at handler (app/x.py:3:1)",
            "src/a.rs",
            "./run.sh",
            "https://x.io/a/b",
            "`lib/c.ts`",
            "ok",
            "log line",
            "é",
            "日本",
            " ",
            "\n",
            "\r\n",
            "\t",
            "\u{a0}",
            "x",
            "0123456789",
        ]);
        prop::collection::vec(piece, 0..120).prop_map(|pieces| pieces.concat())
    }

    proptest::proptest! {
        #[test]
        fn stub_agrees_with_the_oracle(body in bodies(), keep in 0usize..60, crlf in proptest::bool::ANY, stale in proptest::bool::ANY) {
            let chars = body.chars().count();
            let frame = match stale {
                true => Frame::Stale { tool: Some("bash"), recall: "a0123456789ab" },
                false => Frame::Head { keep, recall: Some("a0123456789ab") },
            };
            proptest::prop_assert_eq!(
                stub(&body, chars, crlf, &frame),
                oracle_stub(&body, chars, crlf, &frame)
            );
        }

        #[test]
        fn holds_agrees_with_contains(haystack in "[ab/é]{0,40}", needle in "[ab/é]{0,5}") {
            proptest::prop_assert_eq!(holds(&haystack, &needle), haystack.contains(&needle));
        }
    }

    #[test]
    fn flat_text_keeps_the_seed_marker() {
        let body = "C".repeat(900);
        assert_eq!(
            stub(
                &body,
                900,
                false,
                &Frame::Head {
                    keep: 80,
                    recall: None
                }
            ),
            Some(format!(
                "{}\n[tool result body pruned: 900 chars]",
                "C".repeat(80)
            ))
        );
    }

    #[test]
    fn stale_stub_names_the_tool_and_keeps_the_facts() {
        let body = format!(
            "{}\nTraceback (most recent call last):\n  File \"app/main.py\", line 3\nValueError: bad\n",
            "log\n".repeat(100)
        );
        let chars = body.chars().count();
        let frame = Frame::Stale {
            tool: Some("bash"),
            recall: "a0123456789ab",
        };
        let out = stub(&body, chars, false, &frame).expect("a stub");
        assert!(
            out.starts_with(&format!(
                "[stale block pruned: bash, {chars} chars; recall: a0123456789ab]"
            )),
            "{out}"
        );
        assert!(out.contains("Traceback (most recent call last):"), "{out}");
        assert!(out.contains("ValueError: bad"), "{out}");
        assert!(out.contains("app/main.py"), "{out}");
    }
}

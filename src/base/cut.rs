//! Cutting text without breaking what a reader sees as one character.
//!
//! Every cut this library makes (micro's kept head of a tool-result body, the digest's short
//! arguments, must-keep items) goes through here. A cut lands on an extended grapheme cluster
//! boundary (Unicode UAX #29), which is also a code-point boundary, and so never splits a
//! UTF-16 surrogate pair as JS sees the string either. An emoji ZWJ sequence (👩‍👩‍👧‍👦), a flag
//! (🇯🇵), a letter with its combining marks (é), a Hangul syllable and a CRLF line end stay whole
//! or go whole.
//!
//! Lengths stay in code points (the seed's unit, and the unit of `micro_keep_head_chars`): a head
//! holds at most the asked number of code points and may be a little shorter, to end on a
//! boundary. A single cluster longer than the budget is left out entirely.

use crate::base::grapheme::{clusters, restart_before};

/// The longest prefix of `text` that holds at most `max_chars` code points and ends on a
/// grapheme cluster boundary. Borrowed from `text`; empty when the first cluster alone is longer
/// than `max_chars`.
pub fn head(text: &str, max_chars: usize) -> &str {
    // A code point takes at least one byte: a text of at most `max_chars` bytes fits whole.
    if text.len() <= max_chars {
        return text;
    }
    // ASCII up to and including the first character left out: every character is a cluster of
    // its own there (no ASCII character extends another), except CR LF.
    let bytes = text.as_bytes();
    if bytes[..=max_chars].is_ascii() {
        let crlf = max_chars > 0 && bytes[max_chars - 1] == b'\r' && bytes[max_chars] == b'\n';
        return &text[..max_chars - usize::from(crlf)];
    }
    head_by_clusters(text, max_chars)
}

fn head_by_clusters(text: &str, max_chars: usize) -> &str {
    let mut chars = 0usize;
    let mut end = 0;
    for (at, cluster) in clusters(text) {
        let cluster_chars = cluster.chars().count();
        if chars + cluster_chars > max_chars {
            return &text[..at];
        }
        chars += cluster_chars;
        end = at + cluster.len();
    }
    &text[..end]
}

/// `text` without the whitespace it ends with, removed a whole cluster at a time: a cluster
/// that is not all whitespace (a space carrying a combining mark, or following a prepended mark)
/// stays, so trimming cannot split one.
pub fn trim_end(text: &str) -> &str {
    // In ASCII text the clusters are the characters (and CR LF, whitespace too).
    if text.is_ascii() {
        return text.trim_end_matches(|c: char| c.is_whitespace());
    }
    trim_end_by_clusters(text)
}

fn trim_end_by_clusters(text: &str) -> &str {
    // What stays ends with the cluster that holds the last non-whitespace character: at the
    // first cluster boundary at or after that character's end, found walking forward from a
    // boundary shortly before it rather than from the start of a long text.
    let kept = text.trim_end_matches(char::is_whitespace).len();
    if kept == 0 {
        return "";
    }
    let from = restart_before(text, kept);
    let end = clusters(&text[from..])
        .map(|(at, cluster)| from + at + cluster.len())
        .find(|&end| end >= kept)
        .unwrap_or(text.len());
    &text[..end]
}

/// `text` without the whitespace it starts with, removed a whole cluster at a time: a space
/// followed by a combining mark is one cluster and stays.
pub fn trim_start(text: &str) -> &str {
    // ASCII whitespace followed by an ASCII character: every character there is a cluster of its
    // own (what extends or prepends a cluster is not ASCII; CR LF is whitespace both), so the
    // cut is where the whitespace ends. Reading clusters from the start was most of the cost of
    // cutting each kept line of a stub.
    let bytes = text.as_bytes();
    let at = bytes
        .iter()
        .position(|b| !matches!(b, b'\t' | b'\n' | b'\x0b' | b'\x0c' | b'\r' | b' '))
        .unwrap_or(bytes.len());
    match bytes.get(at) {
        None => return "",
        Some(b) if b.is_ascii() => return &text[at..],
        Some(_) => {}
    }
    trim_start_by_clusters(text)
}

fn trim_start_by_clusters(text: &str) -> &str {
    for (at, cluster) in clusters(text) {
        if !cluster.chars().all(char::is_whitespace) {
            return &text[at..];
        }
    }
    ""
}

/// [`trim_start`] and [`trim_end`].
pub fn trim(text: &str) -> &str {
    trim_end(trim_start(text))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn ascii_shortcuts_agree_with_clusters(
            text in "[a \r\n\t\u{b}\u{c}\u{1c}]{0,24}(\u{301}|é|😀)?[a \r\n]{0,4}",
            max in 0usize..30,
        ) {
            prop_assert_eq!(head(&text, max), head_by_clusters(&text, max));
            prop_assert_eq!(trim_end(&text), trim_end_by_clusters(&text));
            prop_assert_eq!(trim_start(&text), trim_start_by_clusters(&text));
        }
    }

    /// The functions as they were written on unicode-segmentation (the oracle now).
    mod oracle {
        use unicode_segmentation::UnicodeSegmentation;

        fn blank(cluster: &str) -> bool {
            cluster.chars().all(char::is_whitespace)
        }

        pub fn head(text: &str, max_chars: usize) -> &str {
            let mut chars = 0;
            for (at, cluster) in text.grapheme_indices(true) {
                chars += cluster.chars().count();
                if chars > max_chars {
                    return &text[..at];
                }
            }
            text
        }

        pub fn trim_end(text: &str) -> &str {
            let mut end = text.len();
            for (at, cluster) in text.grapheme_indices(true).rev() {
                if !blank(cluster) {
                    break;
                }
                end = at;
            }
            &text[..end]
        }

        pub fn trim_start(text: &str) -> &str {
            let mut start = text.len();
            for (at, cluster) in text.grapheme_indices(true) {
                if !blank(cluster) {
                    start = at;
                    break;
                }
            }
            &text[start..]
        }
    }

    /// Text where clusters and whitespace meet: spaces carrying marks, prepended marks before
    /// spaces, CR LF, conjuncts, ZWJ sequences, flags, and ASCII pairs to restart from.
    fn mixed_text() -> impl Strategy<Value = String> {
        let piece = prop_oneof![
            4 => prop::sample::select(&[
                " ", "\t", "\r", "\n", "\r\n", "\u{3000}", "\u{85}", "\u{2028}", "a", "ab", "é",
                "\u{301}", "\u{600}", "\u{903}", "\u{915}", "\u{94d}", "\u{200d}", "\u{200c}",
                "😀", "\u{1f3fb}", "🇯", "🇵", "\u{1100}", "\u{1161}", "\u{11a8}", "한", "中",
            ][..]).prop_map(str::to_string),
            1 => any::<char>().prop_map(String::from),
        ];
        prop::collection::vec(piece, 0..30).prop_map(|pieces| pieces.concat())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2048))]
        #[test]
        fn cuts_agree_with_the_oracle(text in mixed_text(), max in 0usize..40) {
            prop_assert_eq!(head(&text, max), oracle::head(&text, max));
            prop_assert_eq!(trim_end(&text), oracle::trim_end(&text));
            prop_assert_eq!(trim_end_by_clusters(&text), oracle::trim_end(&text));
            prop_assert_eq!(trim_start(&text), oracle::trim_start(&text));
        }
    }

    #[test]
    fn ascii_cuts_at_the_count() {
        assert_eq!(head("abcdef", 3), "abc");
        assert_eq!(head("abc", 3), "abc");
        assert_eq!(head("abc", 0), "");
        assert_eq!(head("", 5), "");
    }

    #[test]
    fn clusters_stay_whole() {
        let family = "👩\u{200d}👩\u{200d}👧\u{200d}👦"; // 7 code points, one cluster
        assert_eq!(head(&format!("ab{family}cd"), 8), "ab");
        assert_eq!(head(&format!("ab{family}cd"), 9), format!("ab{family}"));
        let flag = "🇯🇵"; // 2 code points
        assert_eq!(head(&format!("{flag}{flag}"), 3), flag);
        assert_eq!(head("e\u{301}\u{302}x", 2), "");
        assert_eq!(head("e\u{301}\u{302}x", 3), "e\u{301}\u{302}");
        assert_eq!(head("a\r\nb", 2), "a");
        assert_eq!(head("a\r\nb", 3), "a\r\n");
    }

    #[test]
    fn trims_whole_clusters_only() {
        assert_eq!(trim_end("abc \t\r\n"), "abc");
        assert_eq!(trim_end("abc \u{301}"), "abc \u{301}");
        // U+0600 is a prepended mark: it and the space after it are one cluster.
        assert_eq!(trim_end("a\u{600} "), "a\u{600} ");
        assert_eq!(trim_start(" \u{301}x"), " \u{301}x");
        assert_eq!(trim("  x  "), "x");
        assert_eq!(trim(" \n "), "");
    }
}

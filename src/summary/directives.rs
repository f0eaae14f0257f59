//! The user's directives as the library carries them: the words of a directive exactly as the
//! user wrote them (indentation included), and how a summary or digest the library wrote says
//! which of its spans are directives, so the next summary or digest that folds it carries them
//! on verbatim (docs/design.md §5: directives are carried into every summary, in full).
//!
//! A summary is the summariser's prose: a directive may stand anywhere in it, quoted or appended.
//! So the library writes one last line under each of its texts that carries directives, the
//! **directive index**: `[directives carried verbatim: 57+40, 120+33]`, one `B+L` per directive,
//! which starts `B` characters (code points) before the end of the text above that line and is
//! `L` characters long. Counted from the end, the spans stay right when a heading is put before
//! the text; counted in code points, they stay right whichever characters a binding maps lone
//! surrogates to. [`carried`] reads them back; a line that does not fit its text (edited by
//! someone else) gives nothing rather than a wrong span.

/// User-written text of at most this many code points is a directive, carried whole.
pub const DIRECTIVE_MAX_CHARS: usize = 2000;

/// How the directive index line begins.
pub const INDEX_PREFIX: &str = "[directives carried verbatim: ";

/// The words of a user's text as a directive carries them: without the blank lines before them
/// and the whitespace after them, the first line's indentation kept (a pasted, indented snippet
/// must still line up).
pub fn words(text: &str) -> &str {
    let trimmed = crate::base::cut::trim(text);
    if trimmed.is_empty() {
        return trimmed;
    }
    let start = text.len() - crate::base::cut::trim_start(text).len();
    let line_start = text[..start].rfind('\n').map_or(0, |at| at + 1);
    let end = start + trimmed.len();
    &text[line_start..end]
}

/// Whether `words` (see [`words`]) is a directive: not empty and at most
/// [`DIRECTIVE_MAX_CHARS`] code points. Longer user content is content (a pasted log).
pub fn is_directive(words: &str) -> bool {
    !words.is_empty() && crate::base::bytes::count_chars(words) <= DIRECTIVE_MAX_CHARS
}

/// `words` under `label` (`user:`, `-`): on the label's line, or on the lines after it when they
/// start with whitespace, so an indented snippet keeps lining up.
pub fn labelled(label: &str, words: &str) -> String {
    match words.starts_with(char::is_whitespace) {
        true => format!("{label}\n{words}"),
        false => format!("{label} {words}"),
    }
}

/// `text` with the directive index of `directives` appended (nothing when there are none). A
/// directive `text` does not hold verbatim is appended first, under
/// [`crate::transcript::markers::KEPT_VERBATIM`], so every span names the directive's own words.
pub fn carry(mut text: String, directives: &[String]) -> String {
    let directives: Vec<&String> = directives.iter().filter(|d| !d.is_empty()).collect();
    if directives.is_empty() {
        return text;
    }
    let missing: Vec<&String> = directives
        .iter()
        .copied()
        .filter(|d| !text.contains(d.as_str()))
        .collect();
    keep_verbatim(&mut text, &missing);
    let total = text.chars().count();
    let spans: Vec<String> = directives
        .iter()
        .filter_map(|directive| {
            let at = text.find(directive.as_str())?;
            let back = total - text[..at].chars().count();
            Some(format!("{back}+{}", directive.chars().count()))
        })
        .collect();
    text.push('\n');
    text.push_str(INDEX_PREFIX);
    text.push_str(&spans.join(", "));
    text.push(']');
    text
}

/// Appends `items` to `text` under [`crate::transcript::markers::KEPT_VERBATIM`], one a line
/// (nothing when there are none).
pub fn keep_verbatim(text: &mut String, items: &[&String]) {
    if items.is_empty() {
        return;
    }
    text.push_str("\n\n");
    text.push_str(crate::transcript::markers::KEPT_VERBATIM);
    for item in items {
        // An indented item starts on its own line, so it keeps lining up.
        text.push('\n');
        text.push_str(&labelled("-", item));
    }
}

/// The directives a text of the library carries, by its directive index, in order; none when it
/// has no index or the index does not fit the text.
pub fn carried(text: &str) -> Vec<&str> {
    let Some((above, spans)) = split_index(text) else {
        return Vec::new();
    };
    // Where each character above starts, and the end: spans are counted in characters.
    let starts: Vec<usize> = above
        .char_indices()
        .map(|(at, _)| at)
        .chain([above.len()])
        .collect();
    let total = starts.len() - 1;
    let mut found = Vec::new();
    for span in spans.split(", ") {
        let Some((back, chars)) = span.split_once('+') else {
            return Vec::new();
        };
        let (Ok(back), Ok(chars)) = (back.parse::<usize>(), chars.parse::<usize>()) else {
            return Vec::new();
        };
        if chars == 0 || back > total || chars > back {
            return Vec::new();
        }
        let start = total - back;
        found.push(&above[starts[start]..starts[start + chars]]);
    }
    found
}

/// `text` without its directive index line, if it has one: what a reader (a summariser, a
/// digest folding it) needs of it.
pub fn without_index(text: &str) -> &str {
    match split_index(text) {
        Some((above, _)) => above,
        None => text,
    }
}

/// The text above the directive index and the index's spans, when the last line is one.
fn split_index(text: &str) -> Option<(&str, &str)> {
    let text = text.trim_end();
    let (above, last) = text.rsplit_once('\n')?;
    let spans = last.strip_prefix(INDEX_PREFIX)?.strip_suffix(']')?;
    Some((above, spans))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_keep_the_first_lines_indentation() {
        assert_eq!(
            words("\n\n    let x = 1;\n    y\n\n"),
            "    let x = 1;\n    y"
        );
        assert_eq!(words("  \r\n\tfoo  "), "\tfoo");
        assert_eq!(words("plain"), "plain");
        assert_eq!(words(" \n "), "");
        assert!(is_directive("x") && !is_directive(""));
        assert!(is_directive(&"é".repeat(2_000)) && !is_directive(&"é".repeat(2_001)));
    }

    #[test]
    fn carried_directives_come_back_after_a_heading_is_put_before_them() {
        let directives = vec![
            "    indented\n    snippet".to_string(),
            "Never edit 日本.ts.".to_string(),
            "not quoted by the summary".to_string(),
        ];
        let summary = "The user asked:\n    indented\n    snippet\nand: Never edit 日本.ts. 😀";
        let text = carry(summary.to_string(), &directives);
        assert!(text.contains("[kept verbatim]\n- not quoted by the summary\n"));
        let headed = format!("[summary of earlier conversation] covers 9 tokens\n{text}\n");
        assert_eq!(carried(&headed), directives);
        assert_eq!(
            without_index(&headed).lines().last(),
            Some("- not quoted by the summary")
        );
    }

    #[test]
    fn no_directives_no_index_and_a_wrong_index_gives_nothing() {
        assert_eq!(carry("text".into(), &[]), "text");
        assert!(carried("text").is_empty());
        assert!(carried("ab\n[directives carried verbatim: 9+1]").is_empty());
        assert!(carried("ab\n[directives carried verbatim: 1+2]").is_empty());
        assert!(carried("ab\n[directives carried verbatim: x]").is_empty());
        assert_eq!(carried("ab\n[directives carried verbatim: 2+1]"), ["a"]);
        assert_eq!(without_index("only a line"), "only a line");
    }
}

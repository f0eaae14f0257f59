//! Text cutting never splits a code point, a UTF-16 surrogate pair or a grapheme cluster:
//! properties of `cut::head` and `cut::trim_end`, and of every place that cuts text with them
//! (micro's collapsed body, the digest's one-line excerpts, must-keep items, and micro end to end
//! through the engine), over strings of ZWJ emoji, flags, combining sequences, CJK, Hangul, CRLF.

mod common;

use common::*;
use proptest::prelude::*;
use serde_json::json;
use tiered_compaction::base::cut;
use tiered_compaction::formats::read_messages;
use tiered_compaction::tiers::micro::collapsed;
use tiered_compaction::transcript::Format;
use tiered_compaction::{
    ContextInput, FormatChoice, Tier, TierContext, compact_with_tier, summary::digest,
    summary::must_keep,
};
use unicode_segmentation::UnicodeSegmentation;

/// Pieces that are hard to cut: each is one or more grapheme clusters of several code points.
const HARD: &[&str] = &[
    "👩\u{200d}👩\u{200d}👧\u{200d}👦", // family: ZWJ sequence of 7 code points
    "🏳\u{fe0f}\u{200d}🌈",              // rainbow flag: VS16 + ZWJ
    "👍🏽",                               // skin tone modifier
    "🧑\u{200d}💻",                     // technologist
    "🇯🇵",                               // flag: two regional indicators
    "🇺🇸🇫🇷",                             // two flags back to back
    "🇦",                                // a lone regional indicator
    "🏴\u{e0067}\u{e0062}\u{e0073}\u{e0063}\u{e0074}\u{e007f}", // Scotland: tag sequence
    "e\u{301}\u{302}",                  // combining marks
    "n\u{303}",                         // decomposed ñ
    " \u{301}",                         // a space carrying a combining mark
    "\u{600} ",                         // prepended mark joining the space after it
    "क्षि",                              // Devanagari conjunct with vowel sign
    "\u{1100}\u{1161}\u{11a8}",         // Hangul jamo: one syllable
    "한국어",                           // precomposed Hangul
    "日本語のテキスト",                 // CJK
    "𠜎𠜱",                             // CJK extension B (surrogate pairs in UTF-16)
    "\r\n",                             // CRLF is one cluster
    "\r",
    "\n",
    "\t",
    "  ",
    "x",
    "plain words ",
    "\u{200d}", // a stray ZWJ
    "\u{fe0f}", // a stray variation selector
];

fn hard_string() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        4 => prop::sample::select(HARD).prop_map(str::to_string),
        1 => any::<char>().prop_map(|c| c.to_string()),
        1 => "[a-z ]{1,8}",
    ];
    prop::collection::vec(piece, 0..40).prop_map(|pieces| pieces.concat())
}

/// Byte offsets where `text` may be cut: every grapheme cluster boundary, the end included.
fn boundaries(text: &str) -> Vec<usize> {
    let mut out: Vec<usize> = text.grapheme_indices(true).map(|(at, _)| at).collect();
    out.push(text.len());
    out
}

/// `part` is a prefix of `text` (borrowed from it) ending on a cluster boundary, and, seen from
/// JS, a prefix of its UTF-16 code units that does not end inside a surrogate pair.
fn assert_clean_prefix(text: &str, part: &str) -> Result<(), TestCaseError> {
    prop_assert!(
        text.starts_with(part),
        "{part:?} is not a prefix of {text:?}"
    );
    prop_assert!(
        boundaries(text).contains(&part.len()),
        "{part:?} ends inside a grapheme cluster of {text:?}"
    );
    let units: Vec<u16> = text.encode_utf16().collect();
    let head_units: Vec<u16> = part.encode_utf16().collect();
    prop_assert!(units.starts_with(&head_units));
    if let Some(last) = head_units.last() {
        prop_assert!(!(0xd800..0xdc00).contains(last), "ends on a high surrogate");
    }
    Ok(())
}

proptest! {
    #![proptest_config(common::cases::config(512))]

    #[test]
    fn head_is_the_longest_clean_prefix_within_the_budget(text in hard_string(), max in 0usize..120) {
        let head = cut::head(&text, max);
        assert_clean_prefix(&text, head)?;
        prop_assert!(head.chars().count() <= max, "{} code points > {max}", head.chars().count());
        // Longest: the next cluster would not fit.
        if head.len() < text.len() {
            let next = text[head.len()..].graphemes(true).next().expect("a cluster follows");
            prop_assert!(head.chars().count() + next.chars().count() > max);
        }
    }

    #[test]
    fn trimming_removes_whole_whitespace_clusters_only(text in hard_string()) {
        let trimmed = cut::trim_end(&text);
        assert_clean_prefix(&text, trimmed)?;
        prop_assert!(text[trimmed.len()..].chars().all(char::is_whitespace));
        if let Some(last) = trimmed.graphemes(true).next_back() {
            prop_assert!(!last.chars().all(char::is_whitespace));
        }
        let both = cut::trim(&text);
        let start = text.len() - cut::trim_start(&text).len();
        prop_assert!(boundaries(&text).contains(&start));
        prop_assert!(text[start..].starts_with(both));
    }

    #[test]
    fn collapsed_body_keeps_a_clean_head_and_counts_code_points(body in hard_string(), keep in 0usize..100) {
        let out = collapsed(&body, keep);
        let marker = format!("[tool result body pruned: {} chars]", body.chars().count());
        prop_assert!(out.ends_with(&marker), "{out:?}");
        let newline = if body.contains("\r\n") { "\r\n" } else { "\n" };
        // The stub is the head, the lines that matter and paths (if any), then the marker.
        let head = cut::trim_end(cut::head(&body, keep));
        prop_assert!(out.starts_with(&format!("{head}{newline}")), "{out:?}");
        assert_clean_prefix(&body, head)?;
        prop_assert!(head.chars().count() <= keep);
    }

    #[test]
    fn one_line_excerpts_end_on_a_cluster(text in hard_string(), max in 0usize..60) {
        // Without line breaks, tabs or outer whitespace, one_line is a plain cut.
        let text: String = text.replace(['\r', '\n', '\t'], "x");
        let text = cut::trim(&text).to_string();
        let line = digest::one_line(&text, max);
        let head = line.strip_suffix('…').unwrap_or(&line);
        assert_clean_prefix(&text, head)?;
        prop_assert!(head.chars().count() <= max);
        prop_assert_eq!(line.ends_with('…'), head.len() < text.len());
    }

    #[test]
    fn must_keep_items_are_clean_prefixes(words in hard_string(), repeat in 1usize..40) {
        let words = format!("please {}", words.repeat(repeat));
        let messages = vec![
            json!({"role": "system", "content": "be brief"}),
            json!({"role": "user", "content": words}),
        ];
        let transcript = read_messages(&messages, Format::OpenAi).expect("valid");
        let whole = 0..2;
        let items = must_keep::collect(&transcript, std::slice::from_ref(&whole));
        let user = cut::trim(&words);
        // A directive (at most 2,000 code points) is carried whole; longer user content is not
        // a directive, and what is taken from it is cut cleanly.
        if user.chars().count() <= must_keep::DIRECTIVE_MAX_CHARS {
            prop_assert!(items.iter().any(|item| item == user), "{items:?}");
        }
        for item in items.iter().filter(|item| user.starts_with(item.as_str()) && item.as_str() != user) {
            assert_clean_prefix(user, item)?;
            prop_assert!(item.chars().count() <= must_keep::MAX_ITEM_CHARS);
        }
    }

    #[test]
    fn micro_through_the_engine_never_splits_a_cluster(output in hard_string(), repeat in 1usize..30) {
        let output = format!("{}{}", output.repeat(repeat), "tail ".repeat(60));
        let messages = vec![
            json!({"role": "user", "content": "run it"}),
            json!({"role": "assistant", "content": null, "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "bash", "arguments": "{}"}}
            ]}),
            json!({"role": "tool", "tool_call_id": "c1", "content": output}),
            json!({"role": "assistant", "content": "done"}),
            json!({"role": "user", "content": "next"}),
        ];
        let ctx = TierContext::new(
            "s-cut",
            pressure(3, 0.2, 0.0, false),
            ContextInput::Messages { messages, format: FormatChoice::Fixed(Format::OpenAi) },
        );
        // The newest step ("done") is the protected tail; the tool result is outside it.
        let mut options = unbatched();
        options.policy.keep_recent_steps = 1;
        let result = checked(block_on(compact_with_tier(Tier::Micro, &ctx, &options)).expect("micro"));
        let collapsed_body = result.messages().expect("messages")[2]["content"]
            .as_str()
            .expect("string content")
            .to_string();
        prop_assert!(collapsed_body.contains("[tool result body pruned: "), "{collapsed_body:?}");
        let head = cut::trim_end(cut::head(&output, 80));
        prop_assert!(collapsed_body.starts_with(head), "{collapsed_body:?}");
        assert_clean_prefix(&output, head)?;
    }
}

#[test]
fn seed_numbers_are_unchanged_for_ascii() {
    let body = "C".repeat(900);
    assert_eq!(
        collapsed(&body, 80),
        format!("{}\n[tool result body pruned: 900 chars]", "C".repeat(80))
    );
}

#[test]
fn a_family_emoji_across_the_cut_is_left_out_whole() {
    let family = "👩\u{200d}👩\u{200d}👧\u{200d}👦";
    let body = format!("{}{family}{}", "a".repeat(78), "b".repeat(300));
    let out = collapsed(&body, 80);
    assert!(
        out.starts_with(&format!(
            "{}\n[tool result body pruned: 385 chars]",
            "a".repeat(78)
        )),
        "{out}"
    );
    let body = format!("{}{family}{}", "a".repeat(73), "b".repeat(300));
    assert!(collapsed(&body, 80).starts_with(&format!("{}{family}\n", "a".repeat(73))));
}

#[test]
fn a_flag_across_the_cut_is_left_out_whole() {
    let body = format!("{}🇯🇵{}", "a".repeat(79), "b".repeat(300));
    assert!(collapsed(&body, 80).starts_with(&format!("{}\n[", "a".repeat(79))));
}

#[test]
fn combining_marks_stay_with_their_letter() {
    let body = format!("{}e\u{301}\u{302}{}", "a".repeat(78), "b".repeat(300));
    assert!(collapsed(&body, 80).starts_with(&format!("{}\n[", "a".repeat(78))));
    let body = format!("{}e\u{301}{}", "a".repeat(78), "b".repeat(300));
    assert!(collapsed(&body, 80).starts_with(&format!("{}e\u{301}\n[", "a".repeat(78))));
}

#[test]
fn crlf_is_never_halved() {
    let body = format!("{}\r\n{}", "a".repeat(79), "b".repeat(300));
    let out = collapsed(&body, 80);
    assert!(
        out.starts_with(&format!("{}\r\n[", "a".repeat(79))),
        "{out:?}"
    );
}

//! Text cutting on arbitrary strings: a head is a prefix within the budget that ends on a
//! grapheme cluster boundary and is the longest such; micro's collapsed body keeps such a head
//! and counts the body's code points.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tiered_compaction::base::cut;
use tiered_compaction::tiers::micro::collapsed;
use unicode_segmentation::UnicodeSegmentation;

fuzz_target!(|data: &[u8]| {
    let Some((max, rest)) = data.split_first() else {
        return;
    };
    let max = usize::from(*max);
    let text = String::from_utf8_lossy(rest);
    let boundaries: Vec<usize> = text
        .grapheme_indices(true)
        .map(|(at, _)| at)
        .chain([text.len()])
        .collect();
    let head = cut::head(&text, max);
    assert!(text.starts_with(head));
    assert!(head.chars().count() <= max);
    assert!(boundaries.contains(&head.len()), "cut inside a cluster");
    if let Some(next) = text[head.len()..].graphemes(true).next() {
        assert!(
            head.chars().count() + next.chars().count() > max,
            "not the longest head"
        );
    }
    let trimmed = cut::trim_end(head);
    assert!(boundaries.contains(&trimmed.len()), "trim inside a cluster");
    let out = collapsed(&text, max);
    let marker = format!("[tool result body pruned: {} chars]", text.chars().count());
    assert!(out.ends_with(&marker));
    assert!(out.starts_with(trimmed));
});

//! Extended grapheme cluster boundaries (Unicode UAX #29), exactly as unicode-segmentation
//! 1.13.3's `grapheme_indices(true)` finds them (Unicode 17.0.0), for [`crate::base::cut`].
//!
//! Why not that crate (measured again for issue 30): with it in place of this module the wasm
//! grew by 30,507 bytes, 10,865 gzipped (262,716 -> 273,581), mostly its category table (1,618
//! ranges of 12 bytes, and an index) and a cursor built for text in chunks, searched both ways;
//! and cutting stub heads and lines (head of 80, trim, each line cut at 160) took 1.36-1.47x
//! this module's time on CJK text and on prose with combining marks (1.0x on emoji and ASCII).
//! `cut` only walks a whole `&str` forward, and the categories fit in 1.7 KB run-length coded
//! (`table.rs`, generated from that crate's own tables by `scripts/grapheme-table.mjs`). Nor a
//! shorter step-back: cutting at code points alone saves 2,566 bytes gzipped at most (all of
//! this module), and any step-back that keeps the tests' boundaries (marks, conjuncts, Hangul,
//! ZWJ sequences, flags) needs this table (1,965 bytes of run-length codes, which gzip hardly
//! shrinks) and most of the rules. unicode-segmentation
//! stays a dev-dependency: the tests compare every code point's category, and the boundaries in
//! pairs, triples and random strings, with it.

mod category;
mod table;

pub(crate) use category::Cat;
use core::str::CharIndices;
use table::{BLOCK_AT, BLOCK_START, CODES, RUNS};

/// The clusters of `text` in order, each with its byte offset.
pub(crate) fn clusters(text: &str) -> Clusters<'_> {
    Clusters {
        text,
        chars: text.char_indices(),
        next: None,
        context: Context::START,
        lookup: Lookup::EMPTY,
    }
}

/// The iterator [`clusters`] returns.
pub(crate) struct Clusters<'a> {
    text: &'a str,
    chars: CharIndices<'a>,
    /// The first character of the next cluster, read to find where this one ends: its offset and
    /// category.
    next: Option<(usize, Cat)>,
    /// The text before it, as far as the rules need it.
    context: Context,
    lookup: Lookup,
}

impl<'a> Iterator for Clusters<'a> {
    type Item = (usize, &'a str);

    fn next(&mut self) -> Option<(usize, &'a str)> {
        let (start, first) = self.next.take().or_else(|| self.read())?;
        self.context.push(first);
        let mut end = self.text.len();
        while let Some((at, cat)) = self.read() {
            if !self.context.joins(cat) {
                self.next = Some((at, cat));
                end = at;
                break;
            }
            self.context.push(cat);
        }
        Some((start, self.text.get(start..end).unwrap_or_default()))
    }
}

impl Clusters<'_> {
    fn read(&mut self) -> Option<(usize, Cat)> {
        let (at, c) = self.chars.next()?;
        Some((at, self.lookup.category(c)))
    }
}

/// The last cluster boundary before byte `end` of `text` (0 when there is none) from which
/// [`clusters`] of the rest finds the clusters [`clusters`] of the whole text finds there, so a
/// search near the end of a long text need not walk it from the start: a boundary after a
/// character whose context does not depend on the text before it (any but a regional
/// indicator, Extend or ZWJ), the context [`Context::START`] and that character give.
pub(crate) fn restart_before(text: &str, end: usize) -> usize {
    let mut lookup = Lookup::EMPTY;
    let mut after = None;
    for (at, c) in text.get(..end).unwrap_or_default().char_indices().rev() {
        let cat = lookup.category(c);
        let mut context = Context::START;
        context.push(cat);
        let context_free = !matches!(
            cat,
            Cat::Ri | Cat::Extend | Cat::ExtendPlain | Cat::Linker | Cat::Zwj
        );
        if context_free && after.is_some_and(|after| !context.joins(after)) {
            return at + c.len_utf8();
        }
        after = Some(cat);
    }
    0
}

/// What the rules need to know about the text before a possible boundary.
#[derive(Clone, Copy)]
struct Context {
    /// The category of the character just before it.
    before: Cat,
    /// Whether the text ends in an odd number of regional indicators (GB12, GB13).
    odd_ri: bool,
    /// How far the text ends in `Consonant [Extend Linker]* Linker [Extend Linker]*` (GB9c).
    conjunct: Conjunct,
    /// How far the text ends in `Pict Extend* Zwj` (GB11).
    emoji: Emoji,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Conjunct {
    No,
    Consonant,
    Linked,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Emoji {
    No,
    Pict,
    Zwj,
}

impl Context {
    /// Before the text: a control before it breaks before anything (GB4), as the start does
    /// (GB1), and holds no sequence.
    const START: Context = Context {
        before: Cat::Control,
        odd_ri: false,
        conjunct: Conjunct::No,
        emoji: Emoji::No,
    };

    /// Whether a character of category `next` joins the cluster before it, as
    /// unicode-segmentation's `check_pair` decides, in its order.
    fn joins(&self, next: Cat) -> bool {
        use Cat::*;
        match (self.before, next) {
            (Cr, Lf) => true,                                               // GB3
            (Control | Cr | Lf, _) | (_, Control | Cr | Lf) => false,       // GB4, GB5
            (L, L | V | Lv | Lvt) | (Lv | V, V | T) | (Lvt | T, T) => true, // GB6-GB8
            (_, Extend | ExtendPlain | Linker | Zwj) => true,               // GB9
            (_, SpacingMark) | (Prepend, _) => true,                        // GB9a, GB9b
            (_, Consonant) => self.conjunct == Conjunct::Linked,            // GB9c
            (Zwj, Pict) => self.emoji == Emoji::Zwj,                        // GB11
            (Ri, Ri) => self.odd_ri,                                        // GB12, GB13
            _ => false,                                                     // GB999
        }
    }

    /// The context after a character of category `cat`.
    fn push(&mut self, cat: Cat) {
        use Cat::*;
        self.odd_ri = cat == Ri && !self.odd_ri;
        // GB9c's Extend is InCB=Extend (ZWJ is, ZWNJ is not); GB11's is Grapheme_Cluster_Break
        // Extend, linkers and ZWNJ included.
        self.conjunct = match (cat, self.conjunct) {
            (Consonant, _) => Conjunct::Consonant,
            (Linker, Conjunct::Consonant | Conjunct::Linked) => Conjunct::Linked,
            (Extend | Zwj, conjunct) => conjunct,
            _ => Conjunct::No,
        };
        self.emoji = match (cat, self.emoji) {
            (Pict, _) | (Extend | ExtendPlain | Linker, Emoji::Pict) => Emoji::Pict,
            (Zwj, Emoji::Pict) => Emoji::Zwj,
            _ => Emoji::No,
        };
        self.before = cat;
    }
}

/// Categories, with the table range the last lookup fell in: text in one script mostly stays
/// in one range (CJK, Hangul syllables), and the table is searched again only when it leaves.
#[derive(Clone, Copy)]
struct Lookup {
    /// The range `start..end` of code points with table code `code`.
    start: u32,
    end: u32,
    code: u8,
}

impl Lookup {
    const EMPTY: Lookup = Lookup {
        start: 0,
        end: 0,
        code: 0,
    };

    fn category(&mut self, c: char) -> Cat {
        match c {
            '\r' => Cat::Cr,
            '\n' => Cat::Lf,
            '\0'..='\u{1f}' | '\u{7f}' => Cat::Control,
            ' '..='~' => Cat::Any,
            _ => {
                let c = u32::from(c);
                if !(self.start..self.end).contains(&c) {
                    *self = Lookup::find(c);
                }
                match CODES[usize::from(self.code & 15)] {
                    // One code for both kinds of Hangul syllable: every 28th is LV.
                    Cat::Lv if c.wrapping_sub(0xac00) % 28 != 0 => Cat::Lvt,
                    cat => cat,
                }
            }
        }
    }

    /// The table range that holds `c` (U+0080 or above): decoded from the last block of changes
    /// that starts at or before it.
    fn find(c: u32) -> Lookup {
        let block = BLOCK_START
            .partition_point(|&start| start <= c)
            .saturating_sub(1);
        let (Some(&start), Some(&at)) = (BLOCK_START.get(block), BLOCK_AT.get(block)) else {
            return Lookup::EMPTY;
        };
        let mut runs = RUNS.get(usize::from(at)..).unwrap_or_default();
        let Some((_, code)) = next_change(&mut runs) else {
            return Lookup::EMPTY;
        };
        let mut found = Lookup {
            start,
            end: char::MAX as u32 + 1,
            code,
        };
        while let Some((delta, code)) = next_change(&mut runs) {
            let next = found.start + delta;
            if next > c {
                found.end = next;
                break;
            }
            found = Lookup {
                start: next,
                code,
                ..found
            };
        }
        found
    }
}

/// The next change of code in `runs`, which it consumes: how many code points after the previous
/// change it comes, and the code (the layout is `scripts/grapheme-table.mjs`'s).
fn next_change(runs: &mut &[u8]) -> Option<(u32, u8)> {
    let (&byte, rest) = runs.split_first()?;
    *runs = rest;
    if byte >> 4 != 0 {
        return Some((u32::from(byte >> 4), byte & 15));
    }
    let mut delta = 0;
    for shift in [0, 7, 14, 21] {
        let Some((&next, rest)) = runs.split_first() else {
            break;
        };
        *runs = rest;
        delta |= u32::from(next & 0x7f) << shift;
        if next < 0x80 {
            break;
        }
    }
    Some((delta, byte & 15))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base::grapheme::table::{BLOCK, UNICODE_VERSION};
    use proptest::prelude::*;
    use unicode_segmentation::{GraphemeCursor, UnicodeSegmentation};

    /// Characters of every category, the sequences GB9c, GB11 and GB12 look for, and edges.
    const REPRESENTATIVES: &[(char, Cat)] = &[
        ('a', Cat::Any),
        (' ', Cat::Any),
        ('~', Cat::Any),
        ('\u{a0}', Cat::Any),
        ('é', Cat::Any),
        ('中', Cat::Any),
        ('\u{20000}', Cat::Any),
        ('\u{10ffff}', Cat::Any),
        ('\r', Cat::Cr),
        ('\n', Cat::Lf),
        ('\0', Cat::Control),
        ('\t', Cat::Control),
        ('\u{7f}', Cat::Control),
        ('\u{85}', Cat::Control),
        ('\u{ad}', Cat::Control),
        ('\u{200b}', Cat::Control),
        ('\u{2028}', Cat::Control),
        ('\u{feff}', Cat::Control),
        ('\u{e0001}', Cat::Control),
        ('\u{301}', Cat::Extend),
        ('\u{93c}', Cat::Extend),
        ('\u{941}', Cat::Extend),
        ('\u{fe0f}', Cat::Extend),
        ('\u{1f3fb}', Cat::Extend),
        ('\u{e0067}', Cat::Extend),
        ('\u{e007f}', Cat::Extend),
        ('\u{200c}', Cat::ExtendPlain),
        ('\u{94d}', Cat::Linker),
        ('\u{9cd}', Cat::Linker),
        ('\u{11f42}', Cat::Linker),
        ('\u{200d}', Cat::Zwj),
        ('\u{903}', Cat::SpacingMark),
        ('\u{93f}', Cat::SpacingMark),
        ('\u{600}', Cat::Prepend),
        ('\u{d4e}', Cat::Prepend),
        ('\u{110bd}', Cat::Prepend),
        ('\u{1100}', Cat::L),
        ('\u{a960}', Cat::L),
        ('\u{1161}', Cat::V),
        ('\u{d7b0}', Cat::V),
        ('\u{11a8}', Cat::T),
        ('\u{d7cb}', Cat::T),
        ('\u{ac00}', Cat::Lv),
        ('\u{d788}', Cat::Lv),
        ('\u{ac01}', Cat::Lvt),
        ('\u{d7a3}', Cat::Lvt),
        ('\u{1f1e6}', Cat::Ri),
        ('\u{1f1ff}', Cat::Ri),
        ('\u{a9}', Cat::Pict),
        ('\u{2764}', Cat::Pict),
        ('\u{1f3f4}', Cat::Pict),
        ('\u{1f600}', Cat::Pict),
        ('\u{915}', Cat::Consonant),
        ('\u{995}', Cat::Consonant),
        ('\u{1000}', Cat::Consonant),
    ];

    fn category(c: char) -> Cat {
        let mut lookup = Lookup::EMPTY;
        lookup.category(c)
    }

    /// The boundaries unicode-segmentation finds: cluster starts.
    fn expected(text: &str) -> Vec<usize> {
        text.grapheme_indices(true).map(|(at, _)| at).collect()
    }

    /// The boundaries [`clusters`] finds, after checking its clusters tile `text`.
    fn found(text: &str) -> Vec<usize> {
        let mut end = 0;
        let mut starts = Vec::new();
        for (at, cluster) in clusters(text) {
            assert_eq!(at, end, "{text:?}");
            assert_eq!(&text[at..at + cluster.len()], cluster, "{text:?}");
            assert!(!cluster.is_empty(), "{text:?}");
            starts.push(at);
            end = at + cluster.len();
        }
        assert_eq!(end, text.len(), "{text:?}");
        starts
    }

    /// Every change of the table: its code point and code.
    fn changes() -> Vec<(u32, u8)> {
        let mut runs = &RUNS[..];
        let mut out: Vec<(u32, u8)> = Vec::new();
        while let Some((delta, code)) = next_change(&mut runs) {
            let at = out.last().map_or(delta, |&(previous, _)| previous + delta);
            out.push((at, code));
        }
        out
    }

    /// The oracle's clusters of `text` as their lengths in code points: the same for any two
    /// characters of one category in the same place, whatever their UTF-8 lengths.
    fn shape(text: &str) -> impl Iterator<Item = usize> {
        text.graphemes(true).map(|cluster| cluster.chars().count())
    }

    /// Contexts around a character in which any two categories give different boundaries (the
    /// test below checks it).
    const TELLING: &[(&str, &str)] = &[
        ("a", ""),
        ("", "a"),
        ("", "\u{301}"),
        ("\r", ""),
        ("", "\n"),
        ("\u{1100}", ""),
        ("", "\u{1161}"),
        ("", "\u{11a8}"),
        ("\u{1161}", ""),
        ("😀\u{200d}", ""),
        ("😀", "😀"),
        ("😀", "\u{200d}😀"),
        ("\u{1f1e6}", ""),
        ("\u{915}", "\u{915}"),
        ("\u{915}\u{94d}", "\u{915}"),
    ];

    /// Fewer contexts, in which Any gives different boundaries from every other category: for
    /// the million code points the table says are Any.
    const TELLING_ANY: &[(&str, &str)] = &[
        ("a", "\u{301}"),
        ("", "a"),
        ("", "\u{1161}"),
        ("", "\u{11a8}"),
        ("\u{1f1e6}", ""),
        ("😀\u{200d}", ""),
        ("\u{915}\u{94d}", ""),
    ];

    /// `c` in each of the contexts `around`, each ended by a control (which breaks on both sides
    /// and ends every sequence the rules follow), into `out`.
    fn probe<'a>(out: &'a mut String, c: char, around: &[(&str, &str)]) -> &'a str {
        out.clear();
        for (before, after) in around {
            out.push_str(before);
            out.push(c);
            out.push_str(after);
            out.push('\u{1}');
        }
        out
    }

    #[test]
    fn the_table_is_for_the_oracles_unicode_version() {
        assert_eq!(UNICODE_VERSION, unicode_segmentation::UNICODE_VERSION);
    }

    #[test]
    fn representatives_have_their_category() {
        for &(c, cat) in REPRESENTATIVES {
            assert_eq!(category(c), cat, "{c:?}");
        }
    }

    #[test]
    fn the_probes_tell_every_category_apart() {
        let mut text = String::new();
        let any: Vec<usize> = shape(probe(&mut text, 'a', TELLING_ANY)).collect();
        let mut seen: Vec<(Cat, Vec<usize>)> = Vec::new();
        for &(c, cat) in REPRESENTATIVES {
            let shown: Vec<usize> = shape(probe(&mut text, c, TELLING_ANY)).collect();
            assert_eq!(
                cat == Cat::Any,
                shown == any,
                "{c:?} ({cat:?}) in TELLING_ANY"
            );
            let shown: Vec<usize> = shape(probe(&mut text, c, TELLING)).collect();
            for (other, other_shown) in &seen {
                let same = *other == cat;
                assert_eq!(
                    same,
                    *other_shown == shown,
                    "{c:?} ({cat:?}) against {other:?}"
                );
            }
            seen.push((cat, shown));
        }
        let mut cats: Vec<String> = seen.iter().map(|(cat, _)| format!("{cat:?}")).collect();
        cats.sort();
        cats.dedup();
        assert_eq!(cats.len(), 18, "a category without a representative");
    }

    /// Every code point's category is the oracle's, told by its boundaries in the probes.
    #[test]
    fn every_code_point_has_the_oracles_category() {
        let mut text = String::new();
        let any: Vec<usize> = shape(probe(&mut text, 'a', TELLING_ANY)).collect();
        let shapes: Vec<(Vec<usize>, Cat)> = REPRESENTATIVES
            .iter()
            .map(|&(c, cat)| (shape(probe(&mut text, c, TELLING)).collect(), cat))
            .collect();
        for c in (0..=0x10ffff).filter_map(char::from_u32) {
            let cat = category(c);
            if cat == Cat::Any {
                let shown = shape(probe(&mut text, c, TELLING_ANY));
                assert!(
                    shown.eq(any.iter().copied()),
                    "{c:?} is not Any to the oracle"
                );
            } else {
                let shown: Vec<usize> = shape(probe(&mut text, c, TELLING)).collect();
                let oracle = shapes.iter().find(|(shape, _)| *shape == shown);
                assert_eq!(oracle.map(|&(_, cat)| cat), Some(cat), "{c:?}");
            }
        }
    }

    #[test]
    fn the_blocks_index_the_runs() {
        let changes = changes();
        assert_eq!(
            changes.first(),
            Some(&(0x80, 1)),
            "U+0080 starts the controls"
        );
        assert_eq!(BLOCK_START.len(), changes.len().div_ceil(BLOCK));
        for (block, (&start, &at)) in BLOCK_START.iter().zip(&BLOCK_AT).enumerate() {
            assert_eq!(start, changes[block * BLOCK].0);
            let mut runs = &RUNS[usize::from(at)..];
            let first = next_change(&mut runs).map(|(_, code)| code);
            assert_eq!(first, Some(changes[block * BLOCK].1));
        }
    }

    /// Pairs of the representatives and of the first and last code point of every range of the
    /// table.
    #[test]
    fn every_pair_of_edges_and_representatives() {
        let mut chars: Vec<char> = REPRESENTATIVES.iter().map(|&(c, _)| c).collect();
        for (at, _) in changes() {
            chars.extend([at - 1, at].into_iter().filter_map(char::from_u32));
        }
        chars.sort_unstable();
        chars.dedup();
        // The pair as `clusters` sees it, with the categories looked up once.
        let cats: Vec<(char, Cat)> = chars.into_iter().map(|c| (c, category(c))).collect();
        let mut text = String::new();
        for &(first, first_cat) in &cats {
            let mut context = Context::START;
            context.push(first_cat);
            for &(second, second_cat) in &cats {
                text.clear();
                text.extend([first, second]);
                let mut oracle = GraphemeCursor::new(first.len_utf8(), text.len(), true);
                let split = !context.joins(second_cat);
                assert_eq!(Ok(split), oracle.is_boundary(&text, 0), "{text:?}");
            }
        }
    }

    #[test]
    fn every_triple_of_representatives() {
        let mut text = String::new();
        for &(a, _) in REPRESENTATIVES {
            for &(b, _) in REPRESENTATIVES {
                for &(c, _) in REPRESENTATIVES {
                    text.clear();
                    text.extend([a, b, c]);
                    assert_eq!(found(&text), expected(&text), "{text:?}");
                }
            }
        }
    }

    /// Every string of up to 5 characters of the categories the sequence rules (GB9c, GB11,
    /// GB12, GB13) follow, and of some that end those sequences.
    #[test]
    fn every_short_sequence() {
        const CHARS: &[char] = &[
            'a',
            '\u{600}',
            '\u{93f}',
            '\u{915}',
            '\u{94d}',
            '\u{93c}',
            '\u{200c}',
            '\u{200d}',
            '😀',
            '\u{1f1e6}',
        ];
        let mut texts = vec![String::new()];
        for _ in 0..5 {
            texts = texts
                .iter()
                .flat_map(|text| CHARS.iter().map(move |&c| format!("{text}{c}")))
                .collect();
            for text in &texts {
                assert_eq!(found(text), expected(text), "{text:?}");
                let from = restart_before(text, text.len());
                let after: Vec<usize> = expected(text)
                    .into_iter()
                    .filter(|&at| at >= from)
                    .collect();
                let found: Vec<usize> = found(&text[from..])
                    .into_iter()
                    .map(|at| from + at)
                    .collect();
                assert_eq!(found, after, "{text:?} from {from}");
            }
        }
    }

    #[test]
    fn sequences_the_rules_follow() {
        for text in [
            "\u{915}\u{94d}\u{915}",                // GB9c: a conjunct
            "\u{915}\u{93c}\u{94d}\u{200d}\u{915}", // GB9c: extends around the linker
            "\u{915}\u{94d}\u{200c}\u{915}",        // ZWNJ is not InCB=Extend: breaks
            "\u{915}\u{93f}\u{94d}\u{915}",         // a spacing mark ends the conjunct
            "😀\u{1f3fb}\u{301}\u{200d}😀",         // GB11 with extends
            "😀\u{200d}\u{200d}😀",                 // two ZWJs: break
            "🇦🇧🇨🇩🇪",                                // GB12, GB13: pairs
            "a🇦🇧🇨",
            "\u{600}\u{600}a\u{903}\r\n\u{1100}\u{1161}\u{11a8}\u{11a8}",
        ] {
            assert_eq!(found(text), expected(text), "{text:?}");
        }
    }

    fn representative_string() -> impl Strategy<Value = String> {
        let piece = prop_oneof![
            8 => prop::sample::select(REPRESENTATIVES).prop_map(|(c, _)| c),
            1 => any::<char>(),
        ];
        prop::collection::vec(piece, 0..=40).prop_map(String::from_iter)
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2048))]
        #[test]
        fn random_strings_have_the_oracles_boundaries(text in representative_string()) {
            prop_assert_eq!(found(&text), expected(&text));
        }

        #[test]
        fn clusters_from_a_restart_are_the_oracles(
            text in representative_string(),
            end in any::<prop::sample::Index>(),
        ) {
            let ends: Vec<usize> = text.char_indices().map(|(at, _)| at).chain([text.len()]).collect();
            let end = ends[end.index(ends.len())];
            let from = restart_before(&text, end);
            prop_assert!(from == 0 || from < end);
            let after: Vec<usize> = expected(&text).into_iter().filter(|&at| at >= from).collect();
            let found: Vec<usize> = found(&text[from..]).into_iter().map(|at| from + at).collect();
            prop_assert_eq!(found, after);
        }
    }
}

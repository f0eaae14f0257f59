// The reference of the built-in "heuristic" token estimator (src/tokens.rs, `Estimator`): the
// same feature counts computed in JS, so that `calibrate.mjs` can fit the coefficients by least
// squares and check that the wasm estimator gives exactly the counts this model predicts.
//
// The text is cut the way o200k's pre-tokenizer cuts it, approximately:
// - a word piece is a run of letters, split where a lowercase letter is followed by an uppercase
//   one ("fooBar" -> "foo", "Bar"); one space or punctuation character right before a piece is
//   part of it (" the", ".map", "\"key");
// - digits come in groups of up to three;
// - a punctuation run (ASCII non-alphanumerics, with one leading space absorbed) is one piece;
// - a run of whitespace is one piece (minus the space a following piece absorbed);
// - CJK characters (Han, kana, Hangul), other symbols (emoji, dingbats) and emoji modifiers
//   (ZWJ, variation selectors, skin tones) are counted per character.
// Each piece then costs a fitted number of tokens: see FEATURES.

/** The features, in the order of the coefficients in src/tokens.rs. */
export const FEATURES = [
  "word_pieces", // letter runs (each at least one token)
  "word_chars_over_4", // sum of max(0, len - 4) over letter runs
  "word_chars_over_10", // sum of max(0, len - 10) over letter runs
  "caps_pieces", // letter runs with two or more uppercase letters (acronyms, shouting, ids)
  "vowelless_chars", // letters of runs of 2+ letters without a vowel (abbreviations, noise)
  "digit_groups", // groups of 1-3 digits
  "punct_runs", // runs of ASCII punctuation (less a last character absorbed by a word)
  "punct_runs_over_1", // those of two or more characters
  "punct_chars_over_2", // sum of max(0, len - 2) over those runs
  "space_runs", // runs of spaces/tabs (after the last line break) not absorbed by the next piece
  "newline_runs", // whitespace runs containing a line break
  "han_chars", // CJK ideographs
  "kana_chars", // Hiragana, Katakana
  "hangul_chars", // Hangul syllables and jamo
  "symbol_chars", // other non-ASCII, non-letter characters (emoji, CJK punctuation, ...)
  "modifier_chars", // ZWJ, variation selectors, skin-tone modifiers, combining marks
  "dense_chars", // characters past the first 24 of base64-like runs (24+ of [A-Za-z0-9+/=] with lower, upper, digits)
];

const [
  WORD_PIECES, WORD_OVER_4, WORD_OVER_10, CAPS_PIECES, VOWELLESS, DIGIT_GROUPS, PUNCT_RUNS, PUNCT_OVER_1,
  PUNCT_OVER_2, SPACE_RUNS, NEWLINE_RUNS, HAN_CHARS, KANA_CHARS, HANGUL_CHARS, SYMBOL_CHARS, MODIFIER_CHARS,
  DENSE_CHARS,
] = FEATURES.keys();

/** Shortest run of [A-Za-z0-9+/=] that counts as base64-like. */
export const DENSE_MIN = 24;

const LOWER = 1;
const UPPER = 2;
const DIGIT = 3;
const SPACE = 4;
const NEWLINE = 5;
const PUNCT = 6;
const HAN = 7;
const SYMBOL = 8;
const MODIFIER = 9;
const OTHER_LETTER = 10;
const KANA = 11;
const HANGUL = 12;

const ALPHABETIC = /\p{Alphabetic}/u;
const UPPERCASE = /\p{Uppercase}/u;

/** The class of one Unicode scalar value (`cp`), mirrored by `class_of` in src/tokens.rs. */
export function classOf(cp) {
  if (cp < 0x80) {
    if (cp >= 0x61 && cp <= 0x7a) return LOWER;
    if (cp >= 0x41 && cp <= 0x5a) return UPPER;
    if (cp >= 0x30 && cp <= 0x39) return DIGIT;
    if (cp === 0x20 || cp === 0x09) return SPACE;
    if (cp === 0x0a || cp === 0x0d) return NEWLINE;
    return PUNCT;
  }
  if (
    (cp >= 0x4e00 && cp <= 0x9fff) ||
    (cp >= 0x3400 && cp <= 0x4dbf) ||
    (cp >= 0xf900 && cp <= 0xfaff) ||
    (cp >= 0x20000 && cp <= 0x2ffff)
  ) {
    return HAN;
  }
  if ((cp >= 0x3040 && cp <= 0x30ff) || (cp >= 0x31f0 && cp <= 0x31ff) || (cp >= 0xff66 && cp <= 0xff9f)) return KANA;
  if ((cp >= 0xac00 && cp <= 0xd7af) || (cp >= 0x1100 && cp <= 0x11ff) || (cp >= 0x3130 && cp <= 0x318f)) return HANGUL;
  if (
    cp === 0x200d ||
    (cp >= 0xfe00 && cp <= 0xfe0f) ||
    (cp >= 0x1f3fb && cp <= 0x1f3ff) ||
    (cp >= 0x0300 && cp <= 0x036f) ||
    (cp >= 0xe0020 && cp <= 0xe007f)
  ) {
    return MODIFIER;
  }
  if (cp === 0x85 || cp === 0x2028 || cp === 0x2029) return NEWLINE;
  if (cp === 0xa0 || cp === 0x3000 || (cp >= 0x2000 && cp <= 0x200a)) return SPACE;
  const ch = String.fromCodePoint(cp);
  if (ALPHABETIC.test(ch)) return UPPERCASE.test(ch) ? UPPER : OTHER_LETTER;
  return SYMBOL;
}

const isLetter = (c) => c === LOWER || c === UPPER || c === OTHER_LETTER;

const isB64 = (cp) =>
  (cp >= 0x61 && cp <= 0x7a) || (cp >= 0x41 && cp <= 0x5a) || (cp >= 0x30 && cp <= 0x39) || cp === 0x2b || cp === 0x2f || cp === 0x3d;
const isVowel = (cp) => "aeiouyAEIOUY".includes(String.fromCodePoint(cp));

/**
 * Base64-like runs: maximal runs of [A-Za-z0-9+/=] of at least DENSE_MIN characters with
 * lowercase, uppercase and digits. Returns [cut, end] pairs: the first DENSE_MIN characters of a
 * run are counted like any text (so the estimate grows continuously as a run grows), the rest
 * as `dense_chars`.
 */
function denseRuns(cps) {
  const runs = [];
  let i = 0;
  while (i < cps.length) {
    if (!isB64(cps[i])) {
      i++;
      continue;
    }
    let j = i;
    let kinds = 0;
    while (j < cps.length && isB64(cps[j])) {
      const cp = cps[j];
      kinds |= cp >= 0x61 && cp <= 0x7a ? 1 : cp >= 0x41 && cp <= 0x5a ? 2 : cp >= 0x30 && cp <= 0x39 ? 4 : 0;
      j++;
    }
    if (j - i >= DENSE_MIN && kinds === 7) runs.push([i + DENSE_MIN, j]);
    i = j;
  }
  return runs;
}

/** Feature counts of `text` (see FEATURES). */
export function features(text) {
  const f = new Array(FEATURES.length).fill(0);
  const cps = [];
  for (const ch of text) cps.push(ch.codePointAt(0));
  const classes = cps.map(classOf);
  let start = 0;
  for (const [cut, end] of denseRuns(cps)) {
    segment(f, cps, classes, start, cut);
    f[DENSE_CHARS] += end - cut;
    start = end;
  }
  segment(f, cps, classes, start, cps.length);
  return f;
}

/** Adds the features of cps[from..n] (looking no further than n) to `f`. */
function segment(f, cps, classes, from, n) {
  let i = from;
  while (i < n) {
    const c = classes[i];
    if (isLetter(c)) {
      // One word piece: letters until a non-letter or a lowercase -> uppercase step.
      let j = i + 1;
      while (j < n && isLetter(classes[j]) && !(classes[j - 1] !== UPPER && classes[j] === UPPER)) j++;
      const len = j - i;
      let uppers = 0;
      let vowels = 0;
      for (let k = i; k < j; k++) {
        if (classes[k] === UPPER) uppers++;
        if (isVowel(cps[k])) vowels++;
      }
      f[WORD_PIECES] += 1;
      f[WORD_OVER_4] += Math.max(0, len - 4);
      f[WORD_OVER_10] += Math.max(0, len - 10);
      if (uppers >= 2) f[CAPS_PIECES] += 1;
      if (len >= 2 && vowels === 0) f[VOWELLESS] += len;
      i = j;
    } else if (c === DIGIT) {
      let j = i + 1;
      while (j < n && classes[j] === DIGIT) j++;
      f[DIGIT_GROUPS] += Math.ceil((j - i) / 3);
      i = j;
    } else if (c === PUNCT) {
      let j = i + 1;
      while (j < n && classes[j] === PUNCT) j++;
      // The last punctuation character before a letter belongs to the word piece.
      const absorbed = j < n && isLetter(classes[j]) ? 1 : 0;
      const len = j - i - absorbed;
      if (len > 0) f[PUNCT_RUNS] += 1;
      if (len > 1) f[PUNCT_OVER_1] += 1;
      if (len > 2) f[PUNCT_OVER_2] += len - 2;
      i = j;
    } else if (c === SPACE || c === NEWLINE) {
      // A run with line breaks is one piece up to its last break; spaces after it (or a run
      // without breaks) are another, less the one space a following piece absorbs.
      let j = i;
      let trailing = 0;
      let newline = false;
      while (j < n && (classes[j] === SPACE || classes[j] === NEWLINE)) {
        if (classes[j] === NEWLINE) {
          newline = true;
          trailing = 0;
        } else {
          trailing += 1;
        }
        j++;
      }
      if (newline) f[NEWLINE_RUNS] += 1;
      const absorbed = j < n && classes[j] !== DIGIT ? 1 : 0;
      if (trailing - absorbed > 0) f[SPACE_RUNS] += 1;
      i = j;
    } else if (c === HAN || c === KANA || c === HANGUL) {
      f[c === HAN ? HAN_CHARS : c === KANA ? KANA_CHARS : HANGUL_CHARS] += 1;
      i += 1;
    } else if (c === MODIFIER) {
      f[MODIFIER_CHARS] += 1;
      i += 1;
    } else {
      f[SYMBOL_CHARS] += 1;
      i += 1;
    }
  }
}

/** The estimate for `text` under `coefficients`: 0 for "", else max(1, round(sum)). */
export function estimate(text, coefficients) {
  if (text.length === 0) return 0;
  const f = features(text);
  let sum = 0;
  for (let k = 0; k < f.length; k++) sum += coefficients[k] * f[k];
  return Math.max(1, Math.round(sum));
}

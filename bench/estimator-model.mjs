// The reference of the built-in "heuristic" token estimator (src/tokens/estimator.rs): the same
// pieces, features and arithmetic in JS, so that `calibrate.mjs` can fit the tables and the
// coefficients, and check that the wasm estimator gives exactly the counts this model predicts.
//
// The text is cut the way o200k_base's pre-tokenizer (its split regex) cuts it, closely:
// - a word piece is a run of letters that splits where a non-uppercase letter meets an uppercase
//   one ("fooBar" -> "foo", "Bar"; "HTTPServer" stays whole), with one leading space, tab or
//   punctuation character when the character before the run is one ("/Users", " the", ".map"),
//   and an English contraction after it ('s, 't, 're, 've, 'm, 'll, 'd);
// - digits come in groups of up to three;
// - a punctuation piece is a run of characters that are neither letters, digits nor whitespace,
//   with one space before it, and the line breaks right after it (`");\n"`);
// - whitespace: a run holding line breaks is one piece up to its last break; spaces after it (or
//   a run without breaks) are another, less the one space a following word or punctuation takes.
// A piece costs about one token. A word piece costs more where the tokenizer would cut it: for
// each two neighbouring letters, the share of such pairs o200k cuts between, read from a fitted
// table by the two letters (a-z, case folded, or "another letter"), the character before the
// word (none, a space, another one) and, as fitted offsets, whether it is the word's first pair
// and the letters' case. CJK characters, emoji and other symbols cost a fitted amount each.
// The estimate is the fitted sum, rounded, at least 1 for a non-empty text.

/** The features, in the order of the coefficients in src/tokens/model.rs. */
export const FEATURES = [
  "word_pieces", // word pieces with nothing before them
  "space_word_pieces", // word pieces after a space (" the")
  "other_word_pieces", // word pieces after punctuation or a tab ("/Users", ".map")
  "short_words", // word pieces of one or two letters
  "escapes", // a backslash and the letter after it (`\n` in JSON text): a token of its own
  "cut_units", // the table's cut shares of the letter pairs, in 1/LEVELS
  "han_chars", // CJK ideographs
  "kana_chars", // Hiragana, Katakana
  "hangul_chars", // Hangul syllables and jamo
  "digit_groups", // groups of 1-3 digits
  "punct_pieces", // punctuation pieces
  "punct_chars_over_2", // characters of a punctuation piece past its second (repeats apart)
  "repeat_chars", // characters of a punctuation piece that repeat the one before ("-----")
  "symbol_chars", // non-ASCII symbols of up to three UTF-8 bytes (“ → │ …)
  "emoji_chars", // symbols of four UTF-8 bytes (most emoji)
  "modifier_chars", // ZWJ, variation selectors, skin tones, combining marks, tags
  "space_pieces", // whitespace pieces without a line break
  "newline_pieces", // whitespace pieces ending in a line break
];

const [
  WORD_PIECES, SPACE_WORD_PIECES, OTHER_WORD_PIECES, SHORT_WORDS, ESCAPES, CUT_UNITS, HAN_CHARS, KANA_CHARS,
  HANGUL_CHARS, DIGIT_GROUPS, PUNCT_PIECES, PUNCT_OVER_2, REPEAT_CHARS, SYMBOL_CHARS, EMOJI_CHARS, MODIFIER_CHARS,
  SPACE_PIECES, NEWLINE_PIECES,
] = FEATURES.keys();

/** The table's cut shares are in 1/LEVELS (a table entry is a letter 'a' + 0..=LEVELS). */
export const LEVELS = 15;
/** Letters a pair is indexed by: a-z (case folded), then any other letter. */
export const LETTERS = 27;
/** What is before a word piece: nothing, a space, another character. */
export const LEADS = 3;
/** Pair offsets by lead, first pair or not, and case (lower-lower, upper-upper, upper-lower). */
export const OFFSETS = LEADS * 2 * 3;

const LOWER = 1;
const UPPER = 2;
const OTHER_LETTER = 3;
const HAN = 4;
const KANA = 5;
const HANGUL = 6;
const DIGIT = 7;
const SPACE = 8;
const BLANK = 9;
const NEWLINE = 10;
const PUNCT = 11;
const SYMBOL = 12;
const MODIFIER = 13;

const ALPHABETIC = /\p{Alphabetic}/u;
const UPPERCASE = /\p{Uppercase}/u;

/** The class of one Unicode scalar value (`cp`), mirrored by `class_of` in src/tokens/scan.rs. */
export function classOf(cp) {
  if (cp < 0x80) return ASCII[cp];
  if ((cp >= 0x4e00 && cp <= 0x9fff) || (cp >= 0x3400 && cp <= 0x4dbf) || (cp >= 0xf900 && cp <= 0xfaff) || (cp >= 0x20000 && cp <= 0x2ffff)) {
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
  if (
    cp === 0x85 ||
    cp === 0xa0 ||
    cp === 0x1680 ||
    (cp >= 0x2000 && cp <= 0x200a) ||
    cp === 0x2028 ||
    cp === 0x2029 ||
    cp === 0x202f ||
    cp === 0x205f ||
    cp === 0x3000 ||
    cp === 0xfeff
  ) {
    return BLANK;
  }
  const ch = String.fromCodePoint(cp);
  if (ALPHABETIC.test(ch)) return UPPERCASE.test(ch) ? UPPER : OTHER_LETTER;
  return SYMBOL;
}

const ASCII = Array.from({ length: 128 }, (_, cp) => {
  if (cp >= 0x61 && cp <= 0x7a) return LOWER;
  if (cp >= 0x41 && cp <= 0x5a) return UPPER;
  if (cp >= 0x30 && cp <= 0x39) return DIGIT;
  if (cp === 0x20) return SPACE;
  if (cp === 0x0a || cp === 0x0d) return NEWLINE;
  if (cp === 0x09 || cp === 0x0b || cp === 0x0c) return BLANK;
  return PUNCT;
});

const isLetter = (c) => c >= LOWER && c <= HANGUL;
const isCjk = (c) => c >= HAN && c <= HANGUL;
const isPunct = (c) => c >= PUNCT;
const isSpace = (c) => c === SPACE || c === BLANK || c === NEWLINE;
const letterIndex = (cp) => (cp >= 0x61 && cp <= 0x7a ? cp - 0x61 : cp >= 0x41 && cp <= 0x5a ? cp - 0x41 : LETTERS - 1);

/**
 * Calls `word(start, end, lead)` for each word piece (letters start..end; lead 0 none, 1 a space,
 * 2 another character at start - 1) and `other(kind, start, end)` for the others ("digits",
 * "punct" (its characters, without the space before or the line breaks after), "space",
 * "newline").
 */
export function pieces(cps, classes, word, other) {
  const n = cps.length;
  let i = 0;
  while (i < n) {
    const c = classes[i];
    if (isLetter(c)) {
      i = wordPiece(cps, classes, i, 0, word);
    } else if (c !== NEWLINE && c !== DIGIT && i + 1 < n && isLetter(classes[i + 1])) {
      i = wordPiece(cps, classes, i + 1, c === SPACE ? 1 : 2, word);
    } else if (c === DIGIT) {
      let j = i + 1;
      while (j < n && classes[j] === DIGIT) j++;
      other("digits", i, j);
      i = j;
    } else if (isPunct(c) || (c === SPACE && i + 1 < n && isPunct(classes[i + 1]))) {
      const start = c === SPACE ? i + 1 : i;
      let j = start;
      while (j < n && isPunct(classes[j])) j++;
      other("punct", start, j);
      while (j < n && (cps[j] === 0x0a || cps[j] === 0x0d)) j++;
      i = j;
    } else {
      let j = i;
      let lastBreak = -1;
      while (j < n && isSpace(classes[j])) {
        if (classes[j] === NEWLINE) lastBreak = j;
        j++;
      }
      if (lastBreak >= 0) {
        other("newline", i, lastBreak + 1);
        i = lastBreak + 1;
      } else if (j === n || j - i === 1) {
        other("space", i, j);
        i = j;
      } else {
        // The last space goes with what follows it.
        other("space", i, j - 1);
        i = j - 1;
      }
    }
  }
}

/** The word piece from `start`: returns where the next piece starts. */
function wordPiece(cps, classes, start, lead, word) {
  const n = cps.length;
  let j = start + 1;
  while (j < n && isLetter(classes[j]) && !(classes[j] === UPPER && classes[j - 1] !== UPPER)) j++;
  word(start, j, lead);
  if (j + 1 < n && cps[j] === 0x27) {
    const a = cps[j + 1] | 0x20;
    const b = j + 2 < n ? cps[j + 2] | 0x20 : 0;
    if (a === 0x73 || a === 0x74 || a === 0x64 || a === 0x6d) return j + 2;
    if ((a === 0x6c && b === 0x6c) || (a === 0x76 && b === 0x65) || (a === 0x72 && b === 0x65)) return j + 3;
  }
  return j;
}

/** The code points and classes of `text`. */
export function classify(text) {
  const cps = [];
  for (const ch of text) cps.push(ch.codePointAt(0));
  return { cps, classes: cps.map(classOf) };
}

/**
 * Calls `visit(pairIndex, offsetIndex, at)` for each letter pair the word piece start..end cuts
 * (`at`: the second letter's index): the pairs whose letters are neither CJK.
 */
export function wordPairs(cps, classes, start, end, lead, visit) {
  for (let k = start + 1; k < end; k++) {
    if (isCjk(classes[k]) || isCjk(classes[k - 1])) continue;
    const pair = (lead * LETTERS + letterIndex(cps[k - 1])) * LETTERS + letterIndex(cps[k]);
    const upper = classes[k - 1] === UPPER ? (classes[k] === UPPER ? 1 : 2) : 0;
    visit(pair, (lead * 2 + (k - 1 === start ? 0 : 1)) * 3 + upper, k);
  }
}

/**
 * A word piece after a backslash (`\n` of JSON text): the escape is a token of its own and the
 * letters after it are a word with nothing before it. Returns [start, lead] of that word, or
 * null when the escape is all of it.
 */
export function afterEscape(cps, start, end, lead) {
  if (lead !== 2 || cps[start - 1] !== 0x5c) return [start, lead];
  return start + 1 < end ? [start + 1, 0] : null;
}

/** Feature counts of `text` (see FEATURES) under `model` ({ pairs, offsets }). */
export function features(text, model) {
  const f = new Array(FEATURES.length).fill(0);
  const { cps, classes } = classify(text);
  const word = (start, end, lead) => {
    if (lead === 2 && classes[start - 1] >= SYMBOL) symbol(f, cps[start - 1], classes[start - 1]);
    if (lead === 2 && cps[start - 1] === 0x5c) f[ESCAPES] += 1;
    const rest = afterEscape(cps, start, end, lead);
    if (rest === null) return;
    const [from, how] = rest;
    f[[WORD_PIECES, SPACE_WORD_PIECES, OTHER_WORD_PIECES][how]] += 1;
    if (end - from <= 2) f[SHORT_WORDS] += 1;
    for (let k = from; k < end; k++) {
      const c = classes[k];
      if (c === HAN) f[HAN_CHARS] += 1;
      else if (c === KANA) f[KANA_CHARS] += 1;
      else if (c === HANGUL) f[HANGUL_CHARS] += 1;
    }
    wordPairs(cps, classes, from, end, how, (pair, offset) => {
      f[CUT_UNITS] += Math.max(0, Math.min(LEVELS, model.pairs[pair] + model.offsets[offset]));
    });
  };
  const other = (kind, start, end) => {
    if (kind === "digits") f[DIGIT_GROUPS] += Math.ceil((end - start) / 3);
    else if (kind === "space") f[SPACE_PIECES] += 1;
    else if (kind === "newline") f[NEWLINE_PIECES] += 1;
    else {
      f[PUNCT_PIECES] += 1;
      let distinct = 0;
      for (let k = start; k < end; k++) {
        if (k > start && cps[k] === cps[k - 1]) {
          f[REPEAT_CHARS] += 1;
        } else {
          distinct += 1;
          if (classes[k] !== PUNCT) symbol(f, cps[k], classes[k]);
        }
      }
      if (distinct > 2) f[PUNCT_OVER_2] += distinct - 2;
    }
  };
  pieces(cps, classes, word, other);
  return f;
}

function symbol(f, cp, c) {
  if (c === MODIFIER) f[MODIFIER_CHARS] += 1;
  else if (cp >= 0x10000) f[EMOJI_CHARS] += 1;
  else f[SYMBOL_CHARS] += 1;
}

/** The estimate of `text` under `model` ({ coefficients, pairs, offsets }): 0 for "", else max(1, round(sum)). */
export function estimate(text, model) {
  if (text.length === 0) return 0;
  const f = features(text, model);
  let sum = 0;
  for (let k = 0; k < f.length; k++) sum += model.coefficients[k] * f[k];
  return Math.max(1, Math.round(sum));
}

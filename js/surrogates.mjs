// Lone UTF-16 surrogates across the boundary (binding/src/surrogates.rs). The core's strings are
// UTF-8, which cannot hold a lone surrogate (a host that cut a tool output in the middle of an
// emoji makes one). For a call whose input has some, a *window* of 2,048 private-use characters
// the input does not use is chosen, and each lone surrogate U+D800 + k crosses as the window's
// character base + k: one character for one, three UTF-8 bytes and one UTF-16 unit like the
// surrogate, so counts, cuts and a request body's offsets are those of the input. What comes
// back is mapped the other way, so the host gets its own code units again, cut or whole.

/**
 * The windows tried, in order: private-use characters of the Basic Multilingual Plane (three
 * UTF-8 bytes and one UTF-16 unit, as a surrogate: the only ones a request body may use, its
 * offsets must hold), then those of planes 15 and 16 (64 more windows, for messages and text).
 */
const BMP_WINDOWS = [0xe000, 0xe800, 0xf000];
const WINDOWS = [...BMP_WINDOWS, ...Array.from({ length: 64 }, (_, k) => 0xf0000 + k * 0x800)];

/** Private-use characters, as they may occur in input: BMP ones and planes 15-16 ones. */
const PRIVATE_USE = /[\ue000-\uf7ff]|[\udb80-\udbff][\udc00-\udfff]/g;
/** The same written as JSON escapes in a body: `\ue800` (BMP ones only matter there). */
const PRIVATE_USE_ESCAPE = /\\u[eEfF][0-9a-fA-F]{3}/g;

const LONE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
const LONE_ONE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Whether `text` has a lone surrogate. */
export function hasLone(text) {
  return typeof text.isWellFormed === "function" ? !text.isWellFormed() : LONE_ONE.test(text);
}

/**
 * A window none of `texts` uses (its base), or 0 when all are used (the call then crosses lone
 * surrogates as U+FFFD, as every UTF-8 encoder does). `body`: JSON text whose offsets must hold
 * (BMP windows only; escapes count as uses).
 * @param {string[]} texts
 */
export function freeWindow(texts, body = false) {
  const used = new Set();
  const mark = (code) => used.add(code >= 0xf0000 ? 0xf0000 + Math.floor((code - 0xf0000) / 0x800) * 0x800 : 0xe000 + Math.floor((code - 0xe000) / 0x800) * 0x800);
  for (const text of texts) {
    for (const [found] of text.matchAll(PRIVATE_USE)) mark(found.codePointAt(0));
    if (body) for (const [found] of text.matchAll(PRIVATE_USE_ESCAPE)) mark(parseInt(found.slice(2), 16));
  }
  return (body ? BMP_WINDOWS : WINDOWS).find((base) => !used.has(base)) ?? 0;
}

/** `text` with each lone surrogate replaced by its window character (U+FFFD without a window). */
export function mapLone(text, base) {
  return text.replace(LONE, (unit) => String.fromCodePoint(base === 0 ? 0xfffd : base + unit.charCodeAt(0) - 0xd800));
}

/** The JSON escape of code point `code` (a pair of escapes beyond the BMP). */
function escapeOf(code) {
  if (code < 0x10000) return `\\u${code.toString(16)}`;
  const high = 0xd800 + ((code - 0x10000) >> 10);
  const low = 0xdc00 + ((code - 0x10000) & 0x3ff);
  return `\\u${high.toString(16)}\\u${low.toString(16)}`;
}

// In JSON text: an escaped backslash (skipped, so `\\ud800` is not an escape), a high surrogate
// escape with the low one after it (a pair: kept), or a lone surrogate escape.
const ESCAPES = /\\(?:\\|u[dD][89abAB][0-9a-fA-F]{2}\\u[dD][c-fC-F][0-9a-fA-F]{2}|u([dD][89a-fA-F][0-9a-fA-F]{2}))/g;

/** Whether JSON text `json` may hold a lone surrogate escape (a cheap test before `mapEscapes`). */
export function mayHaveLoneEscapes(json) {
  return /\\u[dD][89a-fA-F]/.test(json);
}

/**
 * JSON text `json` with each escaped lone surrogate (`\ud800`) written as its window
 * character's escape, six characters for six (`\ue800`; `\ufffd` without a window).
 */
export function mapEscapes(json, base) {
  return json.replace(ESCAPES, (match, lone) => {
    if (lone === undefined) return match;
    return escapeOf(base === 0 ? 0xfffd : base + parseInt(lone, 16) - 0xd800);
  });
}

/**
 * The crossing of one string for a call that has none of its own yet: `{ text, base }`, the
 * text mapped under a window it does not use (base 0 when it has no lone surrogate).
 * @param {string} text
 */
export function mapString(text) {
  if (!hasLone(text)) return { text, base: 0 };
  const base = freeWindow([text]);
  return { text: mapLone(text, base), base };
}

/**
 * A request body for the core: raw lone surrogates and escaped ones mapped under one window the
 * body does not use (same length in UTF-8 and in UTF-16 units, so every offset holds), or under
 * `base` when the caller has chosen one (`restore`, for the body and its archive together).
 * `raw`: the body has raw lone surrogates (what the core writes anew is then written raw too;
 * otherwise as escapes, as `JSON.stringify` writes them).
 * @param {string} body
 * @param {number} [base]
 */
export function mapBody(body, base = 0) {
  const raw = hasLone(body);
  if (!raw && !mayHaveLoneEscapes(body)) return { text: body, base, raw, lossy: false };
  const window = base !== 0 ? base : freeWindow([body], true);
  let text = raw ? mapLone(body, window) : body;
  text = mapEscapes(text, window);
  // Without a free window, lone surrogates cross as U+FFFD: the binding then takes the values
  // it hands back from the host's own string (`JSON.parse`), not from the copy.
  return { text, base: window, raw, lossy: window === 0 && text !== body };
}

/**
 * `text` with the characters of window `base` turned back into the lone surrogates they are
 * (`escaped`: as their JSON escapes, for JSON text).
 */
export function unmap(text, base, escaped = false) {
  if (base === 0) return text;
  const range = new RegExp(`[\\u{${base.toString(16)}}-\\u{${(base + 0x7ff).toString(16)}}]`, "gu");
  return text.replace(range, (found) => {
    const unit = found.codePointAt(0) - base + 0xd800;
    return escaped ? `\\u${unit.toString(16)}` : String.fromCharCode(unit);
  });
}

// In JSON text: an escaped backslash (skipped) or the escape of a window character.
const WINDOW_ESCAPE = /\\(?:\\|u([eEfF][0-9a-fA-F]{3}))/g;

/**
 * A body the core wrote from a crossed body (`mapBody`), back in the host's code units: the
 * window's escapes as the lone surrogate escapes they were, its raw characters as raw lone
 * surrogates (where the core wrote a value anew, JSON-equal to the input's).
 */
export function unmapBody(text, base, raw) {
  if (base === 0) return text;
  if (!raw) return unmap(text.replace(WINDOW_ESCAPE, (match, hex) => (hex === undefined ? match : escapeBack(hex, base, match))), base, true);
  return unmap(text.replace(WINDOW_ESCAPE, (match, hex) => (hex === undefined ? match : escapeBack(hex, base, match))), base);
}

/** A window character's escape (its hex digits) as the lone surrogate escape it stands for. */
function escapeBack(hex, base, match) {
  const code = parseInt(hex, 16);
  return code >= base && code < base + 0x800 ? `\\u${(code - base + 0xd800).toString(16)}` : match;
}

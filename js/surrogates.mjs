// Lone UTF-16 surrogates across the boundary (src/wasm/surrogates.rs). The core's strings are
// UTF-8, which cannot hold a lone surrogate (a host that cut a tool output in the middle of an
// emoji makes one). For a call whose input has some, a *window* of 2,048 private-use characters
// the input does not use is chosen, and each lone surrogate U+D800 + k crosses as the window's
// character base + k: one character for one, three UTF-8 bytes and one UTF-16 unit like the
// surrogate, so counts, cuts and a request body's offsets are those of the input. What comes
// back is mapped the other way, so the host gets its own code units again, cut or whole.

/** The windows tried, in order: private-use characters of the Basic Multilingual Plane. */
const WINDOWS = [0xe000, 0xe800, 0xf000];
const WINDOW_PATTERNS = [/[\ue000-\ue7ff]/, /[\ue800-\uefff]/, /[\uf000-\uf7ff]/];
// The same characters written as JSON escapes (a request body may spell them so).
const WINDOW_ESCAPES = [/\\u[eE][0-7]/, /\\u[eE][89a-fA-F]/, /\\u[fF][0-7]/];

const LONE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
const LONE_ONE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Whether `text` has a lone surrogate. */
export function hasLone(text) {
  return typeof text.isWellFormed === "function" ? !text.isWellFormed() : LONE_ONE.test(text);
}

/**
 * A window none of `texts` uses (its base), or 0 when all are used (the call then crosses lone
 * surrogates as U+FFFD, as every UTF-8 encoder does).
 * @param {string[]} texts
 */
export function freeWindow(texts, json = false) {
  for (let at = 0; at < WINDOWS.length; at++) {
    const used = (text) => WINDOW_PATTERNS[at].test(text) || (json && WINDOW_ESCAPES[at].test(text));
    if (!texts.some(used)) return WINDOWS[at];
  }
  return 0;
}

/** `text` with each lone surrogate replaced by its window character (U+FFFD without a window). */
export function mapLone(text, base) {
  return text.replace(LONE, (unit) => String.fromCharCode(base === 0 ? 0xfffd : base + unit.charCodeAt(0) - 0xd800));
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
    const code = base === 0 ? 0xfffd : base + parseInt(lone, 16) - 0xd800;
    return `\\u${code.toString(16)}`;
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
 * body does not use (same length in UTF-8 and in UTF-16 units, so every offset holds).
 * @param {string} body
 */
export function mapBody(body) {
  const raw = hasLone(body);
  if (!raw && !mayHaveLoneEscapes(body)) return { text: body, base: 0 };
  const base = freeWindow([body], true);
  let text = raw ? mapLone(body, base) : body;
  text = mapEscapes(text, base);
  return { text, base: text === body ? 0 : base };
}

/** `text` with the characters of window `base` turned back into the lone surrogates they are. */
export function unmap(text, base) {
  if (base === 0) return text;
  const pattern = WINDOW_PATTERNS[WINDOWS.indexOf(base)];
  if (pattern === undefined || !pattern.test(text)) return text;
  let out = "";
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    out += unit >= base && unit < base + 0x800 ? String.fromCharCode(unit - base + 0xd800) : text[i];
  }
  return out;
}

// In JSON text: an escaped backslash (skipped) or the escape of a window character.
const WINDOW_ESCAPE = /\\(?:\\|u([eEfF][0-9a-fA-F]{3}))/g;

/**
 * A body the core wrote from a crossed body (`mapBody`), back in the host's code units: the
 * window's escapes as the lone surrogate escapes they were, its raw characters as raw lone
 * surrogates (where the core wrote a value anew, JSON-equal to the input's).
 */
export function unmapBody(text, base) {
  if (base === 0) return text;
  const escaped = text.replace(WINDOW_ESCAPE, (match, hex) => {
    if (hex === undefined) return match;
    const code = parseInt(hex, 16);
    return code >= base && code < base + 0x800 ? `\\u${(code - base + 0xd800).toString(16)}` : match;
  });
  return unmap(escaped, base);
}

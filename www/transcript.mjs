// Reading what the user pasted or loaded into a `TierContext` shape: JSON messages (an array, or
// a request body with a `messages` array, a Responses API `input` array or a Gemini `contents`
// array) or the seed's flat text. Errors name the line and column, so the page can show them
// inline; nothing here throws.

/** Line and column (1-based) of code-unit offset `position` in `source`. */
export function lineAndColumn(source, position) {
  const before = source.slice(0, Math.max(0, Math.min(position, source.length)));
  const lines = before.split("\n");
  return { line: lines.length, column: lines.at(-1).length + 1 };
}

/**
 * Where a `JSON.parse` SyntaxError points. V8 (Chromium, Node 20) says "... at position 16
 * (line 3 column 6)"; older engines only "at position 16"; "Unexpected end of JSON input" means
 * the end of the source.
 */
export function jsonErrorLocation(source, error) {
  const message = String(error?.message ?? error);
  const both = /\(line (\d+) column (\d+)\)/.exec(message);
  if (both) return { line: Number(both[1]), column: Number(both[2]) };
  const position = /at position (\d+)/.exec(message);
  if (position) return lineAndColumn(source, Number(position[1]));
  // Firefox: "at line 3 column 6 of the JSON data".
  const firefox = /line (\d+) column (\d+)/.exec(message);
  if (firefox) return { line: Number(firefox[1]), column: Number(firefox[2]) };
  return lineAndColumn(source, source.length);
}

/** How the source is read: `auto` looks at its first characters. */
export function looksLikeJson(source) {
  const start = source.trimStart();
  // The seed's flat text starts with an `[age:N]` tag, which also starts with "[".
  return (start.startsWith("[") && !/^\[age:\s*\d+\s*\]/.test(start)) || start.startsWith("{");
}

/**
 * @param {string} source
 * @param {"auto" | "json" | "text"} kind
 * @returns {{ ok: true, kind: "messages", messages: unknown[], note: string }
 *         | { ok: true, kind: "text", text: string, note: string }
 *         | { ok: false, message: string, line?: number, column?: number }}
 */
export function readTranscript(source, kind = "auto") {
  if (source.trim() === "") return { ok: false, message: "The transcript is empty: pick a sample, load a file or paste one." };
  const asJson = kind === "json" || (kind === "auto" && looksLikeJson(source));
  if (!asJson) {
    return { ok: true, kind: "text", text: source, note: `flat text, ${Array.from(source).length} code points` };
  }
  let value;
  try {
    value = JSON.parse(source);
  } catch (error) {
    const { line, column } = jsonErrorLocation(source, error);
    const detail = String(error.message).replace(/\s*\(line \d+ column \d+\)/, "");
    return { ok: false, line, column, message: `Invalid JSON at line ${line}, column ${column}: ${detail}` };
  }
  if (Array.isArray(value)) {
    return { ok: true, kind: "messages", messages: value, note: `${value.length} messages` };
  }
  // A request body's list, by the keys the library finds it by (the Responses API's `input`,
  // Gemini's `contents`).
  const key = value !== null && typeof value === "object" ? ["messages", "input", "contents"].find((name) => Array.isArray(value[name])) : undefined;
  if (key !== undefined) {
    const list = value[key];
    const others = Object.keys(value).filter((name) => name !== key);
    const note = others.length === 0
      ? `${list.length} messages`
      : `${list.length} messages from a request body's ${key} (other fields left out of the context: ${others.join(", ")})`;
    return { ok: true, kind: "messages", messages: list, note };
  }
  return { ok: false, line: 1, column: 1, message: "Expected a JSON array of messages, or a request body: an object with a `messages`, `input` (OpenAI Responses) or `contents` (Gemini) array." };
}

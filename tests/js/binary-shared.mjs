// The checks of binary.test.mjs, shared with the browser test (tests/www/binary.test.mjs runs
// them in Chromium on the browser build): nothing here needs Node. `api` is the package.

export const TIERS = ["none", "micro", "time_based", "auto", "session_memory"];

/** `length` bytes that look like compressed media (no long runs). */
export function imageBytes(length) {
  const bytes = new Uint8Array(length);
  let state = 0x2545f491;
  for (let i = 0; i < length; i += 1) {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    bytes[i] = state & 0xff;
  }
  return bytes;
}

function base64(bytes) {
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

/**
 * Every form a host sends media in: `make(bytes)` gives the value, `inline` whether it is data
 * (a URL is a reference: kept as is, never stripped).
 */
export function forms() {
  const all = {
    Uint8Array: { make: (bytes) => bytes, inline: true },
    ArrayBuffer: { make: (bytes) => bytes.slice().buffer, inline: true },
    "base64 string": { make: base64, inline: true },
    "data URL": { make: (bytes) => `data:image/png;base64,${base64(bytes)}`, inline: true },
    "tagged FileData (bytes)": { make: (bytes) => ({ type: "data", data: bytes }), inline: true },
    URL: { make: () => new URL("https://example.test/screenshot.png?v=1"), inline: false },
    "tagged FileData (URL)": { make: () => ({ type: "url", url: new URL("https://example.test/b.png") }), inline: false },
  };
  if (typeof globalThis.Buffer === "function") all["Node Buffer"] = { make: (bytes) => globalThis.Buffer.from(bytes), inline: true };
  return all;
}

/**
 * An AI SDK agent session with media in an image part, a file part and a tool result's content
 * (AI SDK 7 `{ type: "file", data }`), outside the protected tail: `content(k)` gives the k-th
 * media value.
 */
export function session(parts, media = null) {
  const step = (k, output) => [
    { role: "assistant", content: [{ type: "tool-call", toolCallId: `c${k}`, toolName: "bash", input: { cmd: `step ${k}` } }] },
    { role: "tool", content: [{ type: "tool-result", toolCallId: `c${k}`, toolName: "bash", output }] },
  ];
  const log = (k) => ({ type: "text", value: `$ make ${k}\n${"ok src/file.rs passes\n".repeat(40)}error: failed at src/lib.rs:${k}\ndone` });
  return [
    { role: "system", content: "You are a coding agent." },
    { role: "user", content: "Fix the build." },
    ...step(1, log(1)),
    { role: "user", content: [{ type: "text", text: "Here is what I see." }, ...parts] },
    ...step(2, media === null ? log(2) : { type: "content", value: [{ type: "text", text: "screenshot taken" }, { type: "file", data: media, mediaType: "image/png" }] }),
    ...step(3, log(3)),
    ...step(4, log(4)),
    ...step(5, log(5)),
    ...step(6, log(6)),
    ...step(7, log(7)),
    { role: "assistant", content: "Done." },
    { role: "user", content: "Thanks." },
  ];
}

const toString = Object.prototype.toString;
const isHostObject = (value) =>
  typeof value === "object" && value !== null && (ArrayBuffer.isView(value) || toString.call(value) === "[object ArrayBuffer]" || toString.call(value) === "[object URL]");

/** Every binary value and URL object inside `value`, and every string. */
function walk(value, found = { objects: [], strings: [] }) {
  const stack = [value];
  while (stack.length > 0) {
    const item = stack.pop();
    if (typeof item === "string") found.strings.push(item);
    else if (isHostObject(item)) found.objects.push(item);
    else if (Array.isArray(item)) stack.push(...item);
    else if (typeof item === "object" && item !== null) stack.push(...Object.values(item));
  }
  return found;
}

/** Where `a` and `b` differ (host objects compared by identity), or null. */
export function difference(a, b, at = "") {
  if (isHostObject(a) || isHostObject(b)) return a === b ? null : `${at}: not the caller's own object`;
  if (typeof a !== typeof b || (a === null) !== (b === null)) return `${at}: ${typeof a} vs ${typeof b}`;
  if (typeof a !== "object" || a === null) return a === b ? null : `${at}: ${JSON.stringify(a)?.slice(0, 80)} vs ${JSON.stringify(b)?.slice(0, 80)}`;
  if (Array.isArray(a) !== Array.isArray(b)) return `${at}: array vs object`;
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  for (const key of keys) {
    const found = difference(a[key], b[key], `${at}.${key}`);
    if (found !== null) return found;
  }
  return null;
}

/**
 * Runs `tier` on a session holding `form`'s value three times (image part, file part, tool
 * result content), each of different bytes; returns the failures found (empty when all hold).
 * `sha256Hex(bytes)` hashes as the placeholder must.
 */
export async function checkTier(api, tier, form, sha256Hex) {
  const failures = [];
  const bytes = [imageBytes(3000), imageBytes(70_000), imageBytes(5)];
  const values = bytes.map((b) => form.make(b));
  const messages = session(
    [
      { type: "image", image: values[0], mediaType: "image/png" },
      { type: "file", data: values[1], mediaType: "image/png", filename: "b.png" },
    ],
    values[2],
  );
  const pressure = { turnCount: 20, contextPctUsed: 0.9, idleSeconds: tier === "time_based" ? 400 : 0, sessionComplete: tier === "session_memory" };
  const result = await api.compactWithTier(tier, { sessionId: "binary", pressure, messages, format: "ai-sdk" });
  const inputObjects = walk(messages).objects;
  const output = walk(result.messages);
  const archived = walk(result.archive.map((entry) => entry.content));
  for (const object of [...output.objects, ...archived.objects]) {
    if (!inputObjects.includes(object)) failures.push(`a ${toString.call(object)} that is not the caller's`);
  }
  for (const object of inputObjects) {
    if (!output.objects.includes(object) && !archived.objects.includes(object)) failures.push(`a ${toString.call(object)} was lost`);
  }
  const leaked = [...output.strings, ...archived.strings, ...result.archive.map((entry) => entry.replacement ?? "")].filter((text) => text.includes("\u0000"));
  if (leaked.length > 0) failures.push(`placeholders leaked: ${leaked[0].slice(0, 80)}`);
  const restored = difference(api.restore(result), messages, "restore");
  if (restored !== null) failures.push(restored);
  if (result.afterTokens > result.beforeTokens) failures.push(`grew: ${result.beforeTokens} -> ${result.afterTokens}`);
  if (tier === "none" && (result.messages.some((message, at) => message !== messages[at]) || result.archive.length > 0)) failures.push("none changed something");
  if (tier === "auto") {
    const stripped = result.archive.filter((entry) => entry.kind === "media").map((entry) => entry.replacement);
    const expected = form.inline ? bytes.slice(0, 2).map((b) => `[media removed: image/png, ${b.length} bytes, sha256:${sha256Hex(b).slice(0, 32)}]`) : [];
    for (const placeholder of expected) if (!stripped.includes(placeholder)) failures.push(`auto: no ${placeholder} in ${JSON.stringify(stripped)}`);
    if (!form.inline && stripped.length > 0) failures.push(`auto stripped a URL: ${stripped}`);
  }
  return failures;
}

// Compiles the copy of the WebAssembly module that tiered-compaction/inline embeds (inline-wasm.mjs,
// written by scripts/build.mjs): the .wasm file gzipped, in base64. No request and no URL, so a
// bundler has nothing to resolve or copy.
//
// Gzipped, the copy costs about what the .wasm file served gzipped does (base64 of the raw module
// is a third larger, gzipped or not), at the price of one asynchronous step: DecompressionStream,
// in every browser since 2023 (Chrome 80, Firefox 113, Safari 16.4), Node 18, Deno and Bun. init()
// is asynchronous in browsers anyway, so the API is the browser entry point's.

/**
 * @param {string} base64 the module, gzipped, in base64
 * @param {number} size the module's length in bytes
 * @returns {Promise<WebAssembly.Module>}
 */
export async function compileEmbedded(base64, size) {
  if (typeof DecompressionStream !== "function" || typeof Blob !== "function") {
    throw loadError(
      "init() cannot unpack the module tiered-compaction/inline embeds: this host has no DecompressionStream " +
        '(browsers since 2023, Node 18, Deno, Bun). Import from "tiered-compaction" and serve the .wasm file, ' +
        "or pass its URL or bytes to init()",
    );
  }
  const wasm = new Uint8Array(size);
  let length = 0;
  try {
    const reader = new Blob([fromBase64(base64)]).stream().pipeThrough(new DecompressionStream("gzip")).getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      // Written straight into the module's buffer: no list of chunks, no second copy.
      if (length + value.length > size) throw new Error(`more than the ${size} bytes expected`);
      wasm.set(value, length);
      length += value.length;
    }
  } catch (cause) {
    throw loadError(`init() could not unpack the module tiered-compaction/inline embeds: ${cause?.message ?? cause}`, cause);
  }
  if (length !== size) throw loadError(`init() unpacked ${length} bytes of the embedded module, expected ${size}`);
  try {
    return await WebAssembly.compile(wasm);
  } catch (cause) {
    throw loadError(`init() could not compile the module tiered-compaction/inline embeds: ${cause?.message ?? cause}`, cause);
  }
}

const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/**
 * Standard base64 (padded) to bytes: the host's `Uint8Array.fromBase64` where it has one, else a
 * table decoder that writes the bytes directly (atob would first build a string of them).
 * @param {string} text
 */
export function fromBase64(text) {
  if (typeof Uint8Array.fromBase64 === "function") return Uint8Array.fromBase64(text);
  if (text.length % 4 !== 0) throw new Error(`base64 of ${text.length} characters, not a multiple of 4`);
  const table = new Uint8Array(128);
  for (let i = 0; i < ALPHABET.length; i += 1) table[ALPHABET.charCodeAt(i)] = i;
  const padding = text.endsWith("==") ? 2 : text.endsWith("=") ? 1 : 0;
  const bytes = new Uint8Array((text.length / 4) * 3 - padding);
  let at = 0;
  for (let i = 0; i < text.length; i += 4) {
    // "=" reads as 0: its bits fall in the bytes that padding leaves out.
    const n =
      (table[text.charCodeAt(i)] << 18) |
      (table[text.charCodeAt(i + 1)] << 12) |
      (table[text.charCodeAt(i + 2)] << 6) |
      table[text.charCodeAt(i + 3)];
    bytes[at++] = n >> 16;
    if (at < bytes.length) bytes[at++] = (n >> 8) & 255;
    if (at < bytes.length) bytes[at++] = n & 255;
  }
  return bytes;
}

function loadError(message, cause) {
  const error = new Error(`tiered-compaction: ${message}`, cause === undefined ? undefined : { cause });
  error.code = "ERR_TC_NOT_INITIALISED";
  return error;
}

// Values the package keeps in the host instead of copying them into wasm (src/api/host_value.rs):
// binary data — every form the AI SDK's `DataContent` takes (Uint8Array, Node Buffer,
// ArrayBuffer; any other ArrayBuffer view is bytes too) — and URL objects. A binary value crosses
// as its length and the SHA-256 of its bytes, a URL as its text; the caller's own object is put
// back wherever it is left in the output or the archive.

const toString = Object.prototype.toString;

/** Whether `value` is binary data (checked by brand, so values of another realm count too). */
export function isBinary(value) {
  if (ArrayBuffer.isView(value)) return true;
  const tag = toString.call(value);
  return tag === "[object ArrayBuffer]" || tag === "[object SharedArrayBuffer]";
}

/** Whether `value` is a URL object (WHATWG `URL`, of any realm). */
export function isUrl(value) {
  return toString.call(value) === "[object URL]";
}

/** The bytes of binary `value`, as a view (nothing copied). */
export function bytesOf(value) {
  return ArrayBuffer.isView(value) ? new Uint8Array(value.buffer, value.byteOffset, value.byteLength) : new Uint8Array(value);
}

/** Characters of the base64 text (padded) of `bytes` bytes. */
export function base64Length(bytes) {
  return Math.ceil(bytes / 3) * 4;
}

/** The runtime's own SHA-256 (Node, Deno, Bun: `node:crypto`), when it has one synchronously. */
const nodeCrypto = (() => {
  try {
    return globalThis.process?.getBuiltinModule?.("node:crypto") ?? null;
  } catch {
    return null;
  }
})();

/**
 * The SHA-256 of `bytes` (a Uint8Array) as 64 hex digits: `node:crypto` where the runtime has
 * it, else the function below (browsers' `crypto.subtle` is asynchronous only).
 * @param {Uint8Array} bytes
 */
export function sha256Hex(bytes) {
  if (nodeCrypto !== null) return nodeCrypto.createHash("sha256").update(bytes).digest("hex");
  return sha256HexJs(bytes);
}

const K = new Uint32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01,
  0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc,
  0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147,
  0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
  0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08,
  0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208,
  0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
]);

/**
 * SHA-256 (FIPS 180-4) in plain JS, for runtimes without a synchronous one (browsers, workerd).
 * Exported for the tests, which check it against `node:crypto`.
 * @param {Uint8Array} bytes
 */
export function sha256HexJs(bytes) {
  const h = new Uint32Array([0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19]);
  const w = new Uint32Array(64);
  const length = bytes.length;
  // The message is processed in place; only the last one or two blocks (padding) are copied.
  const whole = length - (length % 64);
  const tail = new Uint8Array(length % 64 < 56 ? 64 : 128);
  tail.set(bytes.subarray(whole));
  tail[length % 64] = 0x80;
  const view = new DataView(tail.buffer);
  view.setUint32(tail.length - 8, Math.floor(length / 0x20000000));
  view.setUint32(tail.length - 4, (length << 3) >>> 0);
  const block = (source, at) => {
    for (let i = 0; i < 16; i++) {
      const j = at + 4 * i;
      w[i] = (source[j] << 24) | (source[j + 1] << 16) | (source[j + 2] << 8) | source[j + 3];
    }
    for (let i = 16; i < 64; i++) {
      const a = w[i - 15];
      const b = w[i - 2];
      const s0 = ((a >>> 7) | (a << 25)) ^ ((a >>> 18) | (a << 14)) ^ (a >>> 3);
      const s1 = ((b >>> 17) | (b << 15)) ^ ((b >>> 19) | (b << 13)) ^ (b >>> 10);
      w[i] = (w[i - 16] + s0 + w[i - 7] + s1) | 0;
    }
    let [a, b, c, d, e, f, g, k] = h;
    for (let i = 0; i < 64; i++) {
      const S1 = ((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7));
      const t1 = (k + S1 + ((e & f) ^ (~e & g)) + K[i] + w[i]) | 0;
      const S0 = ((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10));
      const t2 = (S0 + ((a & b) ^ (a & c) ^ (b & c))) | 0;
      k = g;
      g = f;
      f = e;
      e = (d + t1) | 0;
      d = c;
      c = b;
      b = a;
      a = (t1 + t2) | 0;
    }
    h[0] += a;
    h[1] += b;
    h[2] += c;
    h[3] += d;
    h[4] += e;
    h[5] += f;
    h[6] += g;
    h[7] += k;
  };
  for (let at = 0; at < whole; at += 64) block(bytes, at);
  for (let at = 0; at < tail.length; at += 64) block(tail, at);
  let hex = "";
  for (const word of h) hex += word.toString(16).padStart(8, "0");
  return hex;
}

/**
 * The placeholder of host value `value` (binary or URL) at `index` under `nonce`, and the bytes
 * it stands for in the input's JSON size (a binary value as its base64 string, a URL as its
 * text's JSON string). A binary value's first bytes ride along in base64 (`headBytes`): the core
 * reads an image's size from them to count it as its provider bills it (src/media/bill.rs).
 */
export function hostValuePlaceholder(value, index, nonce) {
  if (isUrl(value)) {
    const href = String(value.href);
    return { placeholder: `\0${nonce}#${index}:u:${href}`, jsonBytes: jsonUtf8Length(href) };
  }
  const bytes = bytesOf(value);
  const head = base64Of(bytes.subarray(0, headBytes(bytes)));
  return {
    placeholder: `\0${nonce}#${index}:b:${bytes.byteLength}:${sha256Hex(bytes)}:${head}`,
    jsonBytes: base64Length(bytes.byteLength) + 2,
  };
}

/**
 * How many first bytes of binary value `bytes` the core needs for an image's size: 32 hold a
 * PNG, GIF or WebP header; a JPEG's size comes after its metadata, up to 80 KiB in (the core's
 * `HEAD_BYTES`). No more is copied: a binary value never crosses whole.
 * @param {Uint8Array} bytes
 */
export function headBytes(bytes) {
  return bytes[0] === 0xff && bytes[1] === 0xd8 ? 80 * 1024 : 32;
}

/** Base64 of `bytes` (a short Uint8Array). */
function base64Of(bytes) {
  if (typeof globalThis.Buffer?.from === "function") return globalThis.Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64");
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

// What JSON escapes in a string: quotes, backslashes and control characters.
const ESCAPED = /["\\\x00-\x1f]/g;

/**
 * Bytes of `text` as a JSON string in UTF-8, quotes included, as serde_json writes it (a lone
 * surrogate counts three bytes: the core sees one character for it, see surrogates.mjs).
 * Measured without copying it anywhere.
 * @param {string} text
 */
export function jsonUtf8Length(text) {
  let bytes = utf8Length(text) + 2;
  ESCAPED.lastIndex = 0;
  for (let match = ESCAPED.exec(text); match !== null; match = ESCAPED.exec(text)) {
    const unit = match[0].charCodeAt(0);
    // `\"`, `\\`, `\b`, `\t`, `\n`, `\f`, `\r` take one byte more; other controls `\u00XX`, five.
    bytes += unit === 0x22 || unit === 0x5c || (unit >= 0x08 && unit <= 0x0d && unit !== 0x0b) ? 1 : 5;
  }
  return bytes;
}

/** The runtime's own UTF-8 measure (Node, Deno, Bun), which counts a lone surrogate three bytes. */
const byteLength = typeof globalThis.Buffer?.byteLength === "function" ? globalThis.Buffer.byteLength : null;

/**
 * Bytes of `text` in UTF-8 (a lone surrogate three, as it crosses), without copying it.
 * @param {string} text
 */
export function utf8Length(text) {
  if (byteLength !== null) return byteLength(text, "utf8");
  let bytes = text.length;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit < 0x80) continue;
    if (unit < 0x800) bytes += 1;
    else if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      bytes += 2;
      i++;
    } else bytes += 2;
  }
  return bytes;
}

// Function order for gzip (scripts/build.mjs, step 2). gzip finds repeats only within 32 KB
// behind, so where similar functions sit decides how much of the module compresses as repeats.
// LLVM's order scatters them; binaryen's --reorder-functions-by-name (Rust paths: a module's
// functions together, a generic's instantiations together) saves 3.1 KB gzipped; this order
// saves 4.7 KB more (issue 21; 248,901 -> 245,790 -> 241,116 B): functions are placed one after
// another, each time the one most like the last few placed (by MinHash of their bodies' 4-byte
// shingles), starting from, and falling back to, name order where nothing is alike. With it,
// near-identical instantiations of a generic cost little: merging two of
// `alloc::str::join_generic_copy`'s three saved 47 B gzipped (in name order).
//
// `orderedNames(wasm)` takes a module whose name section is still there (wasm-opt -g) and
// returns it with every defined function renamed `<rank>|<name>`, so that binaryen's
// --reorder-functions-by-name, run next, writes the functions in this order (the names are
// stripped in that same run). Deterministic: no randomness, ties broken by name.

import { gzipSync } from "node:zlib";

const SHINGLE = 4;
const HASHES = 256;
const RECENT = 8;
// Fewer shared MinHash values than this (of 256): nothing placed lately is alike.
const ALIKE = 10;
// One hash family per seed (xored into each hash), one candidate order each. 256 hashes rather
// than 64: -1.8 KB gzipped (the likeness is estimated closer); 512: no better. A fourth to sixth
// seed gave no smaller module.
const SEEDS = [0x85ebca6b, 0x1b873593, 0xc2b2ae35];

export function orderedNames(wasm) {
  const module = parse(wasm);
  const { bodies, names, imported } = module;
  const nameOf = (at) => names.get(imported + at) ?? "";
  const byName = [...bodies.keys()].sort((a, b) => compare(nameOf(a), nameOf(b)) || a - b);
  // The greedy order depends on the hash functions by several hundred bytes either way: each
  // family of hashes gives an order, and the one whose bodies, laid end to end, gzip smallest
  // is kept (that estimate ranked six orders as the written modules rank: -0.5 KB).
  let best = null;
  for (const seed of SEEDS) {
    const order = greedy(bodies, byName, seed);
    const size = gzipSync(Buffer.concat(order.map((at) => bodies[at])), { level: 9 }).length;
    if (!best || size < best.size) best = { order, size };
  }
  const rank = new Map(best.order.map((at, position) => [imported + at, position]));
  const width = String(best.order.length).length;
  // Functions the name section leaves out (binaryen would name them by their index, which sorts
  // among the ranks) are named too.
  const all = new Map(names);
  for (const at of bodies.keys()) if (!all.has(imported + at)) all.set(imported + at, `function${imported + at}`);
  return renamed(wasm, { ...module, names: all }, (index, name) =>
    rank.has(index) ? `${String(rank.get(index)).padStart(width, "0")}|${name}` : name,
  );
}

/** The names of the module's functions (from its name section; throws without one). */
export function functionNames(wasm) {
  return [...parse(wasm).names.values()];
}

/** Each next function the one most like the last `RECENT` placed (ties by name). */
function greedy(bodies, byName, seed) {
  const signatures = bodies.map((body) => signature(body, seed));
  const left = new Set(byName);
  const order = [];
  // How alike each function is to each of the last `RECENT` placed (shared MinHash values).
  const recent = [];
  let nextByName = 0;
  while (left.size > 0) {
    let best = -1;
    let bestScore = ALIKE - 1;
    // Candidates in name order, so a tie goes to the first by name.
    for (const candidate of byName) {
      if (!left.has(candidate)) continue;
      let score = 0;
      for (const alike of recent) score = Math.max(score, alike[candidate]);
      if (score > bestScore) {
        bestScore = score;
        best = candidate;
      }
    }
    if (best < 0) {
      while (!left.has(byName[nextByName])) nextByName++;
      best = byName[nextByName];
    }
    left.delete(best);
    order.push(best);
    const alike = new Uint16Array(bodies.length);
    const placed = signatures[best];
    for (const candidate of left) {
      const other = signatures[candidate];
      let same = 0;
      for (let k = 0; k < HASHES; k++) if (placed[k] === other[k]) same++;
      alike[candidate] = same;
    }
    recent.push(alike);
    if (recent.length > RECENT) recent.shift();
  }
  return order;
}

function compare(a, b) {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The MinHash signature of a function body's shingles (FNV-1a, then one multiply-xorshift per hash). */
function signature(body, seed) {
  const minimum = new Uint32Array(HASHES).fill(0xffffffff);
  for (let at = 0; at + SHINGLE <= body.length; at++) {
    let hash = 2166136261;
    for (let j = 0; j < SHINGLE; j++) hash = Math.imul(hash ^ body[at + j], 16777619);
    for (let k = 0; k < HASHES; k++) {
      let value = Math.imul(hash ^ Math.imul(k + 1, 0x9e3779b1) ^ seed, 0x2c1b3c6d);
      value = (value ^ (value >>> 15)) >>> 0;
      if (value < minimum[k]) minimum[k] = value;
    }
  }
  return minimum;
}

/** The module's function bodies (code section order), function names and imported functions. */
function parse(wasm) {
  const cursor = { at: 8 };
  const bodies = [];
  const names = new Map();
  let imported = 0;
  let nameSection = null;
  while (cursor.at < wasm.length) {
    const start = cursor.at;
    const id = wasm[cursor.at++];
    const length = leb(wasm, cursor);
    const end = cursor.at + length;
    const inner = { at: cursor.at };
    if (id === 2) {
      for (let count = leb(wasm, inner); count > 0; count--) {
        // Module and field names (the length is read before the offset it is added to).
        for (let name = 0; name < 2; name++) {
          const nameLength = leb(wasm, inner);
          inner.at += nameLength;
        }
        const kind = wasm[inner.at++];
        if (kind === 0) {
          leb(wasm, inner);
          imported++;
        } else if (kind === 1) {
          inner.at++;
          limits(wasm, inner);
        } else if (kind === 2) {
          limits(wasm, inner);
        } else if (kind === 3) {
          inner.at += 2;
        } else {
          inner.at++;
          leb(wasm, inner);
        }
      }
    } else if (id === 10) {
      for (let count = leb(wasm, inner); count > 0; count--) {
        const size = leb(wasm, inner);
        bodies.push(wasm.subarray(inner.at, inner.at + size));
        inner.at += size;
      }
    } else if (id === 0) {
      const size = leb(wasm, inner);
      if (wasm.subarray(inner.at, inner.at + size).toString() === "name") {
        inner.at += size;
        nameSection = { start, end, subsections: inner.at };
        while (inner.at < end) {
          const kind = wasm[inner.at++];
          const subsectionEnd = leb(wasm, inner) + inner.at;
          if (kind === 1) {
            for (let count = leb(wasm, inner); count > 0; count--) {
              const index = leb(wasm, inner);
              const nameLength = leb(wasm, inner);
              names.set(index, wasm.subarray(inner.at, inner.at + nameLength).toString());
              inner.at += nameLength;
            }
          }
          inner.at = subsectionEnd;
        }
      }
    }
    cursor.at = end;
  }
  if (!nameSection) throw new Error("reorder: the module has no name section (run wasm-opt with -g)");
  return { bodies, names, imported, nameSection };
}

/** `wasm` with its function names subsection rewritten by `rename(index, name)`. */
function renamed(wasm, { names, nameSection }, rename) {
  const parts = [];
  const cursor = { at: nameSection.subsections };
  while (cursor.at < nameSection.end) {
    const kind = wasm[cursor.at];
    const start = cursor.at++;
    const end = leb(wasm, cursor) + cursor.at;
    if (kind === 1) {
      const entries = [...names].sort((a, b) => a[0] - b[0]);
      const content = [encode(entries.length)];
      for (const [index, name] of entries) {
        const bytes = Buffer.from(rename(index, name));
        content.push(encode(index), encode(bytes.length), bytes);
      }
      const subsection = Buffer.concat(content);
      parts.push(Buffer.from([1]), encode(subsection.length), subsection);
    } else {
      parts.push(wasm.subarray(start, end));
    }
    cursor.at = end;
  }
  const title = Buffer.from("name");
  const section = Buffer.concat([encode(title.length), title, ...parts]);
  return Buffer.concat([
    wasm.subarray(0, nameSection.start),
    Buffer.from([0]),
    encode(section.length),
    section,
    wasm.subarray(nameSection.end),
  ]);
}

function limits(wasm, cursor) {
  const flags = wasm[cursor.at++];
  leb(wasm, cursor);
  if (flags & 1) leb(wasm, cursor);
}

export function leb(wasm, cursor) {
  let value = 0;
  let scale = 1;
  let byte;
  do {
    byte = wasm[cursor.at++];
    value += (byte & 127) * scale;
    scale *= 128;
  } while (byte & 128);
  return value;
}

export function encode(value) {
  const bytes = [];
  do {
    let byte = value & 127;
    value = Math.floor(value / 128);
    if (value) byte |= 128;
    bytes.push(byte);
  } while (value);
  return Buffer.from(bytes);
}

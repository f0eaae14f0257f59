// Generates src/base/grapheme/table.rs, the category table src/base/grapheme/mod.rs looks code points up in,
// from unicode-segmentation's own tables (the crate whose boundaries src/base/grapheme/mod.rs reproduces;
// a dev-dependency, so its source is in cargo's registry):
//   node scripts/grapheme-table.mjs            writes src/base/grapheme/table.rs
//   node scripts/grapheme-table.mjs --check    exits 1 when the file is not what it would write
// Regenerate after updating unicode-segmentation (its Unicode version is in the file, and a test
// compares it with the crate's UNICODE_VERSION), then run the grapheme tests.
//
// Read from the crate's src/tables.rs: `grapheme::grapheme_cat_table` (the Grapheme_Cluster_Break
// categories, with Extended_Pictographic and InCB=Consonant folded in as categories of their own),
// `derived_property::InCB_Extend_table` and `is_incb_linker` (GB9c's other two properties).
//
// Layout (why: 1.3 KiB gzipped where the crate's 12-byte ranges took ~10 KiB):
// - one code per code point from U+0080 up (ASCII is src/base/grapheme/mod.rs's fast path), `CODES` below;
//   Extend splits by InCB (Extend, InCB=Extend is nearly all of it; the linkers; ZWNJ alone has
//   neither), and the Hangul syllables are one code, LV or LVT by arithmetic, which removes the
//   ~800 alternating one-code-point ranges they take in the crate's table;
// - the code points where the code changes, in order, each as one byte `delta << 4 | code` when
//   it is 1-15 code points after the previous change, else the byte `code` then the delta in
//   LEB128 (7 bits a byte, low first, high bit set on all but the last);
// - every BLOCK-th change also in BLOCK_START (its code point) and BLOCK_AT (its byte offset), so
//   a lookup binary-searches those and decodes at most BLOCK changes.
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const out = path.join(root, "src", "base", "grapheme", "table.rs");
const BLOCK = 32;

// The table's codes, in order (a 4-bit field). Names are src/base/grapheme/mod.rs's `Cat` variants; `Lv`
// stands for both Hangul syllable kinds.
const CODES = ["Any", "Control", "Extend", "ExtendPlain", "Linker", "Zwj", "SpacingMark", "Prepend",
  "L", "V", "T", "Lv", "Ri", "Pict", "Consonant"];
// unicode-segmentation's GraphemeCat names (GC_ prefix dropped) -> codes.
const FROM_CRATE = {
  Any: "Any", Control: "Control", Extend: "Extend", ZWJ: "Zwj", SpacingMark: "SpacingMark",
  Prepend: "Prepend", L: "L", V: "V", T: "T", LV: "Lv", LVT: "Lv", Regional_Indicator: "Ri",
  Extended_Pictographic: "Pict", InCB_Consonant: "Consonant",
};

const fail = (message) => {
  console.error(`grapheme-table: ${message}`);
  process.exit(1);
};
const check = (ok, message) => ok || fail(message);

function crate() {
  const metadata = JSON.parse(
    execFileSync("cargo", ["metadata", "--format-version", "1"], { cwd: root, maxBuffer: 1 << 28 }),
  );
  const found = metadata.packages.filter((p) => p.name === "unicode-segmentation");
  check(found.length === 1, `expected one unicode-segmentation in cargo metadata, got ${found.length}`);
  const { version, manifest_path } = found[0];
  return { version, tables: path.join(path.dirname(manifest_path), "src", "tables.rs") };
}

// The entries of `const name: ... = &[ ... ];` in tables.rs.
function constant(source, name) {
  const from = source.indexOf(`const ${name}`);
  check(from >= 0, `no const ${name} in tables.rs`);
  const body = source.indexOf("= &[", from);
  return source.slice(body, source.indexOf("];", body));
}

const hex = (text) => parseInt(text, 16);
const CHAR = String.raw`'\\u\{([0-9a-fA-F]+)\}'`;

// [first, last, extra] triples; every `(` of the constant must parse, so a format change fails.
function ranges(body, extra) {
  const pattern = new RegExp(String.raw`\(${CHAR},\s*${CHAR}${extra}\)`, "g");
  const found = [...body.matchAll(pattern)].map((m) => [hex(m[1]), hex(m[2]), m[3]]);
  check(found.length === body.split("(").length - 1, "a range in tables.rs did not parse");
  return found;
}

function read(tablesPath) {
  const source = fs.readFileSync(tablesPath, "utf8");
  const version = source.match(/pub const UNICODE_VERSION: \(u64, u64, u64\) = \((\d+), (\d+), (\d+)\);/);
  check(version, "no UNICODE_VERSION in tables.rs");
  const linkerFn = source.slice(source.indexOf("pub fn is_incb_linker"));
  const linkers = [...linkerFn.slice(0, linkerFn.indexOf("}\n")).matchAll(new RegExp(CHAR, "g"))];
  check(linkers.length > 0, "no is_incb_linker in tables.rs");
  return {
    unicode: version.slice(1).map(Number),
    categories: ranges(constant(source, "grapheme_cat_table"), String.raw`,\s*GC_(\w+)`),
    incbExtend: ranges(constant(source, "InCB_Extend_table"), "()"),
    linkers: linkers.map((m) => hex(m[1])),
  };
}

// The code of every code point from U+0080 (index = code point; ASCII entries unused), after
// checking the assumptions the codes and src/base/grapheme/mod.rs make.
function codes({ categories, incbExtend, linkers }) {
  const crateCat = new Array(0x110000).fill("Any");
  for (const [first, last, cat] of categories) crateCat.fill(cat, first, last + 1);
  const incb = new Uint8Array(0x110000);
  for (const [first, last] of incbExtend) incb.fill(1, first, last + 1);
  const linker = new Uint8Array(0x110000);
  for (const c of linkers) linker[c] = 1;

  const code = new Array(0x110000).fill("Any");
  for (let c = 0x80; c < 0x110000; c++) {
    const cat = crateCat[c];
    check(cat in FROM_CRATE, `U+${c.toString(16)}: category ${cat} has no code (CR and LF are ASCII)`);
    check(!(incb[c] && linker[c]), `U+${c.toString(16)} is both InCB=Extend and a linker`);
    if (linker[c]) {
      check(cat === "Extend", `linker U+${c.toString(16)} is ${cat}, not Extend`);
      code[c] = "Linker";
    } else if (cat === "Extend") {
      code[c] = incb[c] ? "Extend" : "ExtendPlain";
    } else {
      check(!incb[c] || cat === "ZWJ", `InCB=Extend U+${c.toString(16)} is ${cat}`);
      check(cat !== "ZWJ" || incb[c], `ZWJ U+${c.toString(16)} is not InCB=Extend`);
      code[c] = FROM_CRATE[cat];
    }
    const syllable = c >= 0xac00 && c <= 0xd7a3;
    check(syllable === (cat === "LV" || cat === "LVT"), `U+${c.toString(16)}: Hangul syllables moved`);
    const lv = (c - 0xac00) % 28 === 0;
    check(!syllable || (cat === "LV") === lv, `U+${c.toString(16)}: LV is not every 28th syllable`);
  }
  return code;
}

// [code point, code] wherever the code changes, from U+0080.
function changes(code) {
  const out = [];
  for (let c = 0x80; c < 0x110000; c++) {
    if (c === 0x80 || code[c] !== code[c - 1]) out.push([c, CODES.indexOf(code[c])]);
  }
  return out;
}

function encode(changes) {
  const runs = [];
  const blockStart = [];
  const blockAt = [];
  let previous = 0;
  changes.forEach(([at, code], i) => {
    if (i % BLOCK === 0) {
      blockStart.push(at);
      blockAt.push(runs.length);
    }
    let delta = at - previous;
    previous = at;
    if (delta > 0 && delta < 16) {
      runs.push((delta << 4) | code);
      return;
    }
    runs.push(code);
    while (delta >= 0x80) {
      runs.push((delta & 0x7f) | 0x80);
      delta >>>= 7;
    }
    runs.push(delta);
  });
  check(runs.length < 0x10000, "RUNS outgrew BLOCK_AT's u16");
  return { runs, blockStart, blockAt };
}

// `values` as Rust array lines of at most 100 columns.
function rows(values, format) {
  const lines = [];
  let line = "   ";
  for (const value of values.map(format)) {
    if (line.length + value.length + 2 > 100) {
      lines.push(line);
      line = "   ";
    }
    line += ` ${value},`;
  }
  lines.push(line);
  return lines.join("\n");
}

function render({ version, unicode, runs, blockStart, blockAt, count }) {
  const hexU32 = (v) => `0x${v.toString(16).padStart(5, "0")}`;
  return `// @generated by \`node scripts/grapheme-table.mjs\` from unicode-segmentation ${version}'s
// src/tables.rs (Unicode ${unicode.join(".")}): the grapheme categories, InCB=Extend and the InCB
// linkers. Do not edit; the script says how the table is laid out.

//! The category of every code point from U+0080, for [\`crate::base::grapheme\`]: ${count} changes of
//! category, run-length coded in ${runs.length} bytes.

use super::category::Cat;

/// The Unicode version of the data.
#[cfg(test)]
pub(crate) const UNICODE_VERSION: (u64, u64, u64) = (${unicode.join(", ")});

/// The category of each 4-bit code in [\`RUNS\`]; \`Cat::Lv\` stands for both kinds of Hangul
/// syllable.
pub(crate) const CODES: [Cat; 16] = [
${CODES.map((name) => `    Cat::${name},`).join("\n")}
${Array.from({ length: 16 - CODES.length }, () => "    Cat::Any,").join("\n")}
];

/// How many changes each [\`BLOCK_START\`] entry covers.
#[cfg(test)]
pub(crate) const BLOCK: usize = ${BLOCK};

/// Where the code changes, from U+0080: \`delta << 4 | code\` for a change 1-15 code points after
/// the previous one, else \`code\` then the delta in LEB128.
#[rustfmt::skip]
pub(crate) static RUNS: [u8; ${runs.length}] = [
${rows(runs, String)}
];

/// The code point of the first change of each block of ${BLOCK}.
#[rustfmt::skip]
pub(crate) static BLOCK_START: [u32; ${blockStart.length}] = [
${rows(blockStart, hexU32)}
];

/// The offset in [\`RUNS\`] of the first change of each block of ${BLOCK}.
#[rustfmt::skip]
pub(crate) static BLOCK_AT: [u16; ${blockAt.length}] = [
${rows(blockAt, String)}
];
`;
}

const { version, tables } = crate();
const data = read(tables);
const list = changes(codes(data));
const text = render({ version, unicode: data.unicode, count: list.length, ...encode(list) });
if (process.argv.includes("--check")) {
  const current = fs.existsSync(out) ? fs.readFileSync(out, "utf8") : "";
  check(current === text, `${path.relative(root, out)} is out of date: node scripts/grapheme-table.mjs`);
  console.log(`${path.relative(root, out)} is up to date`);
} else {
  fs.writeFileSync(out, text);
  console.log(`${path.relative(root, out)}: ${list.length} changes in ${encode(list).runs.length} bytes`);
}

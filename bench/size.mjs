// "What takes the space": the shipped wasm's raw and gzipped size against issue 21's target, and
// its code bytes by owner (a crate, or for this crate its top module), data segments and the
// other sections. The shipped module (pkg/web/) carries no names (wasm-opt strips them), so the
// code is attributed in the module wasm-opt started from: wasm-pack's output in target/ (after
// wasm-bindgen, which keeps the "name" section). That module's code is larger than the shipped
// code (wasm-opt shrinks it by about a quarter, not evenly), so the table gives both its bytes
// and each owner's share of the shipped code section at the same proportion.
//
//   node bench/size.mjs             prints the markdown section
//   node bench/size.mjs --named F   attributes the code with F's names instead: `wasm-opt -g` with
//                                   the build's flags keeps them, and gives exact shipped bytes
//   import { sizeBreakdown } from "./size.mjs"; sizeBreakdown({ root })   returns it
//
// No dependencies: the wasm binary format is read here (sections, the code section's function
// bodies, the name section's function and data segment names).
import * as fs from "node:fs";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";

/** The limit on the shipped module with every feature, gzipped: issue 30 (it replaced issue 21's 150 KiB). */
export const TARGET_GZIP_BYTES = 200 * 1024;

const SECTION_NAMES = ["custom", "type", "import", "function", "table", "memory", "global", "export", "start", "element", "code", "data", "data count"];

/** Reads an unsigned LEB128 at `offset`: [value, next offset]. */
function leb(bytes, offset) {
  let value = 0;
  let shift = 0;
  for (;;) {
    const byte = bytes[offset++];
    value += (byte & 0x7f) * 2 ** shift;
    if (byte < 0x80) return [value, offset];
    shift += 7;
  }
}

function utf8(bytes, start, length) {
  return new TextDecoder().decode(bytes.subarray(start, start + length));
}

/**
 * The module's sections (id, name, size with header), the size of each function body by function
 * index, and the function and data segment names from the "name" section when present.
 */
export function readModule(bytes) {
  if (bytes.length < 8 || bytes.readUInt32LE(0) !== 0x6d736100) throw new Error("not a wasm module");
  const sections = [];
  const bodies = new Map();
  const functionNames = new Map();
  const dataNames = new Map();
  const dataSizes = [];
  let imported = 0;
  let offset = 8;
  while (offset < bytes.length) {
    const headerStart = offset;
    const id = bytes[offset];
    const [size, contentStart] = leb(bytes, offset + 1);
    const end = contentStart + size;
    let name = SECTION_NAMES[id] ?? `section ${id}`;
    if (id === 0) {
      const [length, at] = leb(bytes, contentStart);
      name = `custom "${utf8(bytes, at, length)}"`;
      if (utf8(bytes, at, length) === "name") readNames(bytes, at + length, end, functionNames, dataNames);
    } else if (id === 2) {
      imported = countFunctionImports(bytes, contentStart);
    } else if (id === 10) {
      let [count, at] = leb(bytes, contentStart);
      for (let index = 0; index < count; index++) {
        const [length, bodyStart] = leb(bytes, at);
        bodies.set(imported + index, bodyStart + length - at);
        at = bodyStart + length;
      }
    } else if (id === 11) {
      readDataSizes(bytes, contentStart, dataSizes);
    }
    sections.push({ id, name, bytes: end - headerStart });
    offset = end;
  }
  return { sections, bodies, functionNames, dataNames, dataSizes };
}

function countFunctionImports(bytes, start) {
  let [count, at] = leb(bytes, start);
  let functions = 0;
  for (let i = 0; i < count; i++) {
    for (let field = 0; field < 2; field++) {
      const [length, next] = leb(bytes, at);
      at = next + length;
    }
    const kind = bytes[at++];
    if (kind === 0) {
      functions += 1;
      at = leb(bytes, at)[1];
    } else if (kind === 1) {
      at = limits(bytes, at + 1);
    } else if (kind === 2) {
      at = limits(bytes, at);
    } else if (kind === 3) {
      at += 2;
    } else {
      at = leb(bytes, at + 1)[1];
    }
  }
  return functions;
}

function limits(bytes, at) {
  const flags = bytes[at];
  let next = leb(bytes, at + 1)[1];
  if (flags & 1) next = leb(bytes, next)[1];
  return next;
}

/** Each data segment's total size (its header, offset expression and bytes). */
function readDataSizes(bytes, start, sizes) {
  let [count, at] = leb(bytes, start);
  for (let i = 0; i < count; i++) {
    const segmentStart = at;
    const [flags, next] = leb(bytes, at);
    at = next;
    if (flags === 2) at = leb(bytes, at)[1];
    if (flags !== 1) {
      // A constant offset expression: opcodes up to `end` (0x0b); i32.const's operand never
      // contains 0x0b as a whole byte before its last byte, so read the instruction properly.
      while (bytes[at] !== 0x0b) {
        const opcode = bytes[at++];
        if (opcode === 0x41 || opcode === 0x42 || opcode === 0x23) at = signedLebEnd(bytes, at);
      }
      at += 1;
    }
    const [length, dataStart] = leb(bytes, at);
    at = dataStart + length;
    sizes.push(at - segmentStart);
  }
}

function signedLebEnd(bytes, at) {
  while (bytes[at] & 0x80) at++;
  return at + 1;
}

function readNames(bytes, start, end, functionNames, dataNames) {
  let at = start;
  while (at < end) {
    const id = bytes[at];
    const [size, contentStart] = leb(bytes, at + 1);
    if (id === 1 || id === 9) {
      const into = id === 1 ? functionNames : dataNames;
      let [count, next] = leb(bytes, contentStart);
      for (let i = 0; i < count; i++) {
        const [index, afterIndex] = leb(bytes, next);
        const [length, nameStart] = leb(bytes, afterIndex);
        into.set(index, utf8(bytes, nameStart, length));
        next = nameStart + length;
      }
    }
    at = contentStart + size;
  }
}

/** The crate a Rust path names: its first segment without a `[hash]` disambiguator. */
function crateOf(pathText) {
  return pathText.replace(/^(&mut |&|\*const |\*mut |dyn |\(|\[)+/, "").split("::")[0].replace(/\[[0-9a-f]+\]$/, "");
}

const STD = new Set(["core", "alloc", "std"]);
const isPath = (text) => /^(&mut |&)?[a-z_][a-z0-9_]*(\[[0-9a-f]+\])?::/.test(text);

/**
 * Our two crates share the library name (the binding's library is named after the module's
 * files): the core by top module (`src/formats/` is "formats"), everything else the binding's.
 */
const OWN = "tiered_compaction";
const BINDING = "wasm binding (binding/)";
const CORE_MODULES = new Set([...fs.readFileSync(path.join(path.dirname(fileURLToPath(import.meta.url)), "..", "src", "lib.rs"), "utf8").matchAll(/^pub mod (\w+);/gm)].map((m) => m[1]));
const OWN_ROWS = { edge: "edge (request bodies)" };
const EXPORTS = "exported functions' bodies (inlined into wasm-bindgen's `maybe_catch_unwind`, js-sys's `future_to_promise`)";
const RUNTIME = "runtime (allocator shims, compiler builtins, panic entry)";

/**
 * Who a function belongs to, from its (demangled) name: the crate of its path; for
 * `<Type as Trait>::method`, the crate of the type, or of the trait when the type is not a path
 * (`f64`, `T`, `[T]`) or a standard one and the trait is not (`<alloc::string::String as
 * serde::Deserialize>`); for this crate, its top module. Drop glue and the exported functions'
 * wrappers (whose bodies wasm-bindgen's generic wrappers inline) get rows of their own.
 */
export function ownerOf(name) {
  if (/^core(\[[0-9a-f]+\])?::ptr::drop_in_place/.test(name)) return "drop glue (core::ptr::drop_in_place)";
  if (/^wasm_bindgen::__rt::maybe_catch_unwind|^js_sys::futures::future_to_promise::/.test(name)) return EXPORTS;
  // wasm-bindgen's generated adapters ("F64 -> Externref", "compact externref shim").
  if (/ -> |externref shim|multivalue shim/.test(name)) return "wasm_bindgen";
  let owner = "";
  const impl = /^<(.+?) as (.+?)>::/.exec(name);
  if (impl) {
    const [typeCrate, traitCrate] = [crateOf(impl[1]), crateOf(impl[2])];
    owner = !isPath(impl[1]) || (STD.has(typeCrate) && !STD.has(traitCrate)) ? impl[2] : impl[1];
  } else if (name.startsWith("<")) {
    // An inherent method of a primitive (`<char>::escape_debug_ext`) or a path (`<core::str::..>::new`).
    owner = isPath(name.slice(1)) ? name.slice(1) : "core::";
  } else if (name.includes("::")) {
    owner = name;
  }
  const crate = owner ? crateOf(owner) : "";
  if (crate === OWN) {
    const module = owner.replace(/^(&mut |&)/, "").split("::")[1] ?? "";
    return CORE_MODULES.has(module) ? (OWN_ROWS[module] ?? module) : BINDING;
  }
  if (crate === "serde_core" || crate === "serde_derive" || crate === "serde") return "serde";
  if (crate.startsWith("__") || crate === "") {
    // Unmangled symbols: the exported functions (`compact`, `selectTier`: thin wrappers), the
    // allocator shims, compiler builtins (`__multi3`, `memcmp`, `fmax`), the panic entry.
    if (/^[a-z][A-Za-z]*$/.test(name) && !/^(mem|f(max|min)|round)/.test(name)) return BINDING;
    return RUNTIME;
  }
  return crate;
}

function groupCode(module) {
  const owners = new Map();
  let total = 0;
  for (const [index, bytes] of module.bodies) {
    const name = module.functionNames.get(index) ?? "";
    const owner = ownerOf(name);
    const row = owners.get(owner) ?? { bytes: 0, functions: 0 };
    row.bytes += bytes;
    row.functions += 1;
    owners.set(owner, row);
    total += bytes;
  }
  return { owners, total };
}

const kib = (bytes) => `${(bytes / 1024).toFixed(1)} KiB`;
const share = (part, whole) => `${((part / whole) * 100).toFixed(1)} %`;
const line = (cells) => `| ${cells.join(" | ")} |`;

/** Default module paths under `root`: the shipped module and the named one wasm-opt started from. */
function modules(root) {
  const shipped = path.join(root, "pkg", "web", "tiered_compaction_bg.wasm");
  const candidates = [
    path.join(root, "target", "wasm-pack", "web", "tiered_compaction_bg.wasm"),
    path.join(root, "target", "wasm32-unknown-unknown", "release", "tiered_compaction.wasm"),
  ];
  return { shipped, named: candidates.find((file) => fs.existsSync(file)) };
}

/**
 * The markdown section: the shipped module's raw and gzipped size against the target, and a
 * table of where its bytes go. `named` overrides the module whose names attribute the code (any
 * module with a "name" section, such as `wasm-opt -g` output of the same build).
 */
export function sizeBreakdown({ root, named } = {}) {
  const paths = modules(root);
  if (!fs.existsSync(paths.shipped)) return "_Size: no pkg/web/tiered_compaction_bg.wasm (run `npm run build`)._";
  const shippedBytes = fs.readFileSync(paths.shipped);
  const gzip = gzipSync(shippedBytes, { level: 9 }).length;
  const shipped = readModule(shippedBytes);
  const namedPath = named ?? paths.named;
  const out = [
    "## Size",
    "",
    `Shipped module \`pkg/web/tiered_compaction_bg.wasm\`: ${shippedBytes.length.toLocaleString("en")} B raw (${kib(shippedBytes.length)}), ` +
      `**${gzip.toLocaleString("en")} B gzipped (${kib(gzip)})** (Node's zlib at level 9, as scripts/build.mjs reports it; the gzip command's -9 gives about 0.6 % less) against the target of at most ${kib(TARGET_GZIP_BYTES)} ` +
      `(${TARGET_GZIP_BYTES.toLocaleString("en")} B): ${gzip <= TARGET_GZIP_BYTES ? "met" : `**not met**, ${(gzip - TARGET_GZIP_BYTES).toLocaleString("en")} B over`}.`,
    "",
  ];
  const sectionBytes = (module, id) => module.sections.filter((s) => s.id === id).reduce((a, s) => a + s.bytes, 0);
  const shippedCode = sectionBytes(shipped, 10);
  const shippedData = sectionBytes(shipped, 11);
  const otherSections = shipped.sections.filter((s) => s.id !== 10 && s.id !== 11);
  if (!namedPath || !fs.existsSync(namedPath)) {
    out.push("_No named build in target/ to attribute the code (run `npm run build`)._");
    return out.join("\n");
  }
  const module = readModule(fs.readFileSync(namedPath));
  if (module.functionNames.size === 0) {
    out.push(`_${path.relative(root, namedPath)} has no "name" section: the code is not attributed._`);
    return out.join("\n");
  }
  const { owners, total } = groupCode(module);
  const rows = [...owners].map(([owner, row]) => ({
    owner,
    functions: row.functions.toLocaleString("en"),
    named: row.bytes.toLocaleString("en"),
    shipped: (row.bytes / total) * shippedCode,
  }));
  // Owners under 2 KiB shipped share one row, as do the sections under 1 KiB.
  const small = rows.filter((row) => row.shipped < 2048);
  const kept = rows.filter((row) => row.shipped >= 2048);
  if (small.length > 0) {
    kept.push({
      owner: `${small.length} smaller owners (${small.sort((a, b) => b.shipped - a.shipped).map((row) => row.owner).join(", ")})`,
      functions: small.reduce((a, row) => a + Number(row.functions.replace(/,/g, "")), 0).toLocaleString("en"),
      named: small.reduce((a, row) => a + Number(row.named.replace(/,/g, "")), 0).toLocaleString("en"),
      shipped: small.reduce((a, row) => a + row.shipped, 0),
    });
  }
  kept.push({ owner: "data segments (string literals, tables, vtables, panic locations)", functions: "", named: sectionBytes(module, 11).toLocaleString("en"), shipped: shippedData });
  const bigSections = otherSections.filter((section) => section.bytes >= 1024);
  const smallSections = otherSections.filter((section) => section.bytes < 1024);
  for (const section of bigSections) kept.push({ owner: `${section.name} section`, functions: "", named: "", shipped: section.bytes });
  if (smallSections.length > 0) {
    kept.push({
      owner: `other sections (${smallSections.map((section) => section.name).join(", ")})`,
      functions: "",
      named: "",
      shipped: smallSections.reduce((a, section) => a + section.bytes, 0),
    });
  }
  out.push(
    `Where the bytes go. Code by owner is measured in \`${path.relative(root, namedPath)}\` (${named ? "names kept" : "before wasm-opt, names kept"}: ` +
      `${total.toLocaleString("en")} B of function bodies in ${module.bodies.size.toLocaleString("en")} functions) and scaled to the ` +
      `shipped code section (${shippedCode.toLocaleString("en")} B in ${shipped.bodies.size.toLocaleString("en")} functions); ` +
      "data and the other sections are the shipped module's own. Owner: the crate of a function's path (of the type for a " +
      "`<Type as Trait>` impl, of the trait when the type is a primitive, a type parameter or a standard type and the trait is not); " +
      "this crate by top module. Generic code lands with the crate that defines it: a `Vec<Message>` method or an iterator " +
      "adapter running one of our closures counts as alloc's or core's.",
    "",
    line(["owner", "functions (named module)", "bytes (named module)", "≈ shipped bytes", "share of shipped"]),
    line(["---", "---:", "---:", "---:", "---:"]),
  );
  for (const row of kept.sort((a, b) => b.shipped - a.shipped)) {
    out.push(line([row.owner, row.functions, row.named, Math.round(row.shipped).toLocaleString("en"), share(row.shipped, shippedBytes.length)]));
  }
  out.push(line(["**total**", module.bodies.size.toLocaleString("en"), "", shippedBytes.length.toLocaleString("en"), "100.0 %"]));
  return out.join("\n");
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
  const namedArg = process.argv.indexOf("--named");
  console.log(sizeBreakdown({ root, named: namedArg > 0 ? path.resolve(process.argv[namedArg + 1]) : undefined }));
}

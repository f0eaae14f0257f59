// Module cycles in src/ (issue 30: none, not even inside a folder). A module is a file; it uses
// another where its non-test code names it by path (`crate::a::b`, `super::c`), resolved to the
// longest module that exists. A module's own ancestors (the folders it lives in) are not edges:
// naming a parent is how Rust reaches a sibling. Prints each cycle (a strongly connected set of
// two or more modules) and exits 1 when there is one.
//   node scripts/module-cycles.mjs [src]
import * as fs from "node:fs";
import * as path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", process.argv[2] ?? "src");

/** Every `.rs` file under `dir` as its module path (`formats::registry`; `mod.rs` and `lib.rs` name their folder). */
function modules(dir) {
  const found = new Map();
  const walk = (at) => {
    for (const entry of fs.readdirSync(at, { withFileTypes: true })) {
      const file = path.join(at, entry.name);
      if (entry.isDirectory()) walk(file);
      else if (entry.name.endsWith(".rs")) {
        const parts = path.relative(dir, file).slice(0, -3).split(path.sep);
        if (["mod", "lib"].includes(parts.at(-1))) parts.pop();
        found.set(parts.join("::"), file);
      }
    }
  };
  walk(dir);
  return found;
}

/** A file's code without its `#[cfg(test)] mod tests` part and its comments. */
const code = (text) => {
  const tests = text.indexOf("#[cfg(test)]\nmod tests");
  return (tests === -1 ? text : text.slice(0, tests)).replace(/\/\/.*$/gm, "");
};

/** The modules `name` (in `file`) uses. */
function uses(name, file, all) {
  const parts = name === "" ? [] : name.split("::");
  const folder = /(^|\/)(mod|lib)\.rs$/.test(file) ? parts : parts.slice(0, -1);
  const out = new Set();
  const text = code(fs.readFileSync(file, "utf8"));
  // `super::a::b` and each name of a group: `super::{a, b::c}` (one level of braces).
  const paths = [...text.matchAll(/\b(crate|super(?:::super)*)((?:::\w+)*)(?:::\{([^{}]*)\})?/g)].flatMap((match) => {
    const group = match[3] === undefined ? [""] : match[3].split(",").map((item) => item.trim().split(/\s/)[0]).filter(Boolean).map((item) => `::${item}`);
    return group.map((item) => [match[1], `${match[2]}${item === "::self" ? "" : item}`]);
  });
  for (const [head, tail] of paths) {
    const supers = head === "crate" ? -1 : head.split("::").length;
    const base = supers === -1 ? [] : folder.slice(0, folder.length - (supers - 1));
    const full = [...base, ...tail.split("::").slice(1)];
    for (let k = full.length; k > 0; k -= 1) {
      const target = full.slice(0, k).join("::");
      if (all.has(target) && target !== name) {
        if (!name.startsWith(`${target}::`)) out.add(target);
        break;
      }
    }
  }
  return out;
}

/** Strongly connected sets of two or more modules (Tarjan). */
function cycles(graph) {
  const index = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const found = [];
  let next = 0;
  const visit = (v) => {
    index.set(v, next);
    low.set(v, next);
    next += 1;
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v)) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v), low.get(w)));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v), index.get(w)));
    }
    if (low.get(v) === index.get(v)) {
      const set = [];
      let w;
      do {
        w = stack.pop();
        onStack.delete(w);
        set.push(w);
      } while (w !== v);
      if (set.length > 1) found.push(set.sort());
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

const all = modules(root);
const graph = new Map([...all].map(([name, file]) => [name, uses(name, file, all)]));
const found = cycles(graph);
for (const set of found) console.log(`cycle: ${set.join(" <-> ")}`);
console.log(`${all.size} modules, ${[...graph.values()].reduce((n, s) => n + s.size, 0)} uses, ${found.length} cycle(s)`);
process.exit(found.length === 0 ? 0 : 1);

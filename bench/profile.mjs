// "Where the time goes": a CPU profile (V8's sampling profiler through node:inspector) of
// compactWithTier("micro") and compactRequestBody on one transcript, with the time of each
// function (self time) summed by category. The profile needs function names, which the shipped
// module does not carry (wasm-opt strips them), so it loads the same build before wasm-opt:
// cargo's target/wasm32-unknown-unknown/release/tiered_compaction.wasm through the pinned
// wasm-bindgen in .tools/bin, into a temporary folder. Timings of that module are close to the
// shipped one's; the split is what matters here.
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import { Session } from "node:inspector/promises";
import { createRequire } from "node:module";
import * as os from "node:os";
import * as path from "node:path";
import { bindingHelpers } from "../js/api.mjs";
import { table } from "./lib.mjs";

/** Categories, first match wins; `re` is tested against "function @ file". */
const CATEGORIES = [
  ["SHA-256 (correlation id, archive ids)", /sha2::|digest::|sha256/],
  ["serde_json writing (Value → text: archive ids, edited messages)", /serde_json::ser|Value as core::fmt::Display|WriterFormatter|io::Write|fmt::Formatter|fmt::Write|itoa|zmij|ryu/],
  ["serde_json reading (skeleton, body messages)", /serde_json::(de|read)|serde_json::value::de/],
  ["body: checking pass, unescaping archived strings", /body_scan|tiered_compaction::bytes|tiered_compaction::unescape/],
  ["JS → wasm (reading JS objects and strings)", /__wbindgen_string_get|serde_wasm_bindgen::de|wasm::fields|wasm::inputs|wasm::host|wasm::skeleton|readSkeleton|wasm::text|encodeInto|js_string|__wbindgen_number_get|__wbg_get_|__wbg_String|passStringToWasm|encodeInto|wasm-to-js|__wbg_.*(is|typeof|keys|entries|length|instanceof)/i],
  ["wasm → JS (building result objects and strings)", /serde_wasm_bindgen::ser|wasm::output|getStringFromWasm|decode @|__wbg_set|__wbg_new|__wbg_push|__wbindgen_(number|string|bigint)_new/],
  ["core: tiers, formats, transcript, counting", /tiered_compaction::|str::count|TwoWaySearcher|str::pattern|char_indices|Chars/],
  ["allocation, copying, hashing maps", /dlmalloc|memcpy|memmove|memcmp|memset|raw_vec|to_vec|clone|append_elements|hashbrown|indexmap|Vec<|alloc::|drop_in_place/],
  ["V8: GC, JS glue, other JS", /garbage collector|@.*\.js$|@$|\(program\)|\(root\)/],
];

function categorise(profile) {
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  const selfTime = new Map();
  for (let i = 0; i < profile.samples.length; i++) {
    const frame = nodes.get(profile.samples[i]).callFrame;
    const key = `${frame.functionName || "(anonymous)"} @${(frame.url || "").split("/").pop()}`;
    selfTime.set(key, (selfTime.get(key) ?? 0) + profile.timeDeltas[i]);
  }
  // The profiler's own frames and idle time are not the library's.
  for (const key of [...selfTime.keys()]) if (/^\((idle|program|root)\) @$|^dispatch @$/.test(key)) selfTime.delete(key);
  const total = [...selfTime.values()].reduce((a, b) => a + b, 0);
  const byCategory = new Map(CATEGORIES.map(([name]) => [name, 0]));
  byCategory.set("other wasm", 0);
  for (const [key, time] of selfTime) {
    const category = CATEGORIES.find(([, re]) => re.test(key))?.[0] ?? "other wasm";
    byCategory.set(category, byCategory.get(category) + time);
  }
  const top = [...selfTime].sort((a, b) => b[1] - a[1]).slice(0, 8);
  return { total, byCategory, top };
}

/** Profiles `fn` called again and again for `ms` milliseconds (after a few warm-up calls). */
async function profiled(session, fn, ms) {
  for (let i = 0; i < 5; i++) await fn();
  await session.post("Profiler.start");
  const until = performance.now() + ms;
  let calls = 0;
  while (performance.now() < until) {
    await fn();
    calls += 1;
  }
  const { profile } = await session.post("Profiler.stop");
  return { ...categorise(profile), calls };
}

/** Returns the markdown section (or a note saying why there is none). */
export async function breakdown({ root, smoke, messages, body, pressure }) {
  const wasm = path.join(root, "target", "wasm32-unknown-unknown", "release", "tiered_compaction.wasm");
  const bindgen = path.join(root, ".tools", "bin", "wasm-bindgen");
  if (!fs.existsSync(wasm) || !fs.existsSync(bindgen)) {
    return "_CPU profile skipped: no cargo wasm build or no .tools/bin/wasm-bindgen (run `npm run build`)._";
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "tc-profile-"));
  try {
    execFileSync(bindgen, ["--target", "nodejs", "--no-typescript", "--out-dir", dir, wasm]);
    // The package hands its glue its helpers (scripts/glue.mjs); this bare glue finds them as
    // globals, so the profile sees strings and messages cross as the package crosses them
    // (without `crossBody`, the binding falls back to checking a body one `charCodeAt` at a time).
    const globals = Object.entries(bindingHelpers).map(([name, helper]) => [`tieredCompaction${name[0].toUpperCase()}${name.slice(1)}`, helper]);
    for (const [name, helper] of globals) globalThis[name] = helper;
    const glue = createRequire(import.meta.url)(path.join(dir, "tiered_compaction.js"));
    const session = new Session();
    session.connect();
    await session.post("Profiler.enable");
    await session.post("Profiler.setSamplingInterval", { interval: 100 });
    const window = smoke ? 20 : 1500;
    const objects = await profiled(session, () => glue.compactWithTier("micro", { sessionId: "bench", pressure, messages }), window);
    const edge = await profiled(session, () => glue.compactRequestBody(body, { sessionId: "bench", pressure }), window);
    session.disconnect();
    const share = (p, name) => `${((p.byCategory.get(name) / p.total) * 100).toFixed(0)} %`;
    const names = [...objects.byCategory.keys()];
    const top = (p) => p.top.map(([key, time]) => `${((time / p.total) * 100).toFixed(1)} % ${key.replace(/::h[0-9a-f]{16}/, "").replace(/ @.*$/, "").slice(0, 90)}`);
    const ranked = (p) =>
      [...p.byCategory].sort((a, b) => b[1] - a[1]).slice(0, 3).map(([name, time]) => `${name} ${((time / p.total) * 100).toFixed(0)} %`).join(", ");
    return [
      `CPU profile (self time by category, V8 sampling profiler, ${(window / 1000).toFixed(1)} s of calls each: ${objects.calls} and ${edge.calls}; same build before wasm-opt). ` +
        `Largest shares: objects path ${ranked(objects)}; body path ${ranked(edge)}.`,
      "",
      table(["category", "`compactWithTier(\"micro\")`", "`compactRequestBody` (micro)"], names.map((name) => [name, share(objects, name), share(edge, name)])),
      "",
      "Heaviest functions, objects path: " + top(objects).map((line) => `\`${line}\``).join("; ") + ".",
      "",
      "Heaviest functions, body path: " + top(edge).map((line) => `\`${line}\``).join("; ") + ".",
    ].join("\n");
  } finally {
    for (const name of Object.keys(bindingHelpers)) delete globalThis[`tieredCompaction${name[0].toUpperCase()}${name.slice(1)}`];
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

// Two builds of the package side by side in one process: a change's speed, as its ratio to the
// build before it. Copy `pkg/` before the change (`cp -a pkg /tmp/pkg-before`), build, then
//
//   node bench/builds.mjs /tmp/pkg-before [--smoke] [--runs N] [--only long|none] [--match TEXT]
//
// Each row times the same call on both builds, in turns (lib.mjs `compare`), and first checks
// that both give the same result. Rows:
// - long: every workload of the long-run section (long-runs.mjs; issue 21's and the real
//   sessions) by body and by objects: micro, time_based and the nothing-to-edit call (with
//   --match, only the workloads whose name holds TEXT: a noisy row measured again);
// - none: tier none on the generated conversations of 1 MB and 10 MB (section 7's counting
//   rows), objects and body, counting by the seed's rule (named) and by the heuristic (the
//   default), and micro on the objects likewise.
import * as path from "node:path";
import { pathToFileURL } from "node:url";
import * as gen from "./generate.mjs";
import { compare, ms, ratio, table } from "./lib.mjs";
import { NOTHING_LONG, workloads } from "./long-runs.mjs";

const args = process.argv.slice(2);
const flag = (name) => {
  const at = args.indexOf(name);
  return at >= 0 ? args[at + 1] : undefined;
};
const beforeDir = args.find((arg, i) => !arg.startsWith("--") && !["--runs", "--only", "--match"].includes(args[i - 1]));
if (!beforeDir) {
  console.error("usage: node bench/builds.mjs BEFORE_PKG_DIR [--smoke] [--runs N] [--only long|none] [--match TEXT]");
  process.exit(2);
}
const smoke = args.includes("--smoke");
const only = flag("--only");
const match = flag("--match");
const opts = smoke ? { runs: 1, warmup: 1, warmupMs: 0 } : { runs: Number(flag("--runs") ?? 7) };

const load = (dir) => import(pathToFileURL(path.resolve(dir, "node.mjs")).href);
const before = await load(beforeDir);
const after = await load(path.join(path.dirname(new URL(import.meta.url).pathname), "..", "pkg"));

/** A result as comparable text: everything but the per-call id. */
const settled = async (promise) => {
  const out = await promise;
  const result = out.result ?? out;
  const { correlationId: _, ...rest } = result;
  return JSON.stringify({ body: out.body, ...rest });
};

/** `calls`: { name, call(tc) }; each timed on both builds. Returns table rows. */
async function pairs(label, calls) {
  for (const { name, call } of calls) {
    const [a, b] = [await settled(call(before)), await settled(call(after))];
    if (a !== b) throw new Error(`${label}, ${name}: the builds disagree`);
  }
  const t = await compare(
    calls.flatMap(({ name, call }) => [
      { name: `before ${name}`, fn: () => call(before) },
      { name: `after ${name}`, fn: () => call(after) },
    ]),
    opts,
  );
  return calls.map(({ name }) => {
    const r = t[`after ${name}`] / t[`before ${name}`];
    ratios.push([name, r]);
    return [label, name, ms(t[`before ${name}`]), ms(t[`after ${name}`]), ratio(r)];
  });
}

const rows = [];
/** [call, after ÷ before] of every row, for the summary. */
const ratios = [];
if (only !== "none") {
  for (const w of workloads(smoke).filter((w) => match === undefined || w.name.includes(match))) {
    const messages = JSON.parse(w.body).messages;
    const steps = messages.filter((m) => m.role === "assistant").length;
    const call = (idle) => ({ sessionId: "bench", pressure: { turnCount: steps, contextPctUsed: 0.5, idleSeconds: idle, sessionComplete: false } });
    const objects = (idle) => ({ ...call(idle), messages, format: w.format });
    const untouched = { policy: { microBodyThresholdChars: NOTHING_LONG, microKeepHeadChars: 0 } };
    rows.push(
      ...(await pairs(`${w.name} (${w.format})`, [
        { name: "body micro", call: (tc) => tc.compactRequestBody(w.body, call(0)) },
        { name: "body time_based", call: (tc) => tc.compactRequestBody(w.body, call(400)) },
        { name: "body, nothing to edit", call: (tc) => tc.compactRequestBody(w.body, { ...call(0), ...untouched }) },
        { name: "objects micro", call: (tc) => tc.compactWithTier("micro", objects(0)) },
        { name: "objects time_based", call: (tc) => tc.compactWithTier("time_based", objects(400)) },
        { name: "objects, nothing to edit", call: (tc) => tc.compactWithTier("micro", objects(0), untouched) },
      ])),
    );
  }
}
if (only !== "long") {
  for (const size of smoke ? [30_000, 60_000] : [1_000_000, 10_000_000]) {
    const { events, turns } = gen.conversation(42 + size, size);
    const messages = JSON.parse(JSON.stringify(gen.toOpenAI(events)));
    const body = JSON.stringify({ model: "gpt-4o", messages });
    const pressure = { turnCount: turns, contextPctUsed: 0.5, idleSeconds: 0, sessionComplete: false };
    const ctx = { sessionId: "bench", pressure, messages, format: "openai" };
    // Turn 1: the policy selects none for the body.
    const first = { sessionId: "bench", pressure: { ...pressure, turnCount: 1 } };
    const seed = { tokenEstimator: "seed" };
    const mb = `conversation ${(body.length / 1e6).toFixed(1)} MB`;
    rows.push(
      ...(await pairs(mb, [
        { name: "objects none, seed's rule", call: (tc) => tc.compactWithTier("none", ctx, seed) },
        { name: "objects none, heuristic", call: (tc) => tc.compactWithTier("none", ctx) },
        { name: "objects micro, seed's rule", call: (tc) => tc.compactWithTier("micro", ctx, seed) },
        { name: "objects micro, heuristic", call: (tc) => tc.compactWithTier("micro", ctx) },
        { name: "body none, seed's rule", call: (tc) => tc.compactRequestBody(body, { ...first, ...seed }) },
        { name: "body none, heuristic", call: (tc) => tc.compactRequestBody(body, first) },
      ])),
    );
  }
}
console.log(`Before: ${path.resolve(beforeDir)}; after: pkg/. Median ms per call, ${opts.runs} rounds in turns, one process.\n`);
console.log(table(["workload", "call", "before ms", "after ms", "after ÷ before"], rows));
// Per call over the workloads: the geometric mean of the ratios (one noisy sample moves it
// little) and the extremes.
const calls = [...new Set(ratios.map(([name]) => name))];
const summary = calls.map((name) => {
  const of = ratios.filter(([call]) => call === name).map(([, r]) => r);
  const mean = Math.exp(of.reduce((sum, r) => sum + Math.log(r), 0) / of.length);
  return [name, of.length, ratio(mean), ratio(Math.min(...of)), ratio(Math.max(...of))];
});
console.log();
console.log(table(["call", "workloads", "geometric mean", "lowest", "highest"], summary));

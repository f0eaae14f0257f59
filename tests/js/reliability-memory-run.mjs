// Run by reliability-memory.test.mjs as `node --expose-gc tests/js/reliability-memory-run.mjs N`:
// N sequential calls of the reliability mix (every format and tier, the request-body path, with
// and without a summariser and with every summariser fault), plus the synchronous exports on
// each result, through the package's Node ES-module entry point. Prints one JSON line of
// measurements taken after full garbage collections: at the start, after every 1,000 calls.
import { callFor, settle } from "./reliability-workload.mjs";

const registry = new Map();
globalThis[Symbol.for("tiered-compaction.testing")] = registry;
const api = await import("tiered-compaction");
const hooks = registry.get("index.mjs");
const total = Number(process.argv[2] ?? 10_000);

async function measure(calls) {
  // Let summarisers' abandoned timers (hang, abort) run out, then collect twice.
  await new Promise((resolve) => setTimeout(resolve, 20));
  globalThis.gc();
  await new Promise((resolve) => setTimeout(resolve, 0));
  globalThis.gc();
  const { heapUsed, rss, external, arrayBuffers } = process.memoryUsage();
  const { memoryBytes, externrefs, externrefsInUse, pending, timers, listeners, instances, traps } = hooks.diagnostics();
  const activeTimers = process.getActiveResourcesInfo().filter((name) => name === "Timeout").length;
  return { calls, memoryBytes, externrefs, externrefsInUse, heapUsed, rss, external, arrayBuffers, pending, timers, listeners, activeTimers, instances, traps };
}

const samples = [await measure(0)];
const started = performance.now();
let fulfilled = 0;
let rejected = 0;
for (let index = 0; index < total; index += 1) {
  const result = await settle(callFor(index)[1](api, 0));
  if (result.status === "fulfilled") {
    fulfilled += 1;
    const tierResult = result.value.result ?? result.value;
    api.recordTierEvent(tierResult, { index });
    api.estimateTokens(tierResult.text ?? "abc", { tokenEstimator: index % 2 ? "heuristic" : "seed" });
    api.selectTier({ turnCount: index % 12, contextPctUsed: (index % 100) / 100, idleSeconds: index % 5000, sessionComplete: false });
  } else {
    rejected += 1;
  }
  if ((index + 1) % 1000 === 0) samples.push(await measure(index + 1));
}
const seconds = (performance.now() - started) / 1000;
console.log(JSON.stringify({ total, seconds, fulfilled, rejected, samples }));

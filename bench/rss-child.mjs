// Peak memory of one compaction, in a fresh process: node --expose-gc rss-child.mjs FILE MODE TURNS
// MODE "objects": FILE holds OpenAI messages as JSON, compacted with compactWithTier("micro").
// MODE "body": FILE is a request body, compacted with compactRequestBody (micro pressure).
// Prints { before, peak, growth } in bytes: RSS before the call (input in memory, after GC) and
// the high-water mark during it (Linux VmHWM, reset just before the call via /proc/self/clear_refs).
import * as fs from "node:fs";
import * as tc from "tiered-compaction";

const [file, mode, turns] = process.argv.slice(2);
const text = fs.readFileSync(file, "utf8");
const input = mode === "body" ? text : JSON.parse(text);
const pressure = { turnCount: Number(turns), contextPctUsed: 0.5, idleSeconds: 0, sessionComplete: false };
tc.estimateTokens("warm up the module");
globalThis.gc();
globalThis.gc();
const hwm = () => {
  const match = fs.readFileSync("/proc/self/status", "utf8").match(/VmHWM:\s+(\d+)/);
  return Number(match[1]) * 1024;
};
const before = process.memoryUsage.rss();
let resettable = true;
try {
  fs.writeFileSync("/proc/self/clear_refs", "5");
} catch {
  resettable = false;
}
const result =
  mode === "body"
    ? await tc.compactRequestBody(input, { sessionId: "rss", pressure })
    : await tc.compactWithTier("micro", { sessionId: "rss", pressure, messages: input });
const peak = resettable ? hwm() : process.resourceUsage().maxRSS * 1024;
if (!result) throw new Error("no result");
console.log(JSON.stringify({ before, peak, growth: peak - before, resettable }));

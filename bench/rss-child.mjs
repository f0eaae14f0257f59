// Peak memory of one compaction, in a fresh process: node --expose-gc rss-child.mjs FILE MODE TURNS [WARM]
// MODE "objects": FILE holds OpenAI messages as JSON, compacted with compactWithTier("micro").
// MODE "body": FILE is a request body, compacted with compactRequestBody (micro pressure).
// WARM (default 0): compactions of the first 2 % of the messages run before the measured one, so
// that V8 has compiled (and tiered up) the wasm code: the first call of a process also pays for
// that, once, whatever the input's size.
// Prints { before, peak, growth } in bytes: RSS before the call (input in memory, after GC) and
// the high-water mark during it (Linux VmHWM, reset just before the call via /proc/self/clear_refs).
import * as fs from "node:fs";
import * as tc from "tiered-compaction";

const [file, mode, turns, warm = "0"] = process.argv.slice(2);
const text = fs.readFileSync(file, "utf8");
const input = mode === "body" ? text : JSON.parse(text);
const pressure = { turnCount: Number(turns), contextPctUsed: 0.5, idleSeconds: 0, sessionComplete: false };
const compact = (value) =>
  mode === "body"
    ? tc.compactRequestBody(value, { sessionId: "rss", pressure })
    : tc.compactWithTier("micro", { sessionId: "rss", pressure, messages: value });
tc.estimateTokens("warm up the module");
if (Number(warm) > 0) {
  const messages = mode === "body" ? JSON.parse(text).messages : input;
  const prefix = messages.slice(0, Math.max(4, Math.ceil(messages.length / 50)));
  const small = mode === "body" ? JSON.stringify({ model: "m", messages: prefix }) : prefix;
  for (let i = 0; i < Number(warm); i++) await compact(small);
}
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
const result = await compact(input);
const peak = resettable ? hwm() : process.resourceUsage().maxRSS * 1024;
if (!result) throw new Error("no result");
console.log(JSON.stringify({ before, peak, growth: peak - before, resettable }));

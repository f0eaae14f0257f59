// The main job (`npm start`): compacts the generated sample transcripts (scripts/samples.mjs)
// through every tier with the built package, and prints a readable report — the tier, why the
// policy chose it, before → after tokens, cost, whether restore(result) gives the input back and
// whether every id a stub names is recalled — then one of micro's stubs, and the JSONL trace lines.
//
// Each tier is reached the way a host reaches it: by a pressure that makes `selectTier` pick it,
// then `compact`. The summarising tiers get a local stub summariser (no model call): it answers
// with the first line of the transcript plus the items the library asked to keep verbatim.
//
// Last, when ../shared/realdata is beside the repository: the agent-runs measurement of issue 14
// (bench/agent-runs.mjs, short form) — every tier on real agent sessions beside Anthropic's
// clear_tool_uses and the AI SDK's pruneMessages; and one line of the loop replay of issue 28
// (bench/loop-replay.mjs): the library's pooled bill, call by call, on every run in one format.
// Without the data each says so and skips.
import * as fs from "node:fs";
import { gzipSync } from "node:zlib";
import {
  TIER_COST_WEIGHT,
  compact,
  compactRequestBody,
  estimateTokens,
  recall,
  recordTierEvent,
  restore,
  selectTier,
} from "tiered-compaction";
import { agentRunsReport } from "../bench/agent-runs.mjs";
import { loopReplayLine } from "../bench/loop-replay.mjs";
import { anthropicRequestBody, samples } from "./samples.mjs";

/** One pressure per tier, each a boundary case of the seed's table. */
const PRESSURES = [
  { turnCount: 1, contextPctUsed: 0.3, idleSeconds: 0, sessionComplete: false },
  { turnCount: 2, contextPctUsed: 0.1, idleSeconds: 0, sessionComplete: false },
  { turnCount: 3, contextPctUsed: 0.2, idleSeconds: 400, sessionComplete: false },
  { turnCount: 7, contextPctUsed: 0.85, idleSeconds: 400, sessionComplete: false },
  { turnCount: 9, contextPctUsed: 0.99, idleSeconds: 0, sessionComplete: true },
];

/** A stand-in for a model: short, deterministic, and honest about its (made-up) usage. */
function stubSummariser(request) {
  const firstLine = request.transcript.split("\n").find((line) => line.trim() !== "") ?? "";
  const summary = [`Earlier work (${request.tier}): ${firstLine.slice(0, 120)}`, ...request.mustKeep.map((item) => `- ${item}`)].join("\n");
  return Promise.resolve({
    summary,
    usage: { inputTokens: estimateTokens(request.transcript), outputTokens: estimateTokens(summary), costUsd: 0 },
  });
}

const width = (text, size) => (text.length > size ? `${text.slice(0, size - 1)}…` : text.padEnd(size));
const describePressure = (p) =>
  `turn ${p.turnCount}, ${Math.round(p.contextPctUsed * 100)}% used, idle ${p.idleSeconds} s${p.sessionComplete ? ", complete" : ""}`;

const out = [];
const print = (line = "") => out.push(line);
const traces = [];

const wasm = fs.readFileSync(new URL(import.meta.resolve("tiered-compaction/tiered_compaction_bg.wasm")));
print("tiered-compaction: sample report");
print(`wasm module: ${(wasm.length / 1024).toFixed(1)} KiB (${(gzipSync(wasm).length / 1024).toFixed(1)} KiB gzipped)`);
print(`cost weights: ${Object.entries(TIER_COST_WEIGHT).map(([tier, weight]) => `${tier} ${weight}`).join(", ")}; price 0.003 USD / 1k tokens`);
print();
print("Policy: one tier per pressure (selectTier)");
for (const pressure of PRESSURES) print(`  ${width(describePressure(pressure), 44)} -> ${selectTier(pressure)}`);
print("  Structured contexts run in steps (an assistant message and the results of its calls); the newest 3 steps");
print("  (keepRecentSteps) and the newest user message are the protected tail. Flat text follows the seed's rules.");

/** Every `recall: ID` a stub names in a compacted context. */
const recallIds = (result) => [...JSON.stringify(result.text ?? result.messages).matchAll(/recall: (a[0-9a-f]{12})/g)].map((match) => match[1]);
const sameInput = (restored, input) => (typeof restored === "string" ? restored === input : JSON.stringify(restored) === JSON.stringify(input));
let exampleStub = null;

for (const { name, ...input } of samples()) {
  const size = input.text !== undefined ? `${input.text.length} chars` : `${input.messages.length} messages`;
  print();
  print(`Sample: ${name} (${size})`);
  print(`  ${width("tier", 15)} ${width("before -> after", 17)} ${width("saved", 6)} ${width("cost (USD)", 11)} why`);
  const lossless = [];
  let named = 0;
  let recalled = 0;
  for (const pressure of PRESSURES) {
    const ctx = { sessionId: `sample-${name.split(" ")[0].toLowerCase()}`, pressure, ...input };
    const result = await compact(ctx, { summarise: stubSummariser });
    if (sameInput(restore(result), input.text ?? input.messages)) lossless.push(result.tier);
    for (const id of recallIds(result)) {
      named += 1;
      if (recall(result.archive, id) !== undefined) recalled += 1;
    }
    if (exampleStub === null && result.tier === "micro" && result.messages) {
      const stub = result.messages.find((message) => typeof message.content === "string" && /recall: a[0-9a-f]{12}\]$/.test(message.content));
      if (stub) exampleStub = { sample: name, text: stub.content, entry: recall(result.archive, recallIds({ text: stub.content })[0]) };
    }
    const tokens = `${result.beforeTokens} -> ${result.afterTokens}`;
    const flags = [result.degraded ? "degraded" : "", result.summariserUsage ? `summariser used ${result.summariserUsage.inputTokens} in / ${result.summariserUsage.outputTokens} out` : ""]
      .filter(Boolean)
      .join(", ");
    print(
      `  ${width(result.tier, 15)} ${width(tokens, 17)} ${width(String(result.tokensSaved), 6)} ${width(result.costEstimate.toFixed(7), 11)} ${result.reason}${flags ? ` [${flags}]` : ""}`,
    );
    traces.push(recordTierEvent(result, { sample: name, pressure: describePressure(pressure) }));
  }
  print(`  restore(result) gives the input back: ${lossless.length === PRESSURES.length ? "every tier" : `only ${lossless.join(", ")}`}; stubs name ${named} recall id(s), ${recalled} found by recall()`);
}

if (exampleStub) {
  print();
  print(`One of micro's stubs (${exampleStub.sample}): head, the lines that matter, the last line, paths, the recall id`);
  for (const line of exampleStub.text.split("\n")) print(`  | ${line}`);
  print(`  recall(archive, "${exampleStub.entry.id}") -> the ${exampleStub.entry.kind} at ${exampleStub.entry.location}, ${[...exampleStub.entry.content].length} chars, whole`);
}

print();
print("Edge proxy: an Anthropic request body through compactRequestBody");
const body = anthropicRequestBody();
const { body: compacted, result } = await compactRequestBody(body, { sessionId: "edge", pressure: PRESSURES[3] });
print(`  ${body.length} -> ${compacted.length} bytes; ${result.tier}: ${result.beforeTokens} -> ${result.afterTokens} tokens; ${result.reason}`);
print(`  fields other than messages unchanged: ${["model", "max_tokens", "system", "metadata", "stream"].every((key) => JSON.stringify(JSON.parse(compacted)[key]) === JSON.stringify(JSON.parse(body)[key]))}`);
print(`  restore({ body, archive }) gives the request back (the same JSON): ${JSON.stringify(JSON.parse(restore({ body: compacted, archive: result.archive }))) === JSON.stringify(JSON.parse(body))}`);
traces.push(recordTierEvent(result, { sample: "anthropic request body" }));

print();
print(`Trace (${traces.length} JSONL lines, one per compaction):`);
for (const line of traces) print(line);

print();
print("Agent runs: every tier on real agent sessions, beside clear_tool_uses and pruneMessages (issue 14)");
const agentRuns = await agentRunsReport({ write: false });
if (agentRuns.skipped) print(`  skipped: ${agentRuns.skipped}`);
else for (const line of agentRuns.brief.split("\n")) print(`  ${line}`);

print();
print(await loopReplayLine());
console.log(out.join("\n"));

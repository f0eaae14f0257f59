// One script for every JS runtime (Node, Deno, Bun): imports the installed package by name, with
// no init step, and exercises the API end to end. Uses no runtime-specific module, only the
// package and the sample generator next to it. Prints one JSON line; exits non-zero on failure.
import {
  TIER_COST_WEIGHT,
  compact,
  compactRequestBody,
  compactWithTier,
  estimateTokens,
  recall,
  recallToolDefinition,
  recordTierEvent,
  restore,
  runLegacyCompaction,
  selectTier,
} from "tiered-compaction";
import { anthropicRequestBody, openaiMessages } from "./samples.mjs";

const runtime = globalThis.Deno ? `deno ${Deno.version.deno}` : globalThis.Bun ? `bun ${Bun.version}` : `node ${globalThis.process?.versions?.node}`;
const check = (condition, what) => {
  if (!condition) throw new Error(`${runtime}: ${what}`);
};

const pressure = { turnCount: 9, contextPctUsed: 0.9, idleSeconds: 0, sessionComplete: false };
check(selectTier(pressure) === "auto", "selectTier");
check(estimateTokens("```tool_result name=bash\n" + "C".repeat(900) + "\n```") === 232, "estimateTokens");
check(Object.isFrozen(TIER_COST_WEIGHT) && TIER_COST_WEIGHT.micro === 0.05, "TIER_COST_WEIGHT");

const messages = openaiMessages();
const summarise = async (request) => {
  await new Promise((resolve) => setTimeout(resolve, 5));
  return { summary: `Summary of ${request.messages.length} messages.`, usage: { inputTokens: 100, outputTokens: 7 } };
};
// A low autoTargetPct: the budget must take auto past micro's stubs to the summariser.
const policy = { autoTargetPct: 0.05 };
const auto = await compact({ sessionId: "smoke", pressure, messages }, { summarise, policy });
check(auto.tier === "auto" && auto.afterTokens < auto.beforeTokens && auto.summariserUsage?.outputTokens === 7, "compact with summariser");
const hung = await compact({ sessionId: "smoke", pressure, messages }, { summarise: () => new Promise(() => {}), timeoutMs: 20, policy });
check(hung.degraded === true, "summariser timeout falls back");
const micro = await compactWithTier("micro", { sessionId: "smoke", pressure, messages });
check(micro.tier === "micro" && micro.archive.length > 0, "compactWithTier");
// restore gives the input back; the id a stub names is recalled; the tool has its format's shape.
check(JSON.stringify(restore(micro)) === JSON.stringify(messages), "restore(messages)");
check(JSON.stringify(restore(auto)) === JSON.stringify(messages), "restore after auto's plans");
const named = /recall: (a[0-9a-f]{12})/.exec(JSON.stringify(micro.messages))?.[1];
const recalled = recall([auto.archive, micro.archive], named ?? "");
check(recalled !== undefined && messages.some((message) => message.content === recalled.content), "recall by the id a stub names");
check(recallToolDefinition("openai").function.name === "recall_archived" && recallToolDefinition("anthropic").input_schema.required[0] === "id", "recallToolDefinition");
const legacy = await runLegacyCompaction("smoke", "[age:9] old\n\n[age:0] new");
check(legacy.tier === "auto", "runLegacyCompaction");
const body = anthropicRequestBody();
const proxied = await compactRequestBody(body, { sessionId: "smoke", pressure });
check(JSON.parse(proxied.body).model === JSON.parse(body).model && proxied.body.length < body.length, "compactRequestBody");
check(JSON.stringify(JSON.parse(restore({ body: proxied.body, archive: proxied.result.archive }))) === JSON.stringify(JSON.parse(body)), "restore(body)");
const line = JSON.parse(recordTierEvent(auto, { runtime }));
check(line.type === "compact" && line.compaction_tier === "auto", "recordTierEvent");
try {
  selectTier({ ...pressure, contextPctUsed: Number.NaN });
  check(false, "NaN accepted");
} catch (error) {
  check(error instanceof RangeError && error.code === "ERR_TC_OUT_OF_RANGE", "errors are RangeErrors");
}

console.log(JSON.stringify({ runtime, ok: true, auto: `${auto.beforeTokens} -> ${auto.afterTokens}`, body: `${body.length} -> ${proxied.body.length} bytes` }));

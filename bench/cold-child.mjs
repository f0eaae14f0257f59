// The first calls of a fresh process, where an agent that compacts once per turn mostly lives:
//   node cold-child.mjs CONTENDER SIZE
// CONTENDER: "micro" (ours, OpenAI objects), "body" (ours, OpenAI request body, micro pressure),
// "trimMessages" (LangChain, on the same conversation), "pruneMessages" (AI SDK messages).
// The workload is bench/generate.mjs's, seeded as in run.mjs, built before anything is timed.
// Prints { load, first, next } in ms: importing the library (for ours: compiling and
// instantiating the wasm module), the first call, and the median of calls 2 to 10.
import * as gen from "./generate.mjs";
import { median } from "./lib.mjs";
import { PRUNE_TOOL_CALLS, lcTokens, trimOptions } from "./peers.mjs";

const [contender, sizeArg] = process.argv.slice(2);
const size = Number(sizeArg);
const SEED = 42;
const { events, turns } = gen.conversation(SEED + size, size);
const pressure = { turnCount: turns, contextPctUsed: 0.5, idleSeconds: 0, sessionComplete: false };
const openaiBody = JSON.stringify({ model: "gpt-4o", temperature: 0.2, stream: true, messages: gen.toOpenAI(events) });
const openai = JSON.parse(openaiBody).messages;
const aiSdk = JSON.parse(JSON.stringify({ messages: gen.toAiSdk(events) })).messages;

let started = performance.now();
let call;
switch (contender) {
  case "micro": {
    const tc = await import("tiered-compaction");
    call = () => tc.compactWithTier("micro", { sessionId: "cold", pressure, messages: openai });
    break;
  }
  case "body": {
    const tc = await import("tiered-compaction");
    call = () => tc.compactRequestBody(openaiBody, { sessionId: "cold", pressure });
    break;
  }
  case "trimMessages": {
    const lc = await import("@langchain/core/messages");
    const load = performance.now() - started;
    // Building LangChain's message objects is the host's business, outside the timing.
    const messages = gen.toLangChain(events, lc);
    const budget = Math.round(lcTokens(messages) / 2);
    started = performance.now() - load;
    call = () => lc.trimMessages(messages, trimOptions(budget));
    break;
  }
  case "pruneMessages": {
    const { pruneMessages } = await import("ai");
    call = () => pruneMessages({ messages: aiSdk, toolCalls: PRUNE_TOOL_CALLS });
    break;
  }
  default:
    throw new Error(`unknown contender ${contender}`);
}
const load = performance.now() - started;
const times = [];
for (let i = 0; i < 10; i++) {
  const t0 = performance.now();
  await call();
  times.push(performance.now() - t0);
}
console.log(JSON.stringify({ load, first: times[0], next: median(times.slice(1)) }));

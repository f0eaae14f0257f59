// An agent loop in which the model asks for a pruned tool result again.
//
// Each turn the host compacts the conversation (micro: tool results outside the newest three
// steps become stubs that name their archive id), stores the archive, and sends the messages to
// the model with one extra tool, `recall_archived`, from `recallToolDefinition("openai")`. When the
// model calls it, the host answers from the archives it stored, with `recall(archives, id)`.
//
// The "model" here is a script (no network): it runs `cargo test` a few times, then wants the
// first test log back, finds its stub, and recalls it by id. Run: `node examples/recall-loop.mjs`
// after `npm run build` (it checks what it shows and exits non-zero if something is off).
import assert from "node:assert/strict";
import { compact, recall, recallToolDefinition } from "tiered-compaction";

const tools = [
  { type: "function", function: { name: "bash", description: "Run a shell command.", parameters: { type: "object", properties: { cmd: { type: "string" } } } } },
  recallToolDefinition("openai"),
];

/** What running a command gives: a long log with one failing line. */
function bash(cmd, step) {
  const lines = Array.from({ length: 60 }, (_, i) => `test parser::case_${i} ... ok`);
  lines.splice(17, 0, `error[E0308]: mismatched types in src/parser.rs:${40 + step}:9`);
  return `$ ${cmd}\n${lines.join("\n")}\ntest result: FAILED. 60 passed; 1 failed`;
}

/** The scripted model: five test runs, then it asks for the first log back, then it answers. */
function model(messages, toolList) {
  assert.ok(toolList.some((tool) => tool.function.name === "recall_archived"));
  const calls = messages.filter((m) => m.role === "assistant" && m.tool_calls).length;
  if (calls < 5) {
    return { role: "assistant", content: null, tool_calls: [{ id: `call_${calls}`, type: "function", function: { name: "bash", arguments: JSON.stringify({ cmd: "cargo test" }) } }] };
  }
  const recalled = messages.some((m) => m.role === "tool" && m.tool_call_id === "recall_1");
  if (!recalled) {
    // The first log is a stub now: read its id and ask for the whole log.
    const stub = messages.find((m) => m.role === "tool" && m.tool_call_id === "call_0").content;
    const id = stub.match(/recall: (a[0-9a-f]{12})\]/)[1];
    return { role: "assistant", content: null, tool_calls: [{ id: "recall_1", type: "function", function: { name: "recall_archived", arguments: JSON.stringify({ id }) } }] };
  }
  return { role: "assistant", content: "The first run failed at src/parser.rs:40: a type mismatch." };
}

const archives = [];
let messages = [
  { role: "system", content: "You are a coding agent." },
  { role: "user", content: "Why does the parser test fail?" },
];
for (let step = 1; step <= 8; step += 1) {
  const result = await compact({
    sessionId: "recall-demo",
    pressure: { turnCount: step, contextPctUsed: 0.4, idleSeconds: 2, sessionComplete: false },
    messages,
  });
  archives.push(result.archive);
  messages = result.messages;
  const reply = model(messages, tools);
  messages = [...messages, reply];
  const call = reply.tool_calls?.[0];
  if (!call) break;
  const input = JSON.parse(call.function.arguments);
  let content;
  if (call.function.name === "recall_archived") {
    const entry = recall(archives, input.id);
    content = entry === undefined ? `No archived content has the id ${input.id}.` : typeof entry.content === "string" ? entry.content : JSON.stringify(entry.content);
    console.log(`step ${step}: the model recalled ${input.id} (${entry?.kind}, ${content.length} chars, from ${entry?.location})`);
  } else {
    content = bash(input.cmd, step);
    console.log(`step ${step}: ${input.cmd}, ${result.reason}`);
  }
  messages = [...messages, { role: "tool", tool_call_id: call.id, content }];
}

// The model got the first log back whole, and answered from it.
const answer = messages.find((m) => m.role === "tool" && m.tool_call_id === "recall_1");
assert.equal(answer.content, bash("cargo test", 1));
assert.match(messages.at(-1).content, /src\/parser\.rs:40/);
console.log(`final answer: ${messages.at(-1).content}`);

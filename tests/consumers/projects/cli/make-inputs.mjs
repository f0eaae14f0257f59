// Writes the command line's inputs: a Claude Code session (JSONL, as Claude Code writes one: a
// line per content block, sidechain lines, a summary line), the same run as an OpenAI request
// body and as AI SDK messages, and a session of over 1 MB (progress on standard error).
import * as fs from "node:fs";

const log = (step) =>
  `$ npm test\n${"ok - passes\n".repeat(120)}FAIL src/routes/users.test.ts (run ${step})\n  Error: connection leaked at src/db/pool.ts:88\n${"ok - passes\n".repeat(100)}`;

function claudeCode(steps) {
  const lines = [{ type: "summary", summary: "Fixing a test", leafUuid: "x" }];
  let uuid = 0;
  const line = (type, message, extra = {}) => lines.push({ parentUuid: uuid === 0 ? null : `u${uuid}`, isSidechain: false, type, message, uuid: `u${++uuid}`, timestamp: "2025-10-03T23:51:51.369Z", ...extra });
  line("user", { role: "user", content: "Fix the failing test in src/routes/users.test.ts, and keep the pool size at 8." });
  for (let step = 1; step <= steps; step += 1) {
    line("assistant", { id: `msg_${step}`, role: "assistant", content: [{ type: "text", text: `Running the tests (${step}).` }] });
    line("assistant", { id: `msg_${step}`, role: "assistant", content: [{ type: "tool_use", id: `toolu_${step}`, name: "Bash", input: { command: "npm test" } }] });
    line("user", { role: "user", content: [{ type: "tool_result", tool_use_id: `toolu_${step}`, content: log(step) }] }, { toolUseResult: { stdout: log(step) } });
    lines.push({ isSidechain: true, type: "user", message: { role: "user", content: "a sub-agent's prompt" }, uuid: `s${step}` });
  }
  line("assistant", { id: "msg_end", role: "assistant", content: [{ type: "text", text: "The pool leaked a connection in src/db/pool.ts; fixed." }] });
  return `${lines.map((entry) => JSON.stringify(entry)).join("\n")}\n`;
}

function openAiBody(steps) {
  const messages = [{ role: "system", content: "You are a coding agent." }, { role: "user", content: "Fix the failing test in src/routes/users.test.ts." }];
  for (let step = 1; step <= steps; step += 1) {
    messages.push({ role: "assistant", content: null, tool_calls: [{ id: `call_${step}`, type: "function", function: { name: "bash", arguments: '{"command":"npm test"}' } }] });
    messages.push({ role: "tool", tool_call_id: `call_${step}`, content: log(step) });
  }
  messages.push({ role: "assistant", content: "Fixed." });
  return JSON.stringify({ model: "gpt-5", temperature: 0.2, messages, stream: false }, null, 1);
}

function aiSdk(steps) {
  const messages = [{ role: "user", content: "Fix the failing test." }];
  for (let step = 1; step <= steps; step += 1) {
    messages.push({ role: "assistant", content: [{ type: "tool-call", toolCallId: `c${step}`, toolName: "bash", input: { command: "npm test" } }] });
    messages.push({ role: "tool", content: [{ type: "tool-result", toolCallId: `c${step}`, toolName: "bash", output: { type: "text", value: log(step) } }] });
  }
  return JSON.stringify(messages);
}

fs.writeFileSync("session.jsonl", claudeCode(8));
fs.writeFileSync("body.json", openAiBody(8));
fs.writeFileSync("messages.json", aiSdk(8));
fs.writeFileSync("large.jsonl", claudeCode(600));

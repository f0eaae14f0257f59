// The real-session conversions of bench/sessions.mjs (used by bench/agent-runs.mjs, issue 14):
// every session of ../shared/realdata, in every format, keeps its provider's rules and is taken
// by the library as valid input (tier none: detected, unchanged, nothing archived, no warning).
// Skipped when ../shared/realdata is not beside the repository (a plain clone has no such folder).
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { compactWithTier } from "./unbatched.mjs";
import {
  FORMATS,
  checkAiSdk,
  checkAnthropic,
  checkFormat,
  checkOpenAI,
  fromClaudeCode,
  fromSweAgent,
  loadSessions,
  toAiSdk,
  toAnthropic,
  toOpenAI,
  withReusedIds,
} from "../../bench/sessions.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
const dir = path.join(root, "..", "shared", "realdata");
const skip = fs.existsSync(dir) ? false : `no real sessions: ${dir} is absent`;
const sessions = skip ? [] : loadSessions(dir);

test("the real set converts: 8 sessions, each in 3 formats, every one valid by its provider's rules", { skip }, () => {
  assert.equal(sessions.length, 8);
  assert.deepEqual(
    sessions.map((s) => s.source).sort(),
    ["Claude Code", "Claude Code", "Claude Code", "OpenAI body", "OpenHands", "OpenHands", "OpenHands", "SWE-agent"],
  );
  for (const session of sessions) {
    for (const format of FORMATS) {
      assert.deepEqual(checkFormat(format, session.formats[format].messages), [], `${session.id} / ${format}`);
    }
  }
});

test("every tool call of every converted session has its result (and nothing else is a result)", { skip }, () => {
  for (const session of sessions) {
    const calls = session.neutral.messages.flatMap((m) => (m.role === "assistant" ? m.parts.filter((p) => p.type === "tool_call").map((p) => p.id) : []));
    const results = session.neutral.messages.filter((m) => m.role === "tool").map((m) => m.id);
    assert.deepEqual([...results].sort(), [...calls].sort(), session.id);
    assert.ok(calls.length > 0, `${session.id} has tool calls`);
  }
});

test("the library takes every converted session as valid input: tier none detects it and changes nothing", { skip }, async () => {
  for (const session of sessions) {
    for (const format of FORMATS) {
      const { messages } = session.formats[format];
      const result = await compactWithTier("none", {
        sessionId: "conversions",
        pressure: { turnCount: 1, contextPctUsed: 0.5, idleSeconds: 0, sessionComplete: false },
        messages,
      });
      const at = `${session.id} / ${format}`;
      assert.equal(result.format, format, at);
      assert.equal(result.archive.length, 0, `${at}: archive`);
      assert.equal(result.warnings, undefined, `${at}: warnings`);
      assert.equal(result.messages.length, messages.length, at);
      result.messages.forEach((m, i) => assert.equal(m, messages[i], `${at}: messages[${i}] is the input's object`));
    }
  }
});

test("reused call ids (call_0 in every step, OpenAI and AI SDK) are valid input: checked, and tier none changes nothing", { skip }, async () => {
  const body = sessions.find((s) => s.source === "OpenAI body");
  for (const format of ["openai", "ai-sdk"]) {
    const messages = withReusedIds(format, body.formats[format].messages);
    assert.deepEqual(checkFormat(format, messages), [], format);
    const ids = new Set(messages.flatMap((m) => (format === "openai" ? (m.tool_calls ?? []).map((c) => c.id) : Array.isArray(m.content) ? m.content.filter((p) => p.type === "tool-call").map((p) => p.toolCallId) : [])));
    assert.deepEqual([...ids], ["call_0"], format);
    const result = await compactWithTier("none", { sessionId: "ids", pressure: { turnCount: 1, contextPctUsed: 0.5, idleSeconds: 0, sessionComplete: false }, messages, format });
    assert.equal(result.archive.length, 0, format);
    assert.equal(result.warnings, undefined, format);
  }
});

test("the OpenAI body is exactly the OpenHands record it was made from, converted by the same rules", { skip }, () => {
  const body = sessions.find((s) => s.source === "OpenAI body");
  assert.match(body.duplicateOf ?? "", /ponyc-4588$/);
});

test("Claude Code: main thread only, sidechain-only files whole, same-role neighbours merged, trailing unanswered call dropped", () => {
  const line = (fields) => JSON.stringify({ type: fields.role, isSidechain: false, ...fields, message: { role: fields.role, content: fields.content } });
  const jsonl = [
    line({ role: "user", content: "Fix it." }),
    line({ role: "assistant", content: [{ type: "text", text: "Looking." }] }),
    line({ role: "assistant", content: [{ type: "tool_use", id: "t1", name: "Read", input: { file_path: "/a.ts" } }] }),
    line({ role: "user", isSidechain: true, content: "sub-agent prompt" }),
    line({ role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: "x" }] }),
    line({ role: "assistant", content: [{ type: "text", text: "Done, one more look." }, { type: "tool_use", id: "t2", name: "Bash", input: { command: "ls" } }] }),
  ].join("\n");
  const session = fromClaudeCode(jsonl, { id: "cc" });
  const anthropic = toAnthropic(session).messages;
  assert.deepEqual(anthropic, [
    { role: "user", content: "Fix it." },
    { role: "assistant", content: [{ type: "text", text: "Looking." }, { type: "tool_use", id: "t1", name: "Read", input: { file_path: "/a.ts" } }] },
    { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: "x" }] },
    { role: "assistant", content: [{ type: "text", text: "Done, one more look." }] },
  ]);
  assert.deepEqual(checkAnthropic(anthropic), []);
  assert.deepEqual(toOpenAI(session), [
    { role: "user", content: "Fix it." },
    { role: "assistant", content: "Looking.", tool_calls: [{ id: "t1", type: "function", function: { name: "Read", arguments: '{"file_path":"/a.ts"}' } }] },
    { role: "tool", tool_call_id: "t1", content: "x" },
    { role: "assistant", content: "Done, one more look." },
  ]);
  assert.deepEqual(toAiSdk(session)[2], { role: "tool", content: [{ type: "tool-result", toolCallId: "t1", toolName: "Read", output: { type: "text", value: "x" } }] });
  // A file of sidechain lines only (a sub-agent's own file) is taken whole.
  const subFile = [
    line({ role: "user", isSidechain: true, content: "Research plan mode." }),
    line({ role: "assistant", isSidechain: true, content: [{ type: "text", text: "Found it." }] }),
  ].join("\n");
  const sub = fromClaudeCode(subFile, { id: "sub" });
  assert.equal(sub.id, "sub (sub-agent)");
  assert.deepEqual(toAnthropic(sub).messages, [
    { role: "user", content: "Research plan mode." },
    { role: "assistant", content: [{ type: "text", text: "Found it." }] },
  ]);
});

test("SWE-agent: each step is a bash call and its observation; an empty observation gets SWE-agent's own text", () => {
  const traj = {
    history: [
      { role: "system", content: "SETTING" },
      { role: "user", content: "demo", is_demo: true },
      { role: "user", content: "the issue" },
      { role: "assistant", content: "x" },
    ],
    trajectory: [
      { thought: "Make it.", action: "create a.py\n", observation: "[File: /r/a.py (1 lines total)]" },
      { thought: "Clean up.", action: "rm a.py\n", observation: "" },
    ],
    info: { exit_status: "submitted" },
  };
  const session = fromSweAgent(JSON.stringify(traj), { id: "swe" });
  const openai = toOpenAI(session);
  assert.deepEqual(checkOpenAI(openai), []);
  assert.deepEqual(openai.map((m) => m.role), ["system", "user", "assistant", "tool", "assistant", "tool"]);
  assert.deepEqual(openai[1].content, [{ type: "text", text: "demo" }, { type: "text", text: "the issue" }]);
  assert.equal(openai[5].content, "Your command ran successfully and did not produce any output.");
  assert.deepEqual(checkAiSdk(toAiSdk(session)), []);
  assert.deepEqual(checkAnthropic(toAnthropic(session).messages), []);
});

test("the checkers catch what providers reject", () => {
  assert.match(checkAnthropic([{ role: "assistant", content: "hi" }])[0], /first message/);
  assert.match(checkAnthropic([{ role: "user", content: "a" }, { role: "user", content: "b" }])[0], /in a row/);
  assert.match(
    checkAnthropic([{ role: "user", content: "a" }, { role: "assistant", content: [{ type: "tool_use", id: "t", name: "n", input: {} }] }, { role: "user", content: "b" }])[0],
    /no tool_result/,
  );
  assert.match(checkOpenAI([{ role: "assistant", content: null, tool_calls: [{ id: "c", type: "function", function: { name: "n", arguments: "{}" } }] }, { role: "user", content: "b" }])[0], /no result/);
  assert.match(checkOpenAI([{ role: "tool", tool_call_id: "c", content: "x" }])[0], /answers no pending call/);
  // Positional pairing: the same id reused across steps is fine in OpenAI.
  const step = [{ role: "assistant", content: null, tool_calls: [{ id: "call_0", type: "function", function: { name: "n", arguments: "{}" } }] }, { role: "tool", tool_call_id: "call_0", content: "x" }];
  assert.deepEqual(checkOpenAI([{ role: "user", content: "go" }, ...step, ...step]), []);
  assert.match(checkAiSdk([{ role: "assistant", content: [{ type: "tool-call", toolCallId: "c", toolName: "n", input: {} }] }])[0], /no result/);
});

test("target 3's bound: 8 picks per body, head and last line free, shared lines matched to one body", async () => {
  const { stubBound, STUB_LINES, STUB_HEAD_CHARS } = await import("../../bench/agent-runs.mjs");
  const head = "x".repeat(STUB_HEAD_CHARS);
  const errors = (from, n) => Array.from({ length: n }, (_, i) => `error: case ${from + i} broke`);
  // One body of 12 distinct error lines, none in the head, a plain last line: 8 can be kept.
  assert.deepEqual(stubBound([[head, ...errors(0, 12), "done"].join("\n")], ""), { kept: STUB_LINES, of: 12 });
  // The last line and a line in the head are kept without a pick; a line elsewhere in the output too.
  const body = ["error: in the head", head, ...errors(0, 10), "error: the last line"].join("\n");
  assert.deepEqual(stubBound([body], "error: case 9 broke"), { kept: 2 + 1 + STUB_LINES, of: 12 });
  // Two bodies share 10 lines: together they can keep all 10 (8 picked by one, 2 by the other).
  const shared = [head, ...errors(0, 10), "done"].join("\n");
  assert.deepEqual(stubBound([shared, shared], ""), { kept: 10, of: 10 });
  // A line inside another error line is kept with it.
  assert.deepEqual(stubBound([[head, "error: a", "error: a and error: b", "done"].join("\n")], "").of, 2);
});

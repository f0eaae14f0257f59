// Repair of broken input through the built package (docs/design.md, "Invariants", 1): in every
// tier, none included, what breaks the provider's rules leaves the context into the archive (kind
// "repair"), each repair is one warning line, and restore gives the input back.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { compactRequestBody, compactWithTier, restore } from "./unbatched.mjs";
import { pressure } from "./helpers.mjs";

const ORPHAN_WARNING =
  'repair: removed the tool result at messages[2] (id "call_9"): no call with its id comes before it';

/** An OpenAI conversation with a `tool` message whose call is not there. */
function orphanConversation() {
  return [
    { role: "system", content: "You are a coding agent." },
    { role: "user", content: "Fix the failing test." },
    { role: "tool", tool_call_id: "call_9", content: "FAIL test/users.test.ts" },
    { role: "assistant", content: "Which test fails?" },
  ];
}

describe("repair of broken input", () => {
  it("removes an OpenAI orphan tool message in tier none, names it, and restores it", async () => {
    const messages = orphanConversation();
    const ctx = { sessionId: "repair", pressure: pressure(1, 0), messages };
    const result = await compactWithTier("none", ctx);
    assert.equal(result.tier, "none");
    assert.deepEqual(result.messages, [messages[0], messages[1], messages[3]]);
    // Untouched messages are the caller's own objects.
    assert.equal(result.messages[0], messages[0]);
    assert.equal(result.messages[2], messages[3]);
    assert.equal(result.archive.length, 1);
    const [entry] = result.archive;
    assert.equal(entry.kind, "repair");
    assert.equal(entry.location, "messages[2]");
    assert.equal(entry.replacement, "");
    assert.deepEqual(entry.content, [messages[2]]);
    assert.match(entry.id, /^a[0-9a-f]{12}$/);
    assert.deepEqual(result.warnings, [ORPHAN_WARNING]);
    assert.equal(result.costEstimate, 0);
    assert.deepEqual(restore(result), messages);
    // The repaired output needs no repair again.
    const again = await compactWithTier("none", { ...ctx, messages: result.messages });
    assert.deepEqual(again.archive, []);
    assert.equal(again.warnings, undefined);
  });

  it("repairs in every tier, restoring the input from the result", async () => {
    const messages = orphanConversation();
    for (const tier of ["none", "micro", "time_based", "auto", "session_memory"]) {
      const ctx = { sessionId: "repair", pressure: pressure(4, 0.8), messages };
      const result = await compactWithTier(tier, ctx);
      assert.ok(
        result.archive.some((entry) => entry.kind === "repair"),
        `${tier}: a repair entry`,
      );
      assert.ok(result.warnings.includes(ORPHAN_WARNING), `${tier}: ${result.warnings}`);
      assert.ok(!JSON.stringify(result.messages).includes("call_9"), tier);
      assert.deepEqual(restore(result), messages, `${tier}: restore`);
    }
  });

  it("merges Anthropic messages of one role and restores them apart", async () => {
    const messages = [
      { role: "user", content: "Fix the failing test." },
      { role: "user", content: [{ type: "text", text: "It is in test/users.test.ts." }] },
      { role: "assistant", content: "On it." },
    ];
    const ctx = { sessionId: "repair", pressure: pressure(1, 0), messages, format: "anthropic" };
    const result = await compactWithTier("none", ctx);
    assert.deepEqual(result.messages, [
      {
        role: "user",
        content: [
          { type: "text", text: "Fix the failing test." },
          { type: "text", text: "It is in test/users.test.ts." },
        ],
      },
      messages[2],
    ]);
    assert.equal(result.archive.length, 1);
    assert.equal(result.archive[0].location, "messages[0..2]");
    assert.match(result.warnings[0], /^repair: merged messages\[0\.\.2\] into one user message/);
    assert.deepEqual(restore(result), messages);
  });

  it("merges and removes messages whose strings are long (read by their facts)", async () => {
    const log = `error: failed at src/app.rs:1\n${"log line\n".repeat(300)}`;
    const messages = [
      { role: "user", content: log },
      { role: "user", content: [{ type: "text", text: `and ${log}` }] },
      { role: "assistant", content: [{ type: "tool_use", id: "t1", name: "bash", input: { cmd: log } }] },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "t0", content: log }] },
      { role: "assistant", content: "done" },
    ];
    const ctx = { sessionId: "repair", pressure: pressure(1, 0), messages, format: "anthropic" };
    const result = await compactWithTier("none", ctx);
    assert.deepEqual(result.messages, [
      { role: "user", content: [{ type: "text", text: log }, { type: "text", text: `and ${log}` }] },
      messages[4],
    ]);
    assert.equal(result.warnings.length, 3, result.warnings.join("\n"));
    assert.deepEqual(restore(result), messages);
  });

  it("leaves valid input alone: reused OpenAI ids pair by position", async () => {
    const call = { id: "call_0", type: "function", function: { name: "bash", arguments: "{}" } };
    const messages = [
      { role: "user", content: "go" },
      { role: "assistant", content: null, tool_calls: [call] },
      { role: "tool", tool_call_id: "call_0", content: "one" },
      { role: "assistant", content: null, tool_calls: [call] },
      { role: "tool", tool_call_id: "call_0", content: "two" },
    ];
    const result = await compactWithTier("none", { sessionId: "repair", pressure: pressure(1, 0), messages });
    assert.deepEqual(result.archive, []);
    assert.equal(result.warnings, undefined);
    result.messages.forEach((message, index) => assert.equal(message, messages[index]));
  });

  it("repairs a request body, keeping the bytes outside the message list", async () => {
    const messages = orphanConversation();
    const prefix = '{ "model":"gpt-4.1",  "temperature" : 0.70, "messages": ';
    const suffix = ' , "seed": 1E+0 }';
    const raw = messages.map((message) => JSON.stringify(message, null, 1));
    const body = `${prefix}[ ${raw.join(" ,\n  ")} ]${suffix}`;
    const { body: out, result } = await compactRequestBody(body, {
      sessionId: "edge",
      pressure: pressure(1, 0),
    });
    assert.equal(result.tier, "none");
    assert.deepEqual(result.warnings, [ORPHAN_WARNING]);
    assert.ok(out.startsWith(`${prefix}[`), "bytes before the list");
    assert.ok(out.endsWith(`]${suffix}`), "bytes after the list");
    for (const index of [0, 1, 3]) assert.ok(out.includes(raw[index]), `message ${index} byte for byte`);
    assert.deepEqual(JSON.parse(out).messages, [messages[0], messages[1], messages[3]]);
    const restored = restore({ body: out, archive: result.archive });
    assert.deepEqual(JSON.parse(restored), JSON.parse(body));
  });

  it("repairs a request body whose strings are long (read by their facts)", async () => {
    const messages = orphanConversation();
    messages[1].content = `Fix it. ${"log line\n".repeat(400)}`;
    messages[2].content = `FAIL ${"x".repeat(5000)}`;
    const body = JSON.stringify({ model: "gpt-4.1", messages });
    const { body: out, result } = await compactRequestBody(body, {
      sessionId: "edge",
      pressure: pressure(1, 0),
    });
    assert.deepEqual(result.warnings, [ORPHAN_WARNING]);
    assert.deepEqual(JSON.parse(out).messages, [messages[0], messages[1], messages[3]]);
    assert.deepEqual(result.archive[0].content, [messages[2]]);
    assert.equal(restore({ body: out, archive: result.archive }), body);
  });
});

// Pathological input from JS never traps the instance: a 10,000-level (and 1,000,000-level)
// nested value anywhere a JSON value is read, and a 50 MB string wherever a string is read, are
// refused with a RangeError naming the field. The instance survives every refusal (no trap, no
// re-instantiation) and the next call works.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { anthropicMessages, openaiMessages } from "../../scripts/samples.mjs";

const registry = new Map();
globalThis[Symbol.for("tiered-compaction.testing")] = registry;
const api = await import("tiered-compaction");
const hooks = registry.get("index.mjs");

const pressure = { turnCount: 9, contextPctUsed: 0.9, idleSeconds: 0, sessionComplete: false };
const MB50 = 50 * 1024 * 1024;

/** `levels` nested arrays or objects around a string, built without recursion. */
function nested(levels, kind) {
  let value = "leaf";
  for (let level = 0; level < levels; level += 1) value = kind === "array" ? [value] : { a: value };
  return value;
}

function rangeError(path, problem) {
  return (error) => {
    assert.ok(error instanceof RangeError, `${error?.name}: ${error?.message}`);
    assert.equal(error.code, "ERR_TC_OUT_OF_RANGE");
    assert.ok(error.message.startsWith(path), `"${error.message}" names ${path}`);
    assert.match(error.message, problem);
    return true;
  };
}

const TOO_DEEP = /: (nesting deeper than (64|128) levels|too deeply nested or too large to convert \(Maximum call stack size exceeded\))/;

async function stillHealthy() {
  assert.equal(api.estimateTokens("abcd"), 1);
  const result = await api.compact({ sessionId: "after", pressure, messages: openaiMessages() });
  assert.equal(result.tier, "auto");
  const { traps, instances } = hooks.diagnostics();
  assert.equal(traps, 0, "no trap");
  assert.equal(instances, 1, "never re-instantiated");
}

describe("deeply nested values from JS", () => {
  for (const levels of [100, 200, 10_000, 1_000_000]) {
    for (const kind of ["array", "object"]) {
      it(`${levels.toLocaleString("en")} levels of ${kind}s in a message's content: a RangeError naming the message`, async () => {
        const messages = [...openaiMessages(), { role: "user", content: nested(levels, kind) }];
        const at = `messages[${messages.length - 1}]`;
        // 100 levels: the core's limit (64, maxNestingDepth) with the field inside the message;
        // deeper: refused while crossing into wasm (serde_json's 128 levels, or the host's stack).
        const expected = levels === 100 ? /^messages\[\d+\]\.content: nesting deeper than 64 levels \(maxNestingDepth\)$/ : TOO_DEEP;
        await assert.rejects(api.compact({ sessionId: "deep", pressure, messages }), rangeError(at, expected));
        await assert.rejects(api.compactWithTier("micro", { sessionId: "deep", pressure, messages }), rangeError(at, expected));
        await stillHealthy();
      });
    }
  }

  it("10,000 levels inside an Anthropic tool call's input: a RangeError naming the message", async () => {
    const messages = anthropicMessages();
    const index = messages.findIndex((message) => Array.isArray(message.content) && message.content.some((block) => block.type === "tool_use"));
    const block = messages[index].content.find((item) => item.type === "tool_use");
    block.input = { query: nested(10_000, "object") };
    await assert.rejects(api.compact({ sessionId: "deep", pressure, messages, format: "anthropic" }), rangeError(`messages[${index}]`, TOO_DEEP));
    await stillHealthy();
  });

  it("10,000 levels as recordTierEvent's step, or inside a result's archive: a RangeError naming it", async () => {
    const result = await api.compact({ sessionId: "deep", pressure, messages: openaiMessages() });
    assert.throws(() => api.recordTierEvent(result, { detail: nested(10_000, "object") }), rangeError("step", TOO_DEEP));
    assert.throws(() => api.recordTierEvent(result, { detail: nested(200, "array") }), rangeError("step", /: nesting deeper than 128 levels$/));
    const archive = [{ ...result.archive[0], content: nested(10_000, "array") }];
    assert.throws(() => api.recordTierEvent({ ...result, archive }), rangeError("result.archive[0].content", TOO_DEEP));
    await stillHealthy();
  });

  it("a cyclic value: a TypeError, not a trap", async () => {
    const cyclic = { role: "user", content: "x" };
    cyclic.self = cyclic;
    await assert.rejects(api.compact({ sessionId: "cycle", pressure, messages: [cyclic] }), (error) => {
      assert.ok(error instanceof TypeError);
      assert.match(error.message, /^messages\[0\] is not JSON-compatible: .*circular/i);
      return true;
    });
    await stillHealthy();
  });

  it("undefined before a bad element: the bad element is named (no exception thrown through wasm)", async () => {
    const cyclic = { role: "user", content: "x" };
    cyclic.self = cyclic;
    await assert.rejects(api.compact({ sessionId: "cycle", pressure, messages: [undefined, cyclic] }), (error) => {
      assert.ok(error instanceof TypeError, `${error.name}: ${error.message}`);
      assert.match(error.message, /^messages\[1\] is not JSON-compatible: .*circular/i);
      return true;
    });
    await stillHealthy();
  });
});

describe("50 MB strings from JS", () => {
  const big = "a".repeat(MB50);
  const cases = [
    ["compact, text", () => api.compact({ sessionId: "big", pressure, text: big }), "text", /^text: 52428800 bytes exceeds maxInputBytes 33554432$/],
    ["compactWithTier, text", () => api.compactWithTier("micro", { sessionId: "big", pressure, text: big }), "text", /^text: 52428800 bytes exceeds maxInputBytes 33554432$/],
    ["runLegacyCompaction", () => api.runLegacyCompaction("big", big), "text", /^text: 52428800 bytes exceeds maxInputBytes 33554432$/],
    [
      "compact, a 50 MB tool result inside messages",
      () => api.compact({ sessionId: "big", pressure, messages: [{ role: "user", content: big }] }),
      "messages",
      /^messages: \d+ bytes as JSON exceeds maxInputBytes 33554432$/,
    ],
    [
      "compactRequestBody",
      () => api.compactRequestBody(JSON.stringify({ model: "m", messages: [{ role: "user", content: big }] }), { sessionId: "big", pressure }),
      "body",
      /^body: \d+ bytes exceeds maxInputBytes 33554432$/,
    ],
  ];
  for (const [name, call, field, message] of cases) {
    it(`${name}: a RangeError naming ${field}`, async () => {
      await assert.rejects(call(), rangeError(field, message));
      await stillHealthy();
    });
  }

  // Issue 16: the size is known before anything is copied into wasm memory, which never shrinks.
  const refusals = [
    ...cases.map(([name, call]) => [name, call]),
    ["compactWithTier none, a 50 MB string inside messages", () => api.compactWithTier("none", { sessionId: "big", pressure, messages: [{ role: "user", content: big }] })],
    ["60,000 short messages, 55 MB as JSON", () => api.compactWithTier("micro", { sessionId: "big", pressure, messages: Array.from({ length: 60_000 }, () => ({ role: "user", content: "y".repeat(900) })) })],
    ["a 30 MB image (40 MB as base64)", () => api.compactWithTier("micro", { sessionId: "big", pressure, messages: [{ role: "user", content: [{ type: "image", image: new Uint8Array(30 * 1024 * 1024) }] }] })],
  ];
  it("a refused input leaves the instance's memory where it was", async () => {
    await stillHealthy();
    for (const [name, call] of refusals) {
      const before = hooks.diagnostics().memoryBytes;
      await assert.rejects(call(), RangeError, name);
      assert.equal(hooks.diagnostics().memoryBytes, before, `${name}: wasm memory grew`);
    }
  });

  it("a 50 MB string within a raised maxInputBytes is compacted, and estimateTokens counts it", async () => {
    assert.equal(api.estimateTokens(big), MB50 / 4);
    const result = await api.compactWithTier("micro", { sessionId: "big", pressure, text: big }, { policy: { maxInputBytes: 64 * 1024 * 1024 } });
    assert.equal(result.text.length, MB50);
    await stillHealthy();
  });
});

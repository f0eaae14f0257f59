// The delegated summariser (docs/design.md, "The tiers": digests and summaries): every way it can misbehave falls back to the structural
// digest, marks the result degraded with the cause, and loses nothing.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { compact as compactAuto } from "./unbatched.mjs";
import { flatText, openaiMessages } from "../../scripts/samples.mjs";
import { assertCamelCase, pressure } from "./helpers.mjs";
import { assertNothingLost } from "./lossless.mjs";

const DIGEST = /\[digest of earlier (tool runs|conversation)\]/;
// auto works to policy.autoTargetPct (default 0.5): on these samples micro's stubs alone get there
// (0.9 -> 0.14), so no summary is needed. A target of 0.1 makes auto summarise their older runs.
const POLICY = { autoTargetPct: 0.1 };
const compact = (ctx, options = {}) => compactAuto(ctx, { policy: POLICY, ...options });
const contexts = [
  ["flat text", { sessionId: "sum", pressure: pressure(9, 0.9), text: flatText() }],
  ["OpenAI messages", { sessionId: "sum", pressure: pressure(9, 0.9), messages: openaiMessages() }],
];

const outputText = (result) => result.text ?? JSON.stringify(result.messages);

/** Runs `summarise` on each context and checks the fallback. */
function fallsBack(summarise, cause, options = {}) {
  for (const [name, ctx] of contexts) {
    it(`on ${name}: degraded, structural digest, warning names "${cause}", nothing lost`, async () => {
      const result = await compact(ctx, { summarise, ...options });
      assert.equal(result.tier, "auto");
      assert.equal(result.degraded, true);
      assert.ok(result.warnings.some((warning) => warning.includes(cause)), JSON.stringify(result.warnings));
      assert.match(outputText(result), DIGEST, "the digest stands in");
      assert.ok(result.afterTokens < result.beforeTokens);
      assert.equal(result.summariserUsage, undefined);
      assertNothingLost(ctx, result);
      assertCamelCase(result, "result");
    });
  }
}

describe("summarise resolving", () => {
  for (const [name, ctx] of contexts) {
    it(`on ${name}: uses the summary, reports usage, not degraded`, async () => {
      const requests = [];
      const result = await compact(ctx, {
        summarise: async (request) => {
          requests.push(request);
          return { summary: "The agent ran the tests and read the pool code.", usage: { inputTokens: 900, outputTokens: 12, costUsd: 0.0021 } };
        },
      });
      assert.equal(requests.length, 1);
      const [request] = requests;
      assert.equal(request.tier, "auto");
      assert.equal(request.sessionId, "sum");
      assert.equal(request.correlationId, result.correlationId);
      assert.equal(typeof request.instructions, "string");
      assert.ok(request.transcript.length > 0);
      assert.ok(Array.isArray(request.messages) && request.messages.length > 0);
      assert.ok(Number.isInteger(request.targetTokens) && request.targetTokens > 0);
      assert.ok(Array.isArray(request.mustKeep));
      assert.ok(request.signal instanceof AbortSignal);
      assert.equal(request.signal.aborted, false);
      assertCamelCase({ ...request, signal: null }, "request");
      assert.equal(result.degraded, undefined);
      assert.equal(result.warnings, undefined);
      assert.deepEqual(result.summariserUsage, { inputTokens: 900, outputTokens: 12, costUsd: 0.0021 });
      assert.ok(outputText(result).includes("The agent ran the tests"));
      assertNothingLost(ctx, result);
    });
  }

  it("accepts a plain string, synchronously returned", async () => {
    const result = await compact(contexts[0][1], { summarise: () => "Tests ran; pool code read." });
    assert.equal(result.degraded, undefined);
    assert.ok(result.text.includes("Tests ran; pool code read."));
  });
});

describe("summarise rejecting", () => {
  fallsBack(() => Promise.reject(new Error("model overloaded")), "summariser rejected: model overloaded");
  it("never uses the error message as the summary", async () => {
    const result = await compact(contexts[0][1], { summarise: () => Promise.reject(new Error("SECRET-ERROR-TEXT")) });
    assert.ok(!result.text.includes("SECRET-ERROR-TEXT"));
  });
});

describe("summarise throwing synchronously", () => {
  fallsBack(() => {
    throw new TypeError("no client configured");
  }, "summariser threw: no client configured");
});

describe("summarise hanging past timeoutMs", () => {
  fallsBack(() => new Promise(() => {}), "summariser timed out after 30 ms", { timeoutMs: 30 });

  it("aborts the request's signal when the time is up", async () => {
    let signal;
    await compact(contexts[0][1], {
      timeoutMs: 20,
      summarise: (request) => {
        signal = request.signal;
        return new Promise(() => {});
      },
    });
    assert.equal(signal.aborted, true);
    assert.equal(signal.reason.name, "TimeoutError");
  });
});

describe("summarise aborted through options.signal", () => {
  const abortingSoon = () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error("user cancelled")), 10);
    return controller.signal;
  };
  for (const [name, ctx] of contexts) {
    it(`on ${name}: degraded with the abort reason, request signal aborted`, async () => {
      let inner;
      const result = await compact(ctx, {
        signal: abortingSoon(),
        summarise: (request) => {
          inner = request.signal;
          return new Promise(() => {});
        },
      });
      assert.equal(result.degraded, true);
      assert.ok(result.warnings.some((warning) => warning.includes("summariser aborted: user cancelled")));
      assert.equal(inner.aborted, true);
      assert.equal(inner.reason.message, "user cancelled");
      assertNothingLost(ctx, result);
    });
  }

  it("an already aborted signal skips the call", async () => {
    let called = false;
    const result = await compact(contexts[0][1], {
      signal: AbortSignal.abort(new Error("gone")),
      summarise: () => {
        called = true;
        return "x";
      },
    });
    assert.equal(called, false);
    assert.equal(result.degraded, true);
  });
});

describe("summarise returning a non-string", () => {
  describe("a number", () => fallsBack(() => 42, "summariser returned number"));
  describe("null", () => fallsBack(async () => null, "summariser returned null"));
  describe("an object without a string summary", () =>
    fallsBack(() => ({ summary: 5 }), "summariser returned an object without a string summary"));
  describe("an empty string", () => fallsBack(() => "", "empty summary"));
});

describe("summarise returning a longer text", () => {
  fallsBack((request) => request.transcript.repeat(2), "is not shorter than what it replaces");
});

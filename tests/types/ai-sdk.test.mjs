// tiered-compaction/ai-sdk in a real generateText tool loop (the AI SDK's own loop, driven offline
// by its MockLanguageModelV4 from ai/test): the pressure comes from the loop's facts, and the
// model receives the compacted messages. Run by tests/types/run.mjs (node --test in this project).
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { generateText, jsonSchema, stepCountIs, tool } from "ai";
import { MockLanguageModelV4 } from "ai/test";
import { prepareStep } from "tiered-compaction/ai-sdk";

const CONTEXT_WINDOW = 40_000;
const STEPS = 8;

/** A test log of 3,000+ characters with an error line and a path in the middle. */
const log = (step) =>
  `$ npm test # step ${step}\n` +
  "ok - a passing test\n".repeat(70) +
  `FAIL test/users.test.ts (step ${step})\n  at handler (src/routes/users.ts:42)\n` +
  "ok - another passing test\n".repeat(60);

/** A model that calls `bash` until its last step, then answers; it reports input tokens as chars / 4. */
function model() {
  let calls = 0;
  return new MockLanguageModelV4({
    doGenerate: async ({ prompt }) => {
      calls += 1;
      const input = Math.ceil(JSON.stringify(prompt).length / 4);
      const usage = {
        inputTokens: { total: input, noCache: input, cacheRead: 0, cacheWrite: 0 },
        outputTokens: { total: 20, text: 20, reasoning: 0 },
      };
      if (calls < STEPS) {
        return {
          content: [{ type: "tool-call", toolCallId: `call-${calls}`, toolName: "bash", input: JSON.stringify({ command: `npm test # ${calls}` }) }],
          finishReason: { unified: "tool-calls", raw: "tool_use" },
          usage,
          warnings: [],
        };
      }
      return { content: [{ type: "text", text: "The users route leaks a connection; fixed." }], finishReason: { unified: "stop", raw: "stop" }, usage, warnings: [] };
    },
  });
}

const bash = tool({
  description: "Runs a shell command",
  inputSchema: jsonSchema({ type: "object", properties: { command: { type: "string" } }, required: ["command"] }),
  execute: async ({ command }) => log(Number(command.split("# ")[1])),
});

describe("tiered-compaction/ai-sdk prepareStep in generateText", () => {
  it("builds the pressure from the loop and sends the model compacted messages", async () => {
    const seen = [];
    // A clock that jumps 400 s (a cold prompt cache) before the last step.
    const times = [0, 2_000, 4_000, 6_000, 8_000, 10_000, 12_000, 412_000];
    let tick = 0;
    const mock = model();
    const result = await generateText({
      model: mock,
      tools: { bash },
      instructions: "You are a coding agent.",
      prompt: "Fix the failing test.",
      stopWhen: stepCountIs(STEPS),
      prepareStep: prepareStep({
        contextWindow: CONTEXT_WINDOW,
        sessionId: "ai-sdk-test",
        // A few short steps, far under a batch: every step stubbed as it leaves the tail.
        compactOptions: { policy: { cache: { batchTokens: 0 } } },
        now: () => times[tick++],
        onCompact: (compacted, step) => seen.push({ step, tier: compacted.tier, before: compacted.beforeTokens, after: compacted.afterTokens, archived: compacted.archive.length }),
      }),
    });

    assert.equal(result.text, "The users route leaks a connection; fixed.");
    assert.equal(result.steps.length, STEPS);
    assert.equal(seen.length, STEPS);
    // The facts: the step number, the last step's input tokens over the window, the time since the last step.
    for (const [index, { step }] of seen.entries()) {
      assert.equal(step.stepNumber, index);
      assert.equal(step.pressure.turnCount, index);
      const previous = index === 0 ? null : result.steps[index - 1].usage.inputTokens;
      if (previous !== null) assert.equal(step.pressure.contextPctUsed, previous / CONTEXT_WINDOW);
      assert.equal(step.pressure.idleSeconds, index === 0 ? 0 : (times[index] - times[index - 1]) / 1000);
      assert.equal(step.pressure.sessionComplete, false);
      // The cache facts of the last step's usage (the mock reports nothing cached: a cold cache).
      if (index > 0) {
        const details = result.steps[index - 1].usage.inputTokenDetails;
        assert.equal(step.pressure.cachedTokens, details.cacheReadTokens + details.cacheWriteTokens);
        assert.equal(step.pressure.contextWindowTokens, CONTEXT_WINDOW);
      } else {
        assert.equal("cachedTokens" in step.pressure, false);
      }
    }
    // Step 0 has nothing to cut; once there are more tool runs than the protected tail's three,
    // micro stubs the oldest results (the SDK carries the returned messages forward, so a stub
    // stays a stub); after the 400 s gap the pressure selects time_based.
    assert.equal(seen[0].tier, "none");
    for (const index of [4, 5, 6]) assert.ok(seen[index].tier === "micro" && seen[index].archived > 0 && seen[index].after < seen[index].before, JSON.stringify(seen[index]));
    assert.ok(seen[7].tier === "time_based" && seen[7].after <= seen[7].before, JSON.stringify(seen[7]));
    // What the model received: stubs with the error line and the path for old steps, the newest steps whole.
    const lastPrompt = JSON.stringify(mock.doGenerateCalls.at(-1).prompt);
    assert.match(lastPrompt, /pruned/);
    assert.match(lastPrompt, /src\/routes\/users\.ts:42/);
    assert.ok(lastPrompt.includes(JSON.stringify(log(STEPS - 1)).slice(1, -1)), "the newest tool result is whole");
    const firstPrompt = JSON.stringify(mock.doGenerateCalls[0].prompt);
    assert.doesNotMatch(firstPrompt, /pruned/);
    const sizes = mock.doGenerateCalls.map((call) => JSON.stringify(call.prompt).length);
    // Seven tool results, less than seven logs: the oldest are stubs.
    assert.ok(sizes.at(-1) < (STEPS - 1) * log(1).length, `the last prompt is compacted: ${sizes.join(", ")}`);
    assert.ok(sizes[6] < sizes[5] + log(1).length / 2, `micro keeps the prompt from growing by a whole log: ${sizes.join(", ")}`);
  });

  it("rejects a missing context window with the field's name", () => {
    assert.throws(() => prepareStep({}), { name: "TypeError", code: "ERR_TC_INVALID_TYPE", path: "options.contextWindow" });
    assert.throws(() => prepareStep({ contextWindow: 0 }), { name: "RangeError", code: "ERR_TC_OUT_OF_RANGE" });
  });

  it("checks its other options as the framework integrations do, naming the field", () => {
    assert.throws(() => prepareStep({ contextWindow: 1000, compactOptions: "fast" }), { name: "TypeError", path: "options.compactOptions" });
    assert.throws(() => prepareStep({ contextWindow: 1000, costPer1kTokens: -1 }), { name: "RangeError", path: "options.costPer1kTokens" });
    assert.throws(() => prepareStep({ contextWindow: 1000, sessionId: 7 }), { name: "TypeError", path: "options.sessionId" });
  });
});

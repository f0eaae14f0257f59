// OpenAI's legacy function calling: a `function` role message (the SDK's
// ChatCompletionFunctionMessageParam) is accepted and passes through every tier untouched.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { compactWithTier, restore } from "./unbatched.mjs";

const messages = [
  { role: "system", content: "You answer with the weather tool." },
  { role: "user", content: "Weather in Paris?" },
  { role: "assistant", content: null, function_call: { name: "weather", arguments: '{"city":"Paris"}' } },
  { role: "function", name: "weather", content: `sunny\n${"hourly: 21 C, light wind\n".repeat(40)}` },
  { role: "assistant", content: "Sunny, 21 C." },
];

describe("a legacy function message", () => {
  for (const tier of ["none", "micro", "time_based", "auto"]) {
    it(`passes through ${tier} as the caller's own object`, async () => {
      const ctx = { sessionId: "s", pressure: { turnCount: 3, contextPctUsed: 0.8, idleSeconds: 400, sessionComplete: false }, messages };
      const result = await compactWithTier(tier, ctx, { policy: { keepRecentSteps: 1 } });
      assert.equal(result.format, "openai");
      const function_ = result.messages.find((message) => message.role === "function");
      if (function_ !== undefined) assert.equal(function_, messages[3]);
      assert.deepEqual(restore(result), messages);
    });
  }
});

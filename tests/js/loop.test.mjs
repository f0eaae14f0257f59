// In the loop (SPEC §11, §4 invariant 3), through the package with its defaults: a run replayed
// call by call as a stateless host that passes `result.state` back, in each format. Stubs keep
// their bytes from call to call, so each request repeats the previous one's messages up to the
// first change a batch brings; a state for other messages is ignored with a warning.
import assert from "node:assert/strict";
import { isDeepStrictEqual } from "node:util";
import { describe, it } from "node:test";
import { compact } from "tiered-compaction";
import { agentRun, pressure } from "./helpers.mjs";

const STEPS = 60;

/** The request of model call k: every message before the k-th assistant message. */
function request(messages, k) {
  let seen = 0;
  const end = messages.findIndex((message) => message.role === "assistant" && ++seen === k);
  return messages.slice(0, end === -1 ? messages.length : end);
}

const shared = (a, b) => {
  let n = 0;
  while (n < a.length && n < b.length && isDeepStrictEqual(a[n], b[n])) n += 1;
  return n;
};

for (const format of ["openai", "anthropic", "ai-sdk"]) {
  describe(`a stateless loop, ${format}`, () => {
    it("changes the prefix only when a batch closes, and keeps every stub's bytes", async () => {
      const messages = agentRun(format, STEPS);
      let state;
      let previous;
      let rewrites = 0;
      let saved = 0;
      for (let k = 2; k <= STEPS; k += 1) {
        const ctx = { sessionId: `loop-${format}`, pressure: pressure(k, 0.3, 5), messages: request(messages, k), state };
        const result = await compact(ctx);
        assert.equal(result.warnings, undefined, JSON.stringify(result.warnings));
        assert.equal(typeof result.state, "object");
        state = JSON.parse(JSON.stringify(result.state)); // as a host stores it
        if (previous && shared(previous.messages, result.messages) < previous.messages.length) {
          rewrites += 1;
          assert.ok(result.tokensSaved > previous.tokensSaved, `call ${k}: a rewrite that saved nothing more`);
        }
        saved = result.tokensSaved;
        previous = result;
      }
      assert.ok(saved > 0, "micro stubbed something");
      assert.ok(rewrites >= 1 && rewrites <= STEPS / 6, `${rewrites} rewrites in ${STEPS} calls`);
    });
  });
}

describe("the loop's state", () => {
  it("is ignored with a warning for messages that do not extend its history", async () => {
    const messages = agentRun("openai", 12);
    const first = await compact({ sessionId: "s", pressure: pressure(12, 0.3, 5), messages });
    const other = agentRun("openai", 13).map((m) => (m.role === "user" ? { ...m, content: "Another task." } : m));
    const result = await compact({ sessionId: "s", pressure: pressure(13, 0.3, 5), messages: other, state: first.state });
    assert.ok(result.warnings.some((w) => w.includes("do not extend")), JSON.stringify(result.warnings));
  });

  it("names the field of a malformed state", async () => {
    const messages = agentRun("openai", 4);
    const first = await compact({ sessionId: "s", pressure: pressure(4, 0.3, 5), messages });
    const bad = { ...first.state, history: { ...first.state.history, digest: "zz" } };
    await assert.rejects(compact({ sessionId: "s", pressure: pressure(4, 0.3, 5), messages, state: bad }), (error) => {
      assert.ok(error instanceof TypeError);
      assert.match(error.message, /state\.history\.digest must be 32 hex digits/);
      return true;
    });
  });
});

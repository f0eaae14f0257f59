// In the loop (SPEC §11, §4 invariant 3), through the package with its defaults: a run replayed
// call by call as a stateless host that passes `result.state` back, in each format. Stubs keep
// their bytes from call to call, so each request repeats the previous one's messages up to the
// first change a batch brings; a state for other messages is ignored with a warning.
import assert from "node:assert/strict";
import { isDeepStrictEqual } from "node:util";
import { describe, it } from "node:test";
import { compact, compactRequestBody, estimateTokens } from "tiered-compaction";
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

describe("compactRequestBody in a loop (an edge proxy keeping the state per session)", () => {
  /** An Anthropic Messages body of call k, as a client sends it: the whole raw history. */
  const body = (messages, k) => JSON.stringify({ model: "m", max_tokens: 512, system: "You are a coding agent.", messages: request(messages, k) });
  const sent = (out) => JSON.parse(out.body).messages;

  it("keeps time_based's pruning on the warm calls after an idle gap, where a proxy without state undoes it", async () => {
    const messages = agentRun("anthropic", 40);
    const run = async (keepState) => {
      let state;
      const requests = [];
      for (let k = 30; k <= 33; k += 1) {
        const idle = k === 31 ? 900 : 0; // the cache expired before call 31: time_based fires there
        const out = await compactRequestBody(body(messages, k), { sessionId: "proxy", pressure: pressure(k, 0.3, idle), ...(keepState ? { state } : {}) });
        assert.equal(out.result.warnings, undefined, JSON.stringify(out.result.warnings));
        state = JSON.parse(JSON.stringify(out.result.state)); // as a KV store keeps it
        requests.push({ tier: out.result.tier, messages: sent(out) });
      }
      return requests;
    };
    const stateful = await run(true);
    assert.equal(stateful[1].tier, "time_based");
    for (const k of [2, 3]) {
      const [previous, current] = [stateful[k - 1].messages, stateful[k].messages];
      assert.equal(shared(previous, current), previous.length, `call ${30 + k} repeats call ${29 + k}'s messages`);
    }
    const stateless = await run(false);
    assert.ok(shared(stateless[1].messages, stateless[2].messages) < stateless[1].messages.length, "without state, the warm call undoes time_based's edits");
  });

  it("names the field of a malformed state", async () => {
    await assert.rejects(compactRequestBody(body(agentRun("anthropic", 4), 4), { sessionId: "s", pressure: pressure(4, 0.3), state: 7 }), /state must be the object a result's state gave/);
  });
});

describe("auto's summary in a stateless loop", () => {
  it("stays, and the calls after it measure the context it left: no second cut, no rewrite", async () => {
    const messages = agentRun("anthropic", 60);
    const window = 12000; // small: auto summarises on the way
    let state;
    let previous;
    const calls = [];
    for (let k = 2; k <= 50; k += 1) {
      const sent = request(messages, k);
      const contextPctUsed = Math.min(1, estimateTokens(JSON.stringify(sent), { tokenEstimator: "heuristic" }) / window);
      const result = await compact({ sessionId: "auto-loop", pressure: { ...pressure(k, contextPctUsed), contextPctUsed }, messages: sent, state });
      state = JSON.parse(JSON.stringify(result.state));
      calls.push({ tier: result.tier, messages: result.messages, repeats: previous ? shared(previous, result.messages) === previous.length : true });
      previous = result.messages;
    }
    const summary = calls.findIndex((call, i) => i > 0 && call.messages.length < calls[i - 1].messages.length);
    assert.ok(summary > 0 && calls[summary].tier === "auto", "auto summarised");
    const after = calls.slice(summary + 1);
    assert.ok(after.length >= 5);
    assert.deepEqual(after.map((call) => call.repeats), after.map(() => true), "every call after the summary repeats the one before");
    assert.ok(after.every((call) => call.tier !== "auto"), `tiers after the summary: ${after.map((call) => call.tier)}`);
  });
});

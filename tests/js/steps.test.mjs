// Agent runs (docs/design.md, "The internal model"): steps and the protected tail (`keepRecentSteps`), tools
// whose results are never compacted (`excludeTools`), and call ids reused across steps (`call_0`
// every time, valid in OpenAI and the AI SDK). The runs have one human prompt and then only tool
// steps: the shape that saved nothing under the old "latest turn" rule.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { compactWithTier, selectTier } from "./unbatched.mjs";
import { checkFormat, withReusedIds } from "../../bench/sessions.mjs";
import { aiSdkMessages, openaiMessages } from "../../scripts/samples.mjs";
import { agentRun, pressure, resultIndex, toolBody } from "./helpers.mjs";
import { assertNothingLost } from "./lossless.mjs";

const FORMATS = ["openai", "anthropic", "ai-sdk"];
const STEPS = 8;
const ctxOf = (format, messages, idle = 0) => ({ sessionId: "steps", pressure: pressure(STEPS + 1, 0.5, idle), messages, format });

/** The message index of each archive entry (`messages[5].content` -> 5). */
const archivedMessages = (result) => result.archive.map((entry) => Number(/^messages\[(\d+)\]/.exec(entry.location)[1]));

/** The tool result's text in message `message` of `format`. */
function resultText(format, message) {
  if (format === "openai") return message.content;
  if (format === "anthropic") return message.content[0].content;
  return message.content[0].output.value;
}

const range = (from, to) => Array.from({ length: Math.max(0, to - from) }, (_, k) => from + k);

describe("single-prompt agent runs", () => {
  for (const format of FORMATS) {
    it(`${format}: micro, time_based and auto compact a run of ${STEPS} tool steps after one prompt`, async () => {
      const messages = agentRun(format, STEPS, { thinking: format !== "openai" });
      for (const [tier, idle] of [["micro", 0], ["time_based", 900], ["auto", 0]]) {
        const ctx = ctxOf(format, messages, idle);
        const result = await compactWithTier(tier, ctx);
        assert.ok(result.tokensSaved > 0, `${tier}: ${result.reason}`);
        // The prompt (the task) stays: the caller's own object.
        assert.equal(result.messages.find((m) => m.role === "user"), messages.find((m) => m.role === "user"), `${tier} keeps the task`);
        assertNothingLost(ctx, result);
      }
    });
  }
});

describe("the output of an agent run keeps its provider's rules (invariant 1)", () => {
  for (const format of FORMATS) {
    for (const [tier, idle, complete] of [["micro", 0, false], ["time_based", 900, false], ["auto", 0, false], ["session_memory", 0, true]]) {
      // (session_memory folds everything; the excluded tool is micro's, time_based's and auto's.)
      for (const policy of tier === "session_memory" ? [{}] : [{}, { excludeTools: ["read"] }]) {
        it(`${format}, ${tier}${policy.excludeTools ? ", excludeTools" : ""}: valid ${format}`, async () => {
          const messages = agentRun(format, STEPS, { thinking: format !== "openai" });
          const ctx = { ...ctxOf(format, messages, idle), pressure: pressure(STEPS + 1, 0.9, idle, complete) };
          const result = await compactWithTier(tier, ctx, { policy });
          assert.ok(result.tokensSaved > 0, result.reason);
          assert.deepEqual(checkFormat(format, result.messages), [], `${tier}: ${result.reason}`);
        });
      }
    }
  }
});

describe("keepRecentSteps: the protected tail", () => {
  for (const format of FORMATS) {
    it(`${format}: micro stubs the results of exactly the steps before the newest keepRecentSteps`, async () => {
      const messages = agentRun(format, STEPS);
      for (const keep of [1, 2, 3, STEPS - 1]) {
        const result = await compactWithTier("micro", ctxOf(format, messages), { policy: { keepRecentSteps: keep } });
        const outside = range(0, STEPS - keep).map((step) => resultIndex(format, step));
        assert.deepEqual(archivedMessages(result), outside, `keepRecentSteps ${keep}`);
        // Every step of the tail comes back as the caller's own objects.
        for (let index = resultIndex(format, STEPS - keep) - 1; index < messages.length; index += 1) {
          assert.equal(result.messages[index], messages[index], `keepRecentSteps ${keep}: messages[${index}] is in the tail`);
        }
        for (const index of outside) {
          assert.match(resultText(format, result.messages[index]), /\[tool result body pruned: 677 chars; recall: a[0-9a-f]{12}\]$/);
        }
      }
    });

    it(`${format}: the default tail is three steps`, async () => {
      const messages = agentRun(format, STEPS);
      const byDefault = await compactWithTier("micro", ctxOf(format, messages));
      assert.deepEqual(byDefault, await compactWithTier("micro", ctxOf(format, messages), { policy: { keepRecentSteps: 3 } }));
      assert.equal(byDefault.archive.length, STEPS - 3);
    });

    it(`${format}: a tail of as many steps as the run, or more, leaves micro and time_based nothing to do`, async () => {
      const messages = agentRun(format, STEPS, { thinking: format !== "openai" });
      for (const keep of [STEPS, STEPS + 1, 1000]) {
        for (const [tier, idle] of [["micro", 0], ["time_based", 900]]) {
          const policy = { keepRecentSteps: keep, maxBlockAgeSteps: 0 };
          const result = await compactWithTier(tier, ctxOf(format, messages, idle), { policy });
          assert.deepEqual(result.archive, [], `${tier}, keepRecentSteps ${keep}`);
          assert.equal(result.afterTokens, result.beforeTokens);
          result.messages.forEach((message, index) => assert.equal(message, messages[index], `${tier}: messages[${index}] untouched`));
        }
      }
    });

    it(`${format}: time_based prunes the steps older than maxBlockAgeSteps, never the tail`, async () => {
      const messages = agentRun(format, STEPS, { thinking: format !== "openai" });
      // Ages count steps: the newest step is 0 steps old. With maxBlockAgeSteps 5, steps 0 and 1
      // (7 and 6 steps old) are stale.
      const stale = await compactWithTier("time_based", ctxOf(format, messages, 900));
      const staleResults = stale.archive.filter((entry) => entry.kind === "tool_result");
      assert.deepEqual(staleResults.map((entry) => Number(/^messages\[(\d+)\]/.exec(entry.location)[1])), [0, 1].map((step) => resultIndex(format, step)));
      for (const [step, entry] of staleResults.entries()) {
        const stub = resultText(format, stale.messages[resultIndex(format, step)]);
        assert.ok(stub.startsWith(`[stale block pruned: ${step % 2 === 0 ? "bash" : "read"}, 677 chars; recall: ${entry.id}]`), stub);
        assert.ok(stub.includes(`error: test t${step} failed at src/lib.rs:${step}`), "the error line is kept");
        // An AI SDK entry holds the whole output part ({ type, value }).
        assert.equal(format === "ai-sdk" ? entry.content.value : entry.content, toolBody(step));
      }
      if (format !== "openai") {
        // Their thinking / reasoning goes to the archive too; the newer steps keep theirs.
        assert.equal(stale.archive.filter((entry) => entry.kind === "thinking").length, 2);
      }
      // Everything stale but a tail of two steps: the tail wins over the age.
      const result = await compactWithTier("time_based", ctxOf(format, messages, 900), { policy: { maxBlockAgeSteps: 0, keepRecentSteps: 2 } });
      const pruned = result.archive.filter((entry) => entry.kind === "tool_result");
      assert.deepEqual(pruned.map((entry) => Number(/^messages\[(\d+)\]/.exec(entry.location)[1])), range(0, STEPS - 2).map((step) => resultIndex(format, step)));
      for (let index = resultIndex(format, STEPS - 2) - 1; index < messages.length; index += 1) {
        assert.equal(result.messages[index], messages[index], `messages[${index}] is in the tail`);
      }
      assert.deepEqual(checkFormat(format, result.messages), []);
    });
  }

  it("the newest message with user words is part of the tail wherever it stands", async () => {
    // OpenAI: a user message after step 2, then five more steps; auto with a tail of one step.
    const messages = agentRun("openai", STEPS);
    const directive = { role: "user", content: `Also keep the public API unchanged. Here is the log you asked for:\n${toolBody(9)}` };
    messages.splice(resultIndex("openai", 2) + 1, 0, directive);
    const result = await compactWithTier("auto", ctxOf("openai", messages), { policy: { keepRecentSteps: 1 } });
    assert.ok(result.tokensSaved > 0, result.reason);
    assert.ok(result.messages.includes(directive), "the newest user message stands whole, as the caller's object");
    assert.ok(result.messages.includes(messages[1]), "and so does the task");
    assertNothingLost({ messages }, result);
  });

  it("is an integer >= 1", () => {
    for (const keepRecentSteps of [0, -1, 1.5, Number.NaN]) {
      assert.throws(() => selectTier(pressure(2, 0.1), { keepRecentSteps }), (error) => {
        assert.ok(error instanceof RangeError, `${keepRecentSteps}: ${error}`);
        assert.equal(error.code, "ERR_TC_OUT_OF_RANGE");
        assert.equal(error.path, "policy.keepRecentSteps");
        return true;
      });
    }
    assert.throws(() => selectTier(pressure(2, 0.1), { keepRecentSteps: "3" }), { name: "TypeError", code: "ERR_TC_INVALID_TYPE", path: "policy.keepRecentSteps" });
  });
});

describe("excludeTools", () => {
  for (const format of FORMATS) {
    it(`${format}: the excluded tool's results stay whole in micro, time_based and auto`, async () => {
      const messages = agentRun(format, STEPS);
      const policy = { excludeTools: ["read"], keepRecentSteps: 1, maxBlockAgeSteps: 0 };
      const readSteps = range(0, STEPS).filter((step) => step % 2 === 1);
      const bashSteps = range(0, STEPS - 1).filter((step) => step % 2 === 0);
      for (const [tier, idle] of [["micro", 0], ["time_based", 900], ["auto", 0]]) {
        const ctx = ctxOf(format, messages, idle);
        const result = await compactWithTier(tier, ctx, { policy });
        for (const step of readSteps) {
          const original = messages[resultIndex(format, step)];
          assert.ok(result.messages.includes(original), `${tier}: read's result of step ${step} is the caller's object, whole`);
        }
        if (tier !== "auto") {
          // The other tool's results outside the tail are compacted, and only those.
          assert.deepEqual(archivedMessages(result), bashSteps.map((step) => resultIndex(format, step)), tier);
        } else {
          assert.ok(result.tokensSaved > 0, result.reason);
          for (const entry of result.archive) assert.ok(!JSON.stringify(entry.content).includes("make test1\\n"), `${tier}: ${entry.id} holds no read result`);
        }
        assertNothingLost(ctx, result);
      }
    });
  }

  it("without the tool in the run, or with an empty list, changes nothing", async () => {
    const messages = agentRun("openai", STEPS);
    const plain = await compactWithTier("micro", ctxOf("openai", messages));
    assert.deepEqual(await compactWithTier("micro", ctxOf("openai", messages), { policy: { excludeTools: [] } }), plain);
    assert.deepEqual(await compactWithTier("micro", ctxOf("openai", messages), { policy: { excludeTools: ["memory", "todo"] } }), plain);
  });
});

describe("reused call ids (call_0 for every call)", () => {
  const runs = {
    "an agent run": (format) => agentRun(format, STEPS),
    "the sample session": (format) => (format === "openai" ? openaiMessages() : aiSdkMessages()),
  };
  for (const format of ["openai", "ai-sdk"]) {
    for (const [name, build] of Object.entries(runs)) {
      it(`${format}, ${name}: valid input, compacted by micro, time_based and auto as with unique ids`, async () => {
        const unique = build(format);
        const reused = withReusedIds(format, unique);
        assert.deepEqual(checkFormat(format, reused), [], "positional pairing is valid");
        const ids = JSON.stringify(reused).match(/"(?:id|tool_call_id|toolCallId)":"[^"]*"/g);
        assert.deepEqual([...new Set(ids.map((field) => field.split(":")[1]))], ['"call_0"']);
        for (const [tier, idle] of [["micro", 0], ["time_based", 900], ["auto", 0]]) {
          const ctx = ctxOf(format, reused, idle);
          const result = await compactWithTier(tier, ctx);
          const baseline = await compactWithTier(tier, ctxOf(format, unique, idle));
          assert.ok(result.tokensSaved > 0, `${tier}: ${result.reason}`);
          assert.equal(result.warnings, undefined, `${tier}: no repair, no warning`);
          assert.deepEqual(
            result.archive.map((entry) => [entry.kind, entry.location]),
            baseline.archive.map((entry) => [entry.kind, entry.location]),
            `${tier} archives what it archives with unique ids`,
          );
          assert.deepEqual(checkFormat(format, result.messages), [], `${tier} output pairs by position`);
          assertNothingLost(ctx, result);
        }
      });
    }
  }
});

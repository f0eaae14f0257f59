// Bad input never panics and never returns garbage: a real Error (TypeError / RangeError /
// SyntaxError) whose message names the field path, with a stable `code` and the `path`.
import assert from "node:assert/strict";
import * as fs from "node:fs";
import { createRequire } from "node:module";
import * as path from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { compact, compactWithTier, estimateTokens, recordTierEvent, runLegacyCompaction, selectTier } from "./unbatched.mjs";
import { SEED_MICRO_TEXT, pressure } from "./helpers.mjs";

/** PolicyConfig's fields as index.d.ts declares them (tests/config_table.rs checks them against the core's table). */
const POLICY_FIELDS = (() => {
  const types = fs.readFileSync(path.join(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "js", "index.d.ts"), "utf8");
  const body = types.slice(types.indexOf("export interface PolicyConfig {"), types.indexOf("\n}", types.indexOf("export interface PolicyConfig {")));
  return [...body.matchAll(/^ {2}(\w+)\?:/gm)].map((match) => match[1]);
})();

const ctx = (fields = {}) => ({ sessionId: "s", pressure: pressure(2, 0.1), text: SEED_MICRO_TEXT, ...fields });

/** The expected error: class, exact message, code and path. */
const expected = (name, message, path) => (error) => {
  assert.ok(error instanceof Error, "an Error, not a thrown string");
  assert.equal(error.name, name);
  assert.equal(error.message, message);
  assert.equal(error.path, path);
  assert.equal(error.code, { TypeError: "ERR_TC_INVALID_TYPE", RangeError: "ERR_TC_OUT_OF_RANGE", SyntaxError: "ERR_TC_PARSE" }[name]);
  return true;
};

describe("selectTier rejects bad pressure", () => {
  const cases = [
    [{ ...pressure(1, 0), contextPctUsed: NaN }, "RangeError", "pressure.contextPctUsed must be a finite number in [0, 1], got NaN", "pressure.contextPctUsed"],
    [{ ...pressure(1, 0), contextPctUsed: 1.5 }, "RangeError", "pressure.contextPctUsed must be a finite number in [0, 1], got 1.5", "pressure.contextPctUsed"],
    [{ ...pressure(1, 0), idleSeconds: -1 }, "RangeError", "pressure.idleSeconds must be a finite number >= 0, got -1", "pressure.idleSeconds"],
    [{ ...pressure(1, 0), idleSeconds: Infinity }, "RangeError", "pressure.idleSeconds must be a finite number >= 0, got Infinity", "pressure.idleSeconds"],
    [{ ...pressure(1, 0), turnCount: 1.5 }, "RangeError", "pressure.turnCount must be an integer >= 0, got 1.5", "pressure.turnCount"],
    [{ ...pressure(1, 0), sessionComplete: 1 }, "TypeError", "pressure.sessionComplete must be a boolean, got number", "pressure.sessionComplete"],
    [{ ...pressure(1, 0), turnCount: "3" }, "TypeError", "pressure.turnCount must be a number, got string", "pressure.turnCount"],
    [{ turnCount: 1 }, "TypeError", "pressure.contextPctUsed is required", "pressure.contextPctUsed"],
    [{ ...pressure(1, 0), contextPct: 0.5 }, "TypeError", "pressure.contextPct is not a known field; expected one of turnCount, contextPctUsed, idleSeconds, sessionComplete, cachedTokens, contextWindowTokens", "pressure.contextPct"],
    [null, "TypeError", "pressure must be an object, got null", "pressure"],
    [[1, 2], "TypeError", "pressure must be an object, got array", "pressure"],
  ];
  for (const [input, name, message, path] of cases) {
    it(message, () => assert.throws(() => selectTier(input), expected(name, message, path)));
  }
});

describe("selectTier rejects bad policy", () => {
  const cases = [
    [{ autoContextPct: NaN }, "RangeError", "policy.autoContextPct must be a finite number in [0, 1], got NaN", "policy.autoContextPct"],
    [{ autoTargetPct: 1.5 }, "RangeError", "policy.autoTargetPct must be a finite number in [0, 1], got 1.5", "policy.autoTargetPct"],
    [{ autoTargetPct: "half" }, "TypeError", "policy.autoTargetPct must be a number, got string", "policy.autoTargetPct"],
    [{ charsPerToken: 0 }, "RangeError", "policy.charsPerToken must be an integer >= 1, got 0", "policy.charsPerToken"],
    [{ maxBlockAgeSteps: -2 }, "RangeError", "policy.maxBlockAgeSteps must be an integer in [0, 9007199254740991], got -2", "policy.maxBlockAgeSteps"],
    [{ maxBlockAgeTurns: 5 }, "TypeError", "policy.maxBlockAgeTurns was renamed to maxBlockAgeSteps", "policy.maxBlockAgeTurns"],
    [{ keepRecentSteps: 0 }, "RangeError", "policy.keepRecentSteps must be an integer >= 1, got 0", "policy.keepRecentSteps"],
    [{ excludeTools: "memory" }, "TypeError", "policy.excludeTools must be an array, got string", "policy.excludeTools"],
    [{ excludeTools: ["memory", 7] }, "TypeError", "policy.excludeTools[1] must be a string, got number", "policy.excludeTools[1]"],
    [{ costWeights: { auto: -1 } }, "RangeError", "policy.costWeights.auto must be a finite number >= 0, got -1", "policy.costWeights.auto"],
    [{ costWeights: { fast: 1 } }, "TypeError", "policy.costWeights.fast is not a known field; expected one of none, micro, time_based, auto, session_memory", "policy.costWeights.fast"],
    [{ idle_seconds: 3 }, "TypeError", `policy.idle_seconds is not a known field; expected one of ${POLICY_FIELDS.join(", ")}`, "policy.idle_seconds"],
    ["strict", "TypeError", "policy must be an object, got string", "policy"],
  ];
  for (const [policy, name, message, path] of cases) {
    it(message, () => assert.throws(() => selectTier(pressure(1, 0), policy), expected(name, message, path)));
  }
});

describe("compact rejects bad context and options", () => {
  const cases = [
    [ctx({ messages: [] }), undefined, "TypeError", "ctx must have exactly one of messages or text, got both", "ctx"],
    [{ sessionId: "s", pressure: pressure(1, 0) }, undefined, "TypeError", "ctx must have exactly one of messages or text, got neither", "ctx"],
    [ctx({ sessionId: 7 }), undefined, "TypeError", "sessionId must be a string, got number", "sessionId"],
    [ctx({ costPer1kTokens: -0.1 }), undefined, "RangeError", "costPer1kTokens must be a finite number >= 0, got -0.1", "costPer1kTokens"],
    [ctx({ format: "openai" }), undefined, "TypeError", 'format must be "auto" or "text" for a text context, got "openai"', "format"],
    [ctx({ text: 42 }), undefined, "TypeError", "text must be a string, got number", "text"],
    [ctx({ pressure: { ...pressure(1, 0), idleSeconds: NaN } }), undefined, "RangeError", "pressure.idleSeconds must be a finite number >= 0, got NaN", "pressure.idleSeconds"],
    [ctx({ extra: 1 }), undefined, "TypeError", "extra is not a known field; expected one of sessionId, pressure, costPer1kTokens, messages, text, format, state", "extra"],
    [ctx(), { timeoutMs: NaN }, "RangeError", "options.timeoutMs must be a finite number in [0, 2147483647], got NaN", "options.timeoutMs"],
    [ctx(), { summarise: "gpt" }, "TypeError", "options.summarise must be a function, got string", "options.summarise"],
    [ctx(), { countTokens: {} }, "TypeError", "options.countTokens must be a function, got object", "options.countTokens"],
    [ctx(), { signal: {} }, "TypeError", "options.signal must be an AbortSignal, got object", "options.signal"],
    [ctx(), { correlationId: 5 }, "TypeError", "options.correlationId must be a string, got number", "options.correlationId"],
    [ctx(), { policy: { minReduction: 2 } }, "RangeError", "options.policy.minReduction must be a finite number in [0, 1], got 2", "options.policy.minReduction"],
    [ctx(), { timeout: 5 }, "TypeError", "options.timeout is not a known field; expected one of summarise, countTokens, policy, timeoutMs, signal, correlationId, instructions, now, tokenEstimator", "options.timeout"],
    [ctx(), 5, "TypeError", "options must be an object, got number", "options"],
  ];
  for (const [context, options, name, message, path] of cases) {
    it(message, () => assert.rejects(compact(context, options), expected(name, message, path)));
  }

  it("names the offending message", async () => {
    const messages = [{ role: "user", content: "hi" }, { role: "assistant", content: 42 }];
    await assert.rejects(compact({ sessionId: "s", pressure: pressure(2, 0.1), messages }), (error) => {
      assert.ok(error instanceof TypeError);
      assert.match(error.message, /^messages\[1\]/);
      return true;
    });
  });

  it("rejects (never throws synchronously) from the async exports", () => {
    const pending = compact(null);
    assert.ok(pending instanceof Promise);
    return assert.rejects(pending, expected("TypeError", "ctx must be an object, got null", "ctx"));
  });

  it("rejects an unknown tier in compactWithTier", () =>
    assert.rejects(
      compactWithTier("medium", ctx()),
      expected("TypeError", 'tier must be one of "none", "micro", "time_based", "auto", "session_memory", got "medium"', "tier"),
    ));

  it("rejects bad countTokens results naming the option", async () => {
    await assert.rejects(
      compact(ctx(), { countTokens: () => NaN }),
      expected("TypeError", "options.countTokens must return an integer >= 0, got NaN", "options.countTokens"),
    );
    await assert.rejects(compact(ctx(), { countTokens: () => "12" }), {
      message: "options.countTokens must return an integer >= 0, got string",
    });
  });
});

describe("other exports reject bad input", () => {
  it("estimateTokens", () =>
    assert.throws(() => estimateTokens(undefined), expected("TypeError", "text must be a string, got undefined", "text")));
  it("runLegacyCompaction", async () => {
    await assert.rejects(runLegacyCompaction(1, "x"), expected("TypeError", "sessionId must be a string, got number", "sessionId"));
    await assert.rejects(runLegacyCompaction("s", null), expected("TypeError", "contextText must be a string, got null", "contextText"));
    await assert.rejects(
      runLegacyCompaction("s", "x", { turnCount: -1 }),
      expected("RangeError", "opts.turnCount must be an integer >= 0, got -1", "opts.turnCount"),
    );
  });
  it("recordTierEvent", async () => {
    const result = await compact(ctx());
    assert.throws(() => recordTierEvent({ ...result, tier: "big" }), {
      name: "TypeError",
      message: 'result.tier must be one of "none", "micro", "time_based", "auto", "session_memory", got "big"',
    });
    assert.throws(
      () => recordTierEvent({ ...result, costEstimate: Infinity }),
      expected("RangeError", "result.costEstimate must be a finite number >= 0, got Infinity", "result.costEstimate"),
    );
    assert.throws(
      () => recordTierEvent(result, { timestamp: -5 }),
      expected("RangeError", "step.timestamp must be a finite number >= 0 (seconds), got -5", "step.timestamp"),
    );
    assert.throws(() => recordTierEvent(result, "x"), expected("TypeError", "step must be an object, got string", "step"));
  });
});

describe("index.d.ts declares the error shape", () => {
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
  /** Every `"ERR_TC_..."` literal in the files under `dir` whose names match `pattern`. */
  const codesIn = (dir, pattern) =>
    fs
      .readdirSync(path.join(root, dir), { recursive: true })
      .filter((name) => pattern.test(name))
      .flatMap((name) => [...fs.readFileSync(path.join(root, dir, name), "utf8").matchAll(/"(ERR_TC_[A-Z_]+)"/g)].map((match) => match[1]));

  it("ErrorCode lists exactly the codes the library throws (src/, binding/src/, js/)", () => {
    const thrown = new Set([...codesIn("src", /\.rs$/), ...codesIn("binding/src", /\.rs$/), ...codesIn("js", /\.mjs$/)]);
    const declarations = fs.readFileSync(createRequire(import.meta.url).resolve("tiered-compaction/package.json").replace(/package\.json$/, "index.d.ts"), "utf8");
    const union = (name) => {
      const match = declarations.match(new RegExp(`^export type ${name} = ([^;]+);`, "m"));
      assert.ok(match, `index.d.ts declares ${name}`);
      return match[1].split("|").map((member) => member.trim());
    };
    assert.deepEqual(union("ErrorCode"), ["InputErrorCode", "StateErrorCode"]);
    const declared = [...union("InputErrorCode"), ...union("StateErrorCode")].map((member) => JSON.parse(member));
    assert.deepEqual(declared.toSorted(), [...thrown].sort());
  });
});

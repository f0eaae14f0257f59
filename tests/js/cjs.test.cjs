// The CommonJS entry point (`require`, "node" + "require" conditions): the same API, working.
"use strict";
const assert = require("node:assert/strict");
const { describe, it } = require("node:test");
const api = require("tiered-compaction");

const pressure = (turnCount, contextPctUsed) => ({ turnCount, contextPctUsed, idleSeconds: 0, sessionComplete: false });
const SEED_MICRO_TEXT = "```tool_result name=bash\n" + "C".repeat(900) + "\n```";

describe("require('tiered-compaction')", () => {
  it("exports exactly the API", () => {
    assert.deepEqual(Object.keys(api).sort(), [
      "TIER_COST_WEIGHT",
      "compact",
      "compactRequestBody",
      "compactWithTier",
      "estimateTokens",
      "init",
      "initSync",
      "recall",
      "recallToolDefinition",
      "recordTierEvent",
      "restore",
      "runLegacyCompaction",
      "selectTier",
    ]);
    assert.ok(Object.isFrozen(api.TIER_COST_WEIGHT));
    assert.equal(api.TIER_COST_WEIGHT.session_memory, 1);
  });

  it("compacts, selects, estimates and traces", async () => {
    assert.equal(api.selectTier(pressure(3, 0.7)), "auto");
    assert.equal(api.estimateTokens(SEED_MICRO_TEXT), 232);
    const result = await api.compact({ sessionId: "cjs", pressure: pressure(2, 0.1), text: SEED_MICRO_TEXT });
    assert.equal(result.tier, "micro");
    assert.equal(result.afterTokens, 36);
    assert.equal(JSON.parse(api.recordTierEvent(result)).compaction_tier, "micro");
    const legacy = await api.runLegacyCompaction("cjs", SEED_MICRO_TEXT);
    assert.equal(legacy.tier, "auto");
  });

  it("gives the same results as the ES module entry point", async () => {
    const esm = await import("tiered-compaction");
    const ctx = { sessionId: "both", pressure: pressure(2, 0.1), text: SEED_MICRO_TEXT };
    assert.deepEqual(await api.compact(ctx), await esm.compact(ctx));
  });

  it("throws real errors", () => {
    assert.throws(() => api.selectTier({ ...pressure(1, NaN) }), {
      name: "RangeError",
      code: "ERR_TC_OUT_OF_RANGE",
      message: "pressure.contextPctUsed must be a finite number in [0, 1], got NaN",
    });
  });
});

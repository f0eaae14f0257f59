// Every export of the package, imported by name through pkg/package.json (ESM, "node" condition).
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import * as api from "./unbatched.mjs";
import {
  TIER_COST_WEIGHT,
  compact,
  compactRequestBody,
  compactWithTier,
  estimateTokens,
  init,
  initSync,
  recordTierEvent,
  runLegacyCompaction,
  selectTier,
} from "./unbatched.mjs";
import { anthropicRequestBody, samples } from "../../scripts/samples.mjs";
import { SEED_MICRO_TEXT, TIERS, assertCamelCase, pressure } from "./helpers.mjs";
import { assertNothingLost } from "./lossless.mjs";

describe("exports", () => {
  it("are exactly the API names (docs/design.md) plus init/initSync", () => {
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
  });

  it("need no init in Node (init resolves, initSync is a no-op)", async () => {
    assert.equal(await init(), undefined);
    assert.equal(initSync(), undefined);
  });
});

describe("TIER_COST_WEIGHT", () => {
  it("holds the seed's weights", () => {
    assert.deepEqual({ ...TIER_COST_WEIGHT }, { none: 0, micro: 0.05, time_based: 0.1, auto: 0.5, session_memory: 1 });
  });

  it("is frozen", () => {
    assert.ok(Object.isFrozen(TIER_COST_WEIGHT));
    assert.throws(() => {
      "use strict";
      TIER_COST_WEIGHT.auto = 0;
    }, TypeError);
  });
});

describe("selectTier", () => {
  // The seed's boundary cases (docs/design.md, "The tiers").
  const cases = [
    [pressure(3, 0.7), "auto"],
    [pressure(3, 0.1, 300), "time_based"],
    [pressure(1, 0.3), "none"],
    [pressure(2, 0.1), "micro"],
    [pressure(5, 0.0), "none"],
    [pressure(5, 0.99, 0, true), "session_memory"],
    [pressure(5, 0.85, 400), "auto"],
    [pressure(3, 0.2, 400), "time_based"],
  ];
  for (const [input, tier] of cases) {
    it(`${JSON.stringify(input)} -> ${tier}`, () => assert.equal(selectTier(input), tier));
  }

  it("takes per-call thresholds", () => {
    assert.equal(selectTier(pressure(3, 0.5), { autoContextPct: 0.5 }), "auto");
    assert.equal(selectTier(pressure(3, 0.1, 60), { idleSeconds: 60 }), "time_based");
    assert.equal(selectTier(pressure(2, 0.1), { microMinTurn: 3 }), "none");
  });
});

describe("estimateTokens", () => {
  it("is the seed's rule: 0 for empty, else max(1, code points / 4)", () => {
    assert.equal(estimateTokens(""), 0);
    assert.equal(estimateTokens("a"), 1);
    assert.equal(estimateTokens("a".repeat(40)), 10);
    assert.equal(estimateTokens(SEED_MICRO_TEXT), 232);
    // Code points, not UTF-16 units: 8 astral characters are 16 units but 8 code points.
    assert.equal(estimateTokens("😀".repeat(8)), 2);
  });
});

describe("compact", () => {
  it("reproduces the seed's micro example (232 -> 36 tokens, cost 0.0000294)", async () => {
    const result = await compact({ sessionId: "seed", pressure: pressure(2, 0.1), text: SEED_MICRO_TEXT });
    assert.equal(result.tier, "micro");
    assert.equal(result.beforeTokens, 232);
    assert.equal(result.afterTokens, 36);
    assert.equal(result.tokensSaved, 196);
    assert.ok(Math.abs(result.costEstimate - 0.0000294) < 1e-12);
    assert.equal(result.format, "text");
    assertNothingLost({ text: SEED_MICRO_TEXT }, result);
  });

  it("returns the context unchanged at zero cost for tier none, with optional fields omitted", async () => {
    const ctx = { sessionId: "s", pressure: pressure(1, 0.3), messages: samples()[1].messages };
    const result = await compact(ctx);
    assert.equal(result.tier, "none");
    assert.deepEqual(result.messages, ctx.messages);
    assert.equal(result.costEstimate, 0);
    assert.deepEqual(result.archive, []);
    assert.deepEqual(Object.keys(result), [
      "tier",
      "messages",
      "beforeTokens",
      "afterTokens",
      "tokensSaved",
      "costEstimate",
      "correlationId",
      "reason",
      "archive",
      "state",
      "format",
    ]);
  });

  it("honours costPer1kTokens and policy.costWeights", async () => {
    const ctx = { sessionId: "s", pressure: pressure(2, 0.1), text: SEED_MICRO_TEXT, costPer1kTokens: 0.01 };
    const result = await compact(ctx, { policy: { costWeights: { micro: 1 } } });
    assert.ok(Math.abs(result.costEstimate - (196 / 1000) * 0.01) < 1e-12);
  });

  it("uses the host's countTokens", async () => {
    const result = await compact(
      { sessionId: "s", pressure: pressure(2, 0.1), text: SEED_MICRO_TEXT },
      { countTokens: (text) => text.length },
    );
    assert.equal(result.beforeTokens, SEED_MICRO_TEXT.length);
  });

  it("keeps the host's correlation id", async () => {
    const result = await compact({ sessionId: "s", pressure: pressure(2, 0.1), text: SEED_MICRO_TEXT }, { correlationId: "corr-1" });
    assert.equal(result.correlationId, "corr-1");
  });
});

describe("compactWithTier, every tier on every sample", () => {
  for (const { name, ...input } of samples()) {
    for (const tier of TIERS) {
      it(`${tier} on ${name}: never grows, nothing lost, camelCase, deterministic`, async () => {
        const ctx = { sessionId: "sample", pressure: pressure(9, 0.5), ...input };
        const result = await compactWithTier(tier, ctx);
        assert.equal(result.tier, tier);
        assert.ok(result.afterTokens <= result.beforeTokens);
        assert.equal(result.tokensSaved, result.beforeTokens - result.afterTokens);
        assert.equal(result.costEstimate, (result.tokensSaved / 1000) * 0.003 * TIER_COST_WEIGHT[tier]);
        assertNothingLost(ctx, result);
        assertCamelCase(result, "result");
        assert.deepEqual(await compactWithTier(tier, ctx), result);
      });
    }
  }
});

describe("recordTierEvent", () => {
  it("returns one JSON line with the trace fields and the step's own fields", async () => {
    const result = await compact({ sessionId: "s", pressure: pressure(2, 0.1), text: SEED_MICRO_TEXT });
    const line = recordTierEvent(result, { timestamp: 1700000000.5, traceId: "trace-9", turn: 2 });
    assert.ok(!line.includes("\n"));
    const step = JSON.parse(line);
    assert.equal(step.type, "compact");
    assert.equal(step.timestamp, 1700000000.5);
    assert.equal(step.traceId, "trace-9");
    assert.equal(step.turn, 2);
    assert.equal(step.tokens, 196);
    assert.equal(step.compaction_tier, "micro");
    assert.equal(step.compaction_tokens_before, 232);
    assert.equal(step.compaction_tokens_after, 36);
    assert.equal(step.compaction_correlation_id, result.correlationId);
    assert.match(step.detail, /tier=micro/);
    assert.match(step.detail, /cost_estimate=0\.000029/);
  });

  it("defaults the timestamp to now, in seconds", async () => {
    const result = await compact({ sessionId: "s", pressure: pressure(2, 0.1), text: SEED_MICRO_TEXT });
    const before = Date.now() / 1000;
    const step = JSON.parse(recordTierEvent(result));
    assert.ok(step.timestamp >= before - 1 && step.timestamp <= Date.now() / 1000 + 1);
  });
});

describe("runLegacyCompaction", () => {
  it("selects auto with full-context pressure", async () => {
    const text = samples()[0].text;
    const result = await runLegacyCompaction("legacy", text);
    assert.equal(result.tier, "auto");
    assert.ok(result.afterTokens < result.beforeTokens);
    assertNothingLost({ text }, result);
  });

  it("takes contextPctUsed and turnCount", async () => {
    const result = await runLegacyCompaction("legacy", SEED_MICRO_TEXT, { contextPctUsed: 0.1, turnCount: 2 });
    assert.equal(result.tier, "micro");
  });
});

describe("compactRequestBody", () => {
  it("compacts an Anthropic request and returns the result without messages", async () => {
    const body = anthropicRequestBody();
    const { body: out, result } = await compactRequestBody(body, { sessionId: "edge", pressure: pressure(9, 0.9) });
    assert.equal(result.tier, "auto");
    assert.equal(result.format, "anthropic");
    assert.equal(result.messages, undefined);
    assert.ok(out.length < body.length);
    assert.ok(result.afterTokens < result.beforeTokens);
    assert.equal(JSON.parse(out).model, "claude-sonnet-4-5");
    assertCamelCase(result, "result");
    // The result goes straight into the trace.
    assert.equal(JSON.parse(recordTierEvent(result)).compaction_tier, "auto");
  });
});

describe("reading the caller's objects", () => {
  // The binding keeps the JS strings of the field names it reads; a getter that calls back into
  // the library while those are in use must see them intact and leave the outer call intact.
  it("a getter that calls the library while its object is read gives the same result", async () => {
    const messages = samples()[1].messages;
    const plain = { sessionId: "s", pressure: pressure(2, 0.1), messages };
    let inner = 0;
    const withGetters = {
      get sessionId() {
        inner += selectTier(pressure(9, 0.95), { microMinTurn: 3 }) === "auto" ? 1 : 0;
        return "s";
      },
      get pressure() {
        inner += estimateTokens("reentrant") > 0 ? 1 : 0;
        return pressure(2, 0.1);
      },
      messages,
    };
    assert.deepEqual(await compactWithTier("micro", withGetters), await compactWithTier("micro", plain));
    const body = JSON.stringify({ model: "m", messages });
    const bodyOptions = { get sessionId() { inner += selectTier(pressure(9, 0.95)) === "auto" ? 1 : 0; return "s"; }, pressure: pressure(2, 0.1) };
    assert.deepEqual(await compactRequestBody(body, bodyOptions), await compactRequestBody(body, { sessionId: "s", pressure: pressure(2, 0.1) }));
    assert.equal(inner, 3);
  });
});

// Cache-aware compaction through the package (docs/design.md, "Cost"; SPEC §11): the pressure's
// cache facts, `policy.cache`, the result's `cache` report, the trace's `compaction_cache_*`
// fields, and the errors that name a bad field.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
// Unbatched: every stub outside the tail is one batch (loop.test.mjs tests the batches).
import { compact, compactWithTier, recordTierEvent } from "./unbatched.mjs";
import { agentRun, pressure } from "./helpers.mjs";
import { assertNothingLost } from "./lossless.mjs";

const STEPS = 8;
const run = (format = "anthropic") => agentRun(format, STEPS);
const ctxOf = (messages, cache = {}, idle = 5) => ({ sessionId: "cache", pressure: { ...pressure(STEPS + 1, 0.5, idle), ...cache }, messages });

describe("the prompt cache model", () => {
  it("without cache facts: no report, the same result as before", async () => {
    const messages = run();
    const result = await compactWithTier("micro", ctxOf(messages));
    assert.equal("cache" in result, false);
    assert.ok(result.tokensSaved > 0);
  });

  it("a warm cache defers micro's edits that are worth less than the rewrite, and says so", async () => {
    const messages = run();
    const plain = await compactWithTier("micro", ctxOf(messages));
    const ctx = ctxOf(messages, { cachedTokens: plain.beforeTokens });
    const result = await compactWithTier("micro", ctx, { policy: { cache: { expectedRemainingSteps: 1 } } });
    assert.equal(result.tokensSaved, 0, result.reason);
    assert.match(result.reason, /cache warm: deferred a batch of \d+ edit\(s\): expected savings [\d.e-]+ USD over 1 calls <= rewrite cost [\d.e-]+ USD/);
    assert.deepEqual(Object.keys(result.cache), ["warm", "invalidatedTokens", "rewriteCostUsd", "expectedSavingsUsd", "deferred"]);
    assert.equal(result.cache.warm, true);
    assert.equal(result.cache.deferred, true);
    assert.equal(result.messages.every((m, i) => m === messages[i]), true, "the input comes back as it is");
  });

  it("the same edits are made when the session has enough steps left to earn the rewrite back", async () => {
    const messages = run();
    const plain = await compactWithTier("micro", ctxOf(messages));
    const ctx = ctxOf(messages, { cachedTokens: plain.beforeTokens });
    const result = await compactWithTier("micro", ctx, { policy: { cache: { expectedRemainingSteps: 200 } } });
    assert.equal(result.tokensSaved, plain.tokensSaved);
    assert.ok(result.cache.expectedSavingsUsd > result.cache.rewriteCostUsd, JSON.stringify(result.cache));
    assertNothingLost(ctx, result);
  });

  it("a cache past its lifetime is cold: every edit is made, at no rewrite cost", async () => {
    const messages = run();
    const result = await compactWithTier("micro", ctxOf(messages, { cachedTokens: 1e6 }, 301), { policy: { cache: { ttlSeconds: 300, expectedRemainingSteps: 1 } } });
    assert.ok(result.tokensSaved > 0);
    assert.deepEqual({ warm: result.cache.warm, invalidated: result.cache.invalidatedTokens, cost: result.cache.rewriteCostUsd }, { warm: false, invalidated: 0, cost: 0 });
  });

  it("the provider's prices from policy.cache, and the trace line carries compaction_cache_*", async () => {
    const messages = run("openai");
    const ctx = { ...ctxOf(messages, { cachedTokens: 50_000, contextWindowTokens: 400_000 }), costPer1kTokens: 0.0025 };
    const result = await compact(ctx, { policy: { cache: { cacheReadPer1k: 0.00025, cacheWritePer1k: 0.0025, expectedRemainingSteps: 30 } } });
    assert.ok(result.cache, result.reason);
    const line = JSON.parse(recordTierEvent(result, { trace_id: "t1" }));
    assert.equal(line.compaction_cache_warm, result.cache.warm);
    assert.equal(line.compaction_cache_invalidated_tokens, result.cache.invalidatedTokens);
    assert.equal(line.compaction_cache_rewrite_cost_usd, result.cache.rewriteCostUsd);
    assert.equal(line.compaction_cache_expected_savings_usd, result.cache.expectedSavingsUsd);
    assert.equal(line.compaction_cache_deferred, result.cache.deferred);
    // A report is written as the core computes it: what is left of the invalidated tokens is
    // written instead of all of them read, per 1k tokens.
    const { invalidatedTokens } = result.cache;
    const rewrite = Math.max(0, ((invalidatedTokens - Math.min(invalidatedTokens, result.tokensSaved)) * 0.0025 - invalidatedTokens * 0.00025) / 1000);
    assert.ok(Math.abs(result.cache.rewriteCostUsd - rewrite) < 1e-12, `${result.cache.rewriteCostUsd} vs ${rewrite}`);
  });

  it("auto is never deferred: the window is at risk", async () => {
    const messages = run();
    const ctx = { ...ctxOf(messages, { cachedTokens: 1e6 }), pressure: { ...pressure(STEPS + 1, 0.9, 5), cachedTokens: 1e6 } };
    const result = await compactWithTier("auto", ctx, { policy: { cache: { expectedRemainingSteps: 0 } } });
    assert.ok(result.tokensSaved > 0, result.reason);
    assert.equal(result.cache.warm, true);
    assert.ok(result.cache.invalidatedTokens > 0);
  });

  it("bad cache facts and settings are errors naming the field", async () => {
    const messages = run();
    await assert.rejects(compactWithTier("micro", ctxOf(messages, { cachedTokens: -1 })), (error) => error instanceof RangeError && /pressure\.cachedTokens must be a finite number >= 0, got -1/.test(error.message));
    await assert.rejects(compactWithTier("micro", ctxOf(messages, { contextWindowTokens: "big" })), (error) => error instanceof TypeError && /pressure\.contextWindowTokens/.test(error.message));
    await assert.rejects(compactWithTier("micro", ctxOf(messages), { policy: { cache: { ttl: 1 } } }), (error) => error instanceof TypeError && /policy\.cache\.ttl/.test(error.message));
    await assert.rejects(compactWithTier("micro", ctxOf(messages), { policy: { cache: { cacheReadPer1k: Number.NaN } } }), (error) => error instanceof RangeError && /policy\.cache\.cacheReadPer1k/.test(error.message));
  });
});

// The explicit-init entry point browsers and web workers get ("browser"/"worker"/"default"
// conditions, also importable as "tiered-compaction/web"), exercised in Node.
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { describe, it } from "node:test";
import * as web from "tiered-compaction/web";

const require = createRequire(import.meta.url);
const pressure = { turnCount: 2, contextPctUsed: 0.1, idleSeconds: 0, sessionComplete: false };
const wasmPath = require.resolve("tiered-compaction/tiered_compaction_bg.wasm");

describe("tiered-compaction/web", () => {
  it("exports the API with init and initSync", () => {
    for (const name of ["init", "initSync", "selectTier", "compact", "compactWithTier", "recordTierEvent", "runLegacyCompaction", "compactRequestBody", "estimateTokens"]) {
      assert.equal(typeof web[name], "function", name);
    }
    // The constant needs no init.
    assert.equal(web.TIER_COST_WEIGHT.auto, 0.5);
  });

  it("throws a clear Error before init, and the async exports reject", async () => {
    assert.throws(() => web.selectTier(pressure), (error) => {
      assert.ok(error instanceof Error);
      assert.equal(error.code, "ERR_TC_NOT_INITIALISED");
      assert.match(error.message, /selectTier\(\) was called before the WebAssembly module was initialised; in browsers and workers, await init\(\)/);
      return true;
    });
    await assert.rejects(web.compact({ sessionId: "s", pressure, text: "x" }), { code: "ERR_TC_NOT_INITIALISED" });
  });

  it("init(bytes) instantiates; later calls are no-ops", async () => {
    const bytes = await readFile(wasmPath);
    await web.init(bytes);
    await web.init();
    assert.equal(web.selectTier(pressure), "micro");
    const result = await web.compact({ sessionId: "s", pressure, text: "```tool_result name=bash\n" + "C".repeat(900) + "\n```" });
    assert.equal(result.afterTokens, 36);
  });

  it("accepts a compiled WebAssembly.Module (initSync, as in workers)", async () => {
    // A fresh copy of the module graph: query strings make Node load new module instances.
    const url = new URL(`${import.meta.resolve("tiered-compaction/web")}?fresh`);
    const fresh = await import(url.href);
    assert.throws(() => fresh.estimateTokens("abcd"), { code: "ERR_TC_NOT_INITIALISED" });
    fresh.initSync(new WebAssembly.Module(await readFile(wasmPath)));
    assert.equal(fresh.estimateTokens("abcd"), 1);
  });
});

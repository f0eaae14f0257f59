// The explicit-init entry point browsers and web workers get ("browser"/"worker"/"default"
// conditions, also importable as "tiered-compaction/web"), exercised in Node.
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { describe, it } from "node:test";
import * as web from "tiered-compaction/web";
import { inWorker } from "./helpers.mjs";

const require = createRequire(import.meta.url);
const pressure = { turnCount: 2, contextPctUsed: 0.1, idleSeconds: 0, sessionComplete: false };
const wasmPath = require.resolve("tiered-compaction/tiered_compaction_bg.wasm");

describe("tiered-compaction/web", () => {
  it("exports the API with init and initSync", () => {
    for (const name of ["init", "initSync", "selectTier", "compact", "compactWithTier", "recordTierEvent", "runLegacyCompaction", "compactRequestBody", "estimateTokens", "restore", "recallToolDefinition", "recall"]) {
      assert.equal(typeof web[name], "function", name);
    }
    // The constant needs no init, nor does recall (plain JS over the host's archives).
    assert.equal(web.TIER_COST_WEIGHT.auto, 0.5);
    const entry = { id: "a0123456789ab", kind: "tool_result", content: "body", location: "messages[3].content", replacement: "stub" };
    assert.equal(web.recall([entry], "a0123456789ab"), entry);
  });

  it("throws a clear Error before init, and the async exports reject", async () => {
    assert.throws(() => web.selectTier(pressure), (error) => {
      assert.ok(error instanceof Error);
      assert.equal(error.code, "ERR_TC_NOT_INITIALISED");
      assert.match(error.message, /selectTier\(\) was called before the WebAssembly module was initialised; in browsers and workers, await init\(\)/);
      return true;
    });
    await assert.rejects(web.compact({ sessionId: "s", pressure, text: "x" }), { code: "ERR_TC_NOT_INITIALISED" });
    // The synchronous exports that run in WebAssembly throw the same.
    assert.throws(() => web.restore({ text: "x", archive: [] }), { code: "ERR_TC_NOT_INITIALISED" });
    assert.throws(() => web.recallToolDefinition("openai"), { code: "ERR_TC_NOT_INITIALISED" });
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
    // In a worker: init() above loaded the module for this whole realm.
    const outcome = await inWorker(
      `const web = await import(workerData.url);
let before = null;
try {
  web.estimateTokens("abcd");
} catch (error) {
  before = error.code;
}
web.initSync(new WebAssembly.Module(require("node:fs").readFileSync(workerData.wasmPath)));
return { before, after: web.estimateTokens("abcd") };`,
      { url: import.meta.resolve("tiered-compaction/web"), wasmPath },
    );
    assert.deepEqual(outcome, { before: "ERR_TC_NOT_INITIALISED", after: 1 });
  });

  it("shares one module graph with the other entry points in one realm (js/index.mjs)", async () => {
    const node = await import("tiered-compaction");
    for (const name of Object.keys(node)) assert.equal(web[name], node[name], name);
    assert.deepEqual(Object.keys(web), Object.keys(node));
  });
});

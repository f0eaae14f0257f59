// tiered-compaction/inline: the WebAssembly module embedded in the JavaScript (js/inline.mjs,
// js/embedded.mjs, pkg/inline-wasm.mjs written by scripts/build.mjs), for bundlers that do not
// copy the .wasm file. Bundlers and Chromium: tests/consumers/run.mjs (esbuild, Rollup).
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import * as fs from "node:fs";
import { createRequire } from "node:module";
import * as os from "node:os";
import * as path from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath, pathToFileURL } from "node:url";
import { gunzipSync } from "node:zlib";
import * as inline from "tiered-compaction/inline";
import { SEED_MICRO_TEXT, inWorker } from "./helpers.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const pkg = path.join(root, "pkg");
const pressure = { turnCount: 2, contextPctUsed: 0.1, idleSeconds: 0, sessionComplete: false };

/** pkg/ copied without its .wasm file: what is left to load is what the JavaScript holds. */
function packageWithoutWasm() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "tc-inline-"));
  fs.cpSync(pkg, dir, { recursive: true, filter: (file) => !file.endsWith(".wasm") });
  assert.equal(fs.existsSync(path.join(dir, "web", "tiered_compaction_bg.wasm")), false);
  return dir;
}

describe("tiered-compaction/inline", () => {
  it("exports the browser entry point's API, the same functions as the other entry points in one realm", async () => {
    const web = await import("tiered-compaction/web");
    assert.deepEqual(Object.keys(inline), Object.keys(web));
    const node = await import("tiered-compaction");
    for (const name of Object.keys(node)) assert.equal(inline[name], node[name], name);
  });

  it("init() compiles the embedded module with no fetch and no .wasm file; an embedded copy wins over the browser entry's URL", async () => {
    const dir = packageWithoutWasm();
    try {
      const outcome = await inWorker(
        `const fetched = [];
globalThis.fetch = (request) => {
  fetched.push(String(request?.url ?? request));
  throw new Error("fetch called");
};
// The browser entry point first: it names the .wasm file beside it (absent here) for init().
const web = await import(workerData.browser);
const inline = await import(workerData.inline);
let before = null;
try {
  inline.selectTier(workerData.pressure);
} catch (error) {
  before = error.code;
}
await web.init();
const result = await inline.compact({ sessionId: "inline", pressure: workerData.pressure, text: workerData.text });
return { before, fetched, result: result.tier + " " + result.beforeTokens + " -> " + result.afterTokens, same: web.compact === inline.compact };`,
        {
          browser: pathToFileURL(path.join(dir, "browser.mjs")).href,
          inline: pathToFileURL(path.join(dir, "inline.mjs")).href,
          pressure,
          text: SEED_MICRO_TEXT,
        },
      );
      assert.deepEqual(outcome, { before: "ERR_TC_NOT_INITIALISED", fetched: [], result: "micro 232 -> 36", same: true });
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it("imports no module that names import.meta (what bundlers act on) nor a .wasm file", () => {
    const seen = [];
    const visit = (name) => {
      if (seen.includes(name)) return;
      seen.push(name);
      const source = fs.readFileSync(path.join(pkg, name), "utf8");
      // Comments aside (they may say why): bundlers read code.
      const code = source.replace(/\/\*[\s\S]*?\*\//g, "").replace(/^\s*\/\/.*$/gm, "");
      assert.doesNotMatch(code, /\bimport\.meta\b/, name);
      for (const [, specifier] of source.matchAll(/^(?:import|export)\b[^;]*?\bfrom "([^"]+)";$/gms)) {
        assert.match(specifier, /^\.\/[\w/-]+\.(mjs|js)$/, `${name} imports ${specifier}`);
        visit(path.posix.join(path.posix.dirname(name), specifier));
      }
    };
    visit("inline.mjs");
    assert.deepEqual(seen.sort(), [
      "api.mjs",
      "embedded.mjs",
      "host-values.mjs",
      "index.mjs",
      "inline-wasm.mjs",
      "inline.mjs",
      "surrogates.mjs",
      "web/tiered_compaction.js",
      "weights.mjs",
    ]);
  });

  it("embeds the module the package ships, gzipped, in base64", async () => {
    const { WASM_GZIP_BASE64, WASM_SIZE } = await import(pathToFileURL(path.join(pkg, "inline-wasm.mjs")).href);
    const shipped = fs.readFileSync(path.join(pkg, "web", "tiered_compaction_bg.wasm"));
    assert.equal(WASM_SIZE, shipped.length);
    assert.ok(gunzipSync(Buffer.from(WASM_GZIP_BASE64, "base64")).equals(shipped));
  });

  it("decodes base64 as Buffer does, and uses the host's Uint8Array.fromBase64 where there is one", async () => {
    const { fromBase64 } = await import(pathToFileURL(path.join(pkg, "embedded.mjs")).href);
    const native = Uint8Array.fromBase64;
    try {
      delete Uint8Array.fromBase64;
      // Every padding (0, 1 and 2 "="), every byte value.
      for (let length = 0; length < 64; length += 1) {
        const bytes = randomBytes(length);
        assert.deepEqual(Buffer.from(fromBase64(bytes.toString("base64"))), bytes, `${length} bytes`);
      }
      const all = Buffer.from(Array.from({ length: 256 }, (_, byte) => byte));
      assert.deepEqual(Buffer.from(fromBase64(all.toString("base64"))), all);
      assert.throws(() => fromBase64("abc"), /base64 of 3 characters, not a multiple of 4/);
      const given = [];
      Uint8Array.fromBase64 = (text) => {
        given.push(text);
        return new Uint8Array([7]);
      };
      assert.deepEqual(fromBase64("Bw=="), new Uint8Array([7]));
      assert.deepEqual(given, ["Bw=="]);
    } finally {
      if (native === undefined) delete Uint8Array.fromBase64;
      else Uint8Array.fromBase64 = native;
    }
  });

  it("without DecompressionStream, init() rejects with an error that names it; init(bytes) still works", async () => {
    const outcome = await inWorker(
      `delete globalThis.DecompressionStream;
const inline = await import(workerData.url);
const failure = await inline.init().then(() => null, (error) => ({ code: error.code, message: error.message }));
let after = null;
try {
  inline.estimateTokens("abcd");
} catch (error) {
  after = error.code;
}
await inline.init(require("node:fs").readFileSync(workerData.wasmPath));
return { failure, after, tokens: inline.estimateTokens("abcd") };`,
      { url: pathToFileURL(path.join(pkg, "inline.mjs")).href, wasmPath: path.join(pkg, "web", "tiered_compaction_bg.wasm") },
    );
    assert.equal(outcome.failure.code, "ERR_TC_NOT_INITIALISED");
    assert.match(outcome.failure.message, /^tiered-compaction: init\(\) cannot unpack the module tiered-compaction\/inline embeds: this host has no DecompressionStream/);
    assert.deepEqual({ after: outcome.after, tokens: outcome.tokens }, { after: "ERR_TC_NOT_INITIALISED", tokens: 1 });
  });

  it("initSync() with no module throws a TypeError naming `module` (the embedded copy unpacks asynchronously)", async () => {
    const outcome = await inWorker(
      `const inline = await import(workerData.url);
try {
  inline.initSync();
  return "no error";
} catch (error) {
  return { name: error.name, code: error.code, path: error.path, message: error.message };
}`,
      { url: pathToFileURL(path.join(pkg, "inline.mjs")).href },
    );
    assert.deepEqual(outcome, {
      name: "TypeError",
      code: "ERR_TC_INVALID_TYPE",
      path: "module",
      message: "module must be the module's bytes or a compiled WebAssembly.Module, got undefined; await init() loads the module by itself",
    });
  });

  it("require() gives the ES module itself (inline.cjs): the same functions, the embedded copy shipped once", () => {
    const required = createRequire(import.meta.url)("tiered-compaction/inline");
    for (const name of Object.keys(inline)) assert.equal(required[name], inline[name], name);
    const files = fs.readdirSync(pkg).filter((name) => fs.statSync(path.join(pkg, name)).size > 100_000);
    assert.deepEqual(files.sort(), ["inline-wasm.mjs"]);
  });

  it("resolves to inline.mjs (import), inline.cjs (require), and the workerd entry point under workerd", () => {
    const resolve = (conditions, how) =>
      execFileSync(
        "node",
        [...conditions.map((name) => `--conditions=${name}`), "--input-type=module", "-e", `import { createRequire } from "node:module"; console.log(${how})`],
        { cwd: root, encoding: "utf8" },
      ).trim();
    const file = (name) => pathToFileURL(path.join(pkg, name)).href;
    assert.equal(resolve([], 'import.meta.resolve("tiered-compaction/inline")'), file("inline.mjs"));
    assert.equal(resolve([], 'createRequire(import.meta.url).resolve("tiered-compaction/inline")'), path.join(pkg, "inline.cjs"));
    // workerd refuses to compile WebAssembly from bytes; wrangler imports the .wasm as a module.
    assert.equal(resolve(["workerd"], 'import.meta.resolve("tiered-compaction/inline")'), file("workerd.mjs"));
  });
});

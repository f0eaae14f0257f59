// The package's public exports (the README's API): the one list every entry point re-exports.
// An entry point only loads: it hands the compiled module to `initSync` when it can get one
// synchronously (node.mjs, deno.mjs, workerd.mjs, node.cjs), then `export *` from here;
// browser.mjs leaves loading to the host's `init()`. node.cjs gets a generated CommonJS copy
// (index.cjs), so CommonJS exports the same names through the same code.
//
// One module graph holds one API (one wasm instance at a time): two entry points loaded into one
// JS realm (node.mjs and `tiered-compaction/web` in one Node process) share it, so whichever
// loads first initialises both.
import { createApi } from "./api.mjs";
import { TIER_COST_WEIGHT } from "./weights.mjs";
import { createGlue } from "./web/tiered_compaction.js";

// Test hooks (api.mjs) are registered under this file's name: index.cjs in the CommonJS copy.
const api = createApi(createGlue, "index.mjs");
let loading = null;

export const {
  selectTier,
  compact,
  compactWithTier,
  recordTierEvent,
  runLegacyCompaction,
  compactRequestBody,
  estimateTokens,
  restore,
  recallToolDefinition,
} = api;
export { TIER_COST_WEIGHT };

/**
 * The archive entry a model asked for by id (the `recall_archived` tool's answer): searched in
 * one result's archive or in a list of them, newest or oldest first as the host stored them.
 * Returns the host's own entry object, or `undefined` when no entry has that id. Pure JS: the
 * archives never cross into WebAssembly.
 * @param {Array<object> | Array<Array<object>>} archives
 * @param {string} id
 */
export function recall(archives, id) {
  if (!Array.isArray(archives)) throw invalid("archives", `must be an array of archive entries (or of archives), got ${typeName(archives)}`);
  if (typeof id !== "string") throw invalid("id", `must be a string, got ${typeName(id)}`);
  for (const item of archives) {
    for (const entry of Array.isArray(item) ? item : [item]) {
      if (entry !== null && typeof entry === "object" && entry.id === id) return entry;
    }
  }
  return undefined;
}

function invalid(path, problem) {
  const error = new TypeError(`${path} ${problem}`);
  error.code = "ERR_TC_INVALID_TYPE";
  error.path = path;
  return error;
}

function typeName(value) {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  return typeof value;
}

/**
 * Instantiates the WebAssembly module; browsers and web workers call (and await) it once before
 * the other exports. By default it fetches the .wasm file next to this module (bundlers such as
 * Vite and webpack resolve that URL); pass a URL, a Response, the bytes or a compiled
 * WebAssembly.Module to load it from elsewhere. Idempotent: later calls return the same promise,
 * and it resolves at once where the entry point loaded the module on import (Node, Deno, Bun,
 * workerd). After a failure (e.g. a network error) a new call tries again.
 * @param {URL | string | Request | Response | BufferSource | WebAssembly.Module | Promise<any>} [input]
 * @returns {Promise<void>}
 */
export function init(input) {
  if (api.isReady()) return Promise.resolve();
  if (loading === null) {
    loading = compile(input).then(
      (compiled) => api.bindAsync(compiled),
      (error) => {
        loading = null;
        throw error;
      },
    );
  }
  return loading;
}

/**
 * Instantiates the WebAssembly module synchronously from its bytes or a compiled module
 * (browsers limit synchronous compilation of large modules on the main thread; fine in workers).
 * A no-op once the module is loaded.
 * @param {BufferSource | WebAssembly.Module} module
 */
export function initSync(module) {
  if (api.isReady()) return;
  api.bind(module instanceof WebAssembly.Module ? module : new WebAssembly.Module(module));
}

/** The compiled module from whatever `init` was given (the module is kept: a trap re-instantiates it). */
async function compile(input) {
  let source = await (input ?? new URL("./web/tiered_compaction_bg.wasm", import.meta.url));
  if (source instanceof WebAssembly.Module) return source;
  if (typeof source === "string" || source instanceof URL || (typeof Request === "function" && source instanceof Request)) {
    source = await fetch(source);
  }
  if (typeof Response === "function" && source instanceof Response) {
    if (!source.ok) {
      throw new Error(`tiered-compaction: failed to fetch the WebAssembly module: ${source.status} ${source.statusText} (${source.url})`);
    }
    // Streaming compilation needs the right content type; servers that send another get the slow path.
    const type = source.headers.get("content-type") ?? "";
    if (typeof WebAssembly.compileStreaming === "function" && type.split(";")[0].trim() === "application/wasm") {
      return WebAssembly.compileStreaming(source);
    }
    return WebAssembly.compile(await source.arrayBuffer());
  }
  return WebAssembly.compile(source);
}

// The package's public exports (the README's API): the one list every entry point re-exports.
// An entry point only loads: it hands the compiled module to `initSync` when it can get one
// synchronously (node.mjs, deno.mjs, workerd.mjs, node.cjs), then `export *` from here;
// browser.mjs leaves loading to the host's `init()`. node.cjs gets a generated CommonJS copy
// (index.cjs), so CommonJS exports the same names through the same code.
//
// One module graph holds one API (one wasm instance at a time): two entry points loaded into one
// JS realm (node.mjs and `tiered-compaction/web` in one Node process) share it, so whichever
// loads first initialises both.
import { createApi, defaultWasmSource } from "./api.mjs";
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
 * the other exports. By default it loads the module the entry point names (api.mjs
 * `setWasmSource`): browser.mjs fetches the .wasm file beside the package's JavaScript (bundlers
 * such as Vite and webpack resolve that URL), inline.mjs compiles its embedded copy. Pass a URL,
 * a Response, the bytes or a compiled WebAssembly.Module to load it from elsewhere. Idempotent:
 * later calls return the same promise, and it resolves at once where the entry point loaded the
 * module on import (Node, Deno, Bun, workerd). After a failure (e.g. a network error) a new call
 * tries again.
 * @param {URL | string | Request | Response | BufferSource | WebAssembly.Module | Promise<any>} [input]
 * @returns {Promise<void>}
 */
export function init(input) {
  if (api.isReady()) return Promise.resolve();
  // Node's entry points load on import; when they found no .wasm, init() says so (init(bytes) still works).
  const failed = input === undefined ? api.loadFailure("init") : null;
  if (failed !== null) return Promise.reject(failed);
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
 * (Chromium refuses to compile over 8 MiB synchronously on the main thread, and over 4 KiB before
 * Chrome 114; workers have no limit). A no-op once the module is loaded.
 * @param {BufferSource | WebAssembly.Module} module
 */
export function initSync(module) {
  if (api.isReady()) return;
  // No default here: tiered-compaction/inline's copy is gzipped, and unpacking it is asynchronous.
  if (module === undefined || module === null) {
    throw invalid("module", `must be the module's bytes or a compiled WebAssembly.Module, got ${typeName(module)}; await init() loads the module by itself`);
  }
  api.bind(module instanceof WebAssembly.Module ? module : new WebAssembly.Module(module));
}

/** The compiled module from whatever `init` was given (the module is kept: a trap re-instantiates it). */
async function compile(input) {
  const given = input !== undefined;
  const fallback = given ? null : defaultWasmSource();
  if (fallback !== null && "embedded" in fallback) return fallback.embedded();
  if (!given && fallback === null) {
    throw wasmLoadError("init() was given no module, and no entry point of the package was loaded to name one: pass its URL, its bytes, a Response or a compiled WebAssembly.Module");
  }
  let source = await (given ? input : fallback.url());
  if (source instanceof WebAssembly.Module) return source;
  if (typeof Response === "function" && source instanceof Response) return fromResponse(source, String(source.url), given);
  if (typeof Request === "function" && source instanceof Request) return fromUrl(source, String(source.url), given);
  // A URL, a string, or a bundler's stand-in for a URL (webpack's RelativeURL has `href`).
  if (typeof source === "string" || source instanceof URL || typeof source?.href === "string") {
    const url = typeof source === "string" ? source : String(source.href);
    try {
      return await fromUrl(url, url, given);
    } catch (error) {
      // Vite 6 and 7 dev servers serve dependencies pre-bundled from node_modules/.vite/deps/, away
      // from the .wasm file, and answer the missing file with index.html. The package itself is
      // still served from node_modules/tiered-compaction/ beside that directory.
      const beside = given ? null : viteDepsFallback(url);
      if (beside === null) throw error;
      try {
        return await fromUrl(beside, beside, given);
      } catch {
        throw error;
      }
    }
  }
  try {
    return await WebAssembly.compile(source);
  } catch (cause) {
    throw wasmLoadError(`init() could not compile the bytes it was given (${describeStart(source)}): ${cause?.message ?? cause}`, cause);
  }
}

/** Where Vite's dev server serves the package's own .wasm when it pre-bundled the entry point away from it (or null). */
function viteDepsFallback(url) {
  const at = url.indexOf("/node_modules/.vite/");
  return at === -1 ? null : `${url.slice(0, at)}/node_modules/tiered-compaction/web/tiered_compaction_bg.wasm`;
}

/** Fetches (or, for a file: URL in Node, reads) the module at `url` and compiles it. */
async function fromUrl(request, url, given) {
  if (url.startsWith("file:") && typeof globalThis.process?.versions?.node === "string") {
    // Node's fetch does not read files (tiered-compaction/web's init() in Node). A module name in a
    // variable, marked for bundlers to leave alone: this path never runs in a browser.
    const fsName = "node:fs/promises";
    const fs = globalThis.process.getBuiltinModule?.(fsName) ?? (await import(/* webpackIgnore: true */ /* @vite-ignore */ fsName));
    let bytes;
    try {
      bytes = await fs.readFile(new URL(url));
    } catch (cause) {
      throw wasmLoadError(`init() could not read the WebAssembly module at ${url}: ${cause?.code ?? cause?.message ?? cause}`, cause);
    }
    return compileBytes(bytes, url, null, given);
  }
  let response;
  try {
    response = await fetch(request);
  } catch (cause) {
    throw wasmLoadError(`init() could not fetch the WebAssembly module from ${url} (${cause?.message ?? cause}). ${fix(given)}`, cause);
  }
  return fromResponse(response, url, given);
}

/** Compiles a fetched module, or says what came back instead. */
async function fromResponse(response, url, given) {
  const where = response.url || url;
  if (!response.ok) {
    throw wasmLoadError(`init() could not load the WebAssembly module: ${where} answered ${response.status} ${response.statusText}`.trimEnd() + `. ${fix(given)}`);
  }
  // Streaming compilation needs the right content type; servers that send another get the slow path.
  const type = (response.headers.get("content-type") ?? "").split(";")[0].trim().toLowerCase();
  if (typeof WebAssembly.compileStreaming === "function" && type === "application/wasm") {
    try {
      return await WebAssembly.compileStreaming(response);
    } catch (cause) {
      throw wasmLoadError(`init() could not compile the WebAssembly module from ${where}: ${cause?.message ?? cause}`, cause);
    }
  }
  return compileBytes(new Uint8Array(await response.arrayBuffer()), where, type, given);
}

const MAGIC = [0x00, 0x61, 0x73, 0x6d];

async function compileBytes(bytes, where, type, given) {
  const view = bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes);
  if (!MAGIC.every((byte, index) => view[index] === byte)) {
    const html = type === "text/html" || /^\s*</.test(new TextDecoder().decode(view.subarray(0, 64)));
    throw wasmLoadError(
      html
        ? `init() expected the WebAssembly module at ${where} but got an HTML page (${describeStart(view)}): the server ` +
            "answered a file it does not have with a page, as dev servers do. Vite 6 and 7 dev servers pre-bundle " +
            'dependencies away from their files: add optimizeDeps: { exclude: ["tiered-compaction"] } to vite.config. ' +
            (given ? "Check the URL given to init()." : "Elsewhere, pass the module's URL, its bytes or a Response to init().")
        : `init() expected the WebAssembly module at ${where} but got ${view.length} bytes that are not one (${describeStart(view)}). ${fix(given)}`,
    );
  }
  try {
    return await WebAssembly.compile(view);
  } catch (cause) {
    throw wasmLoadError(`init() could not compile the WebAssembly module from ${where}: ${cause?.message ?? cause}`, cause);
  }
}

/** What to do when the module was not where it was looked for. */
function fix(given) {
  return given
    ? "Check the URL given to init()."
    : "The module ships in the package as web/tiered_compaction_bg.wasm, and init() looks for it next to the " +
        "package's JavaScript, a URL relative to the module that Vite, webpack, Parcel and Next copy into the " +
        'build. esbuild and Rollup (without a plugin for it) do not: import from "tiered-compaction/inline" instead, ' +
        "whose init() compiles a copy of the module embedded in its JavaScript (no file to serve). Or, with esbuild, " +
        'build with --loader:.wasm=file and pass the URL to init(): import wasm from ' +
        '"tiered-compaction/tiered_compaction_bg.wasm"; await init(wasm). Elsewhere, serve the file yourself and ' +
        "pass its URL, its bytes or a Response to init().";
}

/** The first bytes, in hex, and as text when they read as text. */
function describeStart(bytes) {
  if (!(bytes instanceof Uint8Array)) return typeof bytes === "object" && bytes !== null ? (bytes.constructor?.name ?? "an object") : typeof bytes;
  const hex = [...bytes.subarray(0, 4)].map((byte) => byte.toString(16).padStart(2, "0")).join(" ");
  return `first bytes ${hex || "none"}; expected 00 61 73 6d`;
}

function wasmLoadError(message, cause) {
  const error = new Error(`tiered-compaction: ${message}`, cause === undefined ? undefined : { cause });
  error.code = "ERR_TC_NOT_INITIALISED";
  return error;
}

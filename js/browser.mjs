// Browsers, web workers, and any runtime where reading files is not an option: call (and await)
// `init()` once before the other exports. By default it fetches the .wasm file next to this
// module (bundlers such as Vite and webpack resolve that URL); pass a URL, a Response, the bytes
// or a compiled WebAssembly.Module to load it from elsewhere.
import initGlue, * as glue from "./web/tiered_compaction.js";
import { createApi } from "./api.mjs";

const api = createApi();
let loading = null;

export const {
  selectTier,
  compact,
  compactWithTier,
  recordTierEvent,
  runLegacyCompaction,
  compactRequestBody,
  estimateTokens,
} = api;
export { TIER_COST_WEIGHT } from "./weights.mjs";

/**
 * Instantiates the WebAssembly module. Idempotent: later calls return the same promise; after
 * a failure (e.g. a network error) a new call tries again.
 * @param {URL | string | Request | Response | BufferSource | WebAssembly.Module} [input]
 * @returns {Promise<void>}
 */
export function init(input) {
  if (api.isReady()) return Promise.resolve();
  if (loading === null) {
    loading = initGlue(input === undefined ? undefined : { module_or_path: input }).then(
      () => api.bind(glue),
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
 * @param {BufferSource | WebAssembly.Module} module
 */
export function initSync(module) {
  if (api.isReady()) return;
  glue.initSync({ module });
  api.bind(glue);
}

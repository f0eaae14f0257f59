// Cloudflare Workers (workerd, wrangler): the .wasm file is imported as a compiled
// WebAssembly.Module (wrangler's default rule for .wasm imports; a `wasm` module in a workerd
// config) and instantiated synchronously on import, so no init step is needed.
import { createApi } from "./api.mjs";
import { createGlue } from "./web/tiered_compaction.js";
import wasmModule from "./web/tiered_compaction_bg.wasm";

const api = createApi(createGlue, "workerd.mjs");
api.bind(wasmModule);

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

/** Already initialised on import; kept so code written for browsers runs unchanged. */
export function init() {
  return Promise.resolve();
}

/** Already initialised on import; a no-op. */
export function initSync() {}

// Deno: the wasm bytes are read with Deno.readFileSync (needs --allow-read), compiled and
// instantiated synchronously on import, so `import { compact } from "npm:tiered-compaction"`
// needs no init.
import { createApi } from "./api.mjs";
import { createGlue } from "./web/tiered_compaction.js";

const api = createApi(createGlue, "deno.mjs");
api.bind(new WebAssembly.Module(Deno.readFileSync(new URL("./web/tiered_compaction_bg.wasm", import.meta.url))));

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

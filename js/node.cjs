// Node.js, CommonJS (`require("tiered-compaction")`): wasm-bindgen's nodejs build, which reads
// and instantiates the wasm file synchronously when required. Exactly the names of SPEC §2.
"use strict";

const glue = require("./node/tiered_compaction.js");
const { TIER_COST_WEIGHT } = require("./weights.cjs");

module.exports = {
  selectTier: glue.selectTier,
  compact: glue.compact,
  compactWithTier: glue.compactWithTier,
  recordTierEvent: glue.recordTierEvent,
  runLegacyCompaction: glue.runLegacyCompaction,
  compactRequestBody: glue.compactRequestBody,
  estimateTokens: glue.estimateTokens,
  TIER_COST_WEIGHT,
  /** Already initialised on require; kept so code written for browsers runs unchanged. */
  init: () => Promise.resolve(),
  /** Already initialised on require; a no-op. */
  initSync: () => {},
};

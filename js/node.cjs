// Node.js, CommonJS (`require("tiered-compaction")`): reads, compiles and instantiates the wasm
// module synchronously when required. Exactly the names of SPEC §2, through the same API code as
// the ES-module entry points (api.cjs and node/glue.cjs are generated from api.mjs and the web glue).
"use strict";

const { readFileSync } = require("node:fs");
const path = require("node:path");
const { createApi } = require("./api.cjs");
const { createGlue } = require("./node/glue.cjs");
const { TIER_COST_WEIGHT } = require("./weights.cjs");

const api = createApi(createGlue, "node.cjs");
api.bind(new WebAssembly.Module(readFileSync(path.join(__dirname, "web", "tiered_compaction_bg.wasm"))));

module.exports = {
  selectTier: api.selectTier,
  compact: api.compact,
  compactWithTier: api.compactWithTier,
  recordTierEvent: api.recordTierEvent,
  runLegacyCompaction: api.runLegacyCompaction,
  compactRequestBody: api.compactRequestBody,
  estimateTokens: api.estimateTokens,
  TIER_COST_WEIGHT,
  /** Already initialised on require; kept so code written for browsers runs unchanged. */
  init: () => Promise.resolve(),
  /** Already initialised on require; a no-op. */
  initSync: () => {},
};

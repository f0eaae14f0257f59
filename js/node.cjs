// Node.js, CommonJS (`require("tiered-compaction")`): reads, compiles and instantiates the wasm
// module synchronously when required. The same exports through the same code as the ES-module
// entry points (index.cjs, api.cjs and node/glue.cjs are generated from index.mjs, api.mjs and
// the web glue).
"use strict";

const { readFileSync } = require("node:fs");
const path = require("node:path");
const { initSync } = require("./index.cjs");

initSync(new WebAssembly.Module(readFileSync(path.join(__dirname, "web", "tiered_compaction_bg.wasm"))));
module.exports = require("./index.cjs");

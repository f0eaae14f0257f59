// Node.js, CommonJS (`require("tiered-compaction")`): reads, compiles and instantiates the wasm
// module synchronously when required. The same exports through the same code as the ES-module
// entry points (index.cjs, api.cjs, node-load.cjs and node/glue.cjs are generated from
// index.mjs, api.mjs, node-load.mjs and the web glue). Where the file is found:
// node-load.mjs (beside this file, else the installed package).
"use strict";

const path = require("node:path");
const { initSync } = require("./index.cjs");
const { reportLoadFailure } = require("./api.cjs");
const { readWasm } = require("./node-load.cjs");

const wasm = readWasm(() => path.join(__dirname, "web", "tiered_compaction_bg.wasm"), __filename);
if (wasm.bytes !== undefined) initSync(new WebAssembly.Module(wasm.bytes));
else reportLoadFailure(wasm.failure);
module.exports = require("./index.cjs");

// Node.js and Bun, ES modules: the wasm bytes are read from disk, compiled and instantiated
// synchronously on import, so `import { compact } from "tiered-compaction"` works with no init step.
// Where the file is found: node-load.mjs (beside this file, else the installed package).
import { initSync } from "./index.mjs";
import { reportLoadFailure } from "./api.mjs";
import { readWasm } from "./node-load.mjs";

// `import.meta.url` is undefined once esbuild has bundled this file into CommonJS: `new URL` then
// throws, and readWasm goes on to the installed package.
const wasm = readWasm(() => new URL("./web/tiered_compaction_bg.wasm", import.meta.url), import.meta.url);
if (wasm.bytes !== undefined) initSync(new WebAssembly.Module(wasm.bytes));
else reportLoadFailure(wasm.failure);
export * from "./index.mjs";

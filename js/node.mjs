// Node.js and Bun, ES modules: the wasm bytes are read from disk, compiled and instantiated
// synchronously on import, so `import { compact } from "tiered-compaction"` works with no init step.
import { readFileSync } from "node:fs";
import { initSync } from "./index.mjs";

initSync(new WebAssembly.Module(readFileSync(new URL("./web/tiered_compaction_bg.wasm", import.meta.url))));
export * from "./index.mjs";

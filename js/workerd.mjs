// Cloudflare Workers (workerd, wrangler): the .wasm file is imported as a compiled
// WebAssembly.Module (wrangler's default rule for .wasm imports; a `wasm` module in a workerd
// config) and instantiated synchronously on import, so no init step is needed.
import { initSync } from "./index.mjs";
import wasmModule from "./web/tiered_compaction_bg.wasm";

initSync(wasmModule);
export * from "./index.mjs";

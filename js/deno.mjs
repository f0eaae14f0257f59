// Deno: the wasm bytes are read with Deno.readFileSync (needs --allow-read), compiled and
// instantiated synchronously on import, so `import { compact } from "npm:tiered-compaction"`
// needs no init.
import { initSync } from "./index.mjs";

initSync(new WebAssembly.Module(Deno.readFileSync(new URL("./web/tiered_compaction_bg.wasm", import.meta.url))));
export * from "./index.mjs";

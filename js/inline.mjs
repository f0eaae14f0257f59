// tiered-compaction/inline: the browser entry point's API with the WebAssembly module embedded in
// the JavaScript (inline-wasm.mjs, written by scripts/build.mjs), for bundlers that do not copy
// the file a `new URL("….wasm", import.meta.url)` names (esbuild, Rollup without a plugin for it)
// and hosts with no file to serve. Call (and await) `init()` once, as with the browser entry
// point: it compiles the embedded copy (embedded.mjs), with no request. None of the modules this
// one imports names the .wasm file or `import.meta`.
import { setWasmSource } from "./api.mjs";
import { compileEmbedded } from "./embedded.mjs";
import { WASM_GZIP_BASE64, WASM_SIZE } from "./inline-wasm.mjs";

// pkg/package.json lists this file in sideEffects: a bundler must keep the call.
setWasmSource({ embedded: () => compileEmbedded(WASM_GZIP_BASE64, WASM_SIZE) });
export * from "./index.mjs";

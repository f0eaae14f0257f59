// Browsers, web workers, and any runtime where reading files is not an option: call (and await)
// `init()` once before the other exports. By default it fetches the .wasm file next to this
// module (bundlers such as Vite and webpack resolve that URL); pass a URL, a Response, the bytes
// or a compiled WebAssembly.Module to load it from elsewhere (index.mjs).
import { setWasmSource } from "./api.mjs";

// The URL is written here, not in index.mjs, so that it is only in the graphs that load it
// (tiered-compaction/inline embeds the module); pkg/package.json lists this file in sideEffects.
setWasmSource({ url: () => new URL("./web/tiered_compaction_bg.wasm", import.meta.url) });
export * from "./index.mjs";

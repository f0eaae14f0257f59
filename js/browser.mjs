// Browsers, web workers, and any runtime where reading files is not an option: call (and await)
// `init()` once before the other exports. By default it fetches the .wasm file next to this
// module (bundlers such as Vite and webpack resolve that URL); pass a URL, a Response, the bytes
// or a compiled WebAssembly.Module to load it from elsewhere (index.mjs).
export * from "./index.mjs";

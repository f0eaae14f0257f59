// esbuild src/browser-loader.js --bundle --format=esm --outdir=out --loader:.wasm=file
// esbuild does not copy files named by new URL(..., import.meta.url): import the module's URL.
import wasm from "tiered-compaction/tiered_compaction_bg.wasm";
import { check, report } from "./check.js";

report(check(wasm));

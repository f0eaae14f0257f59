// Node.js and Bun: finds the package's .wasm file and reads it, wherever the entry point ended up.
// Used by node.mjs and (as the generated node-load.cjs) node.cjs.
//
// 1. Beside the entry point: the package as installed, and bundles that copy the file along
//    (Vite's SSR build and Rollup-based builds rewrite `new URL("./x.wasm", import.meta.url)` to
//    the copy they emit).
// 2. The installed package, resolved from where the code runs now: a server bundle that copied
//    the entry point without the file (esbuild --bundle --platform=node, webpack in Next, SvelteKit
//    adapter-node bundling a devDependency) still finds node_modules/tiered-compaction as long as
//    the package is installed at run time. Resolution starts from the entry point's own location
//    as the bundler left it (`import.meta.url`, `__filename`), then the main script, then the
//    working directory.
// The calls go through an object so that bundlers do not take `createRequire(…).resolve(…)` for
// a module to bundle (the .wasm is not JavaScript). When nothing is found, the entry point does not
// throw on import: every call throws an Error with code ERR_TC_NOT_INITIALISED that says where it
// looked and what fixes it (and `initSync(bytes)` still works).
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";

const SPECIFIER = "tiered-compaction/tiered_compaction_bg.wasm";
const node = { createRequire, readFileSync };

/**
 * @param {() => unknown} beside the file next to the entry point (evaluated here: it may throw)
 * @param {unknown} self the entry point's own URL or path as it runs (may be undefined in a bundle)
 * @returns {{ bytes: Uint8Array, failure?: undefined } | { bytes?: undefined, failure: (name: string) => Error }}
 */
export function readWasm(beside, self) {
  const tried = [];
  const attempts = [["beside the entry point", beside]];
  const bases = [self, globalThis.process?.argv?.[1], `${globalThis.process?.cwd?.() ?? "."}/`];
  for (const base of bases) {
    if (typeof base !== "string" || base === "") continue;
    attempts.push([`resolving ${SPECIFIER} from ${base}`, () => node.createRequire(base).resolve(SPECIFIER)]);
  }
  for (const [how, locate] of attempts) {
    let where;
    try {
      where = locate();
      return { bytes: node.readFileSync(/** @type {string | URL} */ (where)) };
    } catch (error) {
      const place = where === undefined ? how : String(/** @type {{ href?: string }} */ (where)?.href ?? where);
      tried.push(`${place}: ${error?.code ?? error?.message ?? error}`);
    }
  }
  return {
    failure: (name) => {
      const error = new Error(
        `tiered-compaction: ${name}() cannot run: its WebAssembly module (tiered_compaction_bg.wasm) was not found ` +
          `(tried ${tried.join("; ")}). A bundle that copies the package's JavaScript without the .wasm file needs ` +
          "the package installed in node_modules at run time (keep it in dependencies), or the package left out of " +
          "the bundle (esbuild --packages=external or --external:tiered-compaction; Next serverExternalPackages), " +
          "or the module loaded by hand: initSync(readFileSync(pathToTheWasmFile))",
      );
      error.code = "ERR_TC_NOT_INITIALISED";
      return error;
    },
  };
}

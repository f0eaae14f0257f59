// rollup src/main-asset.js -p node-resolve -f es -o out/app.js: the package's main entry point,
// whose init() fetches the .wasm file that Rollup, with no plugin for it, does not copy.
import { check, report } from "./check.js";

report(check());

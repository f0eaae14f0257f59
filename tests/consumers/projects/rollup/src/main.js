// rollup src/main.js -p node-resolve -f es -o out/app.js: node-resolve finds the package in
// node_modules (Rollup alone resolves no bare import); no plugin copies or inlines assets.
import { check, report } from "./check-inline.js";

report(check());

// esbuild src/browser-inline.js --bundle --format=esm|iife --outfile=out/app.js: no loader, no
// file to copy (tiered-compaction/inline embeds the module).
import { check, report } from "./check-inline.js";

report(check());

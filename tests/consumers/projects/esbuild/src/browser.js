// esbuild src/browser.js --bundle --format=esm --outfile=out/app.js
import { check, report } from "./check.js";

report(check());

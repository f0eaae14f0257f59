// esbuild src/server-inline.js --bundle --platform=node --format=esm|cjs: one file that runs
// where the package is not installed (tiered-compaction/inline embeds the module).
import { check } from "./check-inline.js";

check().then(
  (value) => console.log(value),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);

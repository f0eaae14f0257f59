// esbuild src/server.js --bundle --platform=node --format=esm|cjs: no top-level await (CJS).
import { check } from "./check.js";

check().then(
  (value) => console.log(value),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);

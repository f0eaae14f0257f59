// webpack's zero-config entry (src/index.js -> dist/main.js).
import { check, report } from "./check.js";

report(check());

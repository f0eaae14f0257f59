// The package's types and the AI SDK helper against the real SDKs (this directory's own
// package.json and lockfile: openai, @anthropic-ai/sdk, ai, @google/genai, @types/node, typescript 7 and 5; the package
// linked from ../../pkg), then @arethetypeswrong/cli on the packed package:
//   tsc -p tsconfig.json          the providers' SDK message types in and out, prepareStep in
//                                 generateText, ESM and CJS declarations (nodenext, no DOM lib)
//   tsc -p tsconfig.nodom.json    no DOM lib, @types/node, skipLibCheck off
//   tsc -p tsconfig.bare.json     no DOM lib, no @types/node, skipLibCheck off
//   tsc -p tsconfig.bundler.json  moduleResolution bundler, DOM lib, skipLibCheck off
//   tsc -p tsconfig.readme.json   the README's examples as written (readme.mjs)
//   (each with TypeScript 7, this project's `typescript`, and 5.9, its `typescript5`)
//   node --test ai-sdk.test.mjs   prepareStep in a real generateText tool loop (MockLanguageModelV4)
//   attw --pack ../../pkg         no masquerading, every subpath typed, in every resolution mode
// Installs with `npm ci` when the lockfile changed. Exits 1 if any check failed.
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, "../..");
const tsc = path.join(here, "node_modules", ".bin", "tsc");
// Most users are still on TypeScript 5: every configuration is checked with it too.
const tsc5 = path.join(here, "node_modules", "typescript5", "bin", "tsc");
const installed = path.join(here, "node_modules", ".package-lock.json");
const lock = path.join(here, "package-lock.json");

const steps = [
  ["tsc: SDK message types, prepareStep, ESM + CJS", [tsc, "-p", "tsconfig.json"]],
  ["tsc: no DOM lib, @types/node, skipLibCheck off", [tsc, "-p", "tsconfig.nodom.json"]],
  ["tsc: no DOM lib, no @types/node, skipLibCheck off", [tsc, "-p", "tsconfig.bare.json"]],
  ["tsc: moduleResolution bundler", [tsc, "-p", "tsconfig.bundler.json"]],
  ["tsc: README examples as written", ["bash", "-c", `node readme.mjs && "${tsc}" -p tsconfig.readme.json`]],
  ["TypeScript 5.9: every configuration above", ["bash", "-c", ["tsconfig.json", "tsconfig.nodom.json", "tsconfig.bare.json", "tsconfig.bundler.json", "tsconfig.readme.json"].map((config) => `node "${tsc5}" -p ${config}`).join(" && ")]],
  // The framework integrations' declarations (tests/js/types, against the workspace's langchain
  // and @openai/agents) with TypeScript 5.9 too; npm test checks them with 7 (scripts/test.mjs).
  ["TypeScript 5.9: the integrations (tests/js/types/tsconfig.integrations.json)", ["node", tsc5, "-p", path.join(root, "tests", "js", "types", "tsconfig.integrations.json")]],
  ["node --test ai-sdk.test.mjs (generateText + MockLanguageModelV4)", ["node", "--test", "ai-sdk.test.mjs"]],
  ["attw --pack pkg/", [path.join(root, "node_modules", ".bin", "attw"), "--pack", path.join(root, "pkg")]],
];

if (!fs.existsSync(installed) || fs.statSync(installed).mtimeMs < fs.statSync(lock).mtimeMs) {
  const ci = spawnSync("npm", ["ci", "--no-audit", "--no-fund", "--loglevel=error"], { cwd: here, stdio: "inherit" });
  if (ci.status !== 0) process.exit(1);
}
let failed = 0;
for (const [name, [command, ...args]] of steps) {
  const started = performance.now();
  const outcome = spawnSync(command, args, { cwd: here, stdio: "inherit" });
  const ok = outcome.status === 0;
  if (!ok) failed += 1;
  console.log(`${ok ? "ok    " : "FAILED"} ${((performance.now() - started) / 1000).toFixed(1).padStart(5)} s  ${name}`);
}
process.exit(failed === 0 ? 0 : 1);

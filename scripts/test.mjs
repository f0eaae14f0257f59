// Everything `npm test` runs, in order, after bootstrap.sh and build.mjs: Rust checks and tests,
// the binding's wasm-bindgen tests in Node and Chromium (wasm-pack test), the JS suite against
// pkg/, the demo page's tests, the type checks, and the consumer matrix (the packed tarball in
// every toolchain, Node, Deno, Bun, workerd). Every step runs even when an earlier one failed; a
// summary with timings follows, and the exit code is 1 if any failed.
// A step whose tool cannot exist here (Chromium without apt) is reported as SKIPPED, loudly.
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const bin = (name) => path.join(root, "node_modules", ".bin", name);
const hasNightly = spawnSync("cargo", ["+nightly", "--version"], { stdio: "ignore" }).status === 0;
const hasChromium = fs.existsSync("/usr/bin/chromium") && fs.existsSync("/usr/bin/chromedriver");

const steps = [
  ["cargo fmt --check (the core and the binding)", ["cargo", "fmt", "--all", "--check"]],
  ["cargo clippy (host, all targets)", ["cargo", "clippy", "--all-targets", "--", "-D", "warnings"]],
  // No module of src/ uses another that uses it back, directly or around a loop (issue 30).
  ["module cycles in src/ (scripts/module-cycles.mjs)", ["node", "scripts/module-cycles.mjs"]],
  ["module cycles in binding/src/", ["node", "scripts/module-cycles.mjs", "binding/src"]],
  // The binding crate (binding/) only compiles for wasm32, so it (and its tests) get their own clippy run.
  ["cargo clippy (wasm32: the binding and its tests)", ["node", "scripts/wasm-tests.mjs", "--clippy"]],
  ["cargo test (host)", ["cargo", "test"]],
  // The binding's wasm-bindgen tests through wasm-pack, in the binding crate (scripts/wasm-tests.mjs).
  ["wasm-pack test --node (the binding's wasm-bindgen tests)", ["node", "scripts/wasm-tests.mjs"]],
  ["wasm-pack test --headless --chrome (the same, in Chromium)", ["node", "scripts/wasm-tests.mjs", "--browser"], hasChromium ? null : "no /usr/bin/chromium + chromedriver (apt unavailable)"],
  // `npm start` builds without wasm-pack (bootstrap.sh does not install it for the main job):
  // its two commands must write what `wasm-pack build` writes, byte for byte.
  ["build without wasm-pack (npm start's) = with wasm-pack", ["node", "scripts/wasm-build.mjs", "--compare"]],
  ["node --test tests/js/ (pkg/, ESM + CJS)", ["node", "--test", "tests/js/"]],
  ["node --test tests/www/ (demo page in headless Chromium)", ["node", "--test", "tests/www/"], !fs.existsSync(path.join(root, "tests", "www")) ? "no tests/www/" : hasChromium ? null : "no /usr/bin/chromium (apt unavailable)"],
  ["tsc --noEmit on tests/js/types", [bin("tsc"), "-p", "tests/js/types"]],
  // The framework integrations' declarations against langchain's and @openai/agents' own types
  // (the workspace's devDependencies), ESM and CJS.
  ["tsc --noEmit on tests/js/types (integrations: langchain, @openai/agents)", [bin("tsc"), "-p", "tests/js/types/tsconfig.integrations.json"]],
  // examples/ wires `summarise` to the OpenAI, Anthropic and AI SDKs; its own package.json links
  // ../pkg, so it is installed here, after the build (a no-op when current).
  ["tsc --noEmit on examples/ (SDK summarisers)", ["bash", "-c", "cd examples && { [ node_modules/.package-lock.json -nt package-lock.json ] || npm ci --no-audit --no-fund --loglevel=error; } && ../node_modules/.bin/tsc --noEmit -p ."], fs.existsSync(path.join(root, "examples", "package.json")) ? null : "no examples/"],
  // tests/types/ (own package.json: the SDKs): the SDK message types in and out, no DOM lib, the
  // README's examples, prepareStep in a real generateText loop, and @arethetypeswrong/cli.
  ["types: tsc against the SDKs + README, the AI SDK helper's loop, attw", ["node", "tests/types/run.mjs"]],
  // The packed tarball in a fresh project per toolchain (Vite 6/7/8 dev and build, webpack 5,
  // esbuild and Rollup, each also on tiered-compaction/inline with no configuration, Next with
  // Turbopack and webpack, SvelteKit adapter-node, the LangChain and OpenAI
  // Agents integrations each beside its framework alone), pages in Chromium, and
  // tests/runtimes/run.mjs's Node ESM + CJS, Deno, Bun and workerd checks: tests/consumers/run.mjs.
  ["consumer matrix (npm pack -> every toolchain, Node, Deno, Bun, workerd)", ["node", "tests/consumers/run.mjs"], hasChromium ? null : "no /usr/bin/chromium (apt unavailable)"],
  // bench/ (own package.json: the peer libraries) installs its deps on first use; tiny sizes, one
  // run; section 8 replays a generated 40-step run in the loop (bench/loop-replay.mjs --smoke).
  ["bench smoke (bench/run.mjs --smoke, the loop replay's included)", ["node", "bench/run.mjs", "--smoke"]],
  // Every fuzz target for 5 s on a fresh corpus (cargo-fuzz needs the nightly toolchain; the
  // script installs cargo-fuzz once). A crash fails the step and leaves its input in fuzz/artifacts/.
  ["fuzz smoke (scripts/fuzz.sh 5, every target)", ["bash", "-c", "FUZZ_CORPUS_DIR=\"$(mktemp -d)\" bash scripts/fuzz.sh 5"], hasNightly ? null : "no nightly toolchain (rustup toolchain install nightly)"],
];

const results = [];
for (const [name, [command, ...args], skip] of steps) {
  console.log(`\n=== ${name}`);
  if (skip) {
    console.log(`SKIPPED: ${skip}`);
    results.push({ name, status: "SKIPPED", seconds: 0, note: skip });
    continue;
  }
  const started = performance.now();
  const outcome = spawnSync(command, args, {
    cwd: root,
    stdio: "inherit",
    env: { ...process.env, PATH: `${path.join(root, ".tools", "bin")}${path.delimiter}${process.env.PATH}` },
  });
  const seconds = (performance.now() - started) / 1000;
  const status = outcome.status === 0 ? "ok" : "FAILED";
  results.push({ name, status, seconds, note: outcome.error?.message ?? "" });
}

console.log("\n=== summary");
for (const { name, status, seconds, note } of results) {
  console.log(`${status.padEnd(8)} ${seconds.toFixed(1).padStart(6)} s  ${name}${note ? `  (${note})` : ""}`);
}
const failed = results.filter((result) => result.status === "FAILED").length;
const skipped = results.filter((result) => result.status === "SKIPPED").length;
console.log(`${results.length - failed - skipped} passed, ${failed} failed, ${skipped} skipped`);
process.exit(failed === 0 ? 0 : 1);

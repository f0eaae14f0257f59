// Runs the binding's wasm-bindgen tests (binding/src/tests.rs) on wasm32 through wasm-pack:
//   node scripts/wasm-tests.mjs            wasm-pack test --node
//   node scripts/wasm-tests.mjs --browser  wasm-pack test --headless --chrome (Debian's chromium and
//                                          /usr/bin/chromedriver, flags from binding/webdriver.json)
//   node scripts/wasm-tests.mjs --clippy   cargo clippy on wasm32: the binding and its tests
// Always `--mode no-install`: the pinned wasm-bindgen-test-runner is found on PATH (.tools/bin,
// bootstrap.sh) and nothing is downloaded, chromedriver included (`--chromedriver`).
//
// They run in the binding crate (binding/), whose only dev-dependency is wasm-bindgen-test: the
// core's proptest (which does not build for wasm32 as declared) stays with the core's host tests.
import { execFileSync, spawn } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const binding = path.join(root, "binding");
const browser = process.argv.includes("--browser");
const clippy = process.argv.includes("--clippy");

const toolsPath = `${path.join(root, ".tools", "bin")}${path.delimiter}${process.env.PATH}`;
const env = { ...process.env, PATH: toolsPath, WASM_BINDGEN_TEST_TIMEOUT: "120" };

if (clippy) {
  execFileSync(
    "cargo",
    ["clippy", "--target", "wasm32-unknown-unknown", "--lib", "--tests", "--", "-D", "warnings"],
    { cwd: binding, env, stdio: "inherit" },
  );
  process.exit(0);
}

const chromedriver = process.env.CHROMEDRIVER ?? "/usr/bin/chromedriver";
const args = [
  "test",
  ...(browser ? ["--headless", "--chrome", "--chromedriver", chromedriver] : ["--node"]),
  "--mode",
  "no-install",
  binding,
  // To cargo: the library's own tests (binding/src/tests.rs).
  "--lib",
];
if (browser) {
  // The tests do not declare `run_in_browser` (the same binary runs in Node too). wasm-pack only
  // tells the runner WASM_BINDGEN_TEST_ONLY_WEB, which makes the runner skip a Node suite and
  // report success; WASM_BINDGEN_USE_BROWSER makes it a browser suite.
  env.WASM_BINDGEN_USE_BROWSER = "1";
}
console.log(`wasm-pack ${args.join(" ")}`);
const child = spawn(path.join(root, ".tools", "bin", "wasm-pack"), args, { cwd: root, env, stdio: ["ignore", "pipe", "inherit"] });
let output = "";
child.stdout.setEncoding("utf8").on("data", (chunk) => {
  output += chunk;
  process.stdout.write(chunk);
});
const status = await new Promise((resolve, reject) => child.once("error", reject).once("close", resolve));
if (status !== 0) process.exit(status ?? 1);
// A suite the runner skips (configured for the other host) also exits 0: require that it ran.
const passed = Number(/test result: ok\. (\d+) passed/.exec(output)?.[1] ?? 0);
if (passed === 0 || /is only configured to run in/.test(output)) {
  console.error(`wasm-pack test ran no tests (${browser ? "chrome" : "node"}): see the output above`);
  process.exit(1);
}

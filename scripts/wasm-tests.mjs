// Runs the binding's wasm-bindgen tests (src/wasm/tests.rs) on wasm32 through wasm-pack:
//   node scripts/wasm-tests.mjs            wasm-pack test --node
//   node scripts/wasm-tests.mjs --browser  wasm-pack test --headless --chrome (Debian's chromium and
//                                          /usr/bin/chromedriver, flags from webdriver.json)
//   node scripts/wasm-tests.mjs --clippy   cargo clippy on wasm32: the binding and its tests
// Always `--mode no-install`: the pinned wasm-bindgen-test-runner is found on PATH (.tools/bin,
// bootstrap.sh) and nothing is downloaded, chromedriver included (`--chromedriver`).
//
// Why wasm-pack runs on a generated harness crate instead of the crate root: the crate's
// dev-dependency `proptest`, as declared, does not compile for wasm32 (its rand's getrandom needs
// the `wasm_js` backend: `wasm-pack test --node` in the crate root stops there; its default `fork`
// feature pulls in rusty-fork / wait-timeout), and `wasm-pack test` builds every dev-dependency
// and test target for wasm32 (`cargo build --tests`). The harness (target/wasm-binding-tests/, git-ignored) is the
// same library source (`[lib] path` = src/lib.rs) with the same dependencies and Cargo.lock,
// proptest without its default features, so the tests see exactly the code that ships. It is
// regenerated from Cargo.toml on every run, so it follows the core's dependency changes.
import { execFileSync, spawn } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const harness = path.join(root, "target", "wasm-binding-tests");
const browser = process.argv.includes("--browser");
const clippy = process.argv.includes("--clippy");

/** Splits a Cargo.toml into [header, lines] tables, keeping comments and order. */
function tables(text) {
  const result = [["", []]];
  for (const line of text.split("\n")) {
    if (/^\s*\[/.test(line)) result.push([line.trim(), []]);
    else result.at(-1)[1].push(line);
  }
  return result;
}

function manifest() {
  const out = [];
  for (const [header, lines] of tables(fs.readFileSync(path.join(root, "Cargo.toml"), "utf8"))) {
    if (header === "[lib]" || header.startsWith("[[") || header.startsWith("[workspace")) continue;
    if (header === "[dev-dependencies]") {
      // proptest without its default features (fork, timeout), which do not build for wasm32;
      // its rand then needs getrandom's JS backend (crypto.getRandomValues).
      out.push(
        header,
        ...lines.map((line) => {
          const version = line.match(/^\s*proptest\s*=\s*(?:"([^"]+)"|\{.*version\s*=\s*"([^"]+)")/);
          if (!version) return line;
          const req = version[1] ?? version[2];
          return `proptest = { version = "${req}", default-features = false, features = ["std", "bit-set"] }`;
        }),
        'getrandom = { version = "0.3", features = ["wasm_js"] }',
      );
      continue;
    }
    out.push(...(header ? [header] : []), ...lines);
    if (header === "[package]") {
      out.push("autotests = false", "autobenches = false", "autoexamples = false", "autobins = false");
    }
  }
  out.push(
    "[lib]",
    `path = ${JSON.stringify(path.join(root, "src", "lib.rs"))}`,
    'crate-type = ["rlib"]',
    "",
    "[workspace]",
    "",
  );
  return out.join("\n");
}

fs.mkdirSync(harness, { recursive: true });
const manifestPath = path.join(harness, "Cargo.toml");
const text = manifest();
if (!fs.existsSync(manifestPath) || fs.readFileSync(manifestPath, "utf8") !== text) {
  fs.writeFileSync(manifestPath, text);
}
// Same dependency versions as the crate; cargo drops proptest's entries itself.
fs.copyFileSync(path.join(root, "Cargo.lock"), path.join(harness, "Cargo.lock"));
fs.copyFileSync(path.join(root, "webdriver.json"), path.join(harness, "webdriver.json"));

const toolsPath = `${path.join(root, ".tools", "bin")}${path.delimiter}${process.env.PATH}`;
const env = { ...process.env, PATH: toolsPath, WASM_BINDGEN_TEST_TIMEOUT: "120" };

if (clippy) {
  execFileSync(
    "cargo",
    ["clippy", "--manifest-path", manifestPath, "--target-dir", path.join(root, "target"), "--target", "wasm32-unknown-unknown", "--lib", "--tests", "--", "-D", "warnings"],
    { cwd: harness, env, stdio: "inherit" },
  );
  process.exit(0);
}

const chromedriver = process.env.CHROMEDRIVER ?? "/usr/bin/chromedriver";
const args = [
  "test",
  ...(browser ? ["--headless", "--chrome", "--chromedriver", chromedriver] : ["--node"]),
  "--mode",
  "no-install",
  harness,
  // To cargo (build and test): the shared target dir, the library's own tests only.
  "--target-dir",
  path.join(root, "target"),
  "--lib",
  // To the test binary: only the binding's tests (the core's run on the host, `cargo test`).
  "--",
  "wasm::tests::",
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

// Runs the binding's wasm-bindgen tests (src/wasm/tests.rs) on wasm32 in Node, with `--browser`
// in headless Chromium; `--clippy` lints the binding and its tests for wasm32 instead.
//
// Why a generated harness package instead of `cargo test --target wasm32-unknown-unknown` on the
// crate itself: the crate's dev-dependency `proptest` (with its default `fork` feature) does not
// compile for wasm32 (rusty-fork / wait-timeout), and cargo builds every dev-dependency for any
// test target. The harness (target/wasm-binding-tests/, git-ignored) is the same library source
// (`[lib] path` = src/lib.rs) with the same dependencies and Cargo.lock, proptest without its
// default features, so the tests see exactly the code that ships. It is regenerated from
// Cargo.toml on every run, so it follows the core's dependency changes.
import { execFileSync } from "node:child_process";
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

const env = {
  ...process.env,
  PATH: `${path.join(root, ".tools", "bin")}${path.delimiter}${process.env.PATH}`,
  CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER: "wasm-bindgen-test-runner",
  WASM_BINDGEN_TEST_TIMEOUT: "120",
};
if (browser) {
  env.WASM_BINDGEN_USE_BROWSER = "1";
  env.CHROMEDRIVER = process.env.CHROMEDRIVER ?? "/usr/bin/chromedriver";
}
const common = [
  "--manifest-path",
  manifestPath,
  "--target-dir",
  path.join(root, "target"),
  "--target",
  "wasm32-unknown-unknown",
  "--lib",
];
const args = clippy
  ? ["clippy", ...common, "--tests", "--", "-D", "warnings"]
  : // Only the binding's tests: the core's own unit tests run on the host (`cargo test`).
    ["test", ...common, "--", "wasm::tests::"];
execFileSync("cargo", args, { cwd: harness, env, stdio: "inherit" });

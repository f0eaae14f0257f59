// Step 1 of scripts/build.mjs: the wasm module and its JS glue, written into an output directory.
// Two ways to the same files:
// Both build the binding crate (binding/: the core crate plus the wasm-bindgen exports), whose
// library is named tiered_compaction, so the files are tiered_compaction.js and _bg.wasm.
//   - wasm-pack (the command the README documents; `npm test` installs it and builds with it):
//       wasm-pack build --mode no-install --target web --release --no-pack --no-typescript --out-dir DIR binding
//   - without wasm-pack (`npm start` on a fresh clone: wasm-pack and the wasm-bindgen CLI are
//     minutes of `cargo install` that the main job does not need): the two commands wasm-pack 0.15
//     runs for those flags,
//       CARGO_BUILD_TARGET=wasm32-unknown-unknown cargo build --lib --release --message-format=json (in binding/)
//       wasm-bindgen WASM --out-dir DIR --no-typescript --target web
//     (its wasm-bindgen flags from binding/Cargo.toml's [package.metadata.wasm-pack.profile.release] are
//     the defaults but `wasm-opt = false`, so none are added), the second as
//     `tc-wasm-bindgen WASM --out-dir DIR` (scripts/bindgen/: the same library, set as the CLI sets
//     it for those flags), and the `.gitignore` of `*` wasm-pack writes into DIR.
// `node scripts/wasm-build.mjs --compare` checks that both give the same bytes (part of `npm test`).
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
/** The crate the module is built from: the binding (it depends on the core at the root). */
const bindingCrate = path.join(root, "binding");
const tools = path.join(root, ".tools", "bin");
const env = { ...process.env, PATH: `${tools}${path.delimiter}${process.env.PATH}` };

export const hasWasmPack = () => fs.existsSync(path.join(tools, "wasm-pack"));

/**
 * Builds the module and its glue into `outDir`. `cargoArgs` go to cargo (a feature, a target
 * directory). `wasmPack`: true runs wasm-pack, false the two commands, "auto" wasm-pack when
 * .tools/bin holds it.
 */
export function buildWasm({ outDir, cargoArgs = [], wasmPack = "auto" }) {
  const viaWasmPack = wasmPack === "auto" ? hasWasmPack() : wasmPack;
  if (viaWasmPack) {
    if (!hasWasmPack()) throw new Error(".tools/bin/wasm-pack is missing: run `bash scripts/bootstrap.sh test`");
    const args = ["build", "--mode", "no-install", "--target", "web", "--release", "--no-pack", "--no-typescript"];
    execFileSync(path.join(tools, "wasm-pack"), [...args, "--out-dir", outDir, bindingCrate, ...cargoArgs], { cwd: root, stdio: "inherit", env });
    return "wasm-pack";
  }
  // cargo's JSON messages name the .wasm it wrote, wherever CARGO_TARGET_DIR or --target-dir put
  // it (as wasm-pack finds it); its diagnostics and progress go to stderr as usual.
  const messages = execFileSync("cargo", ["build", "--lib", "--release", ...cargoArgs, "--message-format=json"], {
    cwd: bindingCrate,
    stdio: ["ignore", "pipe", "inherit"],
    env: { ...env, CARGO_BUILD_TARGET: "wasm32-unknown-unknown" },
    encoding: "utf8",
    maxBuffer: 256 * 1024 * 1024,
  });
  const artifacts = messages
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line))
    .filter((message) => message.reason === "compiler-artifact");
  const wasm = artifacts.at(-1)?.filenames.filter((name) => name.endsWith(".wasm")) ?? [];
  if (wasm.length !== 1) throw new Error(`expected one .wasm from cargo build, got ${JSON.stringify(wasm)}`);
  fs.mkdirSync(outDir, { recursive: true });
  execFileSync(path.join(tools, "tc-wasm-bindgen"), [wasm[0], "--out-dir", outDir], {
    cwd: root,
    stdio: "inherit",
    env,
  });
  fs.writeFileSync(path.join(outDir, ".gitignore"), "*");
  return "cargo build + tc-wasm-bindgen";
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url) && process.argv.includes("--compare")) {
  // Both ways into their own directories (cargo's build is shared, so the second is seconds).
  const dirs = { "wasm-pack": path.join(root, "target", "wasm-build-compare", "wasm-pack"), direct: path.join(root, "target", "wasm-build-compare", "direct") };
  fs.rmSync(path.dirname(dirs.direct), { recursive: true, force: true });
  buildWasm({ outDir: dirs["wasm-pack"], wasmPack: true });
  buildWasm({ outDir: dirs.direct, wasmPack: false });
  const list = (dir) => fs.readdirSync(dir).sort();
  const differ = [];
  const names = [...new Set([...list(dirs["wasm-pack"]), ...list(dirs.direct)])];
  for (const name of names) {
    const [a, b] = [dirs["wasm-pack"], dirs.direct].map((dir) => (fs.existsSync(path.join(dir, name)) ? fs.readFileSync(path.join(dir, name)) : null));
    if (!a || !b || !a.equals(b)) differ.push(`${name}: ${a ? `${a.length} B` : "missing"} from wasm-pack, ${b ? `${b.length} B` : "missing"} without it`);
  }
  if (differ.length > 0) {
    console.error(`the build without wasm-pack (npm start's) differs from wasm-pack's:\n  ${differ.join("\n  ")}`);
    process.exit(1);
  }
  console.log(`the same ${names.length} files with and without wasm-pack: ${names.join(", ")}`);
}

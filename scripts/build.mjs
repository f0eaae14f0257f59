// Builds the npm package into pkg/ (generated, git-ignored):
//   1. wasm-pack build --target web --mode no-install: cargo build --release --target
//      wasm32-unknown-unknown, then the wasm-bindgen that bootstrap.sh pinned to Cargo.lock (found
//      on PATH in .tools/bin; no-install: wasm-pack never downloads one). Where .tools/bin has no
//      wasm-pack (`npm start` does not install it), those two commands without it, wasm-bindgen
//      as tc-wasm-bindgen (scripts/bindgen/), to the same files (scripts/wasm-build.mjs);
//      `--wasm-pack` requires wasm-pack. Its output directory is
//      target/wasm-pack/web/ (wasm-pack owns the directory it writes to: a `.gitignore` of `*`,
//      files named after the crate), copied into pkg/web/. `--no-pack`: pkg/package.json is ours
//      (step 3); `--no-typescript`: js/index.d.ts is hand-written.
//   2. wasm-opt -Oz from the npm `binaryen` package, with the flags listed below. wasm-pack's own
//      wasm-opt step is off (binding/Cargo.toml `[package.metadata.wasm-pack.profile.release]`): it runs
//      the first wasm-opt on PATH, and Debian's produces a module that fails to load. Then the
//      functions in the order scripts/reorder.mjs picks for gzip, written by a second wasm-opt,
//      and the import names without their hashes (scripts/imports.mjs).
//   3. what wasm-pack does not do: the entry points and types from js/, the web glue rewritten
//      as a factory (scripts/glue.mjs: trap recovery re-instantiates with fresh glue state) plus
//      CommonJS copies of it, of js/api.mjs, js/index.mjs (the export list every entry point
//      re-exports), js/node-load.mjs (where Node finds the .wasm), js/ai-sdk.mjs and the
//      framework integrations (js/langchain.mjs, js/openai-agents.mjs and their js/integrations.mjs),
//      so that every entry point loads the one web/tiered_compaction_bg.wasm; CommonJS types
//      (.d.cts) beside the ES module ones; the command line from bin/; the TIER_COST_WEIGHT
//      constant read from the built module; tiered-compaction/inline's copy of the module
//      (inline-wasm.mjs: the .wasm gzipped, in base64) and its CommonJS door (inline.cjs);
//      pkg/package.json ("type": "module", its exports map, the frameworks as optional peer
//      dependencies, `bin`); pkg/README.md
//   4. node_modules/tiered-compaction -> pkg, so tests import the package by name
// Skips steps 2-3 when their inputs did not change. `--force` rebuilds anyway.
// `--test-trap` builds the test-only variant instead: cargo feature `test-trap` (exports that force
// a trap), its own cargo target dir (target/trap/), the package in target/pkg-trap/, no link.
// Run `bash scripts/bootstrap.sh build` first (npm run build does).
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { gzipSync } from "node:zlib";
import { commonJs, expectOnce, glueFactory } from "./glue.mjs";
import { renameGlueImports, shortImportNames } from "./imports.mjs";
import { functionNames, orderedNames } from "./reorder.mjs";
import { buildWasm } from "./wasm-build.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const testTrap = process.argv.includes("--test-trap");
const pkg = testTrap ? path.join(root, "target", "pkg-trap") : path.join(root, "pkg");
const targetDir = testTrap ? path.join(root, "target", "trap") : path.join(root, "target");
const crateName = "tiered_compaction";
const wasmPackOut = path.join(targetDir, "wasm-pack", "web");
const tools = path.join(root, ".tools", "bin");
const wasmOpt = path.join(root, "node_modules", ".bin", "wasm-opt");
const force = process.argv.includes("--force");
// The framework integrations (js/NAME.mjs, NAME.d.ts): the modules each imports besides the
// package, and the framework packages it takes as optional peer dependencies (a user of one
// framework installs no other; npm installs none of them for a user of neither).
const INTEGRATIONS = {
  langchain: {
    imports: ["langchain", "@langchain/langgraph", "zod"],
    // wrapModelCall may return a Command from langchain 1.2.20 on; langchain itself depends on
    // @langchain/langgraph and zod (^3.25.76 || ^4), whose own copies these are.
    peers: { langchain: "^1.2.20", "@langchain/langgraph": "^1.0.0", zod: "^3.25.0 || ^4.0.0" },
  },
  // The filter imports nothing of the SDK (its types are structural); the peer states the SDK
  // version it is tested with and up (callModelInputFilter's `preserveInputIdentity`).
  "openai-agents": { imports: [], peers: { "@openai/agents": ">=0.20.0" } },
};
const started = performance.now();

const log = (message) => console.log(`[build] ${message}`);
const run = (command, args, options = {}) =>
  execFileSync(command, args, {
    cwd: root,
    stdio: "inherit",
    env: { ...process.env, PATH: `${tools}${path.delimiter}${process.env.PATH}` },
    ...options,
  });

// 1. The wasm module and its glue (cargo is incremental; this takes well under a second when
// nothing changed), by wasm-pack where .tools/bin has it (`npm test` installs it; `--wasm-pack`
// insists on it), else by the two commands wasm-pack runs (scripts/wasm-build.mjs: the same files,
// checked by `npm test`). Arguments after the crate path go to cargo.
const variant = testTrap ? ["--features", "test-trap", "--target-dir", targetDir] : [];
const builtBy = buildWasm({ outDir: wasmPackOut, cargoArgs: variant, wasmPack: process.argv.includes("--wasm-pack") ? true : "auto" });
log(`wasm module and glue by ${builtBy} (${seconds()} s)`);
const built = (name) => path.join(wasmPackOut, name);
const wasmIn = built(`${crateName}_bg.wasm`);

// Everything the rest of the build reads, and what it wrote: pkg/ is up to date when both hash
// as they did after the last build (a plain `wasm-pack build` writes its own package.json, glue
// and .gitignore into pkg/, its default output directory; that is then rebuilt).
const inputs = [
  wasmIn,
  built(`${crateName}.js`),
  fileURLToPath(import.meta.url),
  path.join(root, "scripts", "glue.mjs"),
  path.join(root, "scripts", "reorder.mjs"),
  path.join(root, "scripts", "imports.mjs"),
  path.join(root, "README.md"),
  path.join(root, "Cargo.toml"),
  path.join(root, "binding", "Cargo.toml"),
  ...fs.readdirSync(path.join(root, "js")).map((name) => path.join(root, "js", name)),
  ...fs.readdirSync(path.join(root, "bin")).map((name) => path.join(root, "bin", name)),
];
const hash = createHash("sha256");
for (const file of inputs.sort()) {
  hash.update(file).update(fs.existsSync(file) ? fs.readFileSync(file) : "");
}
const stamp = hash.digest("hex");
const stampFile = path.join(pkg, ".build-stamp");
if (!force && fs.existsSync(stampFile) && fs.readFileSync(stampFile, "utf8") === `${stamp}\n${outputHash()}`) {
  log(`${path.relative(root, pkg)}/ is up to date (${seconds()} s)`);
  if (!testTrap) linkPackage();
  process.exit(0);
}

// The one-wasm layout: web/ (the glue and the module), node/ (the CommonJS glue, step 3).
fs.rmSync(pkg, { recursive: true, force: true });
fs.mkdirSync(path.join(pkg, "web"), { recursive: true });
fs.mkdirSync(path.join(pkg, "node"));
for (const name of [`${crateName}.js`, `${crateName}_bg.wasm`]) fs.copyFileSync(built(name), path.join(pkg, "web", name));

// Code the library has no use for, that generic code brings in unseen: core's float formatting
// (about 10 KB gzipped), reached through serde's `Unexpected` (its `Display` prints floats) by any
// typed serde entry point whose visitor refuses a type, or through `{}` / `{:?}` of an f64. It
// was cut once and came back with a serde visitor (issue 21, rounds 2 and 4).
const unwanted = functionNames(fs.readFileSync(path.join(pkg, "web", `${crateName}_bg.wasm`))).filter((name) =>
  name.includes("flt2dec"),
);
if (unwanted.length > 0) {
  throw new Error(
    `the module holds core's float formatting (${unwanted.slice(0, 3).join(", ")}): find what formats an f64 or reports a serde type ` +
      "through `Unexpected` (bench/README.md, size), or allow it here with its measured cost",
  );
}

// 2. wasm-opt (binaryen's JS build: slow-ish, a few seconds).
// --low-memory-unused lets `load(add(p, C))` become `load offset=C (p)` (C < 1 KiB): the two
// differ only when p + C wraps past 2^32 into the lowest 1 KiB, which no valid pointer does.
// -1.2 KiB gzipped.
// --one-caller-inline-max-function-size=20: binaryen inlines a function with one caller whatever
// its size by default; big bodies pasted into their callers compress worse (more distinct
// local numbering, fewer repeats). Limiting it to small ones: -5.7 KiB gzipped (0: -5.3, 80: -3).
// -g: the name section is kept for the function order below (stripped in the second run).
const wasmOptFlags = ["--low-memory-unused", "--one-caller-inline-max-function-size=20", "-Oz", "-g"];
const wasmOut = path.join(pkg, "web", `${crateName}_bg.wasm`);
run(wasmOpt, [...wasmOptFlags, wasmOut, "-o", wasmOut]);
// The functions in an order that gzip compresses better (scripts/reorder.mjs: similar bodies
// next to each other, names as the tie-break): 248,901 -> 241,116 B gzipped against LLVM's
// order, of which binaryen's own --reorder-functions-by-name gives 3.1 KB (its
// --reorder-functions, by use count, is +3.2 KB). About 10 s of the build. The order is handed
// to binaryen as names, `<rank>|<name>`, and written by a second run that does no optimisation:
// --reorder-functions-by-name, and StackIR optimised as -Oz does it when writing (without it the
// module is 0.8 KB larger), the names stripped. Measure a change of the Rust code in name order
// (the similarity order moves by a few hundred bytes either way with any change).
// --strip-target-features: the custom section listing the features the module was built with
// (148 B), which no loader reads: -117 B gzipped.
fs.writeFileSync(wasmOut, orderedNames(fs.readFileSync(wasmOut)));
const writeFlags = [
  "--optimize-level=2",
  "--shrink-level=2",
  "--generate-stack-ir",
  "--optimize-stack-ir",
  "--reorder-functions-by-name",
  "--strip-debug",
  "--strip-producers",
  "--strip-target-features",
];
run(wasmOpt, [...writeFlags, wasmOut, "-o", wasmOut]);
// Import names without wasm-bindgen's hashes (scripts/imports.mjs; the glue is renamed to match
// in step 3): -1,078 B gzipped.
const shortened = shortImportNames(fs.readFileSync(wasmOut));
fs.writeFileSync(wasmOut, shortened.wasm);
// pkg/package.json is "type": "module" (its .d.ts files are ES module types); the glue's
// directories say what their files are. web/'s "main" and "types" serve resolvers that ignore
// "exports" (TypeScript's node10) for `tiered-compaction/web`.
writeJson(path.join(pkg, "web", "package.json"), { type: "module", main: "../web.cjs", types: "../index.d.cts" });
writeJson(path.join(pkg, "node", "package.json"), { type: "commonjs" });

// 3. Entry points, types, the constant, the manifest.
for (const name of fs.readdirSync(path.join(root, "js"))) {
  fs.copyFileSync(path.join(root, "js", name), path.join(pkg, name));
}
// The command line (`npx tiered-compaction FILE`): bin/ imports the package's files from "../".
fs.mkdirSync(path.join(pkg, "bin"));
for (const name of fs.readdirSync(path.join(root, "bin"))) {
  fs.copyFileSync(path.join(root, "bin", name), path.join(pkg, "bin", name));
  fs.chmodSync(path.join(pkg, "bin", name), 0o755);
}
// One API source for every entry point: the glue as a factory, CommonJS copies for node.cjs.
const webGlue = path.join(pkg, "web", `${crateName}.js`);
const factory = glueFactory(renameGlueImports(fs.readFileSync(webGlue, "utf8"), shortened.renames));
fs.writeFileSync(webGlue, factory.esm);
fs.writeFileSync(path.join(pkg, "node", "glue.cjs"), factory.cjs);
const source = (name) => fs.readFileSync(path.join(root, "js", name), "utf8");
for (const name of ["host-values", "surrogates"]) {
  fs.writeFileSync(path.join(pkg, `${name}.cjs`), commonJs(source(`${name}.mjs`), `js/${name}.mjs`));
}
fs.writeFileSync(
  path.join(pkg, "api.cjs"),
  commonJs(source("api.mjs"), "js/api.mjs", {
    requires: { "./host-values.mjs": "./host-values.cjs", "./surrogates.mjs": "./surrogates.cjs" },
  }),
);
fs.writeFileSync(
  path.join(pkg, "index.cjs"),
  commonJs(source("index.mjs"), "js/index.mjs", {
    requires: { "./api.mjs": "./api.cjs", "./weights.mjs": "./weights.cjs", [`./web/${crateName}.js`]: "./node/glue.cjs" },
    replace: [['createApi(createGlue, "index.mjs")', 'createApi(createGlue, "index.cjs")']],
  }),
);
// tiered-compaction/ai-sdk for `require`: it requires the package by name (node.cjs in Node).
fs.writeFileSync(
  path.join(pkg, "ai-sdk.cjs"),
  commonJs(source("ai-sdk.mjs"), "js/ai-sdk.mjs", { requires: { "tiered-compaction": "tiered-compaction", "./integrations.mjs": "./integrations.cjs" } }),
);
// The framework integrations for `require` (each framework ships CommonJS too): the package by
// name, their shared helpers, and the framework's own modules (optional peer dependencies).
fs.writeFileSync(path.join(pkg, "integrations.cjs"), commonJs(source("integrations.mjs"), "js/integrations.mjs"));
for (const [name, framework] of Object.entries(INTEGRATIONS)) {
  const requires = { "tiered-compaction": "tiered-compaction", "./integrations.mjs": "./integrations.cjs" };
  for (const specifier of framework.imports) requires[specifier] = specifier;
  fs.writeFileSync(path.join(pkg, `${name}.cjs`), commonJs(source(`${name}.mjs`), `js/${name}.mjs`, { requires }));
}
// tiered-compaction/web for `require` in Node: the API without loading on require (explicit init,
// which reads the file beside it, as browser.mjs names it).
fs.writeFileSync(
  path.join(pkg, "web.cjs"),
  [
    '// Generated by scripts/build.mjs: `require("tiered-compaction/web")` in Node (explicit init).',
    '"use strict";',
    'const path = require("node:path");',
    'const { pathToFileURL } = require("node:url");',
    'require("./api.cjs").setWasmSource({ url: () => pathToFileURL(path.join(__dirname, "web", "tiered_compaction_bg.wasm")) });',
    'module.exports = require("./index.cjs");',
    "",
  ].join("\n"),
);
// CommonJS types for the CommonJS files: the same declarations, read as CommonJS by the .d.cts
// extension (ES module types for `require` would "masquerade", as @arethetypeswrong/cli says).
const types = (name) => fs.readFileSync(path.join(root, "js", name), "utf8");
fs.writeFileSync(path.join(pkg, "index.d.cts"), types("index.d.ts"));
fs.writeFileSync(path.join(pkg, "ai-sdk.d.cts"), expectOnce(types("ai-sdk.d.ts"), 'from "./index.js";', 'from "./index.cjs";'));
for (const name of Object.keys(INTEGRATIONS)) {
  fs.writeFileSync(path.join(pkg, `${name}.d.cts`), expectOnce(types(`${name}.d.ts`), 'from "./index.js";', 'from "./index.cjs";'));
}
// The module's own subpath, `tiered-compaction/tiered_compaction_bg.wasm`: what a bundler's
// file/asset loader makes of it (esbuild --loader:.wasm=file, webpack asset/resource) is its URL.
const wasmTypes = (exportLine) =>
  `// Generated by scripts/build.mjs. Importing the .wasm through a bundler's file loader gives its URL.\ndeclare const url: string;\n${exportLine}\n`;
fs.writeFileSync(path.join(pkg, "tiered_compaction_bg.wasm.d.ts"), wasmTypes("export default url;"));
fs.writeFileSync(path.join(pkg, "tiered_compaction_bg.wasm.d.cts"), wasmTypes("export = url;"));
fs.writeFileSync(
  path.join(pkg, "node-load.cjs"),
  commonJs(source("node-load.mjs"), "js/node-load.mjs", { requires: { "node:fs": "node:fs", "node:module": "node:module" } }),
);
// TIER_COST_WEIGHT has one source, the core's table; it is written into the package as a
// constant so that it exists before init() in browsers. Read through the glue just written, from
// the module as shipped.
const { createGlue } = await import(pathToFileURL(webGlue).href);
const glue = createGlue();
const compiled = new WebAssembly.Module(fs.readFileSync(wasmOut));
glue.finalize(new WebAssembly.Instance(compiled, glue.getImports()), compiled);
const weights = JSON.stringify(glue.api.tierCostWeightTable());
const header = "// Generated by scripts/build.mjs from the core's TIER_COST_WEIGHT table.\n";
fs.writeFileSync(path.join(pkg, "weights.mjs"), `${header}export const TIER_COST_WEIGHT = Object.freeze(${weights});\n`);
fs.writeFileSync(
  path.join(pkg, "weights.cjs"),
  `${header}"use strict";\nexports.TIER_COST_WEIGHT = Object.freeze(${weights});\n`,
);
// tiered-compaction/inline (js/inline.mjs, js/embedded.mjs): the module as shipped, gzipped at
// the highest level, in base64, as one string constant; bundlers take it as any JavaScript.
const gzipped = gzipSync(fs.readFileSync(wasmOut), { level: 9 });
const embedded = gzipped.toString("base64");
fs.writeFileSync(
  path.join(pkg, "inline-wasm.mjs"),
  "// Generated by scripts/build.mjs: web/tiered_compaction_bg.wasm gzipped, in base64, for js/inline.mjs.\n" +
    `export const WASM_SIZE = ${fs.statSync(wasmOut).size};\nexport const WASM_GZIP_BASE64 = "${embedded}";\n`,
);
// `require("tiered-compaction/inline")` loads the ES module (Node 20.19 and 22.12 on, Bun, Deno and
// bundlers require ES modules): a CommonJS copy would ship the embedded module twice.
fs.writeFileSync(
  path.join(pkg, "inline.cjs"),
  [
    "// Generated by scripts/build.mjs: `require(\"tiered-compaction/inline\")`, the ES module (js/inline.mjs).",
    '"use strict";',
    "try {",
    '  module.exports = require("./inline.mjs");',
    "} catch (error) {",
    '  if (error?.code !== "ERR_REQUIRE_ESM") throw error;',
    "  throw new Error(",
    '    \'tiered-compaction: require("tiered-compaction/inline") needs a Node.js that can require ES modules (20.19, 22.12 or later): \' +',
    '      \'import() it, or require("tiered-compaction"), which reads the .wasm file\',',
    "    { cause: error },",
    "  );",
    "}",
    "",
  ].join("\n"),
);
const inlineTypes = types("inline.d.ts");
if (inlineTypes.split('from "./index.js";').length !== 3) throw new Error('js/inline.d.ts: expected two `from "./index.js";` (the import and the re-export)');
fs.writeFileSync(path.join(pkg, "inline.d.cts"), inlineTypes.replaceAll('from "./index.js";', 'from "./index.cjs";'));
fs.copyFileSync(path.join(root, "README.md"), path.join(pkg, "README.md"));
writeJson(path.join(pkg, "package.json"), manifest());
fs.writeFileSync(stampFile, `${stamp}\n${outputHash()}`);
if (!testTrap) linkPackage();

// Sizes: what a browser downloads.
const wasm = fs.readFileSync(path.join(pkg, "web", `${crateName}_bg.wasm`));
const rawIn = fs.statSync(wasmIn).size;
log(
  `wasm: ${kb(rawIn)} from wasm-bindgen -> ${kb(wasm.length)} after wasm-opt, ${kb(gzipSync(wasm, { level: 9 }).length)} gzipped`,
);
const inlineData = fs.readFileSync(path.join(pkg, "inline-wasm.mjs"));
log(`inline: the module embedded as ${kb(inlineData.length)} of JavaScript, ${kb(gzipSync(inlineData, { level: 9 }).length)} gzipped`);
log(`${path.relative(root, pkg)}/ built in ${seconds()} s`);

function manifest() {
  const cargo = fs.readFileSync(path.join(root, "Cargo.toml"), "utf8");
  const field = (name) => cargo.match(new RegExp(`^${name} = "(.*)"$`, "m"))?.[1];
  return {
    name: "tiered-compaction",
    version: field("version"),
    description: field("description"),
    license: field("license"),
    keywords: ["llm", "agent", "context", "compaction", "summarization", "webassembly", "wasm"],
    // ES module types (.d.ts, "type": "module") where an ES module runs, CommonJS types (.d.cts)
    // where a CommonJS file does. Order matters: the first matching condition wins.
    type: "module",
    exports: {
      ".": {
        workerd: { types: "./index.d.ts", default: "./workerd.mjs" },
        deno: { types: "./index.d.ts", default: "./deno.mjs" },
        bun: { types: "./index.d.ts", default: "./node.mjs" },
        node: { import: { types: "./index.d.ts", default: "./node.mjs" }, require: { types: "./index.d.cts", default: "./node.cjs" } },
        worker: { types: "./index.d.ts", default: "./browser.mjs" },
        browser: { types: "./index.d.ts", default: "./browser.mjs" },
        default: { types: "./index.d.ts", default: "./browser.mjs" },
      },
      // The explicit-init entry point, for hosts that want to load the wasm themselves.
      "./web": {
        node: { import: { types: "./index.d.ts", default: "./browser.mjs" }, require: { types: "./index.d.cts", default: "./web.cjs" } },
        default: { types: "./index.d.ts", default: "./browser.mjs" },
      },
      // The WebAssembly module embedded in the JavaScript: no file for a bundler to copy. workerd
      // compiles no WebAssembly from bytes: there it is the workerd entry point (wrangler imports
      // the .wasm as a module).
      "./inline": {
        workerd: { types: "./inline.d.ts", default: "./workerd.mjs" },
        import: { types: "./inline.d.ts", default: "./inline.mjs" },
        require: { types: "./inline.d.cts", default: "./inline.cjs" },
      },
      // The AI SDK step helper (it loads the package through the runtime's entry point).
      "./ai-sdk": {
        import: { types: "./ai-sdk.d.ts", default: "./ai-sdk.mjs" },
        require: { types: "./ai-sdk.d.cts", default: "./ai-sdk.cjs" },
      },
      // The framework integrations: a LangChain v1 middleware, an OpenAI Agents SDK filter.
      ...Object.fromEntries(
        Object.keys(INTEGRATIONS).map((name) => [
          `./${name}`,
          { import: { types: `./${name}.d.ts`, default: `./${name}.mjs` }, require: { types: `./${name}.d.cts`, default: `./${name}.cjs` } },
        ]),
      ),
      "./tiered_compaction_bg.wasm": {
        import: { types: "./tiered_compaction_bg.wasm.d.ts", default: "./web/tiered_compaction_bg.wasm" },
        require: { types: "./tiered_compaction_bg.wasm.d.cts", default: "./web/tiered_compaction_bg.wasm" },
        default: "./web/tiered_compaction_bg.wasm",
      },
      "./package.json": "./package.json",
    },
    // Optional: npm installs none of them; each integration's user has its framework already.
    peerDependencies: Object.assign({}, ...Object.values(INTEGRATIONS).map((framework) => framework.peers)),
    peerDependenciesMeta: Object.fromEntries(
      Object.values(INTEGRATIONS).flatMap((framework) => Object.keys(framework.peers).map((peer) => [peer, { optional: true }])),
    ),
    bin: { "tiered-compaction": "./bin/tiered-compaction.mjs" },
    main: "./node.cjs",
    module: "./browser.mjs",
    types: "./index.d.cts",
    // Each entry point loads the module on import or names where init() finds it (api.mjs setWasmSource).
    sideEffects: ["./node.mjs", "./deno.mjs", "./workerd.mjs", "./node.cjs", "./browser.mjs", "./web.cjs", "./inline.mjs", "./inline.cjs"],
    files: ["*.mjs", "*.cjs", "*.d.ts", "*.d.cts", "web/", "node/", "bin/", "README.md"],
    engines: { node: ">=18" },
  };
}

/** A hash of every file in pkg/ but the stamp: names and contents. */
function outputHash() {
  const outputs = createHash("sha256");
  const files = fs.readdirSync(pkg, { recursive: true }).filter((name) => fs.statSync(path.join(pkg, name)).isFile());
  for (const name of files.filter((name) => name !== ".build-stamp").sort()) {
    outputs.update(name).update(fs.readFileSync(path.join(pkg, name)));
  }
  return outputs.digest("hex");
}

function linkPackage() {
  const link = path.join(root, "node_modules", "tiered-compaction");
  let current = null;
  try {
    current = fs.readlinkSync(link);
  } catch {
    // Absent, or a directory (an earlier `npm install` of the tarball): replaced below.
  }
  if (current !== "../pkg") {
    fs.mkdirSync(path.dirname(link), { recursive: true });
    fs.rmSync(link, { recursive: true, force: true });
    fs.symlinkSync("../pkg", link, "dir");
  }
}

function writeJson(file, value) {
  fs.writeFileSync(file, `${JSON.stringify(value, null, 2)}\n`);
}

function kb(bytes) {
  return `${(bytes / 1024).toFixed(1)} KiB`;
}

function seconds() {
  return ((performance.now() - started) / 1000).toFixed(1);
}

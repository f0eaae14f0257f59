// The consumer matrix: the packed tarball installed, as a user installs it, into a fresh project
// per toolchain, built with that toolchain's own defaults, and run (in /usr/bin/chromium through
// playwright-core where there is a page, over HTTP where there is a server):
//
//   node tests/consumers/run.mjs [NAME...] [--update-locks]
//
// Projects live in tests/consumers/projects/NAME (package.json, package-lock.json, the toolchain's
// own files) plus what tests/consumers/shared/ holds (check.js: one compaction whose answer is
// known; check-inline.js: the same through tiered-compaction/inline; the Vite and SvelteKit sources). Each is copied into $TMPDIR/tiered-compaction-consumers-*/NAME
// and installed with `npm ci` from its committed lockfile, whose entry for tiered-compaction names
// ../tiered-compaction.tgz (npm pack of pkg/, beside the projects) without an integrity hash (the
// tarball changes with every build). When the lockfile is unchanged since the last install, only
// the package is refreshed from the tarball (what npm would unpack). `--update-locks` resolves
// the projects' dependencies again and writes their lockfiles back.
//
// The checks, and what they prove, are in `projects` below; Node ESM/CJS, Deno, Bun and workerd
// run through tests/runtimes/run.mjs. A summary table with timings follows; exit code 1 if any
// check failed.
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as http from "node:http";
import * as os from "node:os";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { freePort } from "../net.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, "../..");
// Outside the repository, as a user's project would be (inside it, Next takes the repository's
// lockfile for its workspace root); one directory per checkout. TC_CONSUMERS_DIR overrides it.
const work = process.env.TC_CONSUMERS_DIR ?? path.join(os.tmpdir(), `tiered-compaction-consumers-${createHash("sha256").update(root).digest("hex").slice(0, 8)}`);
const tarball = path.join(work, "tiered-compaction.tgz");
const CHROMIUM = "/usr/bin/chromium";
const CHROMIUM_ARGS = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic"];
const EXPECTED = "micro 232 -> 36";
const args = process.argv.slice(2);
const updateLocks = args.includes("--update-locks");
const env = { ...process.env, NEXT_TELEMETRY_DISABLED: "1", DO_NOT_TRACK: "1", NO_COLOR: "1", FORCE_COLOR: "0", npm_config_update_notifier: "false", npm_config_fund: "false", npm_config_audit: "false" };

const started = performance.now();
const results = [];

/** One row of the summary: a check's outcome. */
async function step(name, fn) {
  const t0 = performance.now();
  try {
    const detail = await fn();
    results.push({ name, status: "ok", seconds: (performance.now() - t0) / 1000, detail: detail ?? "" });
    console.log(`ok      ${name}: ${detail ?? ""}`);
  } catch (error) {
    results.push({ name, status: "FAILED", seconds: (performance.now() - t0) / 1000, detail: oneLine(error?.message ?? String(error)) });
    console.log(`FAILED  ${name}: ${error?.stack ?? error}`);
  }
}

const oneLine = (text) => text.replace(/\s+/g, " ").slice(0, 400);

// ---------------------------------------------------------------------------------------------
// The projects and their checks.

const vite = (name, { excludeConfigInDev }) => ({
  shared: [["vite", "."], ["check.js", "src/check.js"]],
  async checks(dir) {
    // Dev server: the package pre-bundled by the dep optimizer (Vite 6, 7: esbuild; 8: rolldown).
    await step(`${name} dev (page + module worker)`, () =>
      withServer(dir, [bin(dir, "vite"), "--host", "127.0.0.1", "--port", "{port}", "--strictPort", "--force"], (url) => page(url, { worker: true })),
    );
    if (excludeConfigInDev) {
      // The README's line, in the project itself, and in a hoisted monorepo: an app in
      // packages/app whose dependencies are installed in the workspace root's node_modules, where
      // init()'s fallback from .vite/deps cannot find the package. Without the line, the page shows
      // the error that gives it; with it, the page works.
      await step(`${name} dev with optimizeDeps.exclude (page + module worker)`, () =>
        withServer(dir, [bin(dir, "vite"), "--config", "vite.exclude.config.js", "--host", "127.0.0.1", "--port", "{port}", "--strictPort", "--force"], (url) => page(url, { worker: true })),
      );
      const app = path.join(dir, "packages", "app");
      fs.mkdirSync(app, { recursive: true });
      fs.cpSync(path.join(here, "shared", "vite"), app, { recursive: true });
      fs.copyFileSync(path.join(here, "shared", "check.js"), path.join(app, "src", "check.js"));
      fs.writeFileSync(path.join(app, "package.json"), `${JSON.stringify({ name: "app", private: true, type: "module" }, null, 2)}\n`);
      fs.writeFileSync(path.join(dir, "pnpm-workspace.yaml"), "packages:\n  - packages/*\n");
      await step(`${name} dev in a hoisted monorepo, no config: the error names the line`, async () => {
        const shown = await withServer(app, [bin(dir, "vite"), "--host", "127.0.0.1", "--port", "{port}", "--strictPort", "--force"], (url) => page(url, { expectError: true }));
        for (const words of ["ERR_TC_NOT_INITIALISED", "HTML page", 'optimizeDeps: { exclude: ["tiered-compaction"] }']) {
          if (!shown.includes(words)) throw new Error(`the error does not name ${words}: ${shown}`);
        }
        return shown;
      });
      await step(`${name} dev in a hoisted monorepo with optimizeDeps.exclude (page + module worker)`, () =>
        withServer(app, [bin(dir, "vite"), "--config", "vite.exclude.config.js", "--host", "127.0.0.1", "--port", "{port}", "--strictPort", "--force"], (url) => page(url, { worker: true })),
      );
    }
    await step(`${name} build + preview (page + module worker)`, async () => {
      run(dir, bin(dir, "vite"), ["build", "--logLevel", "warn"]);
      const emitted = fs.readdirSync(path.join(dir, "dist", "assets")).filter((file) => file.endsWith(".wasm"));
      const detail = await withServer(dir, [bin(dir, "vite"), "preview", "--host", "127.0.0.1", "--port", "{port}", "--strictPort"], (url) => page(url, { worker: true }));
      return `${detail}; emitted ${emitted.join(", ")}`;
    });
  },
});

const sveltekit = (name) => ({
  shared: [["sveltekit", "."], ["check.js", "src/check.js"]],
  async checks(dir) {
    await step(`${name} adapter-node build, node build: route + page`, async () => {
      run(dir, bin(dir, "vite"), ["build", "--logLevel", "warn"]);
      return withServer(dir, ["node", "build"], async (url) => `route ${await route(`${url}api/compact`)}; ${await page(url)}`, { portEnv: true });
    });
  },
});

/**
 * A framework integration in a project with its framework alone: its example agent through
 * `import` and `require` (one line each, `expected`), and nothing of the other frameworks
 * installed (they are optional peer dependencies of the package).
 */
const integration = (name, { expected, absent }) => ({
  shared: [],
  async checks(dir) {
    await step(`${name}: tiered-compaction/${name} in the framework's own loop (ESM, CJS)`, () => {
      const out = `${run(dir, "node", ["agent.mjs"]).trim()}; ${run(dir, "node", ["agent.cjs"]).trim()}`;
      if (out !== `ESM ${expected}; CJS ${expected}`) throw new Error(out);
      return out;
    });
    await step(`${name}: installs no other framework (optional peer dependencies)`, () => noneInstalled(dir, absent));
  },
});

/** Throws when any of `names` is installed in `dir`; else says they are not. */
function noneInstalled(dir, names) {
  const present = names.filter((name) => fs.existsSync(path.join(dir, "node_modules", name)));
  if (present.length > 0) throw new Error(`installed: ${present.join(", ")}`);
  return `none of ${names.join(", ")} in node_modules`;
}

const projects = {
  vite6: vite("vite6", { excludeConfigInDev: true }),
  vite7: vite("vite7", { excludeConfigInDev: true }),
  vite8: vite("vite8", { excludeConfigInDev: false }),
  webpack5: {
    shared: [["check.js", "src/check.js"]],
    async checks(dir) {
      await step("webpack5 build (no webpack.config)", async () => {
        run(dir, bin(dir, "webpack"), ["--mode", "production"]);
        fs.copyFileSync(path.join(dir, "index.html"), path.join(dir, "dist", "index.html"));
        return withStatic(path.join(dir, "dist"), (url) => page(url));
      });
    },
  },
  esbuild: {
    shared: [["check.js", "src/check.js"], ["check-inline.js", "src/check-inline.js"]],
    async checks(dir) {
      const esbuild = bin(dir, "esbuild");
      const out = path.join(dir, "out");
      await step("esbuild --platform=node --format=esm", () => {
        run(dir, esbuild, ["src/server.js", "--bundle", "--platform=node", "--format=esm", "--outfile=out/server.mjs", "--log-level=warning"]);
        return expectOutput(run(dir, "node", ["out/server.mjs"]));
      });
      await step("esbuild --platform=node --format=cjs", () => {
        run(dir, esbuild, ["src/server.js", "--bundle", "--platform=node", "--format=cjs", "--outfile=out/server.cjs", "--log-level=warning"]);
        return expectOutput(run(dir, "node", ["out/server.cjs"]));
      });
      await step("esbuild --platform=node bundle run where the package is not installed: a clear error", () => {
        const away = fs.mkdtempSync(path.join(os.tmpdir(), "tc-bundle-"));
        try {
          fs.copyFileSync(path.join(out, "server.mjs"), path.join(away, "server.mjs"));
          const child = spawnSync("node", ["server.mjs"], { cwd: away, env, encoding: "utf8" });
          for (const words of ["ERR_TC_NOT_INITIALISED", "was not found", "--packages=external", "initSync("]) {
            if (!child.stderr.includes(words)) throw new Error(`exit ${child.status}; the error does not name ${words}: ${child.stderr}`);
          }
          return oneLine(child.stderr.split("\n").find((line) => line.includes("ERR_TC_NOT_INITIALISED") || line.includes("was not found")) ?? "");
        } finally {
          fs.rmSync(away, { recursive: true, force: true });
        }
      });
      await step("esbuild browser --format=esm, no loader: a clear error", async () => {
        fs.rmSync(out, { recursive: true, force: true });
        run(dir, esbuild, ["src/browser.js", "--bundle", "--format=esm", "--outfile=out/app.js", "--log-level=warning"]);
        fs.copyFileSync(path.join(dir, "index.html"), path.join(out, "index.html"));
        const shown = await withStatic(out, (url) => page(url, { expectError: true }));
        for (const words of ["ERR_TC_NOT_INITIALISED", "404", "tiered-compaction/inline", "--loader:.wasm=file", "init("]) {
          if (!shown.includes(words)) throw new Error(`the error does not name ${words}: ${shown}`);
        }
        return shown;
      });
      await step("esbuild browser --format=esm --loader:.wasm=file, init(wasm)", async () => {
        fs.rmSync(out, { recursive: true, force: true });
        run(dir, esbuild, ["src/browser-loader.js", "--bundle", "--format=esm", "--outdir=out", "--entry-names=app", "--loader:.wasm=file", "--log-level=warning"]);
        fs.copyFileSync(path.join(dir, "index.html"), path.join(out, "index.html"));
        return withStatic(out, (url) => page(url));
      });
      // tiered-compaction/inline: esbuild's defaults, nothing to copy, not a warning.
      for (const format of ["esm", "iife"]) {
        await step(`esbuild browser --format=${format}, tiered-compaction/inline, no config`, async () => {
          fs.rmSync(out, { recursive: true, force: true });
          const warnings = build(dir, esbuild, ["src/browser-inline.js", "--bundle", `--format=${format}`, "--outfile=out/app.js", "--log-level=warning"]);
          if (warnings !== "") throw new Error(`esbuild warned:\n${warnings}`);
          fs.copyFileSync(path.join(dir, "index.html"), path.join(out, "index.html"));
          return `${await withStatic(out, (url) => page(url))}; ${outputs(out)}`;
        });
      }
      await step("esbuild --platform=node, tiered-compaction/inline: one file that runs where the package is not installed", () => {
        const away = fs.mkdtempSync(path.join(os.tmpdir(), "tc-bundle-"));
        try {
          const ran = [];
          for (const [format, file] of [["esm", "server.mjs"], ["cjs", "server.cjs"]]) {
            const warnings = build(dir, esbuild, ["src/server-inline.js", "--bundle", "--platform=node", `--format=${format}`, `--outfile=${path.join(away, file)}`, "--log-level=warning"]);
            if (warnings !== "") throw new Error(`esbuild --format=${format} warned:\n${warnings}`);
            ran.push(`${format}: ${expectOutput(run(away, "node", [file]))}`);
          }
          return ran.join("; ");
        } finally {
          fs.rmSync(away, { recursive: true, force: true });
        }
      });
    },
  },
  rollup: {
    shared: [["check.js", "src/check.js"], ["check-inline.js", "src/check-inline.js"]],
    async checks(dir) {
      const rollup = bin(dir, "rollup");
      const out = path.join(dir, "out");
      // Rollup resolves no bare import by itself: node-resolve, the one plugin every Rollup app
      // has, finds the package; no plugin handles assets or WebAssembly.
      await step("rollup -p node-resolve -f es, tiered-compaction/inline (no asset plugin)", async () => {
        fs.rmSync(out, { recursive: true, force: true });
        const warnings = build(dir, rollup, ["src/main.js", "-p", "node-resolve", "-f", "es", "-o", "out/app.js"]);
        if (warnings.includes("(!)")) throw new Error(`rollup warned:\n${warnings}`);
        fs.copyFileSync(path.join(dir, "index.html"), path.join(out, "index.html"));
        return `${await withStatic(out, (url) => page(url))}; ${outputs(out)}`;
      });
      // With no plugin at all: tiered-compaction/inline's modules are plain ES modules that import
      // one another by relative path, so the entry's own path is all Rollup needs.
      await step("rollup -f es with no plugin, tiered-compaction/inline by its path", async () => {
        fs.rmSync(out, { recursive: true, force: true });
        const source = fs.readFileSync(path.join(dir, "src", "check-inline.js"), "utf8");
        fs.writeFileSync(path.join(dir, "src", "check-path.js"), source.replace('from "tiered-compaction/inline";', 'from "../node_modules/tiered-compaction/inline.mjs";'));
        fs.writeFileSync(path.join(dir, "src", "main-path.js"), 'import { check, report } from "./check-path.js";\n\nreport(check());\n');
        const warnings = build(dir, rollup, ["src/main-path.js", "-f", "es", "-o", "out/app.js"]);
        if (warnings.includes("(!)")) throw new Error(`rollup warned:\n${warnings}`);
        fs.copyFileSync(path.join(dir, "index.html"), path.join(out, "index.html"));
        return `${await withStatic(out, (url) => page(url))}; ${outputs(out)}`;
      });
      // The main entry point under the same build: Rollup does not copy the .wasm file its init()
      // fetches; the error says so and names tiered-compaction/inline.
      await step("rollup -p node-resolve -f es, the main entry point: a clear error naming tiered-compaction/inline", async () => {
        fs.rmSync(out, { recursive: true, force: true });
        build(dir, rollup, ["src/main-asset.js", "-p", "node-resolve", "-f", "es", "-o", "out/app.js"]);
        fs.copyFileSync(path.join(dir, "index.html"), path.join(out, "index.html"));
        const shown = await withStatic(out, (url) => page(url, { expectError: true }));
        for (const words of ["ERR_TC_NOT_INITIALISED", "404", "Rollup", "tiered-compaction/inline"]) {
          if (!shown.includes(words)) throw new Error(`the error does not name ${words}: ${shown}`);
        }
        return shown;
      });
    },
  },
  next: {
    shared: [["check.js", "app/check.js"]],
    async checks(dir) {
      for (const [label, flags] of [["Turbopack", []], ["webpack", ["--webpack"]]]) {
        await step(`next build (${label}), next start: route handler + client page (SSR + browser)`, async () => {
          fs.rmSync(path.join(dir, ".next"), { recursive: true, force: true });
          run(dir, bin(dir, "next"), ["build", ...flags]);
          return withServer(dir, [bin(dir, "next"), "start", "-p", "{port}", "-H", "127.0.0.1"], async (url) => {
            const routeResult = await route(`${url}api/compact`);
            const html = await (await fetch(url)).text();
            if (!html.includes("auto weight <!-- -->0.5") && !html.includes("auto weight 0.5")) throw new Error(`SSR did not render the package's constant: ${html.slice(0, 300)}`);
            return `route ${routeResult}; SSR ok; ${await page(url)}`;
          });
        });
      }
    },
  },
  cli: {
    shared: [],
    async checks(dir) {
      run(dir, "node", ["make-inputs.mjs"]);
      const cli = (cliArgs, options) => run(dir, "npx", ["--no-install", "tiered-compaction", ...cliArgs], options);
      await step("npx tiered-compaction session.jsonl (Claude Code): every tier, what it cuts, keeps, costs", () => {
        const out = cli(["session.jsonl"]);
        for (const words of ["Claude Code session", "main thread", "the policy would pick", "kept: paths", "cost (USD)", "micro: ", "cuts "]) {
          if (!out.includes(words)) throw new Error(`the report lacks ${JSON.stringify(words)}:\n${out}`);
        }
        const table = out.split("\n").filter((line) => /^(none|micro|time_based|auto|session_memory) +[\d,]+ /.test(line));
        if (table.length !== 5) throw new Error(`expected a row per tier:\n${out}`);
        return table.map((line) => line.replace(/\s+/g, " ")).join(" | ");
      });
      await step("npx tiered-compaction body.json --tier micro --out (OpenAI request body)", () => {
        cli(["body.json", "--tier", "micro", "--out", "compacted.json"]);
        const before = JSON.parse(fs.readFileSync(path.join(dir, "body.json"), "utf8"));
        const after = JSON.parse(fs.readFileSync(path.join(dir, "compacted.json"), "utf8"));
        const archive = JSON.parse(fs.readFileSync(path.join(dir, "compacted.json.archive.json"), "utf8"));
        if (after.model !== before.model || after.temperature !== before.temperature || after.messages.length !== before.messages.length) throw new Error("the body's other fields changed");
        if (archive.length === 0 || !archive.every((entry) => typeof entry.id === "string" && entry.kind === "tool_result")) throw new Error(`archive: ${JSON.stringify(archive).slice(0, 300)}`);
        const stubbed = after.messages.filter((message) => message.role === "tool" && /recall: /.test(message.content)).length;
        if (stubbed !== archive.length) throw new Error(`${stubbed} stubs for ${archive.length} archive entries`);
        return `${archive.length} results stubbed and archived; model, temperature, stream unchanged`;
      });
      await step("npx tiered-compaction messages.json --json (AI SDK messages)", () => {
        const report = JSON.parse(cli(["messages.json", "--json", "--tier", "auto"]));
        if (report.format !== "ai-sdk" || report.tiers[0].tier !== "auto" || !(report.tiers[0].afterTokens < report.beforeTokens)) throw new Error(JSON.stringify(report));
        return `${report.format}: auto ${report.beforeTokens} -> ${report.tiers[0].afterTokens} tokens`;
      });
      await step("npx tiered-compaction large.jsonl (> 1 MB): progress on standard error", () => {
        const child = spawnSync("npx", ["--no-install", "tiered-compaction", "large.jsonl", "--tier", "micro"], { cwd: dir, env, encoding: "utf8" });
        if (child.status !== 0) throw new Error(child.stderr);
        if (!/reading large\.jsonl: 100 % of [\d.]+ MB/.test(child.stderr) || !/running micro/.test(child.stderr)) throw new Error(`no progress: ${child.stderr}`);
        return child.stderr.trim().split("\n").at(-1);
      });
      // The same plain Node project: the explicit-init entry point and the AI SDK helper, both kinds.
      await step("Node: tiered-compaction/web, init() with no argument (ESM, CJS); tiered-compaction/ai-sdk (ESM, CJS)", () => {
        fs.writeFileSync(
          path.join(dir, "web.mjs"),
          'import { init, estimateTokens } from "tiered-compaction/web";\nimport { prepareStep } from "tiered-compaction/ai-sdk";\nawait init();\nconsole.log(`ESM ${estimateTokens("abcdefgh")} ${typeof prepareStep({ contextWindow: 1000 })}`);\n',
        );
        fs.writeFileSync(
          path.join(dir, "web.cjs"),
          'const { init, estimateTokens } = require("tiered-compaction/web");\nconst { prepareStep } = require("tiered-compaction/ai-sdk");\ninit().then(() => console.log(`CJS ${estimateTokens("abcdefgh")} ${typeof prepareStep({ contextWindow: 1000 })}`));\n',
        );
        const out = `${run(dir, "node", ["web.mjs"]).trim()}; ${run(dir, "node", ["web.cjs"]).trim()}`;
        if (out !== "ESM 2 function; CJS 2 function") throw new Error(out);
        return out;
      });
      // The frameworks the integrations take are optional peer dependencies: a user of none of
      // them installs none of them.
      await step("the package alone installs no framework (optional peer dependencies)", () =>
        noneInstalled(dir, ["langchain", "@langchain/core", "@langchain/langgraph", "zod", "@openai/agents", "openai"]),
      );
      await step("npx tiered-compaction with a bad option: usage, exit code 2", () => {
        const child = spawnSync("npx", ["--no-install", "tiered-compaction", "session.jsonl", "--tier", "fast"], { cwd: dir, env, encoding: "utf8" });
        if (child.status !== 2 || !child.stderr.includes("--tier must be one of")) throw new Error(`exit ${child.status}: ${child.stderr}`);
        return "exit 2";
      });
    },
  },
  langchain: integration("langchain", { expected: "langchain: 3 stubs sent, history whole true, state v1", absent: ["@openai/agents", "openai"] }),
  "openai-agents": integration("openai-agents", { expected: "openai-agents: 3 stubs sent, history whole true, Fixed.", absent: ["langchain", "@langchain/core", "@langchain/langgraph"] }),
  "sveltekit-dep": sveltekit("sveltekit-dep"),
  "sveltekit-devdep": sveltekit("sveltekit-devdep"),
};

/** Node ESM/CJS from the tarball, Deno, Bun, workerd, examples/worker-proxy on workerd: tests/runtimes/run.mjs (its own consumer). */
const runtimes = ["pack", "deno", "bun", "workerd", "worker-proxy"];

// ---------------------------------------------------------------------------------------------
// Helpers.

function bin(dir, name) {
  return path.join(dir, "node_modules", ".bin", name);
}

function run(cwd, command, commandArgs, options = {}) {
  try {
    return execFileSync(command, commandArgs, { cwd, env, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], maxBuffer: 64 << 20, ...options });
  } catch (error) {
    const output = `${error.stdout ?? ""}${error.stderr ?? ""}`.trim().split("\n").slice(-25).join("\n");
    throw new Error(`${path.basename(command)} ${commandArgs.join(" ")} failed (${error.status}):\n${output}`);
  }
}

/** Runs a build; returns what it printed to stderr (warnings), trimmed. */
function build(cwd, command, commandArgs) {
  const child = spawnSync(command, commandArgs, { cwd, env, encoding: "utf8", maxBuffer: 64 << 20 });
  if (child.status !== 0) throw new Error(`${path.basename(command)} ${commandArgs.join(" ")} failed (${child.status}):\n${`${child.stdout}${child.stderr}`.trim().split("\n").slice(-25).join("\n")}`);
  return child.stderr.trim();
}

/** The files a build wrote, with their sizes (raw, gzipped): what a page downloads. */
function outputs(dir) {
  return fs
    .readdirSync(dir)
    .filter((name) => name !== "index.html")
    .map((name) => {
      const bytes = fs.readFileSync(path.join(dir, name));
      return `${name} ${(bytes.length / 1024).toFixed(1)} KiB (${(gzipSync(bytes, { level: 9 }).length / 1024).toFixed(1)} KiB gzipped)`;
    })
    .join(", ");
}

function expectOutput(output) {
  const line = output.trim().split("\n").at(-1);
  if (line !== EXPECTED) throw new Error(`printed ${JSON.stringify(output.trim())}, expected ${EXPECTED}`);
  return line;
}

async function route(url) {
  const response = await fetch(url);
  const text = await response.text();
  if (response.status !== 200) throw new Error(`GET ${url} answered ${response.status}: ${oneLine(text)}`);
  const { result } = JSON.parse(text);
  if (result !== EXPECTED) throw new Error(`GET ${url} gave ${result}`);
  return result;
}

let browserPromise = null;
function browser() {
  browserPromise ??= import(path.join(root, "node_modules", "playwright-core", "index.mjs")).then(({ chromium }) =>
    chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS }),
  );
  return browserPromise;
}

/** Loads `url`, waits for the page's result (and its worker's); returns them, or the error shown. */
async function page(url, { worker = false, expectError = false } = {}) {
  const context = await (await browser()).newContext();
  const tab = await context.newPage();
  const problems = [];
  tab.on("pageerror", (error) => problems.push(`pageerror: ${error.message}`));
  tab.on("console", (message) => {
    if (message.type() === "error") problems.push(`console: ${message.text()}`);
  });
  try {
    await tab.goto(url, { waitUntil: "load", timeout: 60_000 });
    const keys = worker ? ["__result", "__workerResult"] : ["__result"];
    // A Vite dev server may reload the page once after optimizing dependencies: poll, not wait once.
    const deadline = Date.now() + 60_000;
    let values = [];
    while (Date.now() < deadline) {
      values = await tab.evaluate((names) => names.map((name) => globalThis[name]), keys).catch(() => []);
      if (values.length === keys.length && values.every((value) => value !== undefined)) break;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    if (values.length !== keys.length || values.some((value) => value === undefined)) {
      throw new Error(`no result in the page after 60 s; ${problems.join("; ")}`);
    }
    if (expectError) {
      if (!values[0].startsWith("error: ")) throw new Error(`expected an error, got ${values[0]}`);
      return values[0];
    }
    const wrong = values.filter((value) => value !== EXPECTED);
    if (wrong.length > 0) throw new Error(`${wrong.join("; ")}${problems.length > 0 ? ` (${problems.join("; ")})` : ""}`);
    return worker ? `page and worker: ${EXPECTED}` : `page: ${EXPECTED}`;
  } finally {
    await context.close();
  }
}

async function waitForHttp(url, server, output, seconds = 120) {
  const deadline = Date.now() + seconds * 1000;
  while (Date.now() < deadline) {
    if (server.exitCode !== null) throw new Error(`the server exited (${server.exitCode}):\n${output().slice(-3000)}`);
    try {
      await fetch(url, { signal: AbortSignal.timeout(2000) });
      return;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 300));
    }
  }
  throw new Error(`no answer from ${url} after ${seconds} s:\n${output().slice(-3000)}`);
}

/** Starts a server ("{port}" in its arguments, or PORT/HOST in its environment), runs `fn(url)`, stops it. */
async function withServer(dir, [command, ...commandArgs], fn, { portEnv = false } = {}) {
  const port = await freePort();
  let log = "";
  const server = spawn(command, commandArgs.map((arg) => arg.replace("{port}", String(port))), {
    cwd: dir,
    env: portEnv ? { ...env, PORT: String(port), HOST: "127.0.0.1" } : env,
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  server.stdout.on("data", (chunk) => (log += chunk));
  server.stderr.on("data", (chunk) => (log += chunk));
  const url = `http://127.0.0.1:${port}/`;
  try {
    await waitForHttp(url, server, () => log);
    return await fn(url);
  } catch (error) {
    error.message += log.trim() === "" ? "" : `\n--- server output ---\n${log.trim().split("\n").slice(-20).join("\n")}`;
    throw error;
  } finally {
    // The server and anything it started (its own process group).
    try {
      process.kill(-server.pid, "SIGTERM");
    } catch {
      // Already gone.
    }
    await new Promise((resolve) => (server.exitCode !== null ? resolve() : server.once("exit", resolve)));
  }
}

const TYPES = { ".html": "text/html", ".js": "text/javascript", ".mjs": "text/javascript", ".wasm": "application/wasm", ".css": "text/css", ".json": "application/json" };

/** Serves `dir` as static files (as any static host would: 404 for what is not there). */
async function withStatic(dir, fn) {
  const server = http.createServer((request, response) => {
    const name = decodeURIComponent(new URL(request.url, "http://x").pathname);
    const file = path.join(dir, name.endsWith("/") ? `${name}index.html` : name);
    if (!file.startsWith(dir) || !fs.existsSync(file) || !fs.statSync(file).isFile()) {
      response.writeHead(404, { "content-type": "text/plain" }).end("not found");
      return;
    }
    response.writeHead(200, { "content-type": TYPES[path.extname(file)] ?? "application/octet-stream" }).end(fs.readFileSync(file));
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  try {
    return await fn(`http://127.0.0.1:${server.address().port}/`);
  } finally {
    server.close();
  }
}

const hashOf = (text) => createHash("sha256").update(text).digest("hex");

/** npm pack pkg/ into WORK/tiered-compaction.tgz (skipped when pkg/ did not change). */
function pack() {
  fs.mkdirSync(work, { recursive: true });
  const stamp = fs.readFileSync(path.join(root, "pkg", ".build-stamp"), "utf8");
  const stampFile = `${tarball}.stamp`;
  if (fs.existsSync(tarball) && fs.existsSync(stampFile) && fs.readFileSync(stampFile, "utf8") === stamp) return;
  const packed = JSON.parse(run(work, "npm", ["pack", path.join(root, "pkg"), "--json", "--pack-destination", work]))[0];
  fs.renameSync(path.join(work, packed.filename), tarball);
  fs.writeFileSync(stampFile, stamp);
  console.log(`packed ${packed.filename}: ${packed.entryCount} files, ${(packed.size / 1024).toFixed(1)} KiB`);
}

const version = () => JSON.parse(fs.readFileSync(path.join(root, "pkg", "package.json"), "utf8")).version;

/** A lockfile whose tiered-compaction entry is the tarball at this version, with no integrity. */
function normaliseLock(lock) {
  const entry = lock.packages?.["node_modules/tiered-compaction"];
  if (entry !== undefined) {
    delete entry.integrity;
    entry.version = version();
    entry.resolved = "file:../tiered-compaction.tgz";
  }
  return lock;
}

/** Copies the project into WORK/NAME and installs it; returns its directory. */
async function prepare(name) {
  const source = path.join(here, "projects", name);
  const dir = path.join(work, name);
  fs.mkdirSync(dir, { recursive: true });
  // A fresh copy of the sources, keeping node_modules (checked below).
  for (const entry of fs.readdirSync(dir)) {
    if (entry !== "node_modules") fs.rmSync(path.join(dir, entry), { recursive: true, force: true });
  }
  fs.cpSync(source, dir, { recursive: true, filter: (file) => !file.includes(`${path.sep}node_modules`) });
  for (const [from, to] of projects[name].shared) fs.cpSync(path.join(here, "shared", from), path.join(dir, to), { recursive: true });
  const lockFile = path.join(dir, "package-lock.json");
  const installed = path.join(dir, "node_modules", ".package-lock.json");
  const stampFile = path.join(dir, "node_modules", ".consumer-stamp");
  if (updateLocks || !fs.existsSync(lockFile)) {
    fs.rmSync(lockFile, { force: true });
    fs.rmSync(path.join(dir, "node_modules"), { recursive: true, force: true });
    await npm(dir, ["install", "--no-audit", "--no-fund", "--loglevel=error"]);
    const lock = normaliseLock(JSON.parse(fs.readFileSync(lockFile, "utf8")));
    fs.writeFileSync(path.join(source, "package-lock.json"), `${JSON.stringify(lock, null, 2)}\n`);
    fs.copyFileSync(path.join(source, "package-lock.json"), lockFile);
    fs.writeFileSync(stampFile, hashOf(fs.readFileSync(lockFile)));
    return { dir, how: "npm install (lockfile written)" };
  }
  fs.writeFileSync(lockFile, `${JSON.stringify(normaliseLock(JSON.parse(fs.readFileSync(lockFile, "utf8"))), null, 2)}\n`);
  const lockHash = hashOf(fs.readFileSync(lockFile));
  if (fs.existsSync(installed) && fs.existsSync(stampFile) && fs.readFileSync(stampFile, "utf8") === lockHash) {
    // The same dependencies as last time: only the package, unpacked as npm would.
    const target = path.join(dir, "node_modules", "tiered-compaction");
    fs.rmSync(target, { recursive: true, force: true });
    fs.mkdirSync(target, { recursive: true });
    run(dir, "tar", ["-xzf", tarball, "-C", target, "--strip-components=1"]);
    // And its commands, linked as npm links them.
    const { bin = {} } = JSON.parse(fs.readFileSync(path.join(target, "package.json"), "utf8"));
    for (const [command, file] of Object.entries(bin)) {
      const link = path.join(dir, "node_modules", ".bin", command);
      fs.mkdirSync(path.dirname(link), { recursive: true });
      fs.rmSync(link, { force: true });
      fs.symlinkSync(path.join("..", "tiered-compaction", file), link);
    }
    return { dir, how: "tiered-compaction refreshed from the tarball" };
  }
  await npm(dir, ["ci", "--no-audit", "--no-fund", "--loglevel=error"]);
  fs.writeFileSync(stampFile, lockHash);
  return { dir, how: "npm ci" };
}

function npm(cwd, npmArgs) {
  return new Promise((resolve, reject) => {
    let output = "";
    const child = spawn("npm", npmArgs, { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
    child.stdout.on("data", (chunk) => (output += chunk));
    child.stderr.on("data", (chunk) => (output += chunk));
    child.on("exit", (code) => (code === 0 ? resolve() : reject(new Error(`npm ${npmArgs.join(" ")} in ${cwd} failed (${code}):\n${output.slice(-3000)}`))));
  });
}

/** Runs `fn` over `items`, `limit` at a time. */
async function pool(items, limit, fn) {
  const queue = [...items];
  const workers = Array.from({ length: Math.min(limit, queue.length) }, async () => {
    while (queue.length > 0) await fn(queue.shift());
  });
  await Promise.all(workers);
}

// ---------------------------------------------------------------------------------------------

const names = args.filter((arg) => !arg.startsWith("--"));
const selected = names.length === 0 ? [...Object.keys(projects), ...runtimes] : names;
for (const name of selected) {
  if (!Object.hasOwn(projects, name) && !runtimes.includes(name)) {
    console.error(`unknown consumer ${name}; known: ${[...Object.keys(projects), ...runtimes].join(", ")}`);
    process.exit(2);
  }
}

pack();
// Installs are network- and disk-bound: three at a time. Builds and pages are CPU-bound: one at a time.
const prepared = new Map();
await pool(
  selected.filter((name) => Object.hasOwn(projects, name)),
  3,
  async (name) => {
    const t0 = performance.now();
    try {
      prepared.set(name, await prepare(name));
      const { how } = prepared.get(name);
      results.push({ name: `${name} install`, status: "ok", seconds: (performance.now() - t0) / 1000, detail: how });
      console.log(`ok      ${name} install: ${how} (${((performance.now() - t0) / 1000).toFixed(1)} s)`);
    } catch (error) {
      results.push({ name: `${name} install`, status: "FAILED", seconds: (performance.now() - t0) / 1000, detail: oneLine(error.message) });
      console.log(`FAILED  ${name} install: ${error.message}`);
    }
  },
);
try {
  for (const name of selected) {
    if (runtimes.includes(name)) {
      await step(`runtimes: ${name}`, () => oneLine(run(root, "node", [path.join(root, "tests", "runtimes", "run.mjs"), name]).trim().split("\n").join(" | ")));
    } else if (prepared.has(name)) {
      await projects[name].checks(prepared.get(name).dir);
    }
  }
} finally {
  if (browserPromise !== null) await (await browserPromise).close();
}

console.log("\n=== consumer matrix");
for (const { name, status, seconds, detail } of results) {
  console.log(`${status.padEnd(7)} ${seconds.toFixed(1).padStart(6)} s  ${name}${detail ? `  (${oneLine(detail).slice(0, 200)})` : ""}`);
}
const failed = results.filter((result) => result.status !== "ok").length;
console.log(`${results.length - failed} passed, ${failed} failed, ${((performance.now() - started) / 1000).toFixed(1)} s in all`);
process.exit(failed === 0 ? 0 : 1);

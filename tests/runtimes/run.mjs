// Packaging and runtime tests against the packed tarball, installed like a user installs it:
//   node tests/runtimes/run.mjs pack     npm pack pkg/ -> npm install the .tgz into a fresh
//                                        project -> import it from Node ESM and CJS, run compact
//   node tests/runtimes/run.mjs deno     smoke.mjs in Deno (npm package `deno`)
//   node tests/runtimes/run.mjs bun      smoke.mjs in Bun (npm package `bun`)
//   node tests/runtimes/run.mjs workerd  a worker on workerd (npm package `workerd`) on 127.0.0.1:
//                                        POST an Anthropic request body, get it back compacted
// The consumer project lives in target/pkg-consumer/ (git-ignored) and is rebuilt whenever pkg/
// changed. Exits non-zero on the first failure.
import { execFileSync, spawn } from "node:child_process";
import * as fs from "node:fs";
import * as net from "node:net";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { anthropicRequestBody } from "../../scripts/samples.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const consumer = path.join(root, "target", "pkg-consumer");
const bin = (name) => path.join(root, "node_modules", ".bin", name);
const here = path.dirname(fileURLToPath(import.meta.url));

function run(command, args, options = {}) {
  return execFileSync(command, args, { cwd: consumer, encoding: "utf8", stdio: ["ignore", "pipe", "inherit"], ...options });
}

/**
 * Packs pkg/ and installs the tarball into a fresh consumer project (skipped when current), then
 * copies the smoke script and the samples in (always: they change without pkg/ changing).
 */
function install() {
  const stamp = fs.readFileSync(path.join(root, "pkg", ".build-stamp"), "utf8");
  const stampFile = path.join(consumer, ".pkg-stamp");
  if (!fs.existsSync(stampFile) || fs.readFileSync(stampFile, "utf8") !== stamp) {
    fs.rmSync(consumer, { recursive: true, force: true });
    fs.mkdirSync(consumer, { recursive: true });
    const packed = JSON.parse(run("npm", ["pack", path.join(root, "pkg"), "--json", "--pack-destination", consumer]))[0];
    console.log(`packed ${packed.filename}: ${packed.entryCount} files, ${(packed.size / 1024).toFixed(1)} KiB`);
    fs.writeFileSync(path.join(consumer, "package.json"), JSON.stringify({ name: "consumer", private: true, version: "1.0.0" }, null, 2));
    run("npm", ["install", "--no-audit", "--no-fund", "--loglevel=error", `./${packed.filename}`]);
    fs.writeFileSync(stampFile, stamp);
  }
  for (const file of ["smoke.mjs"]) fs.copyFileSync(path.join(here, file), path.join(consumer, file));
  fs.copyFileSync(path.join(root, "scripts", "samples.mjs"), path.join(consumer, "samples.mjs"));
}

const checks = {
  pack() {
    // Node ESM: the "node"+"import" condition, no init.
    fs.writeFileSync(
      path.join(consumer, "esm.mjs"),
      `import { compact, TIER_COST_WEIGHT } from "tiered-compaction";
const result = await compact({ sessionId: "esm", pressure: { turnCount: 2, contextPctUsed: 0.1, idleSeconds: 0, sessionComplete: false }, text: "\`\`\`tool_result name=bash\\n" + "C".repeat(900) + "\\n\`\`\`" });
if (result.tier !== "micro" || result.afterTokens !== 36 || !Object.isFrozen(TIER_COST_WEIGHT)) throw new Error("ESM: " + JSON.stringify(result));
console.log("node ESM: " + result.tier + " " + result.beforeTokens + " -> " + result.afterTokens);
`,
    );
    // Node CJS: the "node"+"require" condition.
    fs.writeFileSync(
      path.join(consumer, "cjs.cjs"),
      `const { compact, TIER_COST_WEIGHT } = require("tiered-compaction");
compact({ sessionId: "cjs", pressure: { turnCount: 2, contextPctUsed: 0.1, idleSeconds: 0, sessionComplete: false }, text: "\`\`\`tool_result name=bash\\n" + "C".repeat(900) + "\\n\`\`\`" }).then((result) => {
  if (result.tier !== "micro" || result.afterTokens !== 36 || !Object.isFrozen(TIER_COST_WEIGHT)) throw new Error("CJS: " + JSON.stringify(result));
  console.log("node CJS: " + result.tier + " " + result.beforeTokens + " -> " + result.afterTokens);
});
`,
    );
    process.stdout.write(run("node", ["esm.mjs"]));
    process.stdout.write(run("node", ["cjs.cjs"]));
    process.stdout.write(run("node", ["smoke.mjs"]));
  },

  deno() {
    // A package.json next to node_modules makes Deno resolve "tiered-compaction" from there,
    // with its "deno" export condition.
    process.stdout.write(run(bin("deno"), ["run", "--allow-read", "--no-prompt", "smoke.mjs"], { env: { ...process.env, DENO_NO_UPDATE_CHECK: "1", NO_COLOR: "1" } }));
  },

  bun() {
    process.stdout.write(run(bin("bun"), ["smoke.mjs"]));
  },

  async workerd() {
    const dir = path.join(consumer, "workerd");
    fs.mkdirSync(dir, { recursive: true });
    fs.copyFileSync(path.join(here, "workerd", "worker.mjs"), path.join(dir, "worker.mjs"));
    const pkg = "../node_modules/tiered-compaction";
    // Module names are what imports resolve to: "tiered-compaction" is the package's workerd
    // entry point, and its relative imports resolve against that name.
    fs.writeFileSync(
      path.join(dir, "config.capnp"),
      `using Workerd = import "/workerd/workerd.capnp";

const config :Workerd.Config = (
  services = [ (name = "main", worker = .proxy) ],
  sockets = [ (name = "http", address = "127.0.0.1:8080", http = (), service = "main") ],
);

const proxy :Workerd.Worker = (
  compatibilityDate = "2025-01-01",
  modules = [
    (name = "worker", esModule = embed "worker.mjs"),
    (name = "tiered-compaction", esModule = embed "${pkg}/workerd.mjs"),
    (name = "index.mjs", esModule = embed "${pkg}/index.mjs"),
    (name = "api.mjs", esModule = embed "${pkg}/api.mjs"),
    (name = "host-values.mjs", esModule = embed "${pkg}/host-values.mjs"),
    (name = "surrogates.mjs", esModule = embed "${pkg}/surrogates.mjs"),
    (name = "weights.mjs", esModule = embed "${pkg}/weights.mjs"),
    (name = "web/tiered_compaction.js", esModule = embed "${pkg}/web/tiered_compaction.js"),
    (name = "web/tiered_compaction_bg.wasm", wasm = embed "${pkg}/web/tiered_compaction_bg.wasm"),
  ],
);
`,
    );
    const port = await freePort();
    const server = spawn(bin("workerd"), ["serve", "config.capnp", "--socket-addr", `http=127.0.0.1:${port}`], {
      cwd: dir,
      stdio: ["ignore", "inherit", "inherit"],
    });
    try {
      await waitForPort(port, server);
      const body = anthropicRequestBody();
      const pressure = { turnCount: 9, contextPctUsed: 0.9, idleSeconds: 0, sessionComplete: false };
      const response = await fetch(`http://127.0.0.1:${port}/`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-pressure": JSON.stringify(pressure), "x-session-id": "edge-1" },
        body,
      });
      const text = await response.text();
      if (response.status !== 200) throw new Error(`workerd answered ${response.status}: ${text}`);
      const before = JSON.parse(body);
      const after = JSON.parse(text);
      for (const key of ["model", "max_tokens", "system", "metadata", "stream"]) {
        if (JSON.stringify(before[key]) !== JSON.stringify(after[key])) throw new Error(`workerd changed ${key}`);
      }
      if (response.headers.get("x-compaction-tier") !== "auto" || text.length >= body.length) {
        throw new Error(`workerd did not compact: ${response.headers.get("x-compaction-tier")}`);
      }
      if (response.headers.get("x-compaction-restores") !== "true" || !(Number(response.headers.get("x-compaction-archive")) > 0)) {
        throw new Error(`workerd: restore({ body, archive }) did not give the request back (${response.headers.get("x-compaction-archive")} entries)`);
      }
      const bad = await fetch(`http://127.0.0.1:${port}/`, { method: "POST", headers: { "x-pressure": JSON.stringify(pressure) }, body: "{" });
      if (bad.status !== 400) throw new Error(`malformed body gave ${bad.status}`);
      console.log(
        `workerd: POST ${body.length} bytes -> ${text.length} bytes, tier ${response.headers.get("x-compaction-tier")}, tokens ${response.headers.get("x-compaction-tokens")}, ${response.headers.get("x-compaction-archive")} archived, restores; malformed body -> 400 (${(await bad.text()).trim()})`,
      );
    } finally {
      server.kill("SIGTERM");
    }
  },
};

function freePort() {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

async function waitForPort(port, server) {
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    if (server.exitCode !== null) throw new Error(`workerd exited with ${server.exitCode}`);
    const open = await new Promise((resolve) => {
      const socket = net.connect(port, "127.0.0.1", () => {
        socket.end();
        resolve(true);
      });
      socket.once("error", () => resolve(false));
    });
    if (open) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error("workerd did not start listening within 20 s");
}

const which = process.argv[2];
if (!(which in checks)) {
  console.error(`usage: node tests/runtimes/run.mjs ${Object.keys(checks).join("|")}`);
  process.exit(2);
}
install();
await checks[which]();

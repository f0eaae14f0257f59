// Trap recovery (js/api.mjs), shown with the test-only build (cargo feature `test-trap`, built into
// target/pkg-trap/ by `node scripts/build.mjs --test-trap`, which this file runs first): when the
// wasm instance traps, the call and every call in flight on it reject with one clear Error
// (code ERR_TC_INSTANCE_TRAPPED, the trap as `cause`), nothing hangs, nothing reaches the host as
// an uncaught exception, and the next call runs on a fresh instance with correct output.
// Results are compared with the default package (`tiered-compaction`, pkg/), which has no
// test-only exports.
import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
import { getEventListeners, setMaxListeners } from "node:events";
import * as fs from "node:fs";
import { createRequire } from "node:module";
import * as path from "node:path";
import { after, before, describe, it } from "node:test";
import { fileURLToPath, pathToFileURL } from "node:url";
import v8 from "node:v8";
import vm from "node:vm";
import * as reference from "tiered-compaction";
import { flatText, openaiMessages, random } from "../../scripts/samples.mjs";
import { inWorker } from "./helpers.mjs";
import { callFor, outcome, settle } from "./reliability-workload.mjs";
import { freePort, waitForPort, workerdPackageModules } from "../net.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const trapPkg = path.join(root, "target", "pkg-trap");
const KINDS = { unreachable: "RuntimeError", oom: "RuntimeError", stack: "RuntimeError", recursion: "RangeError", throw: "Error" };
const CHROMIUM = "/usr/bin/chromium";
const CHROMIUM_ARGS = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic"];
const pressure = { turnCount: 9, contextPctUsed: 0.9, idleSeconds: 0, sessionComplete: false };
const CONCURRENT = 1000;
const ARMED_AT = 300;

// Imported after the registry exists, so the test build's entry points register their hooks.
const registry = new Map();
let trap;
let hooks;
const hostErrors = [];
const onUncaught = (error) => hostErrors.push(["uncaughtException", error]);
const onUnhandled = (error) => hostErrors.push(["unhandledRejection", error]);

before(async () => {
  execFileSync(process.execPath, [path.join(root, "scripts", "build.mjs"), "--test-trap"], {
    cwd: root,
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, PATH: `${path.join(root, ".tools", "bin")}${path.delimiter}${process.env.PATH}` },
  });
  globalThis[Symbol.for("tiered-compaction.testing")] = registry;
  trap = await import(pathToFileURL(path.join(trapPkg, "node.mjs")).href);
  hooks = registry.get("index.mjs");
  process.on("uncaughtException", onUncaught);
  process.on("unhandledRejection", onUnhandled);
});

after(() => {
  process.off("uncaughtException", onUncaught);
  process.off("unhandledRejection", onUnhandled);
});

/** Fails instead of hanging: every promise must settle within `ms`. */
function within(ms, promise, what) {
  let timer;
  const watchdog = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: still pending after ${ms} ms`)), ms);
  });
  return Promise.race([promise, watchdog]).finally(() => clearTimeout(timer));
}

const timers = () => process.getActiveResourcesInfo().filter((name) => name === "Timeout").length;
const tick = () => new Promise((resolve) => setTimeout(resolve, 0));
const microtasks = () => new Promise((resolve) => queueMicrotask(resolve));

function assertTrapError(error, causeName) {
  assertTrapFacts(trapFacts(error), causeName);
  return true;
}

/** What is checked of a trap error, as plain data (a worker thread posts it back). */
function trapFacts(error) {
  return { isError: error instanceof Error, code: error?.code, message: error?.message, cause: error?.cause?.constructor?.name, causeText: String(error?.cause) };
}

function assertTrapFacts({ isError, code, message, cause, causeText }, causeName) {
  assert.ok(isError, "an Error");
  assert.equal(code, "ERR_TC_INSTANCE_TRAPPED");
  assert.match(message, /^tiered-compaction: the WebAssembly instance trapped \(.+\); the calls in flight on it were abandoned, and the next call runs on a fresh instance$/);
  assert.equal(cause, causeName, `cause: ${causeText}`);
}

const text = flatText();
const messages = openaiMessages();

describe("test-only trap exports", () => {
  it("exist in the test-trap build only, never in the default package", () => {
    const names = (dir) =>
      WebAssembly.Module.exports(new WebAssembly.Module(fs.readFileSync(path.join(dir, "web", "tiered_compaction_bg.wasm")))).map(({ name }) => name);
    const shipped = names(path.join(root, "pkg"));
    assert.ok(shipped.includes("compact"));
    assert.ok(!shipped.some((name) => /trap/i.test(name)), shipped.join(", "));
    assert.ok(names(trapPkg).includes("testTrap") && names(trapPkg).includes("testArmTrap"));
    const features = fs.readFileSync(path.join(root, "binding", "Cargo.toml"), "utf8").match(/^\[features\]\n([\s\S]*?)(?=^\[)/m)?.[1] ?? "";
    assert.match(features, /^test-trap = \[\]$/m);
    assert.doesNotMatch(features, /^default\s*=.*test-trap/m);
  });
});

describe("a trap in a synchronous call", () => {
  for (const [kind, causeName] of Object.entries(KINDS)) {
    it(`${kind}: throws ERR_TC_INSTANCE_TRAPPED (cause ${causeName}); the next calls run on a fresh instance`, async () => {
      const before = hooks.diagnostics();
      assert.throws(() => hooks.testTrap(kind), (error) => assertTrapError(error, causeName));
      assert.equal(hooks.diagnostics().traps, before.traps + 1);
      // Synchronous and asynchronous exports both work again, with the default package's output.
      assert.equal(trap.estimateTokens("abcd"), 1);
      assert.equal(trap.selectTier(pressure), "auto");
      const ctx = { sessionId: `sync-${kind}`, pressure, messages };
      assert.deepEqual(await trap.compact(ctx), await reference.compact(ctx));
      const after = hooks.diagnostics();
      assert.equal(after.instances, before.instances + 1);
      assert.ok(after.memoryBytes < 16 * 1024 * 1024, `fresh memory: ${after.memoryBytes} bytes`);
    });
  }

  it("calls in flight reject with the same Error; their summariser requests are aborted with it, their timers cleared, their listeners removed", async () => {
    const baseline = timers();
    const host = new AbortController(); // long-lived, as an app-wide signal would be
    setMaxListeners(50, host.signal);
    const signals = [];
    const calls = Array.from({ length: 20 }, (_, index) =>
      trap.compact(
        { sessionId: `inflight-${index}`, pressure, text },
        {
          signal: host.signal,
          timeoutMs: 60_000,
          // Below what micro's stubs reach on this text (0.14), so auto asks for a summary.
          policy: { autoTargetPct: 0.1 },
          summarise: (request) => {
            signals.push(request.signal);
            return new Promise(() => {}); // a model call that has not answered yet
          },
        },
      ),
    );
    const outcomes = calls.map((call) => settle(call));
    await tick();
    assert.equal(signals.length, 20, "every call is waiting on its summariser");
    assert.equal(getEventListeners(host.signal, "abort").length, 20);
    assert.equal(hooks.diagnostics().timers, 20);
    let thrown;
    assert.throws(
      () => hooks.testTrap("unreachable"),
      (error) => {
        thrown = error;
        return assertTrapError(error, "RuntimeError");
      },
    );
    const settled = await within(5000, Promise.all(outcomes), "calls in flight");
    for (const { status, reason } of settled) {
      assert.equal(status, "rejected");
      assert.equal(reason, thrown, "one Error for the trap");
    }
    for (const signal of signals) {
      assert.equal(signal.aborted, true);
      assert.equal(signal.reason, thrown);
    }
    assert.equal(getEventListeners(host.signal, "abort").length, 0, "listeners removed from the host's signal");
    assert.equal(timers(), baseline, "the dead instance's 60 s deadline timers are cleared");
    assert.equal(host.signal.aborted, false, "the host's own signal is left alone");
  });
});

describe(`a trap mid-way through ${CONCURRENT} concurrent calls`, () => {
  let expected;
  before(async () => {
    // The same calls made one after another on the default package.
    expected = [];
    for (let index = 0; index < CONCURRENT; index += 1) expected.push(outcome(await settle(callFor(index)[1](reference, 0))));
  });

  it(`the ${ARMED_AT}th call to finish traps inside the async executor: earlier results stand, every call in flight rejects with one Error, none hangs`, async (t) => {
    const next = random(61);
    const delays = Array.from({ length: CONCURRENT }, () => Math.floor(next() * 40));
    const before = hooks.diagnostics();
    hooks.testArmTrap(ARMED_AT, "unreachable");
    const calls = Array.from({ length: CONCURRENT }, (_, index) => settle(callFor(index)[1](trap, delays[index])));
    const inFlight = hooks.diagnostics().pending;
    const started = performance.now();
    const settled = await within(30_000, Promise.all(calls), `${CONCURRENT} calls`);
    const seconds = (performance.now() - started) / 1000;

    const trapErrors = new Set();
    let kept = 0;
    let trapped = 0;
    let finishedBeforeTrap = 0;
    for (const [index, result] of settled.entries()) {
      const [name] = callFor(index);
      if (result.status === "rejected" && result.reason?.code === "ERR_TC_INSTANCE_TRAPPED") {
        trapErrors.add(result.reason);
        trapped += 1;
        continue;
      }
      assert.deepEqual(outcome(result), expected[index], `call ${index} (${name}) kept a result equal to the sequential run`);
      kept += 1;
      // Calls through `settle` (all but the request-body path and the refused call) count
      // towards the armed trap.
      if (result.status === "fulfilled" && !name.startsWith("compactRequestBody")) finishedBeforeTrap += 1;
    }
    assert.equal(trapErrors.size, 1, "one Error for the trap");
    assertTrapError([...trapErrors][0], "RuntimeError");
    assert.equal(finishedBeforeTrap, ARMED_AT - 1, "exactly the calls that finished before the trap kept their results");
    assert.ok(trapped > 100, `${trapped} calls were in flight when the instance died`);
    assert.equal(kept + trapped, CONCURRENT);
    const after = hooks.diagnostics();
    assert.equal(after.traps, before.traps + 1);
    assert.equal(after.abandoned - before.abandoned, trapped);
    assert.equal(inFlight, CONCURRENT, "every call was in flight at once");
    assert.equal(hostErrors.length, 0, hostErrors.map(([kind, error]) => `${kind}: ${error}`).join("\n"));
    t.diagnostic(`${CONCURRENT} calls in flight; trap at the ${ARMED_AT}th to finish: ${kept} kept their results (${finishedBeforeTrap} finished before the trap), ${trapped} rejected with the trap error; all settled in ${seconds.toFixed(2)} s`);
  });

  it(`then the next call, and a whole new round of ${CONCURRENT} concurrent calls, give the sequential results`, async () => {
    assert.deepEqual(outcome(await settle(callFor(0)[1](trap, 0))), expected[0]);
    const next = random(62);
    const settled = await within(
      30_000,
      Promise.all(Array.from({ length: CONCURRENT }, (_, index) => settle(callFor(index)[1](trap, Math.floor(next() * 40))))),
      `${CONCURRENT} calls after recovery`,
    );
    for (const [index, result] of settled.entries()) assert.deepEqual(outcome(result), expected[index], `call ${index}`);
    assert.equal(hooks.diagnostics().pending, 0);
  });

  for (const kind of ["oom", "stack", "recursion", "throw"]) {
    it(`armed ${kind}: the same, with 200 calls`, async () => {
      hooks.testArmTrap(50, kind);
      const settled = await within(
        30_000,
        Promise.all(Array.from({ length: 200 }, (_, index) => settle(callFor(index)[1](trap, index % 40)))),
        `200 calls, ${kind}`,
      );
      const errors = new Set(settled.filter((result) => result.reason?.code === "ERR_TC_INSTANCE_TRAPPED").map((result) => result.reason));
      assert.equal(errors.size, 1);
      assertTrapError([...errors][0], KINDS[kind]);
      for (const [index, result] of settled.entries()) {
        if (result.reason?.code !== "ERR_TC_INSTANCE_TRAPPED") assert.deepEqual(outcome(result), expected[index], `call ${index}`);
      }
      assert.deepEqual(outcome(await settle(callFor(1)[1](trap, 0))), expected[1]);
    });
  }

  it("no dead instance's callback ever reached the host as an uncaught exception or unhandled rejection", async () => {
    // Summariser answers arriving for dead instances, timers of dead instances: all quiet.
    await new Promise((resolve) => setTimeout(resolve, 100));
    await microtasks();
    assert.deepEqual(hostErrors, []);
  });
});

describe("every entry point recovers through the same code", () => {
  it("CommonJS (node.cjs, index.cjs, api.cjs)", async () => {
    const cjs = createRequire(import.meta.url)(path.join(trapPkg, "node.cjs"));
    const cjsHooks = registry.get("index.cjs");
    assert.throws(() => cjsHooks.testTrap("unreachable"), (error) => assertTrapError(error, "RuntimeError"));
    const ctx = { sessionId: "cjs", pressure, text };
    assert.deepEqual(await cjs.compact(ctx), await reference.compact(ctx));
    assert.equal(cjsHooks.diagnostics().instances, 2);
  });

  it("the browser entry (init from bytes: the asynchronous instantiation), in a Node worker", async () => {
    // A realm of its own: in this one, browser.mjs would share node.mjs's module graph, loaded.
    const outcome = await inWorker(
      `const registry = new Map();
globalThis[Symbol.for("tiered-compaction.testing")] = registry;
const web = await import(workerData.url);
await web.init(require("node:fs").readFileSync(workerData.wasmPath));
registry.get("index.mjs").testArmTrap(1, "stack");
const { pressure, text, messages } = workerData;
const error = await web.compact({ sessionId: "web", pressure, text }).then(() => null, (error) => error);
${trapFacts.toString()}
return { error: trapFacts(error), result: await web.compact({ sessionId: "web", pressure, messages }) };`,
      { url: pathToFileURL(path.join(trapPkg, "browser.mjs")).href, wasmPath: path.join(trapPkg, "web", "tiered_compaction_bg.wasm"), pressure, text, messages },
    );
    assertTrapFacts(outcome.error, "RuntimeError");
    assert.deepEqual(outcome.result, await reference.compact({ sessionId: "web", pressure, messages }));
  });

  for (const [runtime, entry, command] of [
    ["Deno", "deno.mjs", (script, url) => [path.join(root, "node_modules", ".bin", "deno"), ["run", "--allow-read", "--no-prompt", script, url, "index.mjs"]]],
    ["Bun", "node.mjs", (script, url) => [path.join(root, "node_modules", ".bin", "bun"), [script, url, "index.mjs"]]],
  ]) {
    const [binary] = command("", "");
    it(`${runtime} (${entry})`, { skip: fs.existsSync(binary) ? false : `no ${binary}` }, () => {
      const script = path.join(root, "tests", "js", "reliability-trap-runtime.mjs");
      const [file, args] = command(script, pathToFileURL(path.join(trapPkg, entry)).href);
      const out = execFileSync(file, args, { cwd: root, encoding: "utf8", env: { ...process.env, DENO_NO_UPDATE_CHECK: "1", NO_COLOR: "1" } });
      const report = JSON.parse(out.trim().split("\n").at(-1));
      assert.deepEqual(report.causes, KINDS);
      assert.equal(report.fulfilled, 2);
      assert.equal(report.trapped, 8);
    });
  }

  const workerd = path.join(root, "node_modules", ".bin", "workerd");
  it("workerd (workerd.mjs)", { skip: fs.existsSync(workerd) ? false : `no ${workerd}` }, async () => {
    const dir = path.join(root, "target", "trap-workerd");
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(
      path.join(dir, "worker.mjs"),
      `import { exercise } from "runtime.mjs";
const registry = new Map();
globalThis[Symbol.for("tiered-compaction.testing")] = registry;
export default {
  async fetch() {
    try {
      const api = await import("tiered-compaction");
      return Response.json(await exercise(api, registry.get("index.mjs"), "workerd"));
    } catch (error) {
      return new Response(String(error?.stack ?? error), { status: 500 });
    }
  },
};
`,
    );
    const pkg = path.relative(dir, trapPkg);
    const runtimeScript = path.relative(dir, path.join(root, "tests", "js", "reliability-trap-runtime.mjs"));
    fs.writeFileSync(
      path.join(dir, "config.capnp"),
      `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [ (name = "main", worker = .trap) ],
  sockets = [ (name = "http", address = "127.0.0.1:8080", http = (), service = "main") ],
);
const trap :Workerd.Worker = (
  compatibilityDate = "2025-01-01",
  modules = [
    (name = "worker", esModule = embed "worker.mjs"),
    (name = "runtime.mjs", esModule = embed "${runtimeScript}"),
${workerdPackageModules(pkg)}
  ],
);
`,
    );
    const port = await freePort();
    const server = spawn(workerd, ["serve", "config.capnp", "--socket-addr", `http=127.0.0.1:${port}`], { cwd: dir, stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    server.stderr.on("data", (chunk) => (stderr += chunk));
    try {
      await waitForPort(port, server);
      const response = await fetch(`http://127.0.0.1:${port}/`);
      const body = await response.text();
      assert.equal(response.status, 200, body + stderr);
      const report = JSON.parse(body);
      assert.deepEqual(report.causes, KINDS);
      assert.equal(report.fulfilled, 2);
      assert.equal(report.trapped, 8);
    } finally {
      server.kill("SIGTERM");
    }
  });

  it("Chromium (browser.mjs: init() fetches and compiles the module)", { skip: fs.existsSync(CHROMIUM) ? false : `no ${CHROMIUM}` }, async () => {
    const { chromium } = await import("playwright-core");
    const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
    try {
      const page = await browser.newPage();
      const problems = [];
      page.on("pageerror", (error) => problems.push(String(error)));
      // Files straight from disk under a made-up origin: no server.
      await page.route("http://tc.test/**", (route) => {
        const url = new URL(route.request().url());
        if (url.pathname === "/") {
          return route.fulfill({ contentType: "text/html", body: "<!doctype html><title>trap</title>" });
        }
        const file = url.pathname.startsWith("/pkg/") ? path.join(trapPkg, url.pathname.slice(5)) : path.join(root, "tests", "js", url.pathname.slice(1));
        const type = file.endsWith(".wasm") ? "application/wasm" : "text/javascript";
        return route.fulfill({ contentType: type, body: fs.readFileSync(file) });
      });
      await page.goto("http://tc.test/");
      const report = await page.evaluate(async () => {
        const registry = new Map();
        globalThis[Symbol.for("tiered-compaction.testing")] = registry;
        const api = await import("/pkg/browser.mjs");
        await api.init();
        const { exercise } = await import("/reliability-trap-runtime.mjs");
        return exercise(api, registry.get("index.mjs"), navigator.userAgent);
      });
      assert.deepEqual(report.causes, KINDS);
      assert.equal(report.fulfilled, 2);
      assert.equal(report.trapped, 8);
      assert.deepEqual(problems, []);
    } finally {
      await browser.close();
    }
  });
});

describe("many traps in one process", () => {
  it("200 traps and recoveries: each dead instance is collected (memory stays flat)", async (t) => {
    v8.setFlagsFromString("--expose-gc");
    const gc = vm.runInNewContext("gc");
    const collect = async () => {
      gc();
      await tick();
      gc();
    };
    await collect();
    const start = process.memoryUsage().rss;
    const spent = { oom: [0, 0], unreachable: [0, 0] };
    for (let index = 0; index < 200; index += 1) {
      const kind = index % 100 === 0 ? "oom" : "unreachable";
      const started = performance.now();
      assert.throws(() => hooks.testTrap(kind), { code: "ERR_TC_INSTANCE_TRAPPED" });
      assert.equal(trap.estimateTokens("abcd"), 1);
      spent[kind][0] += performance.now() - started;
      spent[kind][1] += 1;
    }
    const average = (kind) => (spent[kind][0] / spent[kind][1]).toFixed(1);
    await collect();
    const grown = process.memoryUsage().rss - start;
    assert.ok(grown < 64 * 1024 * 1024, `RSS grew by ${(grown / 1048576).toFixed(1)} MiB over 200 dead instances`);
    t.diagnostic(
      `200 traps, each followed by a call on a fresh instance: ${average("unreachable")} ms per unreachable trap and recovery, ` +
        `${average("oom")} ms per oom trap (memory grown to the engine's limit first) and recovery; RSS changed by ${(grown / 1048576).toFixed(1)} MiB; ${JSON.stringify(hooks.diagnostics())}`,
    );
  });
});

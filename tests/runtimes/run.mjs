// Packaging and runtime tests against the packed tarball, installed like a user installs it:
//   node tests/runtimes/run.mjs pack     npm pack pkg/ -> npm install the .tgz into a fresh
//                                        project -> import it from Node ESM and CJS, run compact
//   node tests/runtimes/run.mjs deno     smoke.mjs in Deno (npm package `deno`), and inline.mjs
//                                        (tiered-compaction/inline) with no --allow-read
//   node tests/runtimes/run.mjs bun      smoke.mjs and inline.mjs in Bun (npm package `bun`)
//   node tests/runtimes/run.mjs workerd  a worker on workerd (npm package `workerd`) on 127.0.0.1:
//                                        POST an Anthropic request body, get it back compacted
//   node tests/runtimes/run.mjs worker-proxy  examples/worker-proxy on workerd, a Durable Object
//                                        per session, against a mock provider: a 49-call session
// The consumer project lives in target/pkg-consumer/ (git-ignored) and is rebuilt whenever pkg/
// changed. Exits non-zero on the first failure.
import { execFileSync, spawn } from "node:child_process";
import * as fs from "node:fs";
import * as http from "node:http";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { anthropicRequestBody } from "../../scripts/samples.mjs";
import { agentRun } from "../js/helpers.mjs";
import { freePort, waitForPort, workerdPackageModules as packageModules } from "../net.mjs";

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
  for (const file of ["smoke.mjs", "inline.mjs"]) fs.copyFileSync(path.join(here, file), path.join(consumer, file));
  fs.copyFileSync(path.join(root, "scripts", "samples.mjs"), path.join(consumer, "samples.mjs"));
}

/** The request body of model call k of `messages` (Anthropic): every message before the k-th assistant message. */
function callBody(messages, k) {
  let seen = 0;
  const end = messages.findIndex((message) => message.role === "assistant" && ++seen === k);
  return JSON.stringify({ model: "claude-test", max_tokens: 1024, system: "You are a coding agent.", messages: messages.slice(0, end === -1 ? messages.length : end) });
}

/** Messages of `b` equal (as JSON text) to `a`'s, from the start. */
function sharedPrefix(a, b) {
  let n = 0;
  while (n < a.length && n < b.length && JSON.stringify(a[n]) === JSON.stringify(b[n])) n += 1;
  return n;
}

/**
 * A mock provider on 127.0.0.1: records each request's path and body, answers JSON with a usage
 * that reports cached tokens, or server-sent events when the body asks for a stream.
 */
async function mockUpstream() {
  const seen = [];
  const server = http.createServer((request, response) => {
    let body = "";
    request.setEncoding("utf8");
    request.on("data", (chunk) => (body += chunk));
    request.on("end", () => {
      seen.push({ path: request.url, body, apiKey: request.headers["x-api-key"] });
      if (JSON.parse(body).stream) {
        response.writeHead(200, { "content-type": "text/event-stream" });
        response.end(STREAM);
      } else {
        response.writeHead(200, { "content-type": "application/json" });
        response.end(JSON.stringify({ id: `msg_${seen.length}`, type: "message", usage: { input_tokens: 40, cache_read_input_tokens: 1000 * seen.length, cache_creation_input_tokens: 50 } }));
      }
    });
  });
  const port = await freePort();
  await new Promise((resolve) => server.listen(port, "127.0.0.1", resolve));
  return { seen, port, close: () => server.close() };
}

/** What the mock provider streams: the proxy must hand it over byte for byte. */
const STREAM = 'event: message_start\ndata: {"type":"message_start","message":{"usage":{"input_tokens":9,"cache_read_input_tokens":7}}}\n\nevent: message_stop\ndata: {"type":"message_stop"}\n\n';

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
    process.stdout.write(run("node", ["inline.mjs"]));
  },

  deno() {
    // A package.json next to node_modules makes Deno resolve "tiered-compaction" from there,
    // with its "deno" export condition.
    process.stdout.write(run(bin("deno"), ["run", "--allow-read", "--no-prompt", "smoke.mjs"], { env: { ...process.env, DENO_NO_UPDATE_CHECK: "1", NO_COLOR: "1" } }));
    // No --allow-read: tiered-compaction/inline reads no file.
    process.stdout.write(run(bin("deno"), ["run", "--no-prompt", "inline.mjs"], { env: { ...process.env, DENO_NO_UPDATE_CHECK: "1", NO_COLOR: "1" } }));
  },

  bun() {
    process.stdout.write(run(bin("bun"), ["smoke.mjs"]));
    process.stdout.write(run(bin("bun"), ["inline.mjs"]));
  },

  async workerd() {
    const dir = path.join(consumer, "workerd");
    fs.mkdirSync(dir, { recursive: true });
    fs.copyFileSync(path.join(here, "workerd", "worker.mjs"), path.join(dir, "worker.mjs"));
    const pkg = "../node_modules/tiered-compaction";
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
${packageModules(pkg)}
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

  /**
   * examples/worker-proxy on workerd against a mock provider that records what it is sent: a
   * Durable Object per session keeps the loop's state. Over 49 calls of a session (a small window,
   * so auto summarises on the way), each request forwarded repeats the previous one's messages
   * byte for byte except where auto edits, and every call after the summary keeps it, where a
   * proxy without state makes it again at every call; a request without a session goes through
   * unchanged, a streamed answer passes through byte for byte, the client's headers go upstream.
   */
  async "worker-proxy"() {
    const dir = path.join(consumer, "worker-proxy");
    fs.mkdirSync(dir, { recursive: true });
    fs.copyFileSync(path.join(root, "examples", "worker-proxy", "src", "index.mjs"), path.join(dir, "index.mjs"));
    const upstream = await mockUpstream();
    fs.writeFileSync(
      path.join(dir, "config.capnp"),
      `using Workerd = import "/workerd/workerd.capnp";

const config :Workerd.Config = (
  services = [
    (name = "main", worker = .proxy),
    (name = "local", network = (allow = ["local", "private", "public"])),
  ],
  sockets = [ (name = "http", address = "127.0.0.1:8080", http = (), service = "main") ],
);

const proxy :Workerd.Worker = (
  compatibilityDate = "2025-01-01",
  modules = [
    (name = "worker", esModule = embed "index.mjs"),
${packageModules("../node_modules/tiered-compaction")}
  ],
  durableObjectNamespaces = [ (className = "Session", uniqueKey = "tiered-compaction-proxy-test") ],
  durableObjectStorage = (inMemory = void),
  globalOutbound = "local",
  bindings = [
    (name = "SESSIONS", durableObjectNamespace = "Session"),
    (name = "ANTHROPIC_UPSTREAM", text = "http://127.0.0.1:${upstream.port}"),
    (name = "OPENAI_UPSTREAM", text = "http://127.0.0.1:${upstream.port}"),
    (name = "CONTEXT_WINDOW_TOKENS", text = "12000"),
  ],
);
`,
    );
    const port = await freePort();
    const server = spawn(bin("workerd"), ["serve", "config.capnp", "--socket-addr", `http=127.0.0.1:${port}`], { cwd: dir, stdio: ["ignore", "ignore", "inherit"] });
    try {
      await waitForPort(port, server);
      const messages = agentRun("anthropic", 60);
      const post = async (body, session, route = "/v1/messages", list = "messages") => {
        const response = await fetch(`http://127.0.0.1:${port}${route}`, {
          method: "POST",
          headers: { "content-type": "application/json", "x-api-key": "test-key", ...(session ? { "x-session-id": session } : {}) },
          body,
        });
        const text = await response.text();
        if (response.status !== 200) throw new Error(`worker-proxy answered ${response.status}: ${text}`);
        const sent = upstream.seen.at(-1);
        if (sent.apiKey !== "test-key" || sent.path !== route) throw new Error(`worker-proxy forwarded ${JSON.stringify(sent)}`);
        return { tier: response.headers.get("x-compaction-tier"), text, sent: JSON.parse(sent.body)[list] };
      };
      const calls = [];
      for (let k = 2; k <= 50; k += 1) calls.push(await post(callBody(messages, k), "session-1"));
      const tiers = calls.map((call) => call.tier);
      // The summary: the first call that sends fewer messages than the one before.
      const summary = calls.findIndex((call, i) => i > 0 && call.sent.length < calls[i - 1].sent.length);
      if (summary === -1 || tiers[summary] !== "auto") throw new Error(`worker-proxy: auto never summarised (${tiers})`);
      let rewrites = 0;
      for (let i = 1; i < calls.length; i += 1) {
        const previous = calls[i - 1].sent;
        if (sharedPrefix(previous, calls[i].sent) === previous.length) continue;
        rewrites += 1;
        if (i > summary) throw new Error(`worker-proxy: call ${i + 2} (${tiers[i]}) rewrote the summary call ${summary + 2} sent`);
        // Only auto rewrites the prefix here (the window is small); micro's batch never closes.
        if (tiers[i] !== "auto") throw new Error(`worker-proxy: call ${i + 2} (${tiers[i]}) rewrote the prefix of call ${i + 1}`);
      }
      const after = calls.length - 1 - summary;
      if (after < 5) throw new Error(`worker-proxy: only ${after} calls after the summary`);
      // Without the state (a new session each call), each call after the summary makes it again.
      const lone = [];
      for (const k of [summary + 3, summary + 4]) lone.push(await post(callBody(messages, k), `lone-${k}`));
      const undone = sharedPrefix(lone[0].sent, lone[1].sent) < lone[0].sent.length;
      if (!undone) throw new Error("worker-proxy: without state the calls after the summary repeat it too: the check shows nothing");
      const raw = await post(callBody(messages, 50), null);
      if (JSON.stringify(raw.sent) !== JSON.stringify(JSON.parse(callBody(messages, 50)).messages)) throw new Error("worker-proxy: a request without a session was changed");
      const streamed = await post(JSON.stringify({ ...JSON.parse(callBody(messages, 51)), stream: true }), "session-1");
      if (streamed.text !== STREAM) throw new Error(`worker-proxy: the stream changed: ${JSON.stringify(streamed.text)}`);
      // OpenAI Chat Completions and Responses: forwarded to their routes, compacted in their own shape.
      const chat = agentRun("openai", 60);
      const chatCall = await post(JSON.stringify({ model: "gpt-test", messages: chat }), "openai-chat", "/v1/chat/completions");
      const smaller = (call, list) => call.tier !== null && JSON.stringify(call.sent).length < JSON.stringify(list).length && call.sent.every((m) => m !== null && typeof m === "object");
      if (!smaller(chatCall, chat)) throw new Error(`worker-proxy: Chat Completions: ${chatCall.tier}`);
      const items = chat.flatMap((m) => (m.role === "tool" ? [{ type: "function_call_output", call_id: m.tool_call_id, output: m.content }] : m.tool_calls ? m.tool_calls.map((c) => ({ type: "function_call", call_id: c.id, name: c.function.name, arguments: c.function.arguments })) : [{ type: "message", role: m.role, content: m.content }]));
      const responsesCall = await post(JSON.stringify({ model: "gpt-test", instructions: "Be brief.", input: items }), "openai-responses", "/v1/responses", "input");
      if (!smaller(responsesCall, items)) throw new Error(`worker-proxy: Responses: ${responsesCall.tier}`);
      console.log(
        `worker-proxy: ${calls.length} calls of one session through its Durable Object: ${rewrites} prefix rewrites, all by auto; ` +
          `auto summarised at call ${summary + 2} (${calls[summary - 1].sent.length} -> ${calls[summary].sent.length} messages) and the ${after} calls after it repeated it byte for byte ` +
          `(without state, the next two calls rewrote it); no session header: forwarded unchanged; a streamed answer passed through byte for byte; ` +
          `OpenAI Chat Completions and Responses bodies forwarded to their routes, compacted (${chatCall.tier}, ${responsesCall.tier})`,
      );
    } finally {
      server.kill("SIGTERM");
      upstream.close();
    }
  },
};

const which = process.argv[2];
if (!(which in checks)) {
  console.error(`usage: node tests/runtimes/run.mjs ${Object.keys(checks).join("|")}`);
  process.exit(2);
}
install();
await checks[which]();

// Issue 16 in a real browser: the browser build (browser.mjs, `init()` fetching the module) in
// headless Chromium, with the browser's own Uint8Array, ArrayBuffer and URL values in AI SDK
// image and file parts through every tier (the checks of tests/js/binary-shared.mjs: the
// caller's own objects in the output and the archive, `restore`, placeholders with the bytes'
// SHA-256 from the package's JS implementation, which browsers use), and lone surrogates in
// messages, flat text and request bodies.
//   node --test tests/www/
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const CHROMIUM = "/usr/bin/chromium";
const CHROMIUM_ARGS = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic"];
const missing = [CHROMIUM, path.join(root, "pkg", "web", "tiered_compaction_bg.wasm")].filter((file) => !fs.existsSync(file));

describe("binary values and any string in Chromium", { skip: missing.length > 0 ? `missing ${missing.join(", ")}` : false }, () => {
  it("every form, every tier; lone surrogates in every path", async () => {
    const { chromium } = await import("playwright-core");
    const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
    try {
      const page = await browser.newPage();
      const problems = [];
      page.on("pageerror", (error) => problems.push(String(error)));
      page.on("console", (message) => message.type() === "error" && problems.push(message.text()));
      // Files straight from disk under a made-up origin: the package at /pkg/, the shared checks at /.
      await page.route("http://tc.test/**", (route) => {
        const url = new URL(route.request().url());
        if (url.pathname === "/") return route.fulfill({ contentType: "text/html", body: "<!doctype html><title>binary</title>" });
        const file = url.pathname.startsWith("/pkg/") ? path.join(root, "pkg", url.pathname.slice(5)) : path.join(root, "tests", "js", url.pathname.slice(1));
        return route.fulfill({ contentType: file.endsWith(".wasm") ? "application/wasm" : "text/javascript", body: fs.readFileSync(file) });
      });
      await page.goto("http://tc.test/");
      const report = await page.evaluate(async () => {
        const api = await import("/pkg/browser.mjs");
        await api.init();
        const { sha256HexJs } = await import("/pkg/host-values.mjs");
        const { TIERS, checkTier, forms, difference } = await import("/binary-shared.mjs");
        const failures = [];
        let runs = 0;
        for (const [name, form] of Object.entries(forms())) {
          for (const tier of TIERS) {
            runs += 1;
            for (const failure of await checkTier(api, tier, form, sha256HexJs)) failures.push(`${name}, ${tier}: ${failure}`);
          }
        }
        // Lone surrogates: objects, flat text, bodies (escaped and raw).
        const lone = `cut \ud83d here\r\n${"x".repeat(300)}\udc00 end`;
        const messages = [
          { role: "user", content: `task \ud800` },
          { role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "bash", arguments: "{}" } }] },
          { role: "tool", tool_call_id: "c1", content: lone },
          { role: "assistant", content: "a" },
          { role: "assistant", content: "b" },
          { role: "assistant", content: "c" },
          { role: "user", content: "ok \udfff" },
        ];
        const text = "```tool_result name=bash\n" + lone + "\n```\n";
        for (const tier of TIERS) {
          runs += 1;
          const pressure = { turnCount: 9, contextPctUsed: tier === "micro" ? 0.3 : 0.9, idleSeconds: tier === "time_based" ? 400 : 0, sessionComplete: tier === "session_memory" };
          const objects = await api.compactWithTier(tier, { sessionId: "s", pressure, messages });
          const back = difference(api.restore(objects), messages, "restore");
          if (back !== null) failures.push(`strings, objects, ${tier}: ${back}`);
          const flat = await api.compactWithTier(tier, { sessionId: "s", pressure, text });
          if (api.restore(flat) !== text) failures.push(`strings, text, ${tier}: not restored`);
          if (tier === "micro" && !flat.text.startsWith("```tool_result name=bash\ncut \ud83d here")) failures.push(`strings, text, micro: the head lost its surrogate: ${JSON.stringify(flat.text.slice(0, 40))}`);
          const escaped = JSON.stringify({ model: "m", messages });
          const raw = escaped.replace(/\\u(d[89a-f][0-9a-f]{2})/g, (_, hex) => String.fromCharCode(parseInt(hex, 16)));
          for (const body of [escaped, raw]) {
            const out = await api.compactRequestBody(body, { sessionId: "s", pressure: { ...pressure, sessionComplete: false } });
            const restored = api.restore({ body: out.body, archive: out.result.archive });
            if (restored !== body) failures.push(`strings, body, ${tier}: not restored byte for byte`);
          }
        }
        return { failures, runs, userAgent: navigator.userAgent };
      });
      assert.deepEqual(report.failures, []);
      assert.ok(report.runs >= 35, `${report.runs} runs`);
      assert.match(report.userAgent, /Chrome/);
      assert.deepEqual(problems, []);
    } finally {
      await browser.close();
    }
  });
});

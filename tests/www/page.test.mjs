// The demo page (www/) in real headless Chromium, driven by playwright-core: pressure inputs and
// the live tier and what each tier does in words (steps, the tail, stubs, recall), bad input, one
// compaction per tier with every shown number checked against the Node build of the package for
// the same input, restoring from the archive, answering a recall by id, the summariser
// stub's failure modes and the degraded fallback, the JSONL trace download, and the loop run
// (its bill call by call, checked against www/loop.mjs in Node). Screenshots go to
// test-artifacts/www/ (git-ignored). Any console error or page error fails the run.
//   node --test tests/www/
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";
import { TIER_COST_WEIGHT, compact, estimateTokens, recallToolDefinition, selectTier } from "tiered-compaction";
import { agentRun } from "../js/helpers.mjs";
import { runLoop } from "../../www/loop.mjs";
import { archivePlans } from "../../www/archive-model.mjs";
import { formatUsd, ledgerFromLines } from "../../www/ledger.mjs";
import { DEFAULT_THRESHOLDS, DEFAULT_TIER_POLICY, describeTail, describeTier } from "../../www/rules.mjs";
import { startServer } from "../../www/serve.mjs";
import { createStubSummariser } from "../../www/stub.mjs";
import { readTranscript } from "../../www/transcript.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const artifacts = path.join(root, "test-artifacts", "www");
const CHROMIUM = "/usr/bin/chromium";
const CHROMIUM_ARGS = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic"];
// What the page uses unless told otherwise (index.html's defaults).
const SESSION_ID = "demo-session";
const COST_PER_1K = 0.003;

const sampleText = (file) => fs.readFileSync(path.join(root, "www", "samples", file), "utf8");
const number = (value) => value.toLocaleString("en-US");
const pressure = (turnCount, contextPctUsed, idleSeconds = 0, sessionComplete = false) => ({ turnCount, contextPctUsed, idleSeconds, sessionComplete });

/** The same call the page makes, in Node, against the Node build (`policy`: fields changed on the page). */
async function compactInNode(file, tierPressure, stub = null, timeoutMs = 2000, policy = {}) {
  const read = readTranscript(sampleText(file), "auto");
  assert.ok(read.ok, read.message);
  const context = { sessionId: SESSION_ID, pressure: tierPressure, costPer1kTokens: COST_PER_1K, ...(read.kind === "text" ? { text: read.text } : { messages: read.messages }) };
  const options = { policy: { ...DEFAULT_THRESHOLDS, ...DEFAULT_TIER_POLICY, excludeTools: [...DEFAULT_TIER_POLICY.excludeTools], cache: { ...DEFAULT_TIER_POLICY.cache }, ...policy }, timeoutMs };
  if (stub) options.summarise = createStubSummariser(stub);
  return { context, result: await compact(context, options) };
}

const missing = [CHROMIUM, path.join(root, "pkg", "web", "tiered_compaction_bg.wasm")].filter((file) => !fs.existsSync(file));

describe("the demo page in headless Chromium", { skip: missing.length > 0 ? `missing ${missing.join(", ")} (apt-get install -y chromium; npm run build)` : false }, () => {
  let server;
  let browser;
  let page;
  const problems = [];
  /** Tiers of the runs made so far, in order (what the trace must hold). */
  const runs = [];

  const shot = async (name, selector = null) => {
    const file = path.join(artifacts, `${name}.png`);
    if (selector) await page.locator(selector).screenshot({ path: file });
    else await page.screenshot({ path: file, fullPage: false });
  };

  async function setPressure({ turn, pct, idle, complete, cached }) {
    await page.fill("#cached", cached === undefined ? "" : String(cached));
    if (turn !== undefined) await page.fill("#turn", String(turn));
    if (pct !== undefined) await page.fill("#pct", String(pct));
    if (idle !== undefined) await page.fill("#idle", String(idle));
    if (complete !== undefined) await page.setChecked("#complete", complete);
  }

  /** Sets auto's target (policy.autoTargetPct) in the thresholds panel, leaving it as it was. */
  async function setAutoTarget(value) {
    const open = await page.$eval("#policy", (details) => details.open);
    if (!open) await page.click("#policy summary");
    await page.fill("#policy-auto-target", String(value));
    if (!open) await page.click("#policy summary");
  }

  async function loadSample(file) {
    await page.selectOption("#sample", file);
    const expected = sampleText(file);
    await page.waitForFunction((text) => document.getElementById("source").value === text && document.getElementById("source-info").dataset.state === "ok", expected);
  }

  async function setStub(mode, delayMs = 300, timeoutMs = 2000) {
    await page.selectOption("#stub-mode", mode);
    await page.fill("#stub-delay", String(delayMs));
    await page.fill("#timeout", String(timeoutMs));
  }

  /** Clicks Compact and reads back what the page shows. */
  async function compactOnPage(whileRunning = null) {
    const before = Number(await page.getAttribute("#result-panel", "data-run"));
    await page.click("#compact");
    if (whileRunning) await whileRunning();
    await page.waitForSelector(`#result-panel[data-run="${before + 1}"]`);
    assert.equal(await page.getAttribute("#run-state", "data-state"), "done", await page.textContent("#run-error"));
    await page.waitForFunction(() => document.getElementById("shown-tokens").textContent !== "");
    return page.evaluate(() => {
      const text = (id) => document.getElementById(id).textContent;
      return {
        tier: text("result-tier"),
        format: text("result-format"),
        before: text("before"),
        after: text("after"),
        saved: text("saved"),
        beforeValue: document.getElementById("before").dataset.value,
        afterValue: document.getElementById("after").dataset.value,
        savedValue: document.getElementById("saved").dataset.value,
        barWidth: document.getElementById("bar-after").style.width,
        cost: text("cost"),
        costDisplay: text("cost-display"),
        reason: text("reason"),
        degraded: document.getElementById("degraded").dataset.degraded,
        warnings: [...document.querySelectorAll("#warnings li:not(.muted)")].map((item) => item.textContent),
        usage: text("usage"),
        correlationId: text("correlation"),
        archiveRows: document.querySelectorAll("#archive tr[data-entry]").length,
        archiveIds: [...document.querySelectorAll("#archive tr[data-entry]")].map((row) => row.dataset.entry),
        outputJson: text("output-json"),
        summary: document.getElementById("summary-box").hidden ? null : text("summary"),
        shownTokens: document.getElementById("shown-tokens").dataset.tokens,
      };
    });
  }

  /** Every number and text the page shows equals the package's result for the same input. */
  function assertSameAsNode(shown, result) {
    assert.equal(shown.tier, result.tier, "tier");
    assert.equal(shown.format, result.format, "format");
    assert.equal(shown.beforeValue, String(result.beforeTokens), "beforeTokens");
    assert.equal(shown.afterValue, String(result.afterTokens), "afterTokens");
    assert.equal(shown.savedValue, String(result.tokensSaved), "tokensSaved");
    assert.equal(shown.before, number(result.beforeTokens));
    assert.equal(shown.after, number(result.afterTokens));
    assert.equal(shown.saved, number(result.tokensSaved));
    assert.equal(parseFloat(shown.barWidth).toFixed(2), ((result.beforeTokens === 0 ? 1 : result.afterTokens / result.beforeTokens) * 100).toFixed(2), "bar: after / before");
    assert.equal(shown.cost, String(result.costEstimate), "costEstimate, exact");
    assert.equal(shown.costDisplay, formatUsd(result.costEstimate), "costEstimate, formatted");
    assert.equal(shown.reason, result.reason, "reason");
    assert.equal(shown.degraded, String(result.degraded === true), "degraded");
    assert.deepEqual(shown.warnings, result.warnings ?? [], "warnings");
    assert.equal(shown.correlationId, result.correlationId, "correlationId");
    assert.deepEqual(shown.archiveIds, result.archive.map((entry) => entry.id), "archive");
    assert.equal(shown.outputJson, result.text ?? JSON.stringify(result.messages, null, 2), "compacted output");
    assert.equal(shown.summary, result.summary ?? null, "summary");
    assert.equal(shown.shownTokens, String(result.afterTokens), "the shown output counts afterTokens");
    if (result.summariserUsage) {
      const { inputTokens, outputTokens, costUsd } = result.summariserUsage;
      assert.equal(shown.usage, `${number(inputTokens)} in / ${number(outputTokens)} out${costUsd !== undefined ? ` · ${formatUsd(costUsd)}` : ""}`);
    } else {
      assert.equal(shown.usage, "–");
    }
  }

  before(async () => {
    fs.mkdirSync(artifacts, { recursive: true });
    const started = await startServer({ port: 0, quiet: true });
    server = started.server;
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
    const context = await browser.newContext({ viewport: { width: 1500, height: 1000 }, acceptDownloads: true });
    page = await context.newPage();
    page.setDefaultTimeout(15_000);
    page.on("console", (message) => {
      if (message.type() === "error") problems.push(`console.error: ${message.text()}`);
    });
    page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
    page.on("requestfailed", (request) => problems.push(`request failed: ${request.url()} ${request.failure()?.errorText}`));
    page.on("response", (response) => {
      if (response.status() >= 400) problems.push(`HTTP ${response.status()}: ${response.url()}`);
    });
    await page.goto(started.url);
    await page.waitForSelector('#status[data-ready="true"]');
    await page.waitForFunction(() => document.getElementById("source-info").dataset.state === "ok");
  });

  after(async () => {
    await browser?.close();
    await new Promise((resolve) => (server ? server.close(resolve) : resolve()));
  });

  it("loads the package in the browser and the first sample", async () => {
    assert.match(await page.textContent("#status"), /Package loaded/);
    assert.equal(await page.inputValue("#source"), sampleText("openai-chat.json"));
    assert.match(await page.textContent("#source-info"), /^openai · 47 messages · [\d,]+ tokens$/);
    await shot("01-loaded");
  });

  it("shows selectTier's choice live as each pressure input changes, with the rule in words", async () => {
    const steps = [
      // [what changes, inputs, expected tier, words]
      ["baseline", { turn: 1, pct: 10, idle: 0, complete: false }, "none", /^none, because no other rule holds$/],
      ["turnCount", { turn: 2 }, "micro", /^micro, because turn 2 ≥ 2 and context used 10 % > 0 %$/],
      ["contextPctUsed", { pct: 70 }, "auto", /^auto, because live session and context used 70 % ≥ 70 %$/],
      ["idleSeconds", { pct: 20, idle: 300 }, "time_based", /^time_based, because live session and idle 300 s ≥ 300 s$/],
      ["sessionComplete", { complete: true }, "session_memory", /^session_memory, because the session is complete$/],
    ];
    const current = { turn: 1, pct: 10, idle: 0, complete: false };
    for (const [changed, inputs, tier, words] of steps) {
      await setPressure(inputs);
      Object.assign(current, inputs);
      const expected = selectTier(pressure(current.turn, current.pct / 100, current.idle, current.complete), DEFAULT_THRESHOLDS);
      assert.equal(expected, tier, `the package picks ${tier} after ${changed}`);
      assert.equal(await page.textContent("#tier"), tier, `the page shows ${tier} after ${changed}`);
      assert.match(await page.textContent("#tier-why"), words);
      assert.equal(await page.getAttribute("#tier-why", "data-agrees"), "true");
      assert.equal(await page.textContent("#tier-weight"), `cost weight ${TIER_COST_WEIGHT[tier]}`);
      assert.equal(await page.getAttribute("#rules li.fired", "data-tier"), tier);
      assert.equal(await page.textContent("#rules li.fired .does"), `${tier} ${describeTier(tier)}`, "what the tier does, in words");
      await shot(`02-pressure-${tier}`, "#pressure-panel");
    }

    // The slider drives the same value.
    await setPressure({ complete: false, idle: 0 });
    await page.$eval("#pct-range", (slider) => {
      slider.value = "85";
      slider.dispatchEvent(new Event("input", { bubbles: true }));
    });
    assert.equal(await page.inputValue("#pct"), "85");
    assert.equal(await page.textContent("#tier"), "auto");

    // A threshold change (PolicyConfig) moves the choice and the words together.
    await setPressure({ pct: 60 });
    assert.equal(await page.textContent("#tier"), "micro");
    await page.click("#policy summary");
    await page.fill("#policy-auto", "0.5");
    assert.equal(await page.textContent("#tier"), selectTier(pressure(2, 0.6, 0, false), { ...DEFAULT_THRESHOLDS, autoContextPct: 0.5 }));
    assert.match(await page.textContent("#tier-why"), /^auto, because live session and context used 60 % ≥ 50 %$/);
    await page.fill("#policy-auto", "0.7");
    // The tiers' policy fields change the words: the tail, the age of a stale step, excluded tools.
    assert.equal(await page.textContent("#tail-rule"), describeTail());
    await page.fill("#policy-keep-steps", "1");
    await page.fill("#policy-max-age", "2");
    await page.fill("#policy-exclude", "memory, todo_write");
    const changed = { keepRecentSteps: 1, maxBlockAgeSteps: 2, excludeTools: ["memory", "todo_write"] };
    assert.equal(await page.textContent("#tail-rule"), describeTail(changed));
    assert.match(await page.textContent("#tail-rule"), /newest 1 step \(keepRecentSteps\)/);
    assert.equal(await page.textContent('#rules li[data-tier="time_based"] .does'), `time_based ${describeTier("time_based", changed)}`);
    assert.match(await page.textContent('#rules li[data-tier="micro"] .does'), /Results of memory, todo_write \(excludeTools\) stay whole/);
    await shot("02-pressure-policy", "#pressure-panel");
    // A field out of range is the package's error, naming it.
    await page.fill("#policy-keep-steps", "0");
    assert.equal(await page.textContent("#tier"), "invalid");
    assert.match(await page.textContent("#pressure-error"), /RangeError: policy\.keepRecentSteps must be an integer >= 1, got 0/);
    await page.fill("#policy-keep-steps", "3");
    await page.fill("#policy-max-age", "5");
    await page.fill("#policy-exclude", "");
    assert.equal(await page.textContent("#tail-rule"), describeTail());
    assert.equal(await page.textContent("#tier"), "micro");
    await page.click("#policy summary");

    // Invalid input: the package's error, naming the field, inline; Compact is off; no crash.
    await setPressure({ idle: -5 });
    assert.equal(await page.textContent("#tier"), "invalid");
    assert.match(await page.textContent("#pressure-error"), /RangeError: .*idleSeconds/);
    assert.equal(await page.isDisabled("#compact"), true);
    await shot("02-pressure-invalid", "#pressure-panel");
    await setPressure({ idle: 0 });
    assert.equal(await page.isVisible("#pressure-error"), false);
    assert.equal(await page.isDisabled("#compact"), false);
  });

  it("reports bad JSON inline with its line and column, and bad messages by field path", async () => {
    const broken = '[\n  { "role": "user", "content": "hi" },\n  { "role": "assistant" "content": "hello" }\n]';
    await page.fill("#source", broken);
    await page.waitForFunction(() => !document.getElementById("source-error").hidden);
    assert.match(await page.textContent("#source-error"), /^Invalid JSON at line 3, column 25: /);
    assert.equal(await page.isDisabled("#compact"), true);
    // "show me" selects the offending character.
    await page.click("#source-error button");
    const selected = await page.$eval("#source", (textarea) => [textarea.selectionStart, textarea.selectionEnd]);
    const [line, column] = [3, 25];
    const offset = broken.split("\n").slice(0, line - 1).reduce((sum, text) => sum + text.length + 1, 0) + column - 1;
    assert.deepEqual(selected, [offset, offset + 1]);
    assert.equal(broken[offset], '"', "the quote that should have followed a comma");
    await shot("03-bad-json", "#transcript-panel");

    await page.fill("#source", '[{ "role": "user", "content": 42 }]');
    await page.waitForFunction(() => /messages\[0\]/.test(document.getElementById("source-error").textContent));
    assert.match(await page.textContent("#source-error"), /Error: .*messages\[0\]\.content/);

    await page.fill("#source", '{ "model": "x" }');
    await page.waitForFunction(() => /Expected a JSON array of messages/.test(document.getElementById("source-error").textContent));

    // A file loaded from disk (flat text) is read like a pasted one.
    await page.setInputFiles("#file", { name: "session.txt", mimeType: "text/plain", buffer: Buffer.from(sampleText("flat-text.txt")) });
    await page.waitForFunction(() => document.getElementById("source-info").dataset.state === "ok");
    assert.match(await page.textContent("#source-info"), /^text · flat text, [\d,]+ code points · [\d,]+ tokens$/);
    assert.equal(await page.isVisible("#source-error"), false);
    assert.equal(await page.isDisabled("#compact"), false);
  });

  // auto works to policy.autoTargetPct (default 0.5): on the samples micro's stubs alone get
  // there from 85 %, so the runs that show the summariser use a target of 0.2.
  const SUMMARISING = { autoTargetPct: 0.2 };
  // One sample per tier, compacted with compact() (the tier comes from the pressure).
  const perTier = [
    { tier: "none", file: "flat-text.txt", inputs: { turn: 1, pct: 30, idle: 0, complete: false }, stub: "off" },
    { tier: "micro", file: "openai-chat.json", inputs: { turn: 4, pct: 30, idle: 0, complete: false }, stub: "off" },
    { tier: "time_based", file: "anthropic-messages.json", inputs: { turn: 8, pct: 40, idle: 900, complete: false }, stub: "off" },
    { tier: "auto", file: "ai-sdk-messages.json", inputs: { turn: 8, pct: 85, idle: 0, complete: false }, stub: "resolve", policy: SUMMARISING },
    { tier: "session_memory", file: "flat-text.txt", inputs: { turn: 8, pct: 50, idle: 0, complete: true }, stub: "resolve" },
  ];
  for (const { tier, file, inputs, stub, policy = {} } of perTier) {
    it(`compacts ${file} with ${tier}: the page shows what the package returns`, async () => {
      await loadSample(file);
      await setPressure(inputs);
      await setStub(stub, 300, 2000);
      await setAutoTarget(policy.autoTargetPct ?? DEFAULT_TIER_POLICY.autoTargetPct);
      assert.equal(await page.textContent("#tier"), tier);
      const shown = await compactOnPage();
      runs.push(tier);
      const { result } = await compactInNode(file, pressure(inputs.turn, inputs.pct / 100, inputs.idle, inputs.complete), stub === "off" ? null : { mode: stub, delayMs: 0 }, 2000, policy);
      assertSameAsNode(shown, result);
      if (tier !== "none") assert.ok(result.afterTokens < result.beforeTokens, "the sample is compacted");
      if (stub === "resolve") {
        assert.ok(result.summariserUsage, "the stub's usage is reported");
        assert.equal(await page.getAttribute("#calls li:first-child", "data-state"), "resolved");
      }
      await page.locator("#result-panel").scrollIntoViewIfNeeded();
      await shot(`04-${tier}-result`, "#result-panel");
      await shot(`05-${tier}-compare`, "#compare-panel");
    });
  }

  it("shows the prompt cache's state and the decision: a warm cache defers micro, a cold one does not", async () => {
    await loadSample("openai-chat.json");
    await setStub("off", 300, 2000);
    for (const idle of [10, 900]) {
      const inputs = { turn: 4, pct: 30, idle, complete: false, cached: 1000000 };
      await setPressure(inputs);
      const shown = await compactOnPage();
      runs.push(await page.textContent("#result-tier"));
      const { result } = await compactInNode("openai-chat.json", { ...pressure(inputs.turn, inputs.pct / 100, idle, false), cachedTokens: inputs.cached });
      assertSameAsNode(shown, result);
      assert.deepEqual(JSON.parse(await page.getAttribute("#cache", "data-cache")), result.cache);
      const words = await page.textContent("#cache");
      if (idle === 10) {
        assert.equal(result.cache.warm, true);
        assert.match(result.reason, /cache warm: deferred/);
        assert.match(words, /^warm .* edits deferred/);
      } else {
        assert.equal(result.cache.warm, false);
        assert.ok(result.tokensSaved > 0);
        assert.match(words, /^cold/);
      }
    }
    await setPressure({});
  });

  it("puts archived items back, one at a time, nested ones once their range is back, then all: output = input", async () => {
    // auto on flat text to a target of 0.2: micro's stubs, the media stripped, then the older
    // text (holding the placeholder) replaced by a digest.
    await loadSample("flat-text.txt");
    await setPressure({ turn: 8, pct: 85, idle: 0, complete: false });
    await setStub("off");
    await setAutoTarget(SUMMARISING.autoTargetPct);
    const shown = await compactOnPage();
    await setAutoTarget(DEFAULT_TIER_POLICY.autoTargetPct);
    runs.push("auto");
    const { context, result } = await compactInNode("flat-text.txt", pressure(8, 0.85, 0, false), null, 2000, SUMMARISING);
    assertSameAsNode(shown, result);
    // auto's plans: micro's stubs, the media, then one stretch (holding the stubs and the media).
    const plans = archivePlans(result.archive);
    assert.deepEqual(plans.map((plan) => plan[0].kind), ["tool_result", "media", "turn"]);
    const [stubs, [media], [run]] = plans;
    const rowState = (entry) => page.getAttribute(`#archive tr[data-entry="${entry.id}"]`, "data-state");
    assert.equal(await rowState(media), "hidden", "the media lies inside the replaced stretch");
    assert.equal(await page.isDisabled(`#archive tr[data-entry="${media.id}"] button.restore`), true);
    assert.equal(await rowState(run), "restorable");
    // The stretch covers micro's stubs too (flat text has no tail; 0.2 takes it all): they wait for it.
    assert.deepEqual(await Promise.all(stubs.map(rowState)), stubs.map(() => "hidden"));
    assert.equal(await page.getAttribute("#restore-check", "data-equal"), "true");
    assert.equal(await page.textContent("#restore-check"), "restore(result) gives the input back exactly.");

    await page.click(`#archive tr[data-entry="${run.id}"] button.restore`);
    await page.waitForFunction((id) => document.querySelector(`#archive tr[data-entry="${id}"]`).dataset.state === "restored", run.id);
    assert.equal(await rowState(media), "restorable", "now the media placeholder is visible");
    const partly = await page.textContent("#output-json");
    assert.ok(partly.includes(media.replacement), "the run is back with the media placeholder in it");
    assert.ok(!partly.includes(run.replacement), "the run's replacement is gone");
    assert.equal(await page.getAttribute("#restore-status", "data-equal"), "false");
    await page.click(`#archive tr[data-entry="${media.id}"] button.reveal`);
    await page.locator("#compare-panel").scrollIntoViewIfNeeded();
    await shot("06-restore-partial-compare", "#compare-panel");

    await page.click(`#archive tr[data-entry="${media.id}"] button.restore`);
    await page.waitForFunction((id) => document.querySelector(`#archive tr[data-entry="${id}"]`).dataset.state === "restored", media.id);
    // micro's stubs are still in: one at a time, each row once its text is shown.
    for (const stub of stubs) {
      assert.equal(await rowState(stub), "restorable", `${stub.id} can come back now`);
      await page.click(`#archive tr[data-entry="${stub.id}"] button.restore`);
    }
    await page.waitForFunction(() => document.getElementById("restore-status").dataset.equal === "true");
    assert.equal(await page.textContent("#output-json"), context.text);
    await shot("06-restore-done-archive", "#archive-panel");

    // Structured: the time_based sample, Restore all.
    await loadSample("anthropic-messages.json");
    await setPressure({ turn: 8, pct: 40, idle: 900, complete: false });
    await compactOnPage();
    runs.push("time_based");
    const structured = await compactInNode("anthropic-messages.json", pressure(8, 0.4, 900, false));
    await page.click("#restore-all");
    await page.waitForFunction(() => document.getElementById("restore-status").dataset.equal === "true");
    assert.equal(await page.textContent("#output-json"), JSON.stringify(structured.context.messages, null, 2));
    assert.equal(await page.getAttribute("#shown-tokens", "data-tokens"), String(structured.result.beforeTokens));
    await shot("06-restore-all-compare", "#compare-panel");
  });

  for (const [mode, timeoutMs, cause] of [
    ["reject", 2000, /HTTP 503/],
    ["hang", 600, /time|600/i],
    ["too_long", 2000, /long|short/i],
  ]) {
    it(`falls back to the structural digest when the stub's mode is ${mode} (degraded)`, async () => {
      await loadSample("ai-sdk-messages.json");
      await setPressure({ turn: 8, pct: 85, idle: 0, complete: false });
      await setStub(mode, 150, timeoutMs);
      await setAutoTarget(SUMMARISING.autoTargetPct);
      // The async path: the call is pending while the page waits (the hang until the timeout).
      const shown = await compactOnPage(async () => {
        await page.waitForSelector('#calls li[data-state="pending"]');
        assert.equal(await page.getAttribute("#run-state", "data-state"), "running");
        assert.equal(await page.isDisabled("#compact"), true);
        if (mode === "hang") await shot("07-degraded-hang-pending", "#stub-panel");
      });
      runs.push("auto");
      await setAutoTarget(DEFAULT_TIER_POLICY.autoTargetPct);
      const { result } = await compactInNode("ai-sdk-messages.json", pressure(8, 0.85, 0, false), { mode, delayMs: 0 }, timeoutMs, SUMMARISING);
      assert.equal(result.degraded, true);
      assertSameAsNode(shown, result);
      assert.equal(shown.degraded, "true");
      assert.ok(shown.warnings.some((warning) => cause.test(warning)), `a warning names the cause: ${shown.warnings.join(" | ")}`);
      assert.match(shown.reason, /digest/);
      const call = await page.getAttribute("#calls li:first-child", "data-state");
      assert.equal(call, { reject: "rejected", hang: "aborted", too_long: "resolved" }[mode]);
      await shot(`07-degraded-${mode}`, "#result-panel");
      if (mode === "hang") await shot("07-degraded-hang-stub", "#stub-panel");
    });
  }

  it("answers a recall by the id a stub names, from every run's archive, and shows the tool", async () => {
    // micro on the OpenAI sample: every stub names its entry.
    await loadSample("openai-chat.json");
    await setPressure({ turn: 4, pct: 30, idle: 0, complete: false });
    await setStub("off");
    const shown = await compactOnPage();
    runs.push("micro");
    const { context, result } = await compactInNode("openai-chat.json", pressure(4, 0.3, 0, false));
    assertSameAsNode(shown, result);
    assert.equal(await page.getAttribute("#restore-check", "data-equal"), "true");
    assert.equal(await page.textContent("#recall-format"), "openai");
    assert.equal(await page.textContent("#recall-tool"), JSON.stringify(recallToolDefinition("openai"), null, 2));
    // The id field holds the first id a stub names; recall shows that entry's content.
    const [, firstId] = /recall: (a[0-9a-f]{12})/.exec(shown.outputJson);
    assert.equal(await page.inputValue("#recall-id"), firstId);
    await page.click("#recall");
    const entry = result.archive.find((candidate) => candidate.id === firstId);
    const original = context.messages[Number(/^messages\[(\d+)\]/.exec(entry.location)[1])].content;
    assert.equal(await page.getAttribute("#recall-status", "data-found"), "true");
    assert.equal(await page.textContent("#recall-answer"), original, "the pruned body, whole");
    await page.locator("#recall-box").scrollIntoViewIfNeeded();
    await shot("06-recall", "#recall-box");
    // Every run's archive is searched: an id of an earlier run (the flat-text auto run) is found too.
    const earlier = await compactInNode("flat-text.txt", pressure(8, 0.85, 0, false), null, 2000, SUMMARISING);
    const old = earlier.result.archive[0];
    await page.fill("#recall-id", old.id);
    await page.press("#recall-id", "Enter");
    assert.equal(await page.getAttribute("#recall-status", "data-found"), "true");
    assert.equal(await page.textContent("#recall-answer"), old.content);
    // An unknown id says so.
    await page.fill("#recall-id", "a000000000000");
    await page.click("#recall");
    assert.equal(await page.getAttribute("#recall-status", "data-found"), "false");
    assert.equal(await page.textContent("#recall-status"), 'no archived entry has the id "a000000000000"');
    assert.equal(await page.isVisible("#recall-answer"), false);
  });

  it("accumulates one JSONL trace line per run, downloads them, and sums the ledger from them", async () => {
    const count = await page.locator("#trace .trace-line").count();
    assert.equal(count, runs.length);
    const [download] = await Promise.all([page.waitForEvent("download"), page.click("#download")]);
    assert.equal(download.suggestedFilename(), "tiered-compaction-trace.jsonl");
    const body = fs.readFileSync(await download.path(), "utf8");
    fs.writeFileSync(path.join(artifacts, "trace.jsonl"), body);
    assert.ok(body.endsWith("\n"));
    const lines = body.slice(0, -1).split("\n");
    assert.equal(lines.length, runs.length);
    const events = lines.map((line, index) => {
      assert.doesNotThrow(() => JSON.parse(line), `line ${index + 1} is JSON`);
      return JSON.parse(line);
    });
    assert.deepEqual(events.map((event) => event.compaction_tier), runs);
    for (const event of events) {
      assert.equal(event.type, "compact");
      assert.equal(event.trace_id, `demo-${SESSION_ID}`, "the page's step fields are kept");
      assert.match(event.detail, new RegExp(`tier=${event.compaction_tier}`));
    }
    assert.deepEqual(await page.locator("#trace .trace-line").allTextContents(), lines);

    // The ledger the page shows is the sum over the downloaded lines.
    const { rows, total } = ledgerFromLines(lines);
    for (const row of [...rows, total]) {
      const cells = await page.$eval(`#ledger tr[data-tier="${row.tier}"]`, (tr) => ({
        events: tr.querySelector(".events").textContent,
        tokens: tr.querySelector(".tokens").textContent,
        cost: tr.querySelector(".cost").dataset.value,
        degraded: tr.querySelector(".degraded").textContent,
        spend: tr.querySelector(".spend").dataset.value,
      }));
      assert.deepEqual(cells, { events: String(row.events), tokens: number(row.tokensSaved), cost: String(row.costEstimate), degraded: String(row.degraded), spend: String(row.summariserCostUsd) }, `ledger row ${row.tier}`);
    }
    // Cross-check the sums against the events themselves.
    const auto = rows.find((row) => row.tier === "auto");
    assert.equal(auto.events, runs.filter((tier) => tier === "auto").length);
    assert.equal(auto.degraded, 3);
    assert.ok(total.summariserCostUsd > 0, "the stub's spend reaches the ledger");
    await page.locator("#trace-panel").scrollIntoViewIfNeeded();
    await shot("08-trace-ledger", "#trace-panel");
    await page.screenshot({ path: path.join(artifacts, "09-full-page.png"), fullPage: true });
  });

  it("runs the loop: each call through compact() with the state, billed beside sending everything, as runLoop in Node", async () => {
    const messages = agentRun("openai", 80);
    await page.fill("#source", JSON.stringify(messages));
    // The info line names the new messages once the page has read them (not the previous source's "ok").
    await page.waitForFunction((count) => document.getElementById("source-info").dataset.state === "ok" && document.getElementById("source-info").textContent.includes(`${count} messages`), messages.length);
    assert.equal(await page.isDisabled("#run-loop"), false);
    await page.click("#run-loop");
    await page.waitForFunction(() => ["done", "error"].includes(document.getElementById("loop-status").dataset.state), null, { timeout: 60_000 });
    assert.equal(await page.isVisible("#loop-error"), false, await page.textContent("#loop-error"));
    const shown = await page.$$eval("#loop-rows tr", (rows) => rows.map((tr) => ({ tier: tr.dataset.tier, rewrote: tr.dataset.rewrote === "true", bill: Number(tr.querySelector(".bill").dataset.value), rawBill: Number(tr.querySelector(".raw-bill").dataset.value) })));
    const policy = { ...DEFAULT_THRESHOLDS, ...DEFAULT_TIER_POLICY, excludeTools: [...DEFAULT_TIER_POLICY.excludeTools], cache: { ...DEFAULT_TIER_POLICY.cache, batchTokens: 5000 } };
    const inNode = await runLoop({ messages, format: "auto", sessionId: SESSION_ID, policy, windowTokens: 200_000, compact, tokensOf: (message) => estimateTokens(JSON.stringify(message), { tokenEstimator: "heuristic" }) });
    assert.deepEqual(shown, inNode.rows.map(({ tier, rewrote, bill, rawBill }) => ({ tier, rewrote, bill, rawBill })));
    assert.equal(shown.length, 80);
    assert.ok(inNode.total.share < 1 && inNode.total.rewrites >= 1, JSON.stringify(inNode.total));
    assert.equal(Number(await page.$eval("#loop-total", (p) => p.dataset.share)), inNode.total.share);
    await page.locator("#loop-panel").scrollIntoViewIfNeeded();
    await shot("10-loop", "#loop-panel");
  });

  it("logged no console error, page error or failed request during the run", () => {
    assert.deepEqual(problems, []);
  });
});

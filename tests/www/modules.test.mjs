// The demo page's plain modules, in Node against the Node build: the archive model (restore
// gives back the input, for every sample, tier and summariser outcome), the rules in words
// (they agree with selectTier; the tiers' words quote the stubs the library writes and follow the
// policy), transcript reading (line and column of bad JSON), the stub, the
// ledger, the static server's path guard, and the samples being what generate.mjs writes.
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
// Unbatched, as the page calls it (DEFAULT_TIER_POLICY.cache).
import { compactWithTier, recordTierEvent, selectTier } from "../js/unbatched.mjs";
import { archivePlans, buildModel, entryStates, equalsInput, restoreAll, restoreEntry, shownContext } from "../../www/archive-model.mjs";
import { formatUsd, ledgerFromLines } from "../../www/ledger.mjs";
import { billRequest, callEnds, runLoop } from "../../www/loop.mjs";
import { compact } from "tiered-compaction";
import { agentRun } from "../js/helpers.mjs";
import { DEFAULT_THRESHOLDS, DEFAULT_TIER_POLICY, RECALL_WORDS, describeTail, describeTier, explainTier } from "../../www/rules.mjs";
import { sampleFiles } from "../../www/samples/generate.mjs";
import { resolveFile } from "../../www/serve.mjs";
import { createStubSummariser, stubSummary } from "../../www/stub.mjs";
import { jsonErrorLocation, lineAndColumn, readTranscript } from "../../www/transcript.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const TIERS = ["none", "micro", "time_based", "auto", "session_memory"];
const pressure = (turnCount, contextPctUsed, idleSeconds = 0, sessionComplete = false) => ({ turnCount, contextPctUsed, idleSeconds, sessionComplete });

function sampleContexts() {
  return Object.entries(sampleFiles()).map(([name, source]) => {
    const read = readTranscript(source, "auto");
    assert.ok(read.ok, `${name}: ${read.message}`);
    return [name, read.kind === "text" ? { text: read.text } : { messages: read.messages }];
  });
}

describe("samples", () => {
  it("are exactly what www/samples/generate.mjs writes", () => {
    for (const [name, contents] of Object.entries(sampleFiles())) {
      assert.equal(fs.readFileSync(path.join(root, "www", "samples", name), "utf8"), contents, `www/samples/${name} is stale: run node www/samples/generate.mjs`);
    }
  });

  it("are read as the six shapes the page offers", async () => {
    const formats = [];
    for (const [, context] of sampleContexts()) {
      const result = await compactWithTier("none", { sessionId: "s", pressure: pressure(1, 0), ...context });
      formats.push(result.format);
    }
    assert.deepEqual(formats.sort(), ["ai-sdk", "anthropic", "gemini", "openai", "responses", "text"]);
  });
});

describe("archive model", () => {
  const outcomes = [
    ["no summariser", undefined],
    ["a summary", createStubSummariser({ mode: "resolve", delayMs: 0 })],
    ["a rejection (degraded)", createStubSummariser({ mode: "reject", delayMs: 0 })],
    ["too long an answer (degraded)", createStubSummariser({ mode: "too_long", delayMs: 0 })],
  ];
  for (const [name, context] of sampleContexts()) {
    for (const tier of TIERS) {
      for (const [outcome, summarise] of outcomes) {
        if ((tier !== "auto" && tier !== "session_memory") && summarise) continue;
        it(`${name}, ${tier}, ${outcome}: rebuilds the output, and restoring everything gives the input`, async () => {
          const ctx = { sessionId: "s", pressure: pressure(8, 0.5), ...context };
          const result = await compactWithTier(tier, ctx, summarise ? { summarise } : {});
          const model = buildModel(ctx, result);
          assert.deepEqual(model.problems, []);
          assert.deepEqual(shownContext(model), result.text ?? result.messages);
          assert.equal(equalsInput(model), result.archive.length === 0);
          assert.equal(restoreAll(model), result.archive.length);
          assert.ok(equalsInput(model), "input = output + archive");
          assert.ok([...entryStates(model).values()].every((state) => state === "restored"));
        });
      }
    }
  }

  it("restores in any order the states allow (last entry first)", async () => {
    for (const [, context] of sampleContexts()) {
      const ctx = { sessionId: "s", pressure: pressure(8, 0.9), ...context };
      const result = await compactWithTier("auto", ctx);
      const model = buildModel(ctx, result);
      for (;;) {
        const restorable = [...entryStates(model)].filter(([, state]) => state === "restorable").map(([id]) => id);
        if (restorable.length === 0) break;
        assert.ok(restoreEntry(model, restorable.at(-1)));
      }
      assert.ok(equalsInput(model));
    }
  });

  it("keeps media inside a replaced run hidden until the run is back (structured)", async () => {
    const image = { type: "image", source: { type: "base64", media_type: "image/png", data: "iVBORw0KGgo".repeat(120) } };
    // A short text beside the image: micro leaves the result alone (a long one would be stubbed
    // whole, image included: the next test), so auto strips the image on its own.
    const long = Array.from({ length: 3 }, (_, index) => `line ${index}: output of the screenshot tool`).join("\n");
    const messages = [
      { role: "user", content: "Look at the page." },
      { role: "assistant", content: [{ type: "tool_use", id: "t1", name: "screenshot", input: {} }] },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: [{ type: "text", text: long }, image] }] },
      { role: "assistant", content: [{ type: "text", text: "Seen." }] },
      { role: "user", content: "Now fix it." },
      { role: "assistant", content: [{ type: "text", text: "Fixed." }] },
    ];
    const ctx = { sessionId: "s", pressure: pressure(3, 0.9), messages };
    // Three steps: with a tail of one step ("Fixed.") the screenshot's step lies outside it. The
    // image (no readable header: billed as a 1092 × 1092 image, 1,590 tokens) is most of the
    // context; stripped, 0.04 of the window remains: a target of 0.03 takes the step too, with
    // the answer after it.
    const result = await compactWithTier("auto", ctx, { policy: { keepRecentSteps: 1, autoTargetPct: 0.03 } });
    const plans = archivePlans(result.archive);
    assert.deepEqual(plans.map((plan) => plan[0].kind), ["media", "turn"]);
    const [[media], [run]] = plans;
    const model = buildModel(ctx, result);
    assert.deepEqual(model.problems, []);
    assert.equal(entryStates(model).get(media.id), "hidden");
    assert.equal(restoreEntry(model, media.id), false, "not while its run is replaced");
    assert.ok(restoreEntry(model, run.id));
    assert.equal(entryStates(model).get(media.id), "restorable");
    assert.ok(JSON.stringify(shownContext(model)).includes(media.replacement), "the run comes back with the placeholder");
    assert.ok(restoreEntry(model, media.id));
    assert.ok(equalsInput(model));
  });

  it("keeps micro's stub inside a replaced run hidden until the run is back (structured)", async () => {
    // auto's first plan is micro's: the long result (text and image) becomes one stub, which the
    // digest of the older context then covers.
    const image = { type: "image", source: { type: "base64", media_type: "image/png", data: "iVBORw0KGgo".repeat(120) } };
    const long = Array.from({ length: 30 }, (_, index) => `line ${index}: output of the screenshot tool`).join("\n");
    const messages = [
      { role: "user", content: "Look at the page." },
      { role: "assistant", content: [{ type: "tool_use", id: "t1", name: "screenshot", input: {} }] },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: [{ type: "text", text: long }, image] }] },
      { role: "assistant", content: [{ type: "text", text: "Seen." }] },
      { role: "user", content: "Now fix it." },
      { role: "assistant", content: [{ type: "text", text: "Fixed." }] },
    ];
    const ctx = { sessionId: "s", pressure: pressure(3, 0.9), messages };
    // The stub alone brings it to 0.03 of the window: a target of 0.02 takes the step too.
    const result = await compactWithTier("auto", ctx, { policy: { keepRecentSteps: 1, autoTargetPct: 0.02 } });
    const plans = archivePlans(result.archive);
    assert.deepEqual(plans.map((plan) => plan[0].kind), ["tool_result", "turn"]);
    const [[stub], [run]] = plans;
    assert.deepEqual(stub.content, [{ type: "text", text: long }, image], "the stub's entry holds the text and the image");
    const model = buildModel(ctx, result);
    assert.deepEqual(model.problems, []);
    assert.equal(entryStates(model).get(stub.id), "hidden");
    assert.equal(restoreEntry(model, stub.id), false, "not while its run is replaced");
    assert.ok(restoreEntry(model, run.id));
    assert.equal(entryStates(model).get(stub.id), "restorable");
    assert.ok(JSON.stringify(shownContext(model)).includes(`recall: ${stub.id}`), "the run comes back with the stub naming its id");
    assert.ok(restoreEntry(model, stub.id));
    assert.ok(equalsInput(model));
  });

  it("keeps the seed's micro example restorable (flat text)", async () => {
    const text = "```tool_result name=bash\n" + "C".repeat(900) + "\n```";
    const ctx = { sessionId: "s", pressure: pressure(2, 0.1), text };
    const result = await compactWithTier("micro", ctx);
    assert.equal(result.afterTokens, 36);
    const model = buildModel(ctx, result);
    assert.equal(shownContext(model), result.text);
    assert.equal(restoreAll(model), 1);
    assert.equal(shownContext(model), text);
  });

  it("refuses to restore (and says why) when the archive does not rebuild the output", async () => {
    const ctx = { sessionId: "s", pressure: pressure(2, 0.1), text: "```tool_result name=bash\n" + "C".repeat(900) + "\n```" };
    const result = await compactWithTier("micro", ctx);
    const model = buildModel(ctx, { ...result, text: `${result.text} (edited)` });
    assert.match(model.problems.join(), /does not rebuild the output/);
    assert.equal(restoreEntry(model, result.archive[0].id), false);
  });
});

describe("rules in words", () => {
  it("name the tier selectTier picks, for every combination around the thresholds", () => {
    for (const sessionComplete of [false, true]) {
      for (const turnCount of [0, 1, 2, 3, 9]) {
        for (const contextPctUsed of [0, 0.01, 0.3, 0.69, 0.7, 0.71, 1]) {
          for (const idleSeconds of [0, 299, 300, 301, 5000]) {
            const at = pressure(turnCount, contextPctUsed, idleSeconds, sessionComplete);
            assert.equal(explainTier(at).fired.tier, selectTier(at, DEFAULT_THRESHOLDS), JSON.stringify(at));
          }
        }
      }
    }
  });

  it("follow changed thresholds", () => {
    const thresholds = { autoContextPct: 0.5, idleSeconds: 60, microMinTurn: 4, microMinContextPct: 0.2 };
    for (const at of [pressure(3, 0.3), pressure(4, 0.3), pressure(4, 0.2), pressure(2, 0.55), pressure(2, 0.1, 60)]) {
      assert.equal(explainTier(at, thresholds).fired.tier, selectTier(at, thresholds), JSON.stringify(at));
    }
    assert.equal(explainTier(pressure(2, 0.55), thresholds).words, "auto, because live session and context used 55 % ≥ 50 %");
  });

  it("match the seed's boundary cases", () => {
    const cases = [
      [pressure(3, 0.7), "auto"],
      [pressure(3, 0.2, 300), "time_based"],
      [pressure(1, 0.3), "none"],
      [pressure(2, 0.1), "micro"],
      [pressure(5, 0), "none"],
      [pressure(3, 0.99, 0, true), "session_memory"],
      [pressure(3, 0.85, 400), "auto"],
      [pressure(3, 0.2, 400), "time_based"],
    ];
    for (const [at, tier] of cases) assert.equal(explainTier(at).fired.tier, tier, JSON.stringify(at));
  });
});

describe("what each tier does, in words", () => {
  /** The marker a description quotes (`[tool result body pruned: N chars; recall: ID]`) as a pattern. */
  const markerPattern = (words, start) => {
    const marker = words.slice(words.indexOf(start), words.indexOf("]", words.indexOf(start)) + 1);
    const escaped = marker.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    return new RegExp(escaped.replace("N", "\\d+").replace("ID", "a[0-9a-f]{12}").replace("TOOL", "\\w+"));
  };
  const run = () => {
    const messages = [{ role: "system", content: "You are a coding agent." }, { role: "user", content: "Fix the build." }];
    for (let step = 0; step < 8; step += 1) {
      const body = `$ make\n${"ok src/lib.rs compiles\n".repeat(20)}error: build failed at src/main.rs:${step}\ndone`;
      messages.push({ role: "assistant", content: null, tool_calls: [{ id: `c${step}`, type: "function", function: { name: "bash", arguments: "{}" } }] });
      messages.push({ role: "tool", tool_call_id: `c${step}`, content: body });
    }
    return messages;
  };

  it("quote the stubs micro and time_based write, exactly", async () => {
    const micro = await compactWithTier("micro", { sessionId: "s", pressure: pressure(9, 0.3), messages: run() });
    assert.match(micro.messages[3].content, markerPattern(describeTier("micro"), "[tool result body pruned"));
    const stale = await compactWithTier("time_based", { sessionId: "s", pressure: pressure(9, 0.3, 900), messages: run() });
    assert.match(stale.messages[3].content, markerPattern(describeTier("time_based"), "[stale block pruned:"));
    const flat = await compactWithTier("micro", { sessionId: "s", pressure: pressure(2, 0.1), text: "```tool_result name=bash\n" + "C".repeat(900) + "\n```" });
    assert.match(flat.text, /\[tool result body pruned: 900 chars\]/, "flat text: without a recall id, as the words say");
    assert.match(describeTier("micro"), /without a recall id/);
  });

  it("follow the policy: the tail, the age, the thresholds, the excluded tools", async () => {
    assert.equal(DEFAULT_TIER_POLICY.keepRecentSteps, 3);
    assert.match(describeTail(), /the newest 3 steps \(keepRecentSteps\) plus the newest message with user words/);
    assert.match(describeTail({ keepRecentSteps: 1 }), /the newest 1 step \(keepRecentSteps\)/);
    assert.match(describeTier("time_based"), /more than 5 steps old \(maxBlockAgeSteps\)/);
    assert.match(describeTier("time_based", { maxBlockAgeSteps: 2 }), /more than 2 steps old .*\[age:N\] with N > 2/);
    assert.match(describeTier("micro", { microBodyThresholdChars: 500, microKeepHeadChars: 120 }), /over 500 characters outside the tail: its first 120 characters/);
    for (const tier of ["micro", "time_based", "auto"]) {
      assert.doesNotMatch(describeTier(tier), /excludeTools/);
      assert.match(describeTier(tier, { excludeTools: ["memory", "todo"] }), /Results of memory, todo \(excludeTools\) stay whole\./);
    }
    assert.equal(DEFAULT_TIER_POLICY.autoTargetPct, 0.5);
    assert.match(describeTier("auto"), /down to 50 % of the window \(autoTargetPct, by contextPctUsed × after \/ before\), cheapest first/);
    assert.match(describeTier("auto", { autoTargetPct: 0.3 }), /down to 30 % of the window/);
    assert.match(describeTier("auto"), /then older conversation \(plain chats and flat text too\)/);
    assert.match(describeTier("none"), /changes nothing/);
    // The repair the words promise: an orphan tool result goes to the archive, even in tier none.
    assert.match(describeTier("none"), /repaired first.*an orphan tool result/);
    const orphan = [{ role: "user", content: "hi" }, { role: "tool", tool_call_id: "gone", content: "out" }, { role: "assistant", content: "ok" }];
    const repaired = await compactWithTier("none", { sessionId: "s", pressure: pressure(1, 0.1), messages: orphan });
    assert.deepEqual(repaired.archive.map((entry) => entry.kind), ["repair"]);
    assert.equal(repaired.warnings.length, 1);
    for (const tier of ["micro", "time_based"]) assert.match(describeTier(tier), /warm prompt cache \(cachedTokens given/);
    assert.match(describeTier("session_memory"), /\[session summary\]/);
    assert.match(RECALL_WORDS, /recallToolDefinition\(format\).*recall\(archives, id\)/);
    // The tail in the words is the tail the library keeps: a tail of 1 step leaves 7 of 8 results to micro.
    const one = await compactWithTier("micro", { sessionId: "s", pressure: pressure(9, 0.3), messages: run() }, { policy: { keepRecentSteps: 1 } });
    assert.equal(one.archive.length, 7);
    const three = await compactWithTier("micro", { sessionId: "s", pressure: pressure(9, 0.3), messages: run() });
    assert.equal(three.archive.length, 8 - DEFAULT_TIER_POLICY.keepRecentSteps);
  });
});

describe("reading a transcript", () => {
  it("names the line and column of bad JSON, from V8's message or the position", () => {
    const source = '[\n  {"role": "user",\n   "content": "x",}\n]';
    const read = readTranscript(source);
    assert.equal(read.ok, false);
    let expected;
    try {
      JSON.parse(source);
    } catch (error) {
      expected = jsonErrorLocation(source, error);
    }
    assert.deepEqual([read.line, read.column], [expected.line, expected.column]);
    assert.equal(read.line, 3);
    assert.match(read.message, /^Invalid JSON at line 3, column \d+: /);
    assert.deepEqual(jsonErrorLocation("{\n\n  x", new SyntaxError("Unexpected token x in JSON at position 5")), { line: 3, column: 3 });
    assert.deepEqual(jsonErrorLocation("[1,", new SyntaxError("Unexpected end of JSON input")), { line: 1, column: 4 });
    assert.deepEqual(lineAndColumn("ab\ncd", 4), { line: 2, column: 2 });
  });

  it("reads [age:N] text as flat text, an array or a request body as messages", () => {
    assert.equal(readTranscript("[age:3] old\n\n[age:0] new").kind, "text");
    assert.equal(readTranscript("  plain words").kind, "text");
    assert.deepEqual(readTranscript('[{"role":"user","content":"hi"}]').messages, [{ role: "user", content: "hi" }]);
    const body = readTranscript('{"model":"m","system":"s","messages":[{"role":"user","content":"hi"}]}');
    assert.equal(body.kind, "messages");
    assert.match(body.note, /other fields left out of the context: model, system/);
    assert.equal(readTranscript('{"a":1}').ok, false);
    assert.equal(readTranscript("   ").ok, false);
    assert.equal(readTranscript("[age:1] text", "json").ok, false, "forced JSON");
  });
});

describe("summariser stub", () => {
  const request = (signal = new AbortController().signal) => ({
    tier: "auto",
    sessionId: "s",
    correlationId: "c",
    instructions: "Summarise.",
    transcript: "x".repeat(4000),
    messages: [],
    targetTokens: 100,
    mustKeep: ["src/a.ts", "Never log secrets.", "E123: boom"],
    signal,
  });

  it("resolve: a summary within the target, carrying mustKeep, with usage", async () => {
    const answer = await createStubSummariser({ mode: "resolve", delayMs: 0 })(request());
    assert.equal(answer.summary, stubSummary(request()));
    assert.ok(answer.summary.length <= 100 * 4);
    for (const item of request().mustKeep) assert.ok(answer.summary.includes(item));
    assert.deepEqual(Object.keys(answer.usage), ["inputTokens", "outputTokens", "costUsd"]);
  });

  it("reject, too_long, hang, and a delay cut short by the signal", async () => {
    await assert.rejects(createStubSummariser({ mode: "reject", delayMs: 0 })(request()), /HTTP 503/);
    assert.ok((await createStubSummariser({ mode: "too_long", delayMs: 0 })(request())).length > 8000);
    const hang = createStubSummariser({ mode: "hang", delayMs: 0 })(request());
    const raced = await Promise.race([hang.then(() => "settled"), new Promise((resolve) => setTimeout(() => resolve("pending"), 50))]);
    assert.equal(raced, "pending");
    const controller = new AbortController();
    const slow = createStubSummariser({ mode: "resolve", delayMs: 10_000 })(request(controller.signal));
    controller.abort(new Error("timed out"));
    await assert.rejects(slow, /timed out/);
    assert.throws(() => createStubSummariser({ mode: "maybe", delayMs: 0 }), TypeError);
  });
});

describe("ledger", () => {
  it("sums the trace lines per tier", async () => {
    const ctx = { sessionId: "s", pressure: pressure(8, 0.9), text: sampleFiles()["flat-text.txt"] };
    // Below what micro's stubs reach (0.14 of the window), so auto asks the summariser.
    const policy = { autoTargetPct: 0.1 };
    const auto = await compactWithTier("auto", ctx, { policy, summarise: createStubSummariser({ mode: "resolve", delayMs: 0 }) });
    const degraded = await compactWithTier("auto", ctx, { policy, summarise: createStubSummariser({ mode: "reject", delayMs: 0 }) });
    const micro = await compactWithTier("micro", ctx);
    const lines = [auto, degraded, micro].map((result) => recordTierEvent(result));
    const { rows, total } = ledgerFromLines(lines);
    const autoRow = rows.find((row) => row.tier === "auto");
    assert.equal(autoRow.events, 2);
    assert.equal(autoRow.degraded, 1);
    assert.equal(autoRow.tokensSaved, auto.tokensSaved + degraded.tokensSaved);
    assert.equal(autoRow.costEstimate, auto.costEstimate + degraded.costEstimate);
    assert.equal(autoRow.summariserCostUsd, auto.summariserUsage.costUsd);
    assert.equal(total.events, 3);
    assert.equal(total.tokensSaved, auto.tokensSaved + degraded.tokensSaved + micro.tokensSaved);
    assert.equal(formatUsd(0.0000294), "$0.0000294");
    assert.equal(formatUsd(0), "$0");
  });
});

describe("static server", () => {
  it("serves www/ and pkg/ and nothing outside them", () => {
    assert.equal(resolveFile("/"), path.join(root, "www", "index.html"));
    assert.equal(resolveFile("/app.mjs?x=1"), path.join(root, "www", "app.mjs"));
    assert.equal(resolveFile("/pkg/browser.mjs"), path.join(root, "pkg", "browser.mjs"));
    for (const escape of ["/../package.json", "/pkg/../Cargo.toml", "/%2e%2e/Cargo.toml", "/pkg/%2e%2e/%2e%2e/etc/passwd", "/%E0%A4%A"]) {
      assert.equal(resolveFile(escape), null, escape);
    }
  });
});

describe("the loop view (www/loop.mjs)", () => {
  it("ends call k before the model's k-th turn, in every format's shape", () => {
    assert.deepEqual(callEnds([{ role: "system" }, { role: "user" }, { role: "assistant" }, { role: "tool" }, { role: "assistant" }]), [2, 4]);
    assert.deepEqual(callEnds([{ role: "user" }, { role: "model" }, { role: "user" }, { role: "model" }]), [1, 3]);
    // Responses: a reasoning item and a function call are one model turn.
    assert.deepEqual(callEnds([{ type: "message", role: "user" }, { type: "reasoning" }, { type: "function_call" }, { type: "function_call_output" }, { type: "message", role: "assistant" }]), [1, 4]);
  });

  it("bills the shared prefix as cache reads and the rest as writes", () => {
    const tokensOf = (message) => message.t;
    const a = [{ t: 10 }, { t: 20 }];
    assert.deepEqual(billRequest(null, a, tokensOf), { shared: 0, read: 0, written: 30, cost: 37.5 });
    assert.deepEqual(billRequest(a, [...a, { t: 5 }], tokensOf), { shared: 2, read: 30, written: 5, cost: 3 + 6.25 });
    assert.deepEqual(billRequest(a, [{ t: 10 }, { t: 2 }, { t: 5 }], tokensOf), { shared: 1, read: 10, written: 7, cost: 1 + 8.75 });
  });

  it("replays a run through compact() with the state: one rewrite per batch, a bill under sending everything", async () => {
    const tokensOf = (message) => JSON.stringify(message).length / 4;
    const policy = { cache: { batchTokens: 5000 } };
    const { rows, total } = await runLoop({ messages: agentRun("anthropic", 80), sessionId: "loop", policy, windowTokens: 200_000, compact, tokensOf });
    assert.equal(rows.length, 80);
    assert.ok(total.rewrites >= 1 && total.rewrites <= 3, JSON.stringify(total));
    assert.ok(total.share < 1, JSON.stringify(total));
    // Without stubs the two bills are the same sums.
    const none = await runLoop({ messages: agentRun("anthropic", 12), sessionId: "loop", policy, windowTokens: 200_000, compact, tokensOf });
    assert.equal(none.total.bill, none.total.rawBill);
  });
});

// What the summariser is asked (docs/design.md, "The tiers": digests and summaries) for a realistic agent session, what happens when its
// answer drops a must-keep item, and that concurrent sessions never see each other's requests.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { compact as compactAny, compactWithTier as compactWithTierAny } from "./unbatched.mjs";
import { pressure } from "./helpers.mjs";
import { assertNothingLost } from "./lossless.mjs";

const SCREENSHOT = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJ".repeat(300);

/** An OpenAI-format session: task, screenshot, tool runs touching files, with errors. */
function session(sessionTag, turns = 8) {
  const messages = [
    { role: "system", content: "You are a careful coding agent." },
    { role: "user", content: `[${sessionTag}] Make the parser accept trailing commas. Never edit Cargo.lock.` },
  ];
  for (let turn = 0; turn < turns; turn++) {
    const id = `${sessionTag}_call_${turn}`;
    messages.push({
      role: "assistant",
      content: null,
      tool_calls: [{ id, type: "function", function: { name: "bash", arguments: JSON.stringify({ cmd: `cargo test t${turn}` }) } }],
    });
    messages.push({
      role: "tool",
      tool_call_id: id,
      content: `error[E0308]: mismatched types in src/${sessionTag}/parser.rs:${turn}\n` + "   Compiling parser v0.1.0\n".repeat(30),
    });
    messages.push(
      turn === 1
        ? { role: "user", content: [{ type: "text", text: "Here is the screen." }, { type: "image_url", image_url: { url: `data:image/png;base64,${SCREENSHOT}` } }] }
        : { role: "user", content: `continue ${turn + 1}` },
    );
  }
  messages.push({ role: "assistant", content: "Done." });
  return messages;
}

// auto works to policy.autoTargetPct (default 0.5); here the stubs and the screenshot's
// placeholder alone get there (0.8 -> 0.12). A target of 0.1 makes auto summarise the older
// context: its tool runs and the conversation between them.
const POLICY = { autoTargetPct: 0.1 };
const compact = (ctx, options) => compactAny(ctx, { policy: POLICY, ...options });
const compactWithTier = (tier, ctx, options) => compactWithTierAny(tier, ctx, { policy: POLICY, ...options });

const ctxOf = (tag, pct = 0.8) => ({ sessionId: `session-${tag}`, pressure: pressure(9, pct), messages: session(tag) });

describe("the summary request for a realistic session", () => {
  it("holds the prompt's sections, must-keep items, no media, a sane target", async () => {
    const requests = [];
    const ctx = ctxOf("a");
    const result = await compact(ctx, {
      summarise: (request) => {
        requests.push(request);
        return { summary: `Goal: trailing commas. Files: ${request.mustKeep.join(" ")}`, usage: { inputTokens: 900, outputTokens: 60 } };
      },
    });
    assert.equal(requests.length, 1);
    const [request] = requests;
    assert.equal(request.tier, "auto");
    assert.equal(request.sessionId, "session-a");
    assert.equal(request.correlationId, result.correlationId);
    for (const section of ["Goal", "Decisions made", "Files, identifiers and URLs", "Errors seen", "Open tasks", "User directives"]) {
      assert.ok(request.instructions.includes(section), `instructions name ${section}`);
    }
    assert.ok(request.mustKeep.some((item) => item.includes("src/a/parser.rs")), JSON.stringify(request.mustKeep));
    assert.ok(request.mustKeep.some((item) => item.startsWith("error[E0308]")));
    assert.ok(!request.transcript.includes(SCREENSHOT.slice(0, 200)), "media is stripped from the transcript");
    assert.ok(!JSON.stringify(request.messages).includes(SCREENSHOT.slice(0, 200)), "and from the messages");
    assert.ok(request.messages.every((message) => message.role !== "system"));
    assert.ok(request.targetTokens >= 64 && request.targetTokens < request.transcript.length / 4);
    assert.ok(request.signal instanceof AbortSignal && !request.signal.aborted);
    assert.deepEqual(result.summariserUsage, { inputTokens: 900, outputTokens: 60 });
    assert.equal(result.degraded, undefined);
    assertNothingLost(ctx, result);
  });

  it("an overridden prompt reaches the summariser as given", async () => {
    let seen;
    await compact(ctxOf("b"), {
      instructions: "Summarise in French.",
      summarise: (request) => {
        seen = request.instructions;
        return "court résumé";
      },
    });
    assert.equal(seen, "Summarise in French.");
  });
});

describe("a summary that drops a must-keep item", () => {
  it("is kept, with the dropped items appended verbatim, not degraded", async () => {
    let mustKeep;
    const ctx = ctxOf("c");
    const result = await compact(ctx, {
      summarise: (request) => {
        mustKeep = request.mustKeep;
        return "Goal: trailing commas; tests ran."; // names no file path at all
      },
    });
    assert.equal(result.degraded, undefined);
    const summary = result.messages.find((m) => typeof m.content === "string" && m.content.startsWith("[summary of earlier "));
    assert.ok(summary, "the summary stands in the output");
    assert.ok(summary.content.includes("[kept verbatim]"));
    const path = mustKeep.find((item) => item.includes("src/c/parser.rs"));
    assert.ok(path && summary.content.includes(path), "the dropped path is carried verbatim");
    assertNothingLost(ctx, result);
  });
});

describe("concurrent sessions in one instance", () => {
  it("never mix requests or results", async () => {
    const tags = Array.from({ length: 40 }, (_, i) => `s${i}`);
    const seen = new Map();
    const summarise = async (request) => {
      await new Promise((resolve) => setTimeout(resolve, Math.floor(Math.random() * 15)));
      seen.set(request.sessionId, request);
      return `Summary for ${request.sessionId}`;
    };
    const results = await Promise.all(tags.map((tag) => compactWithTier("auto", ctxOf(tag), { summarise })));
    results.forEach((result, index) => {
      const tag = tags[index];
      const request = seen.get(`session-${tag}`);
      assert.ok(request, `session-${tag} was asked`);
      assert.ok(request.transcript.includes(`src/${tag}/parser.rs`), "its own transcript");
      assert.ok(!request.transcript.includes(`src/${tags[(index + 1) % tags.length]}/parser.rs`), "no other session's");
      assert.equal(request.correlationId, result.correlationId);
      const text = JSON.stringify(result.messages);
      assert.ok(text.includes(`Summary for session-${tag}`), "its own summary came back");
      assert.ok(!text.includes(`Summary for session-${tags[(index + 1) % tags.length]}"`));
    });
  });
});

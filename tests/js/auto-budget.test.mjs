// auto works to a budget (docs/design.md §4, SPEC §4): policy.autoTargetPct of the window, by the
// pressure's own measure (contextPctUsed × afterTokens / beforeTokens), cheapest reductions first;
// plain chats and flat text without tool blocks are summarised or digested too.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { compact, compactWithTier, restore, runLegacyCompaction, selectTier } from "./unbatched.mjs";
import { pressure } from "./helpers.mjs";

const ANSWER = "The parser reads the tokens one by one and keeps its state small. ".repeat(9);

/** A plain OpenAI chat of `exchanges` exchanges; question `at` is `directive` when given. */
function chat(exchanges, directive) {
  const messages = [{ role: "system", content: "You are a helpful assistant." }];
  for (let i = 0; i < exchanges; i++) {
    const question = directive && directive.at === i ? directive.text : `Question ${i}: how should the parser treat input ${i}?`;
    messages.push({ role: "user", content: question }, { role: "assistant", content: `Answer ${i}: ${ANSWER}` });
  }
  return messages;
}

/** The same chat as flat text: paragraphs, no tool blocks. */
const chatText = (exchanges) =>
  Array.from({ length: exchanges }, (_, i) => `User: Question ${i}?\n\nAssistant: Answer ${i}: ${ANSWER}\n\n`).join("");

const projected = (ctx, result) => (ctx.pressure.contextPctUsed * result.afterTokens) / result.beforeTokens;

/** A summariser that answers briefly and counts its calls. */
function counting() {
  const requests = [];
  const summarise = (request) => {
    requests.push(request);
    return `Summary: ${request.mustKeep.join(" | ")}`;
  };
  return { requests, summarise };
}

describe("auto works to policy.autoTargetPct", () => {
  it("a 30-exchange chat at 0.9 is summarised by one call, down to the target", async () => {
    const ctx = { sessionId: "chat", pressure: pressure(30, 0.9), messages: chat(30) };
    const { requests, summarise } = counting();
    const result = await compact(ctx, { summarise });
    assert.equal(result.tier, "auto");
    assert.equal(requests.length, 1);
    assert.ok(result.tokensSaved > 0);
    assert.ok(projected(ctx, result) <= 0.5, result.reason);
    assert.match(result.reason, /target 0\.5 met after older conversation \(0\.9 -> 0\.\d+\)$/);
    assert.deepEqual(result.messages.slice(0, 2), ctx.messages.slice(0, 2), "system prompt and task");
    assert.ok(result.messages[2].content.startsWith("[summary of earlier conversation] covers "));
    assert.deepEqual(restore(result), ctx.messages);
  });

  it("without a summariser, a structural digest; the task and the tail stay", async () => {
    const ctx = { sessionId: "chat", pressure: pressure(30, 0.9), messages: chat(30) };
    const result = await compact(ctx);
    assert.ok(projected(ctx, result) <= 0.5, result.reason);
    assert.ok(result.messages[2].content.startsWith("[digest of earlier conversation]"));
    assert.deepEqual(result.messages.slice(-5), ctx.messages.slice(-5));
  });

  it("a 1,016-character directive is carried in full: in mustKeep and in the digest", async () => {
    const text = `${"Keep every public signature as it is. ".repeat(26)}Never rename public items!!!`;
    assert.equal(text.length, 1016);
    const ctx = { sessionId: "chat", pressure: pressure(30, 0.9), messages: chat(30, { at: 3, text }) };
    const { requests, summarise } = counting();
    await compact(ctx, { summarise });
    assert.ok(requests[0].mustKeep.includes(text));
    const digested = await compact(ctx);
    assert.ok(digested.messages[2].content.includes(`user: ${text}`));
  });

  it("cheap reductions that meet the target call no summariser", async () => {
    const body = `error: boom in src/lib.rs\n${"log line\n".repeat(300)}`;
    const messages = [{ role: "system", content: "agent" }, { role: "user", content: "fix it" }];
    for (let i = 0; i < 6; i++) {
      messages.push({ role: "assistant", content: null, tool_calls: [{ id: `c${i}`, type: "function", function: { name: "bash", arguments: "{}" } }] });
      messages.push({ role: "tool", tool_call_id: `c${i}`, content: body });
    }
    const { requests, summarise } = counting();
    const result = await compact({ sessionId: "s", pressure: pressure(7, 0.8), messages }, { summarise });
    assert.equal(requests.length, 0);
    assert.match(result.reason, /target 0\.5 met after stubs/);
  });

  it("forced auto at or under the target makes only model-free reductions and calls nobody", async () => {
    const ctx = { sessionId: "chat", pressure: pressure(30, 0.3), messages: chat(30) };
    const { requests, summarise } = counting();
    const result = await compactWithTier("auto", ctx, { summarise });
    assert.equal(requests.length, 0);
    assert.match(result.reason, /at or under target 0\.5 already: model-free reductions only, no summariser/);
    assert.equal(result.afterTokens, result.beforeTokens, "a chat has nothing model-free to cut");
  });

  it("autoTargetPct at or above autoContextPct is allowed: auto then makes only model-free reductions", async () => {
    const policy = { autoContextPct: 0.6, autoTargetPct: 0.8 };
    const p = pressure(30, 0.7);
    assert.equal(selectTier(p, policy), "auto");
    const { requests, summarise } = counting();
    const result = await compact({ sessionId: "chat", pressure: p, messages: chat(30) }, { summarise, policy });
    assert.equal(requests.length, 0);
    assert.match(result.reason, /at or under target 0\.8 already/);
  });

  it("flat text without tool blocks is reduced, and runLegacyCompaction reduces plain text", async () => {
    const text = chatText(20);
    assert.ok(!text.includes("```"));
    const ctx = { sessionId: "text", pressure: pressure(20, 0.9), text };
    const result = await compact(ctx);
    assert.ok(projected(ctx, result) <= 0.5, result.reason);
    assert.ok(result.text.startsWith("[digest of earlier conversation]"));
    assert.equal(restore(result), text);
    const legacy = await runLegacyCompaction("legacy", text);
    assert.equal(legacy.tier, "auto");
    assert.ok(legacy.afterTokens * 2 <= legacy.beforeTokens, legacy.reason);
    assert.equal(restore(legacy), text);
  });
});

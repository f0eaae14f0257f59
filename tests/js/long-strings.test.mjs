// Long strings cross into wasm on their own (binding/src/skeleton.rs, js/api.mjs `readSkeleton`):
// the skeleton's text holds a placeholder where each string of more than 1,024 UTF-16 units
// was, and the binding puts the string in its place before the core reads the messages. The
// core sees the messages as they are; what comes back is the caller's own strings, in the
// output, the archive and `restore`, and the same as the body path, which reads the body's text.
import assert from "node:assert/strict";
import { describe, it } from "node:test";

const { compactWithTier, compactRequestBody, restore } = await import("./unbatched.mjs");
const { pressure } = await import("./helpers.mjs");

/** Text of about `n` UTF-16 units; one-byte unless the piece is not. */
const long = (piece, n) => JSON.parse(JSON.stringify(piece.repeat(Math.ceil(n / piece.length))));
const LOG = long("2025-06-01T12:00:00Z ERROR build failed at src/lib.rs:12\n", 3000);
const CJK = long("构建失败：找不到模块 ", 2500);
const EMOJI = long("ok 🦀 done 👩‍👩‍👧 ", 2400);
const CRLF = long("line one\r\nline two\r\n", 2600);

function openai(outputs) {
  const messages = [
    { role: "system", content: "You are a coding agent." },
    { role: "user", content: "Fix the build." },
  ];
  outputs.forEach((output, index) => {
    const id = `call_${index}`;
    messages.push(
      { role: "assistant", content: `[age:${9 - index}] step ${index}`, tool_calls: [{ id, type: "function", function: { name: "bash", arguments: "{}" } }] },
      { role: "tool", tool_call_id: id, content: output },
      { role: "user", content: `turn ${index}` },
    );
  });
  messages.push({ role: "assistant", content: "Done." });
  return messages;
}

function anthropic(outputs) {
  const messages = [{ role: "user", content: "Fix the build." }];
  outputs.forEach((output, index) => {
    const id = `toolu_${index}`;
    messages.push(
      { role: "assistant", content: [{ type: "text", text: `step ${index}` }, { type: "tool_use", id, name: "bash", input: { cmd: "make" } }] },
      { role: "user", content: [{ type: "tool_result", tool_use_id: id, content: output }, { type: "text", text: `turn ${index}` }] },
    );
  });
  return messages;
}

function aiSdk(outputs) {
  const messages = [
    { role: "system", content: "You are a coding agent." },
    { role: "user", content: [{ type: "text", text: "Fix the build." }] },
  ];
  outputs.forEach((output, index) => {
    const toolCallId = `call_${index}`;
    messages.push(
      { role: "assistant", content: [{ type: "tool-call", toolCallId, toolName: "bash", input: { cmd: "make" } }] },
      { role: "tool", content: [{ type: "tool-result", toolCallId, toolName: "bash", output: { type: "text", value: output } }] },
      { role: "user", content: [{ type: "text", text: `turn ${index}` }] },
    );
  });
  return messages;
}

const OUTPUTS = [LOG, CJK, EMOJI, CRLF, "short output", LOG.slice(0, 900)];
const ctxOf = (format, messages, idle = 0) => ({ sessionId: "long-strings", pressure: pressure(12, 0.5, idle), messages, format });
/**
 * The tail is the newest step only. The conversations have one step per output (openai one more,
 * its "Done."): with the default three steps protected, anthropic and ai-sdk would leave only
 * three of the six outputs outside the tail.
 */
const TAIL_OF_ONE = { policy: { keepRecentSteps: 1 } };

describe("long strings", () => {
  it("micro archives the caller's own strings and keeps untouched messages", async () => {
    for (const [format, build] of [["openai", openai], ["anthropic", anthropic], ["ai-sdk", aiSdk]]) {
      const messages = build(OUTPUTS);
      const result = await compactWithTier("micro", ctxOf(format, messages), TAIL_OF_ONE);
      assert.ok(result.archive.length >= 4, `${format}: the long outputs are collapsed`);
      for (const entry of result.archive) {
        // The AI SDK's entry is the part's `output` ({ type: "text", value }), the others' the string.
        const held = format === "ai-sdk" ? entry.content.value : entry.content;
        assert.ok(OUTPUTS.includes(held), `${format} ${entry.id} holds a caller's string`);
      }
      assert.ok(result.messages.filter((m) => messages.includes(m)).length >= messages.length - OUTPUTS.length);
      assert.deepEqual(restore(result), messages);
    }
  });

  it("a long string left in an edited message is the caller's string again", async () => {
    const note = long("provider metadata ", 3000);
    // Three more steps after LOG's, so LOG's step is outside the protected tail (three steps).
    const messages = aiSdk([LOG, "short output", "short output", "short output"]);
    messages[3].content[0].providerOptions = { host: { note } };
    const result = await compactWithTier("micro", ctxOf("ai-sdk", messages));
    const edited = result.messages[3];
    assert.notEqual(edited, messages[3]);
    assert.equal(edited.content[0].providerOptions.host.note, note);
  });

  it("text that looks like a placeholder is just text", async () => {
    const lookalikes = ["\u0000abc:0", `\u0000abc:1${LOG}`, `head\u0000abc:0:5000:0:tail${LOG}`];
    const messages = openai(lookalikes);
    for (const tier of ["none", "micro"]) {
      const result = await compactWithTier(tier, ctxOf("openai", messages), TAIL_OF_ONE);
      assert.deepEqual(restore(result), messages, tier);
      if (tier === "none") assert.deepEqual(result.messages, messages);
      else for (const entry of result.archive) assert.ok(lookalikes.includes(entry.content), entry.id);
    }
  });

  it("a long string with a lone surrogate: accepted and given back as it was (issue 16)", async () => {
    const messages = openai([`${LOG}\uD800`]);
    for (const tier of ["none", "micro"]) {
      const result = await compactWithTier(tier, ctxOf("openai", messages), TAIL_OF_ONE);
      assert.deepEqual(restore(result), messages);
    }
  });

  it("agrees with the body path, which reads the body's text", async () => {
    const messages = openai(OUTPUTS);
    const body = JSON.stringify({ model: "m", messages });
    for (const tokenEstimator of ["seed", "heuristic"]) {
      const fromBody = await compactRequestBody(body, { sessionId: "long-strings", pressure: pressure(12, 0.5), tokenEstimator });
      const fromObjects = await compactWithTier(fromBody.result.tier, ctxOf("openai", messages), { tokenEstimator });
      assert.deepEqual(JSON.parse(fromBody.body).messages, fromObjects.messages);
      assert.equal(fromBody.result.correlationId, fromObjects.correlationId);
      assert.equal(fromBody.result.afterTokens, fromObjects.afterTokens);
    }
  });

  it("a 10 MB string: none gives the caller's message back, micro stubs it and archives it whole", async () => {
    const huge = long("0123456789abcdef", 10_000_000);
    const messages = openai([huge]);
    const none = await compactWithTier("none", ctxOf("openai", messages), { tokenEstimator: "seed" });
    assert.equal(none.messages[3], messages[3], "none returns the caller's message");
    assert.equal(none.beforeTokens, none.afterTokens);
    const stubbed = await compactWithTier("micro", ctxOf("openai", messages), TAIL_OF_ONE);
    assert.equal(stubbed.archive.length, 1);
    assert.equal(stubbed.archive[0].content, huge);
    assert.match(stubbed.messages[3].content, new RegExp(`\\[tool result body pruned: ${huge.length} chars; recall: ${stubbed.archive[0].id}\\]$`));
  });
});

// Long strings are read elided (src/wasm/skeleton.rs, src/elision.rs): tier none under the
// seed's counting rule (named: messages count by the heuristic by default, which reads every
// string whole) sees a long text's head, tail, length and CRLF flag, never its content.
// micro and time_based read long strings whole (their stubs keep lines from the whole body: the
// lines that matter, the last line, paths), as auto and session_memory do. Either way the results
// must be exactly those of the same call reading everything: a `countTokens` callback that
// implements the seed's rule forces the whole read, so the two runs differ only in how the
// messages crossed into wasm.
import assert from "node:assert/strict";
import { describe, it } from "node:test";

const registry = new Map();
globalThis[Symbol.for("tiered-compaction.testing")] = registry;
const { compact, compactWithTier, compactRequestBody, restore } = await import("./unbatched.mjs");
const { pressure } = await import("./helpers.mjs");

/** The seed's rule, as a host counter: 0 for "", else max(1, floor(code points / 4)). */
const seedRule = (text) => (text.length === 0 ? 0 : Math.max(1, Math.floor([...text].length / 4)));
const whole = { countTokens: seedRule };

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
const FORMATS = { openai, anthropic, "ai-sdk": aiSdk };
const ctxOf = (format, messages, idle = 0) => ({ sessionId: "elision", pressure: pressure(12, 0.5, idle), messages, format });
/**
 * The tail is the newest step only. The conversations have one step per output (openai one more,
 * its "Done."): with the default three steps protected, anthropic and ai-sdk would leave only
 * three of the six outputs outside the tail.
 */
const TAIL_OF_ONE = { tokenEstimator: "seed", policy: { keepRecentSteps: 1 } };
/** The seed's rule, named: what lets tier none read long strings elided. */
const ELIDED = { tokenEstimator: "seed" };

describe("elided reading", () => {
  for (const [format, build] of Object.entries(FORMATS)) {
    for (const tier of ["none", "micro", "time_based"]) {
      it(`${format} ${tier}: the same result as reading everything`, async () => {
        const messages = build(OUTPUTS);
        const elided = await compactWithTier(tier, ctxOf(format, messages), TAIL_OF_ONE);
        const read = await compactWithTier(tier, ctxOf(format, messages), { ...whole, ...TAIL_OF_ONE });
        assert.deepEqual(elided, read);
        if (tier === "micro") assert.ok(elided.archive.length >= 4, "the long outputs are collapsed");
      });
    }
    it(`${format} compact(): the policy's tier on elided input, as on whole input`, async () => {
      const messages = build(OUTPUTS);
      for (const idle of [0, 400]) {
        const elided = await compact(ctxOf(format, messages, idle), ELIDED);
        assert.deepEqual(elided, await compact(ctxOf(format, messages, idle), whole));
        if (idle === 0) assert.ok(elided.tokensSaved > 0, `${elided.tier} saves tokens`);
      }
    });
  }

  it("micro archives the caller's own strings and keeps untouched messages", async () => {
    const messages = openai(OUTPUTS);
    const result = await compactWithTier("micro", ctxOf("openai", messages), ELIDED);
    for (const entry of result.archive) assert.ok(OUTPUTS.includes(entry.content), `${entry.id} holds a caller's string`);
    assert.ok(result.messages.filter((m) => messages.includes(m)).length >= messages.length - OUTPUTS.length);
  });

  it("a long string left in an edited message is the caller's string again", async () => {
    const note = long("provider metadata ", 3000);
    // Three more steps after LOG's, so LOG's step is outside the protected tail (three steps).
    const messages = aiSdk([LOG, "short output", "short output", "short output"]);
    messages[3].content[0].providerOptions = { host: { note } };
    const result = await compactWithTier("micro", ctxOf("ai-sdk", messages), ELIDED);
    const edited = result.messages[3];
    assert.notEqual(edited, messages[3]);
    assert.equal(edited.content[0].providerOptions.host.note, note);
    assert.deepEqual(result, await compactWithTier("micro", ctxOf("ai-sdk", messages), whole));
  });

  it("inputs the facts cannot settle are read whole, with the same result", async () => {
    const padded = " ".repeat(3000) + "[age:1] late tag";
    const cases = [
      // A long id: pairs must match on the whole id.
      (() => {
        const m = openai([LOG]);
        const id = long("id", 2000);
        m[2].tool_calls[0].id = id;
        m[3].tool_call_id = id;
        return m;
      })(),
      // A head of whitespace only: the age tag lies beyond it.
      (() => {
        const m = openai([LOG]);
        m[2].content = padded;
        return m;
      })(),
      // Text that looks like a placeholder is just text.
      openai([`head\u0000abc:0:5000:0:tail${LOG}`]),
    ];
    // none reads elided and must fall back to the whole read here; micro and time_based read
    // whole anyway and, with the tail of one step, collapse LOG.
    for (const messages of cases) {
      for (const tier of ["none", "micro", "time_based"]) {
        const idle = tier === "time_based" ? 400 : 0;
        const result = await compactWithTier(tier, ctxOf("openai", messages, idle), TAIL_OF_ONE);
        assert.deepEqual(result, await compactWithTier(tier, ctxOf("openai", messages, idle), { ...whole, ...TAIL_OF_ONE }));
        if (tier === "micro") assert.equal(result.archive.length, 1, "micro collapses the long output");
      }
    }
  });

  it("a long tool input (a file to write) is read whole, the rest stays elided", async () => {
    for (const [format, build] of [["anthropic", anthropic], ["ai-sdk", aiSdk]]) {
      const messages = build([LOG, CJK]);
      const call = format === "anthropic" ? messages[1].content[1] : messages[2].content[0];
      call.input = { file_path: "NOTES.md", content: long("Line \"of\" the file.\n", 4000) };
      for (const tier of ["none", "micro", "time_based"]) {
        const idle = tier === "time_based" ? 400 : 0;
        const result = await compactWithTier(tier, ctxOf(format, messages, idle), TAIL_OF_ONE);
        assert.deepEqual(result, await compactWithTier(tier, ctxOf(format, messages, idle), { ...whole, ...TAIL_OF_ONE }));
        if (tier === "micro") assert.ok(result.archive.some((entry) => entry.kind === "tool_result"), "micro collapses the long output");
      }
    }
  });

  it("a long string with a lone surrogate: accepted, the same elided or whole, given back as it was (issue 16)", async () => {
    const messages = openai([`${LOG}\uD800`]);
    for (const tier of ["none", "micro"]) {
      const elided = await compactWithTier(tier, ctxOf("openai", messages), ELIDED);
      const read = await compactWithTier(tier, ctxOf("openai", messages), whole);
      assert.deepEqual(elided, read);
      assert.deepEqual(restore(elided), messages);
    }
  });

  it("agrees with the body path, which reads everything", async () => {
    const messages = openai(OUTPUTS);
    const body = JSON.stringify({ model: "m", messages });
    const fromBody = await compactRequestBody(body, { sessionId: "elision", pressure: pressure(12, 0.5), ...ELIDED });
    const fromObjects = await compactWithTier(fromBody.result.tier, ctxOf("openai", messages), ELIDED);
    assert.deepEqual(JSON.parse(fromBody.body).messages, fromObjects.messages);
    assert.equal(fromBody.result.correlationId, fromObjects.correlationId);
    assert.equal(fromBody.result.afterTokens, fromObjects.afterTokens);
  });

  // 10 MB: a string is elided only while the input is certainly within maxInputBytes (32 MiB)
  // at three bytes per UTF-16 unit; closer to the limit it is read whole, to be measured. Tier
  // none is the one that reads elided; micro, which reads whole, comes last (wasm memory only grows).
  it("tier none does not copy a long string into wasm memory (and reading it whole does)", async () => {
    const huge = long("0123456789abcdef", 10_000_000);
    const messages = openai([huge]);
    const diagnostics = () => [...registry.values()][0].diagnostics();
    const first = await compactWithTier("none", ctxOf("openai", messages), ELIDED);
    const elidedMemory = diagnostics().memoryBytes;
    assert.ok(elidedMemory < 10_000_000, `wasm memory ${elidedMemory} bytes after an elided 10 MB string`);
    assert.equal(first.messages[3], messages[3], "none returns the caller's message");
    const second = await compactWithTier("none", ctxOf("openai", messages), whole);
    assert.ok(diagnostics().memoryBytes >= 10_000_000, "the whole read copies it");
    assert.deepEqual(first, second);
    // micro reads the 10 MB string whole: it is collapsed to a stub naming its archive entry,
    // the same with or without a host counter.
    const stubbed = await compactWithTier("micro", ctxOf("openai", messages), TAIL_OF_ONE);
    assert.equal(stubbed.archive.length, 1);
    assert.equal(stubbed.archive[0].content, huge);
    assert.match(stubbed.messages[3].content, new RegExp(`\\[tool result body pruned: ${huge.length} chars; recall: ${stubbed.archive[0].id}\\]$`));
    assert.deepEqual(stubbed, await compactWithTier("micro", ctxOf("openai", messages), { ...whole, ...TAIL_OF_ONE }));
  });
});

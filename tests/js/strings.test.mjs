// Any JS string (issue 16, SPEC §4 invariant 7): strings made of random UTF-16 code units —
// lone surrogates, pairs, CR, LF, CR LF, NUL, private-use characters, quotes and backslashes —
// in messages (OpenAI, Anthropic, AI SDK), flat text and request bodies (lone surrogates raw in
// the JS string and as `\ud800` escapes), through every tier. Each call is accepted; what comes
// back untouched is the caller's own string, `restore` gives the input back exactly, a body's
// unchanged messages keep their bytes, and no cut the library makes (stub heads, last lines)
// splits a surrogate pair or a CR from its LF. A seeded PRNG: the same cases every run.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import * as api from "./unbatched.mjs";
import { TIERS } from "./helpers.mjs";

const CASES = Number(process.env.STRINGS_CASES ?? 40);

/** mulberry32: a small seeded PRNG. */
function prng(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Code units that make strings hard, weighted towards surrogates and line ends. */
const UNITS = [0xd800, 0xdbff, 0xdc00, 0xdfff, 0xd83d, 0xde00, 0x0d, 0x0a, 0x0d, 0x0a, 0x00, 0x22, 0x5c, 0xe000, 0xe800, 0xf000, 0xfffd, 0x20ac, 0x301];

/**
 * The same without private-use characters of two of the three BMP windows: a request body needs
 * a free one to carry its lone surrogates at their offsets (with all three in use, they cross as
 * U+FFFD: see "a body that uses every window" below).
 */
const BODY_UNITS = UNITS.filter((unit) => unit !== 0xe800 && unit !== 0xf000);

let units = UNITS;

/** A random string: runs of ASCII words between random hard code units. */
function randomString(random, length) {
  let out = "";
  while (out.length < length) {
    const pick = random();
    if (pick < 0.35) out += String.fromCharCode(units[Math.floor(random() * units.length)]);
    else if (pick < 0.45) out += "😀";
    else if (pick < 0.5) out += "\r\n";
    else out += "word ".slice(0, 1 + Math.floor(random() * 5));
  }
  return out;
}

/** A long tool output (micro stubs it): its cut points fall on hard units. */
const longOutput = (random) => `${randomString(random, 70)}${randomString(random, 30)}\n${"ok line\n".repeat(40)}error: ${randomString(random, 20)}\n${randomString(random, 40)}`;

function openai(random) {
  return [
    { role: "system", content: randomString(random, 20) },
    { role: "user", content: randomString(random, 30) },
    { role: "assistant", content: randomString(random, 10), tool_calls: [{ id: "c1", type: "function", function: { name: "bash", arguments: JSON.stringify({ cmd: randomString(random, 12) }) } }] },
    { role: "tool", tool_call_id: "c1", content: longOutput(random) },
    { role: "user", content: [{ type: "text", text: randomString(random, 25) }] },
    { role: "assistant", content: null, tool_calls: [{ id: "c2", type: "function", function: { name: "read", arguments: "{}" } }] },
    { role: "tool", tool_call_id: "c2", content: longOutput(random) + randomString(random, 1500) },
    { role: "assistant", content: randomString(random, 15) },
    { role: "assistant", content: "b" },
    { role: "assistant", content: "c" },
    { role: "user", content: randomString(random, 10) },
  ];
}

function anthropic(random) {
  return [
    { role: "user", content: randomString(random, 30) },
    { role: "assistant", content: [{ type: "text", text: randomString(random, 10) }, { type: "tool_use", id: "t1", name: "bash", input: { cmd: randomString(random, 12) } }] },
    { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: longOutput(random) }] },
    { role: "assistant", content: [{ type: "thinking", thinking: randomString(random, 300), signature: "s" }, { type: "tool_use", id: "t2", name: "read", input: {} }] },
    { role: "user", content: [{ type: "tool_result", tool_use_id: "t2", content: [{ type: "text", text: longOutput(random) + randomString(random, 1500) }] }, { type: "text", text: randomString(random, 20) }] },
    { role: "assistant", content: "a" },
    { role: "user", content: "u" },
    { role: "assistant", content: "b" },
    { role: "user", content: "v" },
    { role: "assistant", content: "c" },
    { role: "user", content: randomString(random, 10) },
  ];
}

function aiSdk(random) {
  return [
    { role: "system", content: randomString(random, 20) },
    { role: "user", content: randomString(random, 30) },
    { role: "assistant", content: [{ type: "reasoning", text: randomString(random, 200) }, { type: "tool-call", toolCallId: "c1", toolName: "bash", input: { cmd: randomString(random, 12) } }] },
    { role: "tool", content: [{ type: "tool-result", toolCallId: "c1", toolName: "bash", output: { type: "text", value: longOutput(random) } }] },
    { role: "assistant", content: [{ type: "tool-call", toolCallId: "c2", toolName: "read", input: { path: randomString(random, 8) } }] },
    { role: "tool", content: [{ type: "tool-result", toolCallId: "c2", toolName: "read", output: { type: "text", value: longOutput(random) + randomString(random, 1500) } }] },
    { role: "assistant", content: "a" },
    { role: "assistant", content: "b" },
    { role: "assistant", content: "c" },
    { role: "user", content: randomString(random, 10) },
  ];
}

function flatText(random) {
  return `${randomString(random, 40)}\n\`\`\`tool_result name=bash\n${longOutput(random)}\n\`\`\`\n[age:9] ${randomString(random, 200)}\n\n[age:1] ${randomString(random, 30)}\n\`\`\`tool_result name=read\n${longOutput(random)}${randomString(random, 1200)}\n\`\`\`\n`;
}

const pressureFor = (tier) => ({
  turnCount: 20,
  contextPctUsed: { none: 0, micro: 0.3, time_based: 0.3 }[tier] ?? 0.9,
  idleSeconds: tier === "time_based" ? 400 : 0,
  sessionComplete: tier === "session_memory",
});

const HIGH = (unit) => unit >= 0xd800 && unit <= 0xdbff;
const LOW = (unit) => unit >= 0xdc00 && unit <= 0xdfff;

/**
 * A cut of `whole` that `written` starts with splits nothing: where the common prefix of the
 * two ends, it does not end between a high and a low surrogate or between CR and LF.
 */
function assertCutsWhole(whole, written, where) {
  if (typeof whole !== "string" || typeof written !== "string" || written === whole) return;
  let at = 0;
  while (at < whole.length && at < written.length && whole.charCodeAt(at) === written.charCodeAt(at)) at += 1;
  if (at === 0 || at >= whole.length) return;
  const [before, next] = [whole.charCodeAt(at - 1), whole.charCodeAt(at)];
  assert.ok(!(HIGH(before) && LOW(next)), `${where}: a cut splits a surrogate pair at ${at}`);
  assert.ok(!(before === 0x0d && next === 0x0a), `${where}: a cut splits CR from LF at ${at}`);
}

/** Strings equal by code units, everywhere (assert.deepEqual compares strings that way too). */
function assertSame(actual, expected, where) {
  assert.deepStrictEqual(actual, expected, where);
}

describe("any JS string, in every path and tier", () => {
  for (const [format, make] of [["openai", openai], ["anthropic", anthropic], ["ai-sdk", aiSdk]]) {
    it(`${format} messages`, async () => {
      units = UNITS;
      for (let seed = 1; seed <= CASES; seed += 1) {
        const messages = make(prng(seed));
        for (const tier of TIERS) {
          const where = `${format}, seed ${seed}, ${tier}`;
          const result = await api.compactWithTier(tier, { sessionId: "strings", pressure: pressureFor(tier), messages, format });
          assertSame(api.restore(result), messages, `${where}: restore`);
          result.messages.forEach((message, at) => {
            if (typeof message.content === "string" && message !== messages[at] && messages[at]) assertCutsWhole(messages[at].content, message.content, where);
          });
          for (const entry of result.archive) assertCutsWhole(entry.content, entry.replacement, `${where}: ${entry.location}`);
          assert.ok(result.afterTokens <= result.beforeTokens, where);
        }
      }
    });
  }

  it("flat text", async () => {
    units = UNITS;
    for (let seed = 1; seed <= CASES; seed += 1) {
      const text = flatText(prng(1000 + seed));
      for (const tier of TIERS) {
        const where = `text, seed ${seed}, ${tier}`;
        const result = await api.compactWithTier(tier, { sessionId: "strings", pressure: pressureFor(tier), text });
        assert.equal(api.restore(result), text, `${where}: restore`);
        for (const entry of result.archive) assertCutsWhole(entry.content, entry.replacement, `${where}: ${entry.location}`);
      }
      const legacy = await api.runLegacyCompaction("strings", text);
      assert.equal(api.restore(legacy), text, `legacy, seed ${seed}`);
    }
  });

  it("request bodies: lone surrogates escaped (JSON.stringify) and raw in the string", async () => {
    units = BODY_UNITS;
    for (let seed = 1; seed <= CASES; seed += 1) {
      const messages = openai(prng(2000 + seed));
      const escaped = JSON.stringify({ model: "m", stream: false, messages });
      // The same messages written raw: JSON.stringify escapes lone surrogates, so they are put back.
      const raw = escaped.replace(/(?<!\\)((?:\\\\)*)\\u(d[89a-f][0-9a-f]{2})/g, (_, pairs, hex) => pairs + String.fromCharCode(parseInt(hex, 16)));
      for (const [kind, body] of [["escaped", escaped], ["raw", raw]]) {
        for (const tier of ["none", "micro", "time_based", "auto"]) {
          const where = `body ${kind}, seed ${seed}, ${tier}`;
          const { body: out, result } = await api.compactRequestBody(body, { sessionId: "strings", pressure: pressureFor(tier) }).catch((error) => {
            throw new Error(`${where}: ${error.message} in ${JSON.stringify(body.slice(300, 340))}`);
          });
          if (result.tier === "none") assert.equal(out, body, `${where}: unchanged body`);
          assertSame(JSON.parse(out).model, "m", where);
          const back = api.restore({ body: out, archive: result.archive });
          assertSame(JSON.parse(back), JSON.parse(body), `${where}: restore`);
          // Messages the tier left alone keep their bytes.
          const [inMessages, outMessages] = [JSON.parse(body).messages, JSON.parse(out).messages];
          outMessages.forEach((message, at) => {
            if (JSON.stringify(message) === JSON.stringify(inMessages[at])) assert.ok(out.includes(JSON.stringify(message).slice(1, -1)) || kind === "raw", where);
          });
        }
      }
    }
  });

  it("objects and bodies agree: the same messages, the same result", async () => {
    units = BODY_UNITS;
    for (let seed = 1; seed <= Math.min(CASES, 10); seed += 1) {
      const messages = openai(prng(3000 + seed));
      const body = JSON.stringify({ messages });
      const fromBody = await api.compactRequestBody(body, { sessionId: "strings", pressure: pressureFor("micro") });
      const fromObjects = await api.compactWithTier(fromBody.result.tier, { sessionId: "strings", pressure: pressureFor("micro"), messages });
      assertSame(JSON.parse(fromBody.body).messages, fromObjects.messages, `seed ${seed}`);
      assert.equal(fromBody.result.afterTokens, fromObjects.afterTokens, `seed ${seed}`);
    }
  });

  it("a body that uses every BMP private-use window: accepted, its lone surrogates read as U+FFFD, unchanged bytes kept", async () => {
    const messages = [
      { role: "user", content: "task \ue000\ue800\uf000" },
      { role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "bash", arguments: "{}" } }] },
      { role: "tool", tool_call_id: "c1", content: `\udc00${"q".repeat(600)}\ud800` },
      { role: "assistant", content: "a" },
      { role: "assistant", content: "b" },
      { role: "assistant", content: "c" },
      { role: "user", content: "ok \ud800" },
    ];
    const body = JSON.stringify({ messages });
    const { body: out, result } = await api.compactRequestBody(body, { sessionId: "strings", pressure: pressureFor("micro") });
    assert.equal(result.tier, "micro");
    assert.ok(out.includes(JSON.stringify(messages[6]).slice(1, -1)), "the last message keeps its bytes");
    assert.deepEqual(result.archive.map((entry) => entry.content), [messages[2].content]);
  });

  it("estimateTokens counts a lone surrogate as one code point", () => {
    assert.equal(api.estimateTokens("abc\ud800"), 1);
    assert.equal(api.estimateTokens("\ud800".repeat(8)), 2);
  });
});

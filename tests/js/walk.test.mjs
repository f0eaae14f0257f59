// Messages are read as a skeleton (one JSON.stringify with a replacer, binding/src/skeleton.rs), long
// strings copied in afterwards. A message must read exactly as
// JSON.parse(JSON.stringify(message)): checked on the field an edited message carries over, and
// on what the archive and the token counts say.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { compactWithTier } from "./unbatched.mjs";
import { pressure } from "./helpers.mjs";

const BODY = "log line\n".repeat(200);

/**
 * A conversation whose tool result micro collapses; `extra` rides on that tool message. Two
 * steps (the call and its result, then the answer): with `keepRecentSteps: 1` (ctx) the tail is
 * the answer and the newest user words, so the tool result is outside it.
 */
function conversation(extra) {
  return [
    { role: "system", content: "You are a coding agent." },
    { role: "user", content: "Fix the build." },
    { role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "bash", arguments: "{}" } }] },
    { role: "tool", tool_call_id: "c1", content: BODY, extra },
    { role: "assistant", content: "The log repeats one line." },
    { role: "user", content: "next" },
  ];
}

const ctx = (messages) => ({ sessionId: "walk", pressure: pressure(3, 0.5), messages, format: "openai" });
/** The tail is the newest step only, so micro collapses the one tool result. */
const TAIL_OF_ONE = { policy: { keepRecentSteps: 1 } };
/** micro's stub of BODY: its head, its last line, the marker naming the archive id. */
const STUB_END = /\[tool result body pruned: 1800 chars; recall: a[0-9a-f]{12}\]$/;

class Point {
  constructor() {
    this.x = 1;
  }
}

const VALUES = {
  integer: 42,
  "negative zero": -0,
  fraction: 1.5,
  "2^60": 2 ** 60,
  "-2^63": -(2 ** 63),
  "-1e20": -1e20,
  "1e21": 1e21,
  "5e-324": 5e-324,
  NaN: NaN,
  Infinity: -Infinity,
  null: null,
  boolean: false,
  "non-ASCII string": "café 😀 日本",
  "a long string": "ü".repeat(500),
  "a real U+FFFD": "a\uFFFDb",
  "undefined, functions and symbols": { a: undefined, b: () => 1, c: Symbol("s"), d: [undefined, () => 1, Symbol("t")] },
  holes: [1, , 3], // eslint-disable-line no-sparse-arrays
  "nested plain data": { list: [{ k: "v" }, [[]], {}], "key with \u00e9": true },
  "null prototype": Object.assign(Object.create(null), { a: 1 }),
  "toJSON (Date)": new Date(0),
  "toJSON (own)": { toJSON: () => ({ replaced: true }) },
  "boxed primitives": [new Number(3), new String("s"), new Boolean(false)],
  "class instance": new Point(),
  Map: new Map([[1, 2]]),
  getter: Object.defineProperty({}, "g", { enumerable: true, get: () => "got" }),
  "non-enumerable": Object.defineProperty({ v: 1 }, "hidden", { value: 2, enumerable: false }),
  "array with a toJSON": Object.assign([1, 2], { toJSON: () => "array" }),
};

describe("messages read from JS objects", () => {
  for (const [name, extra] of Object.entries(VALUES)) {
    it(`${name}: reads as JSON.stringify would`, async () => {
      const result = await compactWithTier("micro", ctx(conversation(extra)), TAIL_OF_ONE);
      const edited = result.messages[3];
      assert.notEqual(edited, conversation(extra)[3], "the tool message was edited");
      assert.match(edited.content, STUB_END);
      assert.equal(result.archive[0].id, /recall: (a[0-9a-f]{12})/.exec(edited.content)[1]);
      const expected = JSON.parse(JSON.stringify({ extra })).extra;
      assert.deepEqual(edited.extra, expected);
      assert.equal("extra" in edited, expected !== undefined);
    });
  }

  it("binary data and URLs are not read as JSON: the caller's own objects come back (issue 16)", async () => {
    for (const extra of [new Uint8Array([1, 2]), new Uint8Array([1, 2]).buffer, new Float32Array([0.5]), new URL("https://example.test/x")]) {
      const result = await compactWithTier("micro", ctx(conversation(extra)), TAIL_OF_ONE);
      assert.equal(result.messages[3].extra, extra);
      assert.equal(result.archive.length, 1, "the tool result is collapsed");
    }
  });

  it("a lone surrogate is accepted and given back as it was (issue 16)", async () => {
    for (const text of ["a\uD800b", "\uDC00", "x".repeat(100) + "\uD83D"]) {
      const result = await compactWithTier("micro", ctx(conversation(text)), TAIL_OF_ONE);
      assert.equal(result.messages[3].extra, text);
    }
  });

  it("a BigInt, a throwing getter and a revoked proxy are errors naming the message", async () => {
    const throwing = Object.defineProperty({}, "g", {
      enumerable: true,
      get() {
        throw new Error("nope");
      },
    });
    const { proxy, revoke } = Proxy.revocable({}, {});
    revoke();
    for (const extra of [10n, throwing, proxy]) {
      await assert.rejects(compactWithTier("micro", ctx(conversation(extra)), TAIL_OF_ONE), (error) => {
        assert.ok(error instanceof TypeError, `${error.name}: ${error.message}`);
        assert.match(error.message, /^messages\[3\] is not JSON-compatible: /);
        return true;
      });
    }
  });

  it("the same counts, ids and archive whichever way a message is read", async () => {
    const plain = await compactWithTier("micro", ctx(conversation({ n: 1 })), TAIL_OF_ONE);
    assert.equal(plain.archive.length, 1, "the tool result is collapsed");
    // A toJSON on the tool message sends the whole array the JSON.stringify way.
    const messages = conversation({ n: 1 });
    messages[3] = { ...messages[3], toJSON() {
      const { toJSON, ...rest } = this; // eslint-disable-line no-unused-vars
      return rest;
    } };
    const stringified = await compactWithTier("micro", ctx(messages), TAIL_OF_ONE);
    for (const key of ["beforeTokens", "afterTokens", "correlationId", "reason"]) {
      assert.deepEqual(stringified[key], plain[key], key);
    }
    assert.deepEqual(stringified.archive, plain.archive);
    assert.deepEqual(JSON.parse(JSON.stringify(stringified.messages)), JSON.parse(JSON.stringify(plain.messages)));
  });

  it("messages are read once, with or without long strings", async () => {
    // Read through a getter, which counts. An archived part is fetched from the caller's message
    // again when the result is built (the archive holds the caller's own value), so the count is
    // taken where nothing of the message is archived: short texts, which no tier here collapses,
    // and tier none on a long one.
    const cases = [
      ...["none", "micro", "time_based", "auto"].map((tier) => [tier, "short result"]),
      ["none", BODY],
    ];
    for (const [tier, body] of cases) {
      let reads = 0;
      const messages = conversation(undefined);
      messages[3] = { role: "tool", tool_call_id: "c1", get content() { reads += 1; return body; } };
      await compactWithTier(tier, ctx(messages), { summarise: async () => "summary", ...TAIL_OF_ONE });
      assert.equal(reads, 1, `${tier}, ${body.length} chars`);
    }
  });
});

// compactRequestBody: the edge-proxy path keeps every byte outside the edited messages.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { compactRequestBody } from "./unbatched.mjs";
import { anthropicMessages, openaiMessages } from "../../scripts/samples.mjs";
import { pressure } from "./helpers.mjs";

/**
 * A body whose non-message fields use spellings a re-serialiser would change: odd whitespace,
 * escapes, number forms, key order, duplicate-looking keys inside strings.
 */
function oddBody(format, messages) {
  const prefix =
    format === "anthropic"
      ? '{\n  "model" :"claude-sonnet-4-5",\t"max_tokens": 1.0e3,\n  "system": [{"type":"text","text":"caf\\u00e9 \\"quoted\\" \\/ slash","cache_control":{"type":"ephemeral"}}],\n  "metadata": {"user_id":"u-1","note":"\\"messages\\": []"},\n  "messages": '
      : '{ "model":"gpt-4.1",  "temperature" : 0.70, "tools":[{"type":"function","function":{"name":"bash","parameters":{"type":"object"}}}],\n"user":"caf\\u00e9", "messages":';
  const suffix = format === "anthropic" ? ',\n  "stream": true ,"x-unknown": {"nested": [1, 2.50, -0]}\n}\n' : ' ,"seed": 1E+0, "n":1 }';
  // Each message serialised with its own odd spacing, so untouched ones are recognisable.
  const raw = messages.map((message) => JSON.stringify(message, null, 1));
  return { body: `${prefix}[ ${raw.join(" ,\n  ")} ]${suffix}`, prefix, suffix, raw };
}

for (const [format, messages, tierPressure] of [
  ["anthropic", anthropicMessages(), pressure(2, 0.1)],
  ["anthropic", anthropicMessages(), pressure(9, 0.9)],
  ["openai", openaiMessages(), pressure(2, 0.1)],
  ["openai", openaiMessages(), pressure(9, 0.9)],
]) {
  describe(`compactRequestBody, ${format}, pressure ${tierPressure.contextPctUsed}`, () => {
    it("keeps the bytes before and after messages identical", async () => {
      const { body, prefix, suffix } = oddBody(format, messages);
      const out = await compactRequestBody(body, { sessionId: "edge", pressure: tierPressure });
      assert.notEqual(out.body, body, "something was compacted");
      assert.ok(out.body.startsWith(prefix), "bytes before messages unchanged");
      assert.ok(out.body.endsWith(suffix), "bytes after messages unchanged");
      assert.ok(out.result.afterTokens < out.result.beforeTokens);
    });

    it("copies untouched messages byte for byte", async () => {
      const { body, raw } = oddBody(format, messages);
      const out = await compactRequestBody(body, { sessionId: "edge", pressure: tierPressure });
      const edited = new Set(
        out.result.archive.flatMap((entry) => {
          const range = /^messages\[(\d+)\.\.(\d+)\]/.exec(entry.location);
          if (range) return Array.from({ length: range[2] - range[1] }, (_, k) => Number(range[1]) + k);
          return [Number(/^messages\[(\d+)\]/.exec(entry.location)[1])];
        }),
      );
      assert.ok(edited.size > 0);
      for (const [index, text] of raw.entries()) {
        if (!edited.has(index)) assert.ok(out.body.includes(text), `message ${index} is byte-identical`);
      }
    });
  });
}

describe("compactRequestBody, bad bodies", () => {
  it("rejects malformed JSON with a SyntaxError naming body", async () => {
    await assert.rejects(compactRequestBody("{", { sessionId: "s", pressure: pressure(1, 0) }), (error) => {
      assert.ok(error instanceof SyntaxError);
      assert.equal(error.code, "ERR_TC_PARSE");
      assert.match(error.message, /^body is not valid JSON/);
      return true;
    });
  });

  it("rejects a body without messages", async () => {
    await assert.rejects(compactRequestBody('{"model":"x"}', { sessionId: "s", pressure: pressure(1, 0) }), {
      name: "TypeError",
      message: "body.messages is required (or body.input for the OpenAI Responses API, body.contents for Gemini)",
    });
  });

  it("rejects a non-string body and missing options", async () => {
    await assert.rejects(compactRequestBody({}, { sessionId: "s", pressure: pressure(1, 0) }), {
      name: "TypeError",
      message: "body must be a string, got object",
    });
    await assert.rejects(compactRequestBody("{}", { pressure: pressure(1, 0) }), {
      name: "TypeError",
      message: "options.sessionId is required",
    });
    await assert.rejects(compactRequestBody("{}", { sessionId: "s", pressure: pressure(1, NaN) }), {
      name: "RangeError",
      message: "options.pressure.contextPctUsed must be a finite number in [0, 1], got NaN",
    });
  });
});

// The archive's long strings are read from the body: parsed in wasm from its UTF-8 copy, or,
// where the body has lone surrogates the copy cannot hold, from the messages the host parses
// (`JSON.parse`, binding/src/body.rs). Each must be exactly `JSON.parse`'s string.
describe("compactRequestBody, archived strings are JSON.parse's", () => {
  /** Raw JSON string text (between the quotes), repeated past the 1,024-character threshold. */
  const CASES = {
    "no escapes": "plain tool output, nothing escaped 0123456789 ",
    "short escapes": String.raw`line \n with \"quotes\" \\ back \/ slash \t tab \r\b\f end `,
    "unicode escapes": String.raw`caf\u00e9 costs 5\u20ac \ud83d\ude00 \u00E9\u20AC \u0000\u001f\u2028 `,
    "raw non-ASCII": "café 😀 构建失败：找不到模块 ",
    "raw non-ASCII and escapes": String.raw`café 😀 构建失败\n\"找不到\" \u00e9 `,
    "a leading BOM escape": String.raw`\ufeff first, then \n lines `,
    "a leading raw BOM": "\uFEFF first, then \\n lines ",
    "a raw U+FFFD and escapes": "bad byte \uFFFD here \\n and \\\"there\\\" ",
    "a raw lone surrogate and escapes": "half \uD83D pair \\n here ",
    "a raw lone surrogate": "half \uDE00 pair, nothing escaped ",
  };

  /**
   * A body holding each `token` (raw JSON string text) as a tool result, with turns after: five
   * steps, so the oldest two (openai: three, its "Done." is a step) are outside the protected
   * tail of the default three steps and micro archives them.
   */
  const BODIES = {
    openai: (token) => {
      const messages = ['{"role":"system","content":"You are a coding agent."}', '{"role":"user","content":"Fix it."}'];
      for (let i = 0; i < 5; i++) {
        messages.push(
          `{"role":"assistant","content":"step ${i}","tool_calls":[{"id":"c${i}","type":"function","function":{"name":"bash","arguments":"{}"}}]}`,
          `{"role":"tool","tool_call_id":"c${i}","content":"${token}"}`,
          `{"role":"user","content":"turn ${i}"}`,
        );
      }
      messages.push('{"role":"assistant","content":"Done."}');
      return `{"model":"m","messages":[${messages.join(",")}]}`;
    },
    anthropic: (token) => {
      const messages = ['{"role":"user","content":"Fix it."}'];
      for (let i = 0; i < 5; i++) {
        messages.push(
          `{"role":"assistant","content":[{"type":"text","text":"step ${i}"},{"type":"tool_use","id":"t${i}","name":"bash","input":{"cmd":"make"}}]}`,
          `{"role":"user","content":[{"type":"tool_result","tool_use_id":"t${i}","content":"${token}"},{"type":"text","text":"turn ${i}"}]}`,
        );
      }
      return `{"model":"m","max_tokens":10,"messages":[${messages.join(",")}]}`;
    },
    "ai-sdk": (token) => {
      const messages = ['{"role":"system","content":"You are a coding agent."}', '{"role":"user","content":"Fix it."}'];
      for (let i = 0; i < 5; i++) {
        messages.push(
          `{"role":"assistant","content":[{"type":"tool-call","toolCallId":"c${i}","toolName":"bash","input":{"cmd":"make"}}]}`,
          `{"role":"tool","content":[{"type":"tool-result","toolCallId":"c${i}","toolName":"bash","output":{"type":"text","value":"${token}"}}]}`,
          `{"role":"user","content":"turn ${i}"}`,
        );
      }
      return `{"model":"m","messages":[${messages.join(",")}]}`;
    },
  };

  /** The value at an archive entry's `location` (`messages[3].content[0].content`) in `root`. */
  const at = (root, location) =>
    [...location.matchAll(/([A-Za-z_]\w*)|\[(\d+)\]/g)].reduce((value, [, key, index]) => value?.[key ?? Number(index)], root);

  const micro = { turnCount: 5, contextPctUsed: 0.5, idleSeconds: 0, sessionComplete: false };

  for (const [format, build] of Object.entries(BODIES)) {
    for (const [name, piece] of Object.entries(CASES)) {
      it(`${format}: ${name}`, async () => {
        const body = build(piece.repeat(Math.ceil(1100 / JSON.parse(`"${piece}"`).length)));
        const parsed = JSON.parse(body);
        const out = await compactRequestBody(body, { sessionId: "archive", pressure: micro });
        assert.equal(out.result.tier, "micro");
        assert.ok(out.result.archive.length >= 2, `${out.result.archive.length} entries`);
        for (const entry of out.result.archive) {
          // An AI SDK entry holds the whole `output` part ({ type, value }): the caller's own
          // object on the objects path, made from the body here.
          const content = format === "ai-sdk" ? entry.content.value : entry.content;
          const expected = at(parsed, format === "ai-sdk" ? `${entry.location}.value` : entry.location);
          assert.equal(typeof expected, "string", entry.location);
          assert.ok(expected.length > 1024);
          assert.ok(content === expected, `${entry.location} is JSON.parse's string`);
        }
      });
    }
  }
});

describe("compactRequestBody, read whole", () => {
  // The heuristic estimator reads every text, so the body is read whole: from the copy made for
  // its layout up to 1 MiB, from slices of the caller's string above. Both must agree with the
  // objects path.
  it("agrees with compactWithTier below and above 1 MiB", async () => {
    const { compactWithTier } = await import("tiered-compaction");
    for (const pad of [10, 1_200_000]) {
      const messages = openaiMessages();
      messages.splice(1, 0, { role: "user", content: `caf\u00e9 ${"padding ".repeat(pad / 8)}` });
      const body = JSON.stringify({ model: "m", messages });
      const options = { tokenEstimator: "heuristic" };
      const fromBody = await compactRequestBody(body, { sessionId: "whole", pressure: pressure(9, 0.9), ...options });
      const fromObjects = await compactWithTier(fromBody.result.tier, { sessionId: "whole", pressure: pressure(9, 0.9), messages, format: "openai" }, options);
      assert.ok(body.length > pad, "the padding is in the body");
      assert.deepEqual(JSON.parse(fromBody.body).messages, fromObjects.messages, `pad ${pad}`);
      assert.equal(fromBody.result.correlationId, fromObjects.correlationId);
      assert.equal(fromBody.result.afterTokens, fromObjects.afterTokens);
      assert.deepEqual(fromBody.result.archive.map((e) => e.content), fromObjects.archive.map((e) => e.content));
    }
  });
});

// compactRequestBody: the edge-proxy path keeps every byte outside the edited messages.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { compactRequestBody } from "tiered-compaction";
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
      message: "body.messages is required",
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

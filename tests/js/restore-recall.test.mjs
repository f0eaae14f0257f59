// restore, recall and recallToolDefinition (docs/design.md, "Archive, restore, recall"): `restore(result)` is
// the input again for every tier and format (a request body: the bytes outside the message list
// unchanged, the messages JSON-equal), a chain of results restores step by step, every stub's
// recall id names an archive entry that `recall` finds, and the recall tool has each format's
// own shape.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { compactRequestBody, compactWithTier, recall, recallToolDefinition, restore } from "./unbatched.mjs";
import { anthropicMessages, openaiMessages, samples } from "../../scripts/samples.mjs";
import { SEED_MICRO_TEXT, TIERS, agentRun, pressure, resultIndex, toolBody } from "./helpers.mjs";
import { ARCHIVE_ID, assertArchiveShape, recallIds } from "./lossless.mjs";

/** The pressure each tier is forced under: auto far over its target, session_memory complete. */
const PRESSURE = {
  none: pressure(1, 0.3),
  micro: pressure(9, 0.3),
  time_based: pressure(9, 0.3, 900),
  auto: pressure(9, 0.9),
  session_memory: pressure(9, 0.9, 0, true),
};

/** Every shape of context: the shipped samples and single-prompt agent runs (with thinking). */
const CONTEXTS = [
  ...samples().map(({ name, ...input }) => [name, input]),
  ...["openai", "anthropic", "ai-sdk"].map((format) => [`${format} agent run`, { messages: agentRun(format, 10, { thinking: format !== "openai" }), format }]),
];

const inputOf = (ctx) => ctx.text ?? ctx.messages;

describe("restore: every tier on every format gives the input back", () => {
  for (const [name, input] of CONTEXTS) {
    for (const tier of TIERS) {
      it(`${tier} on ${name}`, async () => {
        const ctx = { sessionId: "restore", pressure: PRESSURE[tier], ...input };
        const result = await compactWithTier(tier, ctx);
        if (tier === "none") assert.deepEqual(result.archive, []);
        else assert.ok(result.archive.length > 0 && result.tokensSaved > 0, `${tier} compacts ${name}: ${result.reason}`);
        assertArchiveShape(result);
        const restored = restore(result);
        assert.deepEqual(restored, inputOf(ctx));
        // The host may keep only the context and the archive, and keep them as JSON.
        const stored = JSON.parse(JSON.stringify(result.text !== undefined ? { text: result.text, archive: result.archive } : { messages: result.messages, archive: result.archive }));
        assert.deepEqual(restore(stored), inputOf(ctx), "from the stored JSON");
        // restore reads the result; it does not change it.
        assert.deepEqual(result, await compactWithTier(tier, ctx));
      });
    }
  }
});

/**
 * A request body whose spelling a re-serialiser would change (whitespace, escapes, number forms)
 * before and after the message list, with each message spaced out as well.
 */
function oddBody(format, messages) {
  const prefix =
    format === "anthropic"
      ? '{\n  "model" :"claude-sonnet-4-5",\t"max_tokens": 1.0e3,\n  "system": [{"type":"text","text":"caf\\u00e9 \\/ slash","cache_control":{"type":"ephemeral"}}],\n  "messages": '
      : '{ "model":"gpt-4.1",  "temperature" : 0.70, "tools":[{"type":"function","function":{"name":"bash","parameters":{"type":"object"}}}],\n"messages":';
  const suffix = format === "anthropic" ? ',\n  "stream": true ,"x-unknown": {"nested": [1, 2.50, -0]}\n}\n' : ' ,"seed": 1E+0, "n":1 }';
  return { body: `${prefix}[ ${messages.map((message) => JSON.stringify(message, null, 1)).join(" ,\n  ")} ]${suffix}`, prefix, suffix };
}

describe("restore: a request body from compactRequestBody", () => {
  const bodies = [
    ["anthropic", anthropicMessages()],
    ["openai", openaiMessages()],
    ["anthropic agent run", agentRun("anthropic", 10, { thinking: true })],
    ["openai agent run", agentRun("openai", 10)],
  ];
  for (const [name, messages] of bodies) {
    for (const tier of TIERS) {
      it(`${tier} on ${name}: the bytes outside the list unchanged, the messages JSON-equal (byte for byte when compact)`, async () => {
        const { body, prefix, suffix } = oddBody(name.split(" ")[0], messages);
        const { body: out, result } = await compactRequestBody(body, { sessionId: "edge", pressure: PRESSURE[tier] });
        assert.equal(result.tier, tier);
        if (tier === "none") assert.equal(out, body);
        else assert.ok(out.length < body.length && result.archive.length > 0, result.reason);
        const restored = restore({ body: out, archive: result.archive });
        assert.equal(typeof restored, "string");
        assert.ok(restored.startsWith(prefix), "bytes before the list unchanged");
        assert.ok(restored.endsWith(suffix), "bytes after the list unchanged");
        assert.deepEqual(JSON.parse(restored), JSON.parse(body));
        assert.deepEqual(JSON.parse(restored).messages, messages);
        // As JSON.stringify writes it (what SDKs and fetch send), the body comes back byte for byte.
        const compactBody = JSON.stringify({ ...JSON.parse(body), messages });
        const compacted = await compactRequestBody(compactBody, { sessionId: "edge", pressure: PRESSURE[tier] });
        assert.equal(restore({ body: compacted.body, archive: compacted.result.archive }), compactBody, "byte for byte");
        if (tier === "micro" || tier === "time_based") {
          // Blocks edited in place, nothing moved: every message the tier left alone keeps its bytes.
          const edited = new Set(result.archive.map((entry) => Number(/^messages\[(\d+)\]/.exec(entry.location)[1])));
          messages.forEach((message, index) => {
            if (!edited.has(index)) assert.ok(restored.includes(JSON.stringify(message, null, 1)), `messages[${index}] keeps its bytes`);
          });
        }
      });
    }
  }
});

describe("restore: a chain of results, step by step", () => {
  it("messages: micro, then time_based, then auto on the outputs", async () => {
    const input = agentRun("anthropic", 12, { thinking: true });
    const session = (messages, tier) => compactWithTier(tier, { sessionId: "chain", pressure: PRESSURE[tier], messages });
    const first = await session(input, "micro");
    const second = await session(first.messages, "time_based");
    const third = await session(second.messages, "auto");
    for (const result of [first, second, third]) assert.ok(result.archive.length > 0, result.reason);
    // Newest first: each restore gives the input of that call, the output of the one before.
    const beforeThird = restore(third);
    assert.deepEqual(beforeThird, second.messages);
    const beforeSecond = restore({ messages: beforeThird, archive: second.archive });
    assert.deepEqual(beforeSecond, first.messages);
    assert.deepEqual(restore({ messages: beforeSecond, archive: first.archive }), input);
    // Ids are per call, plan and place: the three archives share none.
    const ids = [first, second, third].flatMap((result) => result.archive.map((entry) => entry.id));
    assert.equal(new Set(ids).size, ids.length);
  });

  it("flat text: micro, then auto on the output", async () => {
    const input = samples()[0].text;
    const first = await compactWithTier("micro", { sessionId: "chain", pressure: PRESSURE.micro, text: input });
    const second = await compactWithTier("auto", { sessionId: "chain", pressure: PRESSURE.auto, text: first.text });
    assert.ok(first.archive.length > 0 && second.archive.length > 0);
    assert.equal(restore(second), first.text);
    assert.equal(restore({ text: restore(second), archive: first.archive }), input);
  });

  it("the older archive on the newer output is refused, naming the entry", async () => {
    // The stale block stands before the tool result: pruning it moves the stub micro left.
    const text = `[age:9] an old note ${"x".repeat(400)}\n\n[age:0] now\n${SEED_MICRO_TEXT}`;
    const first = await compactWithTier("micro", { sessionId: "chain", pressure: PRESSURE.micro, text });
    const second = await compactWithTier("time_based", { sessionId: "chain", pressure: PRESSURE.time_based, text: first.text });
    assert.ok(first.archive.length > 0 && second.archive.length > 0);
    assert.throws(() => restore({ text: second.text, archive: first.archive }), (error) => {
      assert.ok(error instanceof TypeError);
      assert.equal(error.code, "ERR_TC_INVALID_TYPE");
      assert.match(error.path, /^result\.archive\[\d+\]\.location$/);
      assert.match(error.message, /restore the newest result first/);
      return true;
    });
  });
});

describe("restore: bad results", () => {
  const cases = [
    [null, "TypeError", "result", "result must be an object, got null"],
    [{ text: "x" }, "TypeError", "result.archive", "result.archive must be an array, got undefined"],
    [{ text: 5, archive: [] }, "TypeError", "result.text", "result.text must be a string, got number"],
    [{ messages: "x", archive: [] }, "TypeError", "result.messages", "result.messages must be an array, got string"],
  ];
  for (const [value, name, path, message] of cases) {
    it(`${JSON.stringify(value)}: ${name} naming ${path}`, () => {
      assert.throws(() => restore(value), (error) => {
        assert.equal(error.name, name);
        assert.equal(error.code, "ERR_TC_INVALID_TYPE");
        assert.equal(error.path, path);
        assert.equal(error.message, message);
        return true;
      });
    });
  }
});

describe("recall", () => {
  // (auto's output names the ids of the stubs it keeps; assertArchiveShape checks those in every
  // round trip above. Here the tiers whose every stub names its entry.)
  it("finds the entry each stub names, in the result's archive (micro, time_based)", async () => {
    const input = agentRun("anthropic", 10, { thinking: true });
    for (const tier of ["micro", "time_based"]) {
      const result = await compactWithTier(tier, { sessionId: "recall", pressure: PRESSURE[tier], messages: input });
      const ids = recallIds(result.messages);
      assert.ok(ids.length > 0, `${tier} names recall ids`);
      for (const id of ids) {
        assert.match(id, ARCHIVE_ID);
        const entry = recall(result.archive, id);
        assert.equal(entry, result.archive.find((candidate) => candidate.id === id), "the host's own entry object");
        assert.ok(entry.replacement.includes(`recall: ${id}`), "the stub it stands for names it");
        if (entry.kind === "tool_result") {
          const step = Number(/make test(\d+)/.exec(entry.content)[1]);
          assert.equal(entry.content, toolBody(step), "the body as the host sent it");
          assert.equal(entry.location, `messages[${resultIndex("anthropic", step)}].content[0].content`);
        }
      }
      // Every stub of micro and time_based names its entry: as many ids as entries.
      assert.equal(new Set(ids).size, result.archive.length);
    }
  });

  it("finds an entry in a list of archives (one per call) and in their concatenation", async () => {
    const input = agentRun("openai", 10);
    const first = await compactWithTier("micro", { sessionId: "recall", pressure: PRESSURE.micro, messages: input });
    const second = await compactWithTier("auto", { sessionId: "recall", pressure: PRESSURE.auto, messages: first.messages });
    const archives = [first.archive, second.archive];
    // The ids micro's stubs named; auto folded some of those stubs into its digest since.
    const firstIds = recallIds(first.messages);
    assert.ok(firstIds.length > 0);
    for (const id of firstIds) {
      const entry = recall(archives, id);
      assert.equal(entry, first.archive.find((candidate) => candidate.id === id));
      assert.equal(recall(archives.flat(), id), entry);
      assert.equal(recall([second.archive, first.archive], id), entry, "in any order");
      assert.equal(recall([second.archive], id), undefined, "not in the other call's archive");
    }
    for (const entry of second.archive) assert.equal(recall(archives, entry.id), entry);
    // The archives as the host stored them (JSON): the entry from that copy.
    const stored = JSON.parse(JSON.stringify(archives));
    assert.deepEqual(recall(stored, firstIds[0]), recall(archives, firstIds[0]));
    assert.equal(recall(stored, firstIds[0]), stored[0].find((entry) => entry.id === firstIds[0]));
  });

  it("answers a flat-text archive by id too, and undefined for an id no entry has", async () => {
    const result = await compactWithTier("micro", { sessionId: "recall", pressure: PRESSURE.micro, text: SEED_MICRO_TEXT });
    const [entry] = result.archive;
    assert.match(entry.id, ARCHIVE_ID);
    assert.equal(recall(result.archive, entry.id), entry);
    assert.equal(recall(result.archive, "a000000000000"), undefined);
    assert.equal(recall([], entry.id), undefined);
    assert.equal(recall([[], []], entry.id), undefined);
    assert.equal(recall([null, 7, "x", [null]], entry.id), undefined, "what is not an entry is skipped");
  });

  it("answers the model's tool call end to end (OpenAI): the pruned body again", async () => {
    const input = agentRun("openai", 10);
    const result = await compactWithTier("micro", { sessionId: "recall", pressure: PRESSURE.micro, messages: input });
    const stub = result.messages[resultIndex("openai", 0)].content;
    const [id] = recallIds(stub);
    // What the model sends back, calling the tool it was given.
    const tool = recallToolDefinition("openai");
    const call = { id: "call_r", type: "function", function: { name: tool.function.name, arguments: JSON.stringify({ id }) } };
    const entry = recall([result.archive], JSON.parse(call.function.arguments).id);
    const answer = { role: "tool", tool_call_id: call.id, content: typeof entry.content === "string" ? entry.content : JSON.stringify(entry.content) };
    assert.equal(answer.content, input[resultIndex("openai", 0)].content);
  });

  it("throws a TypeError naming archives or id", () => {
    const cases = [
      [[null, "a0"], "archives", "archives must be an array of archive entries (or of archives), got null"],
      [[undefined, "a0"], "archives", "archives must be an array of archive entries (or of archives), got undefined"],
      [[{ id: "a0" }, "a0"], "archives", "archives must be an array of archive entries (or of archives), got object"],
      [["a0", "a0"], "archives", "archives must be an array of archive entries (or of archives), got string"],
      [[[], 5], "id", "id must be a string, got number"],
      [[[], undefined], "id", "id must be a string, got undefined"],
      [[[], null], "id", "id must be a string, got null"],
    ];
    for (const [args, path, message] of cases) {
      assert.throws(() => recall(...args), (error) => {
        assert.ok(error instanceof TypeError, String(error));
        assert.equal(error.code, "ERR_TC_INVALID_TYPE");
        assert.equal(error.path, path);
        assert.equal(error.message, message);
        return true;
      });
    }
  });
});

describe("recallToolDefinition", () => {
  const SCHEMA = {
    type: "object",
    properties: { id: { type: "string", description: "The id named after `recall:` in a pruned result, e.g. a3f9c1b2e07d4." } },
    required: ["id"],
    additionalProperties: false,
  };

  it("openai: { type: 'function', function: { name, description, parameters } }", () => {
    const tool = recallToolDefinition("openai");
    assert.deepEqual(Object.keys(tool), ["type", "function"]);
    assert.equal(tool.type, "function");
    assert.deepEqual(Object.keys(tool.function), ["name", "description", "parameters"]);
    assert.equal(tool.function.name, "recall_archived");
    assert.match(tool.function.description, /recall: <id>/);
    assert.deepEqual(tool.function.parameters, SCHEMA);
  });

  it("anthropic: { name, description, input_schema }", () => {
    const tool = recallToolDefinition("anthropic");
    assert.deepEqual(Object.keys(tool), ["name", "description", "input_schema"]);
    assert.equal(tool.name, "recall_archived");
    assert.equal(tool.description, recallToolDefinition("openai").function.description);
    assert.deepEqual(tool.input_schema, SCHEMA);
  });

  it("ai-sdk: { description, inputSchema } with a plain JSON Schema", () => {
    const tool = recallToolDefinition("ai-sdk");
    assert.deepEqual(Object.keys(tool), ["description", "inputSchema"]);
    assert.equal(tool.description, recallToolDefinition("openai").function.description);
    assert.deepEqual(tool.inputSchema, SCHEMA);
  });

  it("gives a fresh object each call (a host may extend it)", () => {
    const tool = recallToolDefinition("anthropic");
    tool.cache_control = { type: "ephemeral" };
    tool.input_schema.properties.id.description = "changed";
    assert.deepEqual(recallToolDefinition("anthropic").input_schema, SCHEMA);
    assert.equal(recallToolDefinition("anthropic").cache_control, undefined);
  });

  it("refuses flat text, which has no tool calls, and formats it does not know", () => {
    const cases = [
      ["text", 'format "text" has no tool calls, so no recall tool'],
      ["not-a-format", 'format must be one of "openai", "anthropic", "ai-sdk", "responses", "gemini", "text", got "not-a-format"'],
      ["OpenAI", 'format must be one of "openai", "anthropic", "ai-sdk", "responses", "gemini", "text", got "OpenAI"'],
      [5, "format must be a string, got number"],
      [undefined, "format must be a string, got undefined"],
    ];
    for (const [format, message] of cases) {
      assert.throws(() => recallToolDefinition(format), (error) => {
        assert.ok(error instanceof TypeError, String(error));
        assert.equal(error.code, "ERR_TC_INVALID_TYPE");
        assert.equal(error.path, "format");
        assert.equal(error.message, message);
        return true;
      });
    }
  });
});

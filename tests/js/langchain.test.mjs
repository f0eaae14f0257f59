// tiered-compaction/langchain in a real LangChain v1 createAgent loop: a real Claude Code session
// of ../shared/realdata (a sub-agent's run: 20 model calls, parallel tool calls, a 42 KB web page)
// replayed by LangChain's own fake chat model (its tool calls, in order) and tools that answer with
// the session's recorded results. Two invocations on one thread (a checkpointer keeps the thread)
// with a 10-minute pause between them. The model must receive compacted messages whose tool calls
// keep their results, the agent's history must stay whole, the loop's state must ride in the
// agent's state from call to call, and each request must repeat the previous one byte for byte up
// to the first change the library reports.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { MemorySaver } from "@langchain/langgraph";
import { AIMessage, HumanMessage, ToolMessage, createAgent, fakeModel, tool } from "langchain";
import { compactionMiddleware } from "tiered-compaction/langchain";
import { sessionMessages } from "./session.mjs";

// The session: real where ../shared/realdata is, else generated (session.mjs); never skipped.
const CONTEXT_WINDOW = 200_000;

/** The session as OpenAI Chat messages: the task, then its model calls and their results. */
function loadSession() {
  const messages = sessionMessages("langchain");
  const calls = messages.filter((message) => message.role === "assistant");
  const results = new Map(messages.filter((message) => message.role === "tool").map((message) => [message.tool_call_id, message.content]));
  return { task: messages[0].content, calls, results };
}

/** What a provider reads of one request: each message's kind, text and calls, in order. */
const wire = (message) =>
  JSON.stringify({ type: message.type, content: message.content, tool_calls: message.tool_calls, tool_call_id: message.tool_call_id });

/** How many messages two requests share from the start, byte for byte. */
function sharedPrefix(a, b) {
  let n = 0;
  while (n < a.length && n < b.length && wire(a[n]) === wire(b[n])) n += 1;
  return n;
}

/** Each tool call of an AI message has its result before the next AI message, and each result its call. */
function assertPaired(messages, label) {
  const open = new Set();
  for (const message of messages) {
    if (message.type === "ai") {
      assert.equal(open.size, 0, `${label}: calls without results before an AI message: ${[...open]}`);
      for (const call of message.tool_calls ?? []) open.add(call.id);
    } else if (message.type === "tool") {
      assert.ok(open.delete(message.tool_call_id), `${label}: a result without its call: ${message.tool_call_id}`);
    }
  }
}

/** A tokens figure the way the fake provider counts: characters / 4. */
const tokensOf = (messages) => Math.ceil(JSON.stringify(messages.map(wire)).length / 4);

/** Runs the session in createAgent: `split` model calls, a pause, the rest. */
async function replay({ split, middlewareOptions }) {
  const { task, calls, results } = loadSession();
  const model = fakeModel();
  const sent = [];
  const respond = (recorded) => (messages) => {
    // A provider's cache facts: the prefix shared with the previous request was read, the rest written.
    const previous = sent.at(-1) ?? [];
    const total = tokensOf(messages);
    const read = Math.min(total, tokensOf(messages.slice(0, sharedPrefix(previous, messages))));
    sent.push(messages);
    return new AIMessage({
      content: recorded.content ?? "",
      tool_calls: (recorded.tool_calls ?? []).map((call) => ({ id: call.id, name: call.function.name, args: JSON.parse(call.function.arguments), type: "tool_call" })),
      usage_metadata: { input_tokens: total, output_tokens: 20, total_tokens: total + 20, input_token_details: { cache_read: read, cache_creation: total - read } },
    });
  };
  const steps = calls.filter((call) => call.tool_calls?.length > 0);
  for (const call of steps.slice(0, split)) model.respond(respond(call));
  model.respond(respond({ content: "Part one is done; I will go on when you say so." }));
  for (const call of steps.slice(split)) model.respond(respond(call));
  model.respond(respond(calls.at(-1)));

  const names = [...new Set(steps.flatMap((call) => call.tool_calls.map((toolCall) => toolCall.function.name)))];
  const tools = names.map((name) =>
    tool(async (_input, runtime) => results.get(runtime.toolCallId ?? runtime.toolCall?.id), {
      name,
      description: `The session's ${name} tool (answers with the recorded result)`,
      schema: { type: "object", properties: {}, additionalProperties: true },
    }),
  );
  // The clock: 2 s per model call, and 10 minutes (past the cache's 5) between the invocations.
  let clock = 0;
  const compacted = [];
  const middleware = compactionMiddleware({
    contextWindow: CONTEXT_WINDOW,
    now: () => (clock += 2_000),
    onCompact: (result, call) => compacted.push({ result, pressure: call.pressure, messages: call.messages }),
    ...middlewareOptions,
  });
  const agent = createAgent({ model, tools, middleware: [middleware], checkpointer: new MemorySaver() });
  const config = { configurable: { thread_id: "session-a4ca7529" }, recursionLimit: 200 };
  const first = await agent.invoke({ messages: [new HumanMessage(task)] }, config);
  clock += 600_000;
  const second = await agent.invoke({ messages: [new HumanMessage("Go on.")] }, config);
  return { first, second, sent, compacted, steps, results, split };
}

describe("tiered-compaction/langchain in createAgent, on a real session", () => {
  it("sends the model compacted messages, keeps the history whole and the pairs whole, and carries the state", async () => {
    const { first, second, sent, compacted, steps, results, split } = await replay({ split: 10 });
    const calls = steps.length + 2;
    assert.equal(sent.length, calls);
    assert.equal(compacted.length, calls);

    // The agent's history is whole: every recorded result as the tool gave it, no stub in it.
    const history = second.messages;
    const toolMessages = history.filter((message) => ToolMessage.isInstance(message));
    assert.equal(toolMessages.length, results.size);
    for (const message of toolMessages) assert.equal(message.content, results.get(message.tool_call_id));
    assert.ok(!history.some((message) => JSON.stringify(message.content).includes("recall: ")), "no stub in the agent's history");

    // The model received compacted messages: stubs naming their archive entries, shorter requests.
    const last = sent.at(-1);
    const stubs = last.filter((message) => message.type === "tool" && String(message.content).includes("recall: "));
    assert.ok(stubs.length >= 5, `${stubs.length} stubbed results in the last request`);
    const raw = tokensOf(history.slice(0, -1));
    assert.ok(tokensOf(last) < raw * 0.6, `the last request: ${tokensOf(last)} tokens, the raw history ${raw}`);
    // Lossless for what it keeps: each message sent is the history's own (same id, same fields),
    // and a stub's archive entry holds the original content exactly.
    const byId = new Map(history.map((message) => [message.id, message]));
    for (const [index, messages] of sent.entries()) {
      assertPaired(messages, `request ${index}`);
      const archive = compacted[index].result.archive;
      for (const message of messages.filter((candidate) => candidate.type !== "system")) {
        const original = byId.get(message.id);
        assert.ok(original, `request ${index}: a message the history does not have: ${wire(message).slice(0, 200)}`);
        assert.equal(message.constructor, original.constructor);
        assert.equal(message.name, original.name);
        assert.equal(message.tool_call_id, original.tool_call_id);
        assert.deepEqual(message.additional_kwargs, original.additional_kwargs);
        if (wire(message) === wire(original)) continue;
        const recall = JSON.stringify(message).match(/recall: (a[0-9a-f]{12})/);
        assert.ok(recall, `request ${index}: an edited message without a stub: ${wire(message).slice(0, 300)}`);
        const entry = archive.find((candidate) => candidate.id === recall[1]);
        assert.ok(entry, `request ${index}: no archive entry ${recall[1]}`);
        if (entry.kind === "tool_result") assert.equal(entry.content, original.content);

      }
    }

    // The pressure: the calls so far, the last call's input tokens, the clock, the cache facts.
    for (const [index, { pressure }] of compacted.entries()) {
      assert.equal(pressure.turnCount, index);
      if (index === 0) {
        assert.equal(pressure.idleSeconds, 0);
        assert.equal("cachedTokens" in pressure, false);
        continue;
      }
      const usage = history.filter((message) => AIMessage.isInstance(message))[index - 1].usage_metadata;
      assert.equal(pressure.contextPctUsed, usage.input_tokens / CONTEXT_WINDOW);
      assert.equal(pressure.cachedTokens, usage.input_token_details.cache_read + usage.input_token_details.cache_creation);
      assert.equal(pressure.contextWindowTokens, CONTEXT_WINDOW);
      assert.equal(pressure.idleSeconds, index === split + 1 ? 602 : 2);
    }

    // The state rides in the agent's state: stored after each invocation, accepted at every call.
    for (const result of [first, second]) assert.equal(result.tieredCompaction.state.version, 1);
    for (const [index, { result }] of compacted.entries()) {
      assert.equal(result.warnings, undefined, `call ${index}: ${JSON.stringify(result.warnings)}`);
    }
    // After the pause the cache is cold: time_based prunes old steps; the next call, warm again,
    // repeats that request byte for byte (the state re-applies the pruning) and only appends.
    const cold = split + 1;
    assert.equal(compacted[cold].result.tier, "time_based", compacted[cold].result.reason);
    assert.ok(compacted[cold].result.tokensSaved > 0);
    assert.equal(sharedPrefix(sent[cold], sent[cold + 1]), sent[cold].length, "the call after time_based keeps its prefix");

    // Each request repeats the previous one up to the first change the library made: a rewrite
    // only where a batch closed (more stubs) or time_based fired.
    let rewrites = 0;
    for (let index = 1; index < sent.length; index += 1) {
      if (sharedPrefix(sent[index - 1], sent[index]) === sent[index - 1].length) continue;
      rewrites += 1;
      const { result } = compacted[index];
      assert.ok(result.tier === "time_based" || result.archive.length > compacted[index - 1].result.archive.length, `call ${index} rewrote the prefix: ${result.reason}`);
    }
    assert.ok(rewrites >= 2 && rewrites <= 5, `${rewrites} prefix rewrites in ${sent.length} calls`);
  });

  it("takes LangChain's words (trigger: when auto fires; keep: the protected tail; excludeTools) and rebuilds an edited AI message from its original", async () => {
    const base = await replay({ split: 19, middlewareOptions: { compactOptions: { policy: { cache: { batchTokens: 0 } } } } });
    const kept = await replay({ split: 19, middlewareOptions: { keep: { messages: 1 }, compactOptions: { policy: { cache: { batchTokens: 0 } } } } });
    const stubbed = (run, index) => run.sent[index].filter((message) => message.type === "tool" && String(message.content).includes("recall: ")).length;
    // keep: { messages: 1 }: only the newest step stays whole, so results become stubs sooner.
    // An AI message whose long tool input micro stubbed is the original rebuilt: the same id and
    // metadata, the same calls (ids, names), the arguments still an object, only the long value a stub.
    const history = new Map(base.second.messages.map((message) => [message.id, message]));
    const edited = base.sent.at(-1).filter((message) => message.type === "ai" && JSON.stringify(message.tool_calls).includes("[tool input pruned"));
    assert.ok(edited.length >= 2, `${edited.length} AI messages with a stubbed input`);
    for (const message of edited) {
      const original = history.get(message.id);
      assert.ok(AIMessage.isInstance(message) && message !== original);
      assert.deepEqual(message.usage_metadata, original.usage_metadata);
      assert.deepEqual(message.response_metadata, original.response_metadata);
      assert.equal(message.content, original.content);
      assert.deepEqual(message.tool_calls.map(({ id, name }) => ({ id, name })), original.tool_calls.map(({ id, name }) => ({ id, name })));
      for (const [index, call] of message.tool_calls.entries()) {
        assert.deepEqual(Object.keys(call.args), Object.keys(original.tool_calls[index].args));
        assert.equal(call.args.file_path, original.tool_calls[index].args.file_path);
      }
    }
    const counts = (run) => run.sent.map((_, index) => stubbed(run, index));
    assert.ok(counts(kept).every((n, index) => n >= counts(base)[index]) && counts(kept).some((n, index) => n > counts(base)[index]), `stubs per request with keep 1: ${counts(kept)}; with the default 3: ${counts(base)}`);
    // excludeTools: the named tool's results stay whole.
    const excluded = await replay({ split: 19, middlewareOptions: { excludeTools: ["WebFetch"], compactOptions: { policy: { cache: { batchTokens: 0 } } } } });
    for (const message of excluded.sent.at(-1).filter((candidate) => candidate.type === "tool" && candidate.name === "WebFetch")) {
      assert.equal(message.content, excluded.results.get(message.tool_call_id));
    }
    // trigger: { tokens }: auto fires once the last call's input reaches it.
    // (A target under the trigger, so that auto summarises the oldest runs, not only stubs them.)
    const triggered = await replay({ split: 19, middlewareOptions: { trigger: { tokens: 12_000 }, compactOptions: { policy: { autoTargetPct: 0.01 } } } });
    const auto = triggered.compacted.findIndex(({ result }) => result.tier === "auto");
    assert.ok(auto > 0, triggered.compacted.map(({ result }) => result.tier).join(" "));
    assert.ok(triggered.compacted[auto].pressure.contextPctUsed >= 12_000 / CONTEXT_WINDOW);
    assert.ok(triggered.compacted.slice(0, auto).every(({ pressure }) => pressure.contextPctUsed < 12_000 / CONTEXT_WINDOW));
    assertPaired(triggered.sent[auto], "the request auto compacted");
    // The digest auto wrote in place of the oldest runs comes back as a LangChain message of its
    // role (new: no id of the history's); the history stays whole.
    assert.ok(triggered.sent[auto].length < triggered.sent[auto - 1].length);
    const ids = new Set(triggered.second.messages.map((message) => message.id));
    const written = triggered.sent[auto].filter((message) => !ids.has(message.id));
    assert.ok(written.length > 0 && written.every((message) => AIMessage.isInstance(message) || HumanMessage.isInstance(message)), written.map(wire).join("\n"));
    assert.match(String(written[0].content), /recall: a[0-9a-f]{12}/);
    assert.equal(triggered.second.messages.filter((message) => ToolMessage.isInstance(message)).length, triggered.results.size);
  });

  it("rejects options with errors that name the field", () => {
    const rejects = (options, name, field) =>
      assert.throws(() => compactionMiddleware(options), (error) => error.name === name && error.path === field && error.message.startsWith(field));
    rejects(null, "TypeError", "options");
    rejects({ contextWindow: 0 }, "RangeError", "options.contextWindow");
    rejects({ contextWindow: "200k" }, "TypeError", "options.contextWindow");
    rejects({ trigger: { messages: 50 } }, "TypeError", "options.trigger.messages");
    rejects({ trigger: [{ fraction: 0.8 }, { tokens: -1 }] }, "RangeError", "options.trigger[1].tokens");
    rejects({ trigger: { fraction: 1.5 } }, "RangeError", "options.trigger.fraction");
    rejects({ trigger: {} }, "TypeError", "options.trigger");
    rejects({ keep: { tokens: 1000 } }, "TypeError", "options.keep.tokens");
    rejects({ keep: { messages: 0 } }, "RangeError", "options.keep.messages");
    rejects({ excludeTools: "bash" }, "TypeError", "options.excludeTools");
    rejects({ keep: { messages: 5 }, compactOptions: { policy: { keepRecentSteps: 2 } } }, "TypeError", "options.keep");
    rejects({ model: "openai:gpt-5" }, "TypeError", "options.model");
    rejects({ onCompact: true }, "TypeError", "options.onCompact");
  });

  it("needs a context window from the options or the model's profile, and says which field", async () => {
    const model = fakeModel().respond(new AIMessage("hi"));
    const agent = createAgent({ model, tools: [], middleware: [compactionMiddleware()] });
    await assert.rejects(agent.invoke({ messages: [new HumanMessage("hello")] }), (error) => {
      const cause = error.path === undefined ? error.cause : error;
      assert.equal(cause?.path, "options.contextWindow", String(error));
      assert.match(String(cause.message), /options\.contextWindow is required/);
      return true;
    });
  });
});

// tiered-compaction/openai-agents in a real OpenAI Agents SDK `run()`: a mocked model (the SDK's
// `Model` interface) replays a real Claude Code session of ../shared/realdata (its tool calls, in
// order, each after an opaque reasoning item), and function tools answer with the session's
// recorded results. Two runs of one conversation (the second continues the first's history, with
// the same context object) with a 10-minute pause between them. The model must receive compacted
// input items whose calls keep their results and whose reasoning items keep their place, the
// run's items must stay whole, the loop's state must carry from call to call (and run to run), the
// cache facts must come from the SDK's usage, and each request must repeat the previous one byte
// for byte up to the first change the library reports.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Agent, Usage, run, setTracingDisabled, tool } from "@openai/agents";
import { compactionFilter } from "tiered-compaction/openai-agents";
import { sessionMessages } from "./session.mjs";

setTracingDisabled(true);

// The session: real where ../shared/realdata is, else generated (session.mjs); never skipped.
const CONTEXT_WINDOW = 200_000;

function loadSession() {
  const messages = sessionMessages("openai-agents");
  const calls = messages.filter((message) => message.role === "assistant");
  const results = new Map(messages.filter((message) => message.role === "tool").map((message) => [message.tool_call_id, message.content]));
  return { task: messages[0].content, steps: calls.filter((call) => call.tool_calls?.length > 0), answer: calls.at(-1).content, results };
}

const bytes = (item) => JSON.stringify(item);
function sharedPrefix(a, b) {
  let n = 0;
  while (n < a.length && n < b.length && bytes(a[n]) === bytes(b[n])) n += 1;
  return n;
}
const tokensOf = (items) => Math.ceil(JSON.stringify(items).length / 4);

/** Calls and results pair by callId; a reasoning item is followed by what the model said with it. */
function assertWellFormed(items, label) {
  const calls = new Set(items.filter((item) => item.type === "function_call").map((item) => item.callId));
  const results = new Set(items.filter((item) => item.type === "function_call_result").map((item) => item.callId));
  assert.deepEqual([...results].filter((id) => !calls.has(id)), [], `${label}: results without calls`);
  assert.deepEqual([...calls].filter((id) => !results.has(id)), [], `${label}: calls without results`);
  items.forEach((item, index) => {
    if (item.type !== "reasoning") return;
    const next = items[index + 1];
    assert.ok(next && (next.type === "function_call" || next.role === "assistant"), `${label}: reasoning item ${index} is followed by ${bytes(next).slice(0, 120)}`);
  });
}

/**
 * A model (the SDK's Model interface) that replays `turns`, in order, or (`concurrent`) the turn
 * whose number is the tool turns the request already holds (its reasoning items), so concurrent
 * runs each get their own sequence. Usage as a provider with a prompt cache reports it: the prefix
 * shared with the previous request cached (`cached: false`: nothing cached, a cold cache).
 */
class ReplayModel {
  constructor(turns, { concurrent = false, cached = true } = {}) {
    Object.assign(this, { turns, concurrent, cached, requests: [], usages: [] });
  }

  async getResponse(request) {
    const input = structuredClone(request.input);
    const previous = this.requests.at(-1) ?? [];
    this.requests.push(input);
    const inputTokens = tokensOf(input);
    const cached = this.cached ? Math.min(inputTokens, tokensOf(input.slice(0, sharedPrefix(previous, input)))) : 0;
    const usage = new Usage({ requests: 1, inputTokens, outputTokens: 20, totalTokens: inputTokens + 20, inputTokensDetails: { cached_tokens: cached } });
    this.usages.push({ inputTokens, cached });
    const turn = this.concurrent ? this.turns[input.filter((item) => item.type === "reasoning").length] : this.turns.shift();
    assert.ok(turn, "the model was called more often than the session has turns");
    const n = this.requests.length;
    const output = [];
    if (turn.tool_calls) output.push({ type: "reasoning", id: `rs_${n}`, content: [], providerData: { encryptedContent: `opaque-${n}` } });
    if (turn.content) output.push({ type: "message", id: `msg_${n}`, role: "assistant", status: "completed", content: [{ type: "output_text", text: turn.content }] });
    for (const call of turn.tool_calls ?? []) {
      output.push({ type: "function_call", id: `fc_${call.id}`, callId: call.id, name: call.function.name, arguments: call.function.arguments, status: "completed" });
    }
    return { usage, output, responseId: `resp_${n}` };
  }

  // biome-ignore lint/correctness/useYield: run() here never streams
  async *getStreamedResponse() {
    throw new Error("not used: the test runs without streaming");
  }
}

function sessionAgent(model, names, results) {
  const tools = names.map((name) =>
    tool({
      name,
      description: `The session's ${name} tool (answers with the recorded result)`,
      parameters: { type: "object", properties: {}, additionalProperties: true },
      strict: false,
      execute: async (_input, _context, details) => results.get(details.toolCall.callId),
    }),
  );
  return new Agent({ name: "alice", instructions: "You are a research agent.", model, tools });
}

describe("tiered-compaction/openai-agents in run(), on a real session", () => {
  it("sends the model compacted items, keeps the run's items whole and the pairs whole, and carries the state", async () => {
    const { task, steps, answer, results } = loadSession();
    const split = 10;
    const model = new ReplayModel([...steps.slice(0, split), { content: "Part one is done." }, ...steps.slice(split), { content: answer }]);
    const names = [...new Set(steps.flatMap((step) => step.tool_calls.map((call) => call.function.name)))];
    const agent = sessionAgent(model, names, results);
    let clock = 0;
    const compacted = [];
    const callModelInputFilter = compactionFilter({
      contextWindow: CONTEXT_WINDOW,
      now: () => (clock += 2_000),
      onCompact: (result, call) => compacted.push({ result, pressure: call.pressure, input: call.input }),
    });
    const context = { user: "alice" };
    const first = await run(agent, task, { callModelInputFilter, context, maxTurns: 100 });
    clock += 600_000;
    const second = await run(agent, [...first.history, { role: "user", content: "Go on." }], { callModelInputFilter, context, maxTurns: 100 });
    assert.equal(second.finalOutput, answer);

    const sent = model.requests;
    assert.equal(sent.length, steps.length + 2);
    assert.equal(compacted.length, sent.length);

    // The run's items are whole: every recorded result as the tool gave it, no stub among them.
    const history = second.history;
    const outputs = history.filter((item) => item.type === "function_call_result");
    assert.equal(outputs.length, results.size);
    for (const item of outputs) assert.equal(item.output.text ?? item.output, results.get(item.callId));
    assert.ok(!JSON.stringify(history).includes("recall: "), "no stub in the run's history");

    // The model received compacted items: stubs naming their archive entries, shorter requests.
    const stubbed = (items) => items.filter((item) => item.type === "function_call_result" && JSON.stringify(item.output).includes("recall: "));
    assert.ok(stubbed(sent.at(-1)).length >= 5, `${stubbed(sent.at(-1)).length} stubbed results in the last request`);
    assert.ok(tokensOf(sent.at(-1)) < tokensOf(history) * 0.6, `the last request: ${tokensOf(sent.at(-1))} tokens, the history ${tokensOf(history)}`);
    for (const [index, items] of sent.entries()) {
      assertWellFormed(items, `request ${index}`);
      // Each item is the history's (an SDK item, unchanged but for what the library stubbed),
      // and a stubbed output's archive entry holds the whole result.
      for (const item of stubbed(items)) {
        const original = outputs.find((candidate) => candidate.callId === item.callId);
        assert.equal(item.name, original.name);
        assert.equal(item.status, original.status);
        const id = JSON.stringify(item.output).match(/recall: (a[0-9a-f]{12})/)[1];
        const entry = compacted[index].result.archive.find((candidate) => candidate.id === id);
        assert.equal(entry.content, original.output.text ?? original.output);
      }
    }

    // The pressure: the filter's calls for this context, the last call's usage, the clock.
    for (const [index, { pressure }] of compacted.entries()) {
      assert.equal(pressure.turnCount, index);
      assert.equal(pressure.idleSeconds, index === 0 ? 0 : index === split + 1 ? 602 : 2);
      // The cache facts of the run's previous model call, from the SDK's usage (the first call of
      // each run has none: a run's usage starts empty).
      if (index === 0 || index === split + 1) {
        assert.equal("cachedTokens" in pressure, false, `call ${index}`);
      } else {
        assert.equal(pressure.cachedTokens, model.usages[index - 1].cached, `call ${index}`);
        assert.equal(pressure.contextWindowTokens, CONTEXT_WINDOW);
        assert.equal(pressure.contextPctUsed, model.usages[index - 1].inputTokens / CONTEXT_WINDOW);
      }
    }

    // The state carries: never refused; after the pause time_based prunes, and the next call
    // repeats that request byte for byte.
    for (const [index, { result }] of compacted.entries()) assert.equal(result.warnings, undefined, `call ${index}: ${JSON.stringify(result.warnings)}`);
    const cold = split + 1;
    assert.equal(compacted[cold].result.tier, "time_based", compacted[cold].result.reason);
    assert.equal(sharedPrefix(sent[cold], sent[cold + 1]), sent[cold].length, "the call after time_based keeps its prefix");
    let rewrites = 0;
    for (let index = 1; index < sent.length; index += 1) {
      if (sharedPrefix(sent[index - 1], sent[index]) === sent[index - 1].length) continue;
      rewrites += 1;
      const { result } = compacted[index];
      assert.ok(result.tier === "time_based" || result.archive.length > compacted[index - 1].result.archive.length, `call ${index} rewrote the prefix: ${result.reason}`);
    }
    assert.ok(rewrites >= 2 && rewrites <= 5, `${rewrites} prefix rewrites in ${sent.length} calls`);
  });

  it("keeps one state per run context: concurrent runs of one agent through one filter do not mix", async () => {
    const { task, steps, results } = loadSession();
    const names = [...new Set(steps.flatMap((step) => step.tool_calls.map((call) => call.function.name)))];
    const turns = [...steps.slice(0, 8), { content: "Done." }];
    const model = new ReplayModel(turns, { concurrent: true, cached: false });
    const agent = sessionAgent(model, names, results);
    const seen = new Map();
    const callModelInputFilter = compactionFilter({
      contextWindow: CONTEXT_WINDOW,
      compactOptions: { policy: { cache: { batchTokens: 0 } } },
      onCompact: (result, call) => seen.set(call.context, [...(seen.get(call.context) ?? []), { result, pressure: call.pressure }]),
    });
    // Two runs with different tasks: a state of one is for a history the other does not extend,
    // which the library would refuse with a warning if the filter mixed them up.
    const contexts = [{ run: 1 }, { run: 2 }];
    await Promise.all(contexts.map((context) => run(agent, `Run ${context.run}. ${task}`, { callModelInputFilter, context })));
    const order = model.requests.map((input) => String(input[0].content).slice(0, 5));
    assert.ok(order.slice(0, 4).includes("Run 1") && order.slice(0, 4).includes("Run 2"), `the runs interleave: ${order}`);
    for (const context of contexts) {
      const compacted = seen.get(context);
      assert.equal(compacted.length, turns.length);
      assert.deepEqual(compacted.map(({ pressure }) => pressure.turnCount), turns.map((_, index) => index));
      assert.deepEqual(compacted.map(({ result }) => result.warnings), compacted.map(() => undefined));
      assert.ok(compacted.at(-1).result.archive.length > 0, compacted.at(-1).result.reason);
    }
  });

  it("follows a run through a handoff: the same state, and the run's usage for the new agent's first call", async () => {
    const { task, steps, results } = loadSession();
    const names = [...new Set(steps.flatMap((step) => step.tool_calls.map((call) => call.function.name)))];
    const researcher = sessionAgent(new ReplayModel([...steps.slice(2, 8), { content: "Done." }]), names, results);
    const triage = new Agent({
      name: "triage",
      instructions: "Hand research over.",
      handoffs: [researcher],
      model: new ReplayModel([...steps.slice(0, 2), { tool_calls: [{ id: "handoff-1", function: { name: `transfer_to_${researcher.name}`, arguments: "{}" } }] }]),
      tools: sessionAgent(null, names, results).tools,
    });
    const compacted = [];
    const callModelInputFilter = compactionFilter({ contextWindow: CONTEXT_WINDOW, onCompact: (result, call) => compacted.push({ result, pressure: call.pressure, agent: call.agent }) });
    const result = await run(triage, task, { callModelInputFilter, context: { user: "alice" } });
    assert.equal(result.finalOutput, "Done.");
    assert.equal(result.lastAgent, researcher);
    const first = compacted.findIndex(({ agent }) => agent === researcher);
    assert.equal(first, 3);
    assert.deepEqual(compacted.map(({ pressure }) => pressure.turnCount), compacted.map((_, index) => index));
    assert.equal(typeof compacted[first].pressure.cachedTokens, "number", "the run's usage, read for the new agent's first call");
    for (const { result: each } of compacted) assert.equal(each.warnings, undefined, JSON.stringify(each.warnings));
  });

  it("rejects options with errors that name the field", () => {
    const rejects = (options, name, field) =>
      assert.throws(() => compactionFilter(options), (error) => error.name === name && error.path === field && error.message.startsWith(field));
    rejects(undefined, "TypeError", "options");
    rejects({}, "TypeError", "options.contextWindow");
    rejects({ contextWindow: -5 }, "RangeError", "options.contextWindow");
    rejects({ contextWindow: 1000, sessionId: 7 }, "TypeError", "options.sessionId");
    rejects({ contextWindow: 1000, compactOptions: [] }, "TypeError", "options.compactOptions");
    rejects({ contextWindow: 1000, costPer1kTokens: Number.NaN }, "RangeError", "options.costPer1kTokens");
    rejects({ contextWindow: 1000, now: 0 }, "TypeError", "options.now");
    assert.equal(compactionFilter({ contextWindow: 1000 }).preserveInputIdentity, true);
  });
});

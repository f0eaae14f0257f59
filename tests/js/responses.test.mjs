// The OpenAI Responses API's `input` items through the built package: objects and request bodies,
// every tier, restore, the recall tool. Reasoning items are opaque: kept whole and right before the
// item they preceded, or archived together with it.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { compact, compactRequestBody, compactWithTier, recall, recallToolDefinition, restore } from "./unbatched.mjs";
import { TIERS, pressure, toolBody } from "./helpers.mjs";

const reasoning = (step) => ({ type: "reasoning", id: `rs_${step}`, summary: [], encrypted_content: `gAAAAB${step}${"Zx9".repeat(80)}` });

/** A Codex-style run: instructions as a developer message, the task, then per step a reasoning
 * item, a function call and its output; the model's last answer. */
function items(steps) {
  const list = [
    { role: "developer", content: "You are a coding agent." },
    { role: "user", content: [{ type: "input_text", text: "Fix the failing test." }] },
  ];
  for (let step = 0; step < steps; step += 1) {
    list.push(reasoning(step));
    list.push({ type: "function_call", id: `fc_${step}`, call_id: `call_${step}`, name: "shell", arguments: JSON.stringify({ cmd: `make test${step}` }) });
    list.push({ type: "function_call_output", call_id: `call_${step}`, output: toolBody(step) });
  }
  list.push(reasoning(steps));
  list.push({ type: "message", id: "msg_last", role: "assistant", status: "completed", content: [{ type: "output_text", text: "Fixed.", annotations: [] }] });
  return list;
}

/** Every reasoning item of `output` is one of `input`'s, and what followed it there follows it here. */
function reasoningKept(input, output) {
  const same = (a, b) => a?.type === b?.type && a?.id === b?.id && a?.call_id === b?.call_id;
  output.forEach((item, index) => {
    if (item.type !== "reasoning") return;
    const at = input.indexOf(item);
    assert.ok(at >= 0, "a reasoning item is the caller's own object");
    assert.ok(same(output[index + 1], input[at + 1]), `${item.id} still before what followed it`);
  });
}

/** Every function call is answered after it and every output has its call before it. */
function paired(output) {
  const open = new Set();
  for (const item of output) {
    if (item.type === "function_call") open.add(item.call_id);
    if (item.type === "function_call_output") {
      assert.ok(open.delete(item.call_id), `output ${item.call_id} has its call`);
    }
  }
  assert.equal(open.size, 0, `unanswered calls ${[...open]}`);
}

describe("the OpenAI Responses API", () => {
  it("is detected, and compacts in every tier to valid input that restores", async () => {
    const input = items(10);
    for (const tier of TIERS) {
      const result = await compactWithTier(tier, { sessionId: "r", pressure: pressure(12, 0.8, 400), messages: input });
      assert.equal(result.format, "responses", tier);
      paired(result.messages);
      reasoningKept(input, result.messages);
      assert.deepEqual(restore(result), input, `${tier}: restore`);
      assert.ok(result.afterTokens <= result.beforeTokens);
      assert.equal(result.messages[0], input[0], `${tier}: the developer message is the caller's object`);
      if (tier === "session_memory") {
        assert.equal(result.messages.length, 2);
        assert.equal(result.messages[1].type, "message");
        assert.equal(result.messages[1].role, "user");
        assert.match(result.messages[1].content, /^\[session summary\]/);
      }
    }
  });

  it("micro stubs outputs in place, keeping call_id and every reasoning item", async () => {
    const input = items(8);
    const result = await compactWithTier("micro", { sessionId: "r", pressure: pressure(9, 0.4), messages: input });
    assert.equal(result.messages.length, input.length);
    const stubbed = result.messages.filter((item) => item.type === "function_call_output" && item.output.includes("[tool result body pruned:"));
    assert.equal(stubbed.length, 6, "the outputs before the three newest steps");
    const [first] = stubbed;
    assert.equal(first.call_id, "call_0");
    assert.match(first.output, /error: test t0 failed at src\/lib\.rs:0/);
    const id = /recall: (a[0-9a-f]{12})/.exec(first.output)[1];
    const entry = recall(result.archive, id);
    assert.equal(entry.content, input[4].output);
    assert.equal(entry.location, "messages[4].output");
    for (const [index, item] of input.entries()) {
      if (item.type === "reasoning") assert.equal(result.messages[index], item);
    }
  });

  it("auto archives a reasoning item only with the run it belongs to", async () => {
    const input = items(10);
    const result = await compactWithTier("auto", { sessionId: "r", pressure: pressure(12, 0.9), messages: input });
    paired(result.messages);
    reasoningKept(input, result.messages);
    const archived = result.archive.filter((entry) => entry.kind === "run").flatMap((entry) => entry.content);
    for (const item of archived) {
      if (item.type !== "function_call") continue;
      const at = input.findIndex((original) => original.call_id === item.call_id);
      assert.ok(archived.includes(input[at - 1]), `the reasoning before ${item.call_id} went with it`);
    }
    assert.ok(archived.some((item) => item.type === "reasoning"));
  });

  it("repairs broken input: an orphan output, a call left unanswered with its reasoning item", async () => {
    const input = [
      { role: "user", content: "Go." },
      { type: "function_call_output", call_id: "ghost", output: "lost" },
      reasoning(1),
      { type: "function_call", id: "fc_1", call_id: "c1", name: "shell", arguments: "{}" },
      { role: "user", content: "Well?" },
      { role: "assistant", content: "Done." },
    ];
    const result = await compactWithTier("none", { sessionId: "r", pressure: pressure(1, 0), messages: input });
    assert.deepEqual(result.messages, [input[0], input[4], input[5]]);
    assert.deepEqual(result.warnings, [
      'repair: removed the tool result at messages[1] (id "ghost"): no call with its id comes before it',
      "repair: removed messages[2]: it must stay with the item after it, which the repairs removed",
      'repair: removed the tool call at messages[3] (id "c1"): it has no result and later messages follow it',
    ]);
    assert.deepEqual(restore(result), input);
  });

  it("compacts a request body's input, every byte outside it unchanged, and restores it", async () => {
    const input = items(8);
    const body = JSON.stringify({ model: "gpt-5", instructions: "You are a coding agent.\nBe terse.", input, store: false, include: ["reasoning.encrypted_content"] });
    const { body: out, result } = await compactRequestBody(body, { sessionId: "r", pressure: pressure(9, 0.4) });
    assert.equal(result.tier, "micro");
    assert.equal(result.format, "responses");
    assert.equal(result.messages, undefined);
    const at = body.indexOf('"input"');
    assert.equal(out.slice(0, at), body.slice(0, at), "instructions unchanged");
    assert.ok(out.endsWith(',"store":false,"include":["reasoning.encrypted_content"]}'));
    const parsed = JSON.parse(out);
    paired(parsed.input);
    assert.ok(result.tokensSaved > 0);
    assert.equal(restore({ body: out, archive: result.archive }), body);
  });

  it("leaves a plain-string input alone, and compacts only input with previous_response_id", async () => {
    const plain = JSON.stringify({ model: "gpt-5", input: "Summarise the repo." });
    const { body, result } = await compactRequestBody(plain, { sessionId: "r", pressure: pressure(5, 0.95, 900, true) });
    assert.equal(body, plain);
    assert.equal(result.tier, "none");
    assert.equal(result.reason, "body.input is a plain string (one user message): nothing to compact");
    const outputs = Array.from({ length: 6 }, (_, step) => ({ type: "function_call_output", call_id: `stored_${step}`, output: toolBody(step) }));
    const stateful = JSON.stringify({ model: "gpt-5", previous_response_id: "resp_1", input: [...outputs, { role: "user", content: "Next?" }] });
    const compacted = await compactRequestBody(stateful, { sessionId: "r", pressure: pressure(5, 0.4) });
    assert.equal(compacted.result.warnings, undefined, "outputs of stored calls are no orphans");
    assert.equal(JSON.parse(compacted.body).input.length, 7);
  });

  it("offers the recall tool as a Responses function tool", () => {
    const tool = recallToolDefinition("responses");
    assert.deepEqual(Object.keys(tool), ["type", "name", "description", "parameters", "strict"]);
    assert.equal(tool.type, "function");
    assert.equal(tool.name, "recall_archived");
    assert.equal(tool.strict, true);
    assert.deepEqual(tool.parameters.required, ["id"]);
  });

  it("reads items without a type", async () => {
    const input = [{ role: "user", content: "Hi." }, { type: "function_call", call_id: "c", name: "f", arguments: "{}" }];
    const result = await compact({ sessionId: "r", pressure: pressure(1, 0), messages: input, format: "responses" });
    assert.equal(result.messages[0], input[0]);
    await assert.rejects(
      compact({ sessionId: "r", pressure: pressure(1, 0), messages: [{ content: "x" }], format: "responses" }),
      { name: "TypeError", code: "ERR_TC_INVALID_TYPE", message: "input[0].type is required (an item type, or a message's role)" },
    );
  });
});

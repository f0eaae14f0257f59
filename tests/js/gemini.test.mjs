// Gemini `contents` through the built package: objects and request bodies, every tier, restore,
// the recall tool. User and model alternate, the user first; calls pair with responses by id, else
// by name and order; a thought signature stays with the part that carries it.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { compact, compactRequestBody, compactWithTier, recall, recallToolDefinition, restore } from "./unbatched.mjs";
import { TIERS, pressure, toolBody } from "./helpers.mjs";

/** An ADK-style run: the task, then per step a model content (a thought, a signed call) and the
 * user content with its response (`result`, as the ADK writes it); the model's last answer. */
function contents(steps) {
  const list = [{ role: "user", parts: [{ text: "Fix the failing test." }] }];
  for (let step = 0; step < steps; step += 1) {
    list.push({ role: "model", parts: [
      { text: `Step ${step}: ${"thinking ".repeat(40)}`, thought: true },
      { functionCall: { name: "run_tests", args: { target: `test${step}` } }, thoughtSignature: `sig-${step}` },
    ] });
    list.push({ role: "user", parts: [{ functionResponse: { name: "run_tests", response: { result: toolBody(step) } } }] });
  }
  list.push({ role: "model", parts: [{ text: "Fixed." }] });
  return list;
}

/** User and model alternate, the user first; each model content's calls are answered by the next. */
function valid(output) {
  output.forEach((content, index) => {
    const side = content.role === "model" ? "model" : "user";
    if (index === 0) assert.equal(side, "user");
    else assert.notEqual(side, output[index - 1].role === "model" ? "model" : "user", `contents[${index}]`);
    assert.ok(content.parts.length > 0);
    const calls = content.parts.filter((part) => part.functionCall).map((part) => part.functionCall.name);
    const next = output[index + 1];
    if (calls.length > 0 && next !== undefined) {
      const answers = next.parts.filter((part) => part.functionResponse).map((part) => part.functionResponse.name);
      assert.deepEqual(answers, calls, `contents[${index}] answered by the next content`);
    }
  });
}

describe("Gemini contents", () => {
  it("are detected, and compact in every tier to valid contents that restore", async () => {
    const input = contents(10);
    for (const tier of TIERS) {
      const result = await compactWithTier(tier, { sessionId: "g", pressure: pressure(12, 0.8, 400), messages: input });
      assert.equal(result.format, "gemini", tier);
      valid(result.messages);
      assert.deepEqual(restore(result), input, `${tier}: restore`);
      assert.ok(result.afterTokens <= result.beforeTokens);
      if (tier === "session_memory") {
        assert.equal(result.messages.length, 1);
        assert.equal(result.messages[0].role, "user");
        assert.match(result.messages[0].parts[0].text, /^\[session summary\]/);
      } else {
        assert.equal(result.messages[0], input[0], `${tier}: the task is the caller's object`);
      }
    }
  });

  it("micro stubs a response where its body was; a call keeps its signature", async () => {
    const input = contents(8);
    const result = await compactWithTier("micro", { sessionId: "g", pressure: pressure(9, 0.4), messages: input });
    const response = result.messages[2].parts[0].functionResponse;
    assert.equal(response.name, "run_tests");
    assert.deepEqual(Object.keys(response.response), ["result"]);
    assert.match(response.response.result, /\[tool result body pruned: \d+ chars; recall: a[0-9a-f]{12}\]$/);
    const id = /recall: (a[0-9a-f]{12})/.exec(response.response.result)[1];
    const entry = recall(result.archive, id);
    assert.equal(entry.location, "messages[2].parts[0].functionResponse.response.result");
    assert.equal(entry.content, toolBody(0));
    assert.equal(result.messages[1], input[1], "the model content is untouched");
  });

  it("time_based archives a thought, its signature staying on the part", async () => {
    const input = contents(10);
    input[1].parts[0].thoughtSignature = "sig-thought";
    const result = await compactWithTier("time_based", { sessionId: "g", pressure: pressure(12, 0.3, 900), messages: input });
    const part = result.messages[1].parts[0];
    assert.match(part.text, /^\[thinking archived/);
    assert.equal(part.thought, undefined);
    assert.equal(part.thoughtSignature, "sig-thought");
    assert.equal(result.messages[1].parts[1].thoughtSignature, "sig-0");
    assert.deepEqual(restore(result), input);
  });

  it("repairs the role order: a model content first goes, a run of one side merges", async () => {
    const input = [
      { role: "model", parts: [{ text: "Ready." }] },
      { role: "user", parts: [{ text: "Read a.rs." }] },
      { role: "user", parts: [{ text: "And b.rs." }] },
      { role: "model", parts: [{ text: "Done." }] },
    ];
    const result = await compactWithTier("none", { sessionId: "g", pressure: pressure(1, 0), messages: input, format: "gemini" });
    assert.deepEqual(result.messages, [{ role: "user", parts: [{ text: "Read a.rs." }, { text: "And b.rs." }] }, input[3]]);
    assert.equal(result.warnings.length, 2);
    assert.deepEqual(restore(result), input);
  });

  it("compacts a request body's contents, systemInstruction and every other byte unchanged", async () => {
    const input = contents(8);
    const body = JSON.stringify({ systemInstruction: { parts: [{ text: "You are a coding agent." }] }, contents: input, generationConfig: { temperature: 0 } });
    const { body: out, result } = await compactRequestBody(body, { sessionId: "g", pressure: pressure(9, 0.4) });
    assert.equal(result.format, "gemini");
    assert.equal(result.tier, "micro");
    const at = body.indexOf('"contents"');
    assert.equal(out.slice(0, at), body.slice(0, at));
    assert.ok(out.endsWith(',"generationConfig":{"temperature":0}}'));
    valid(JSON.parse(out).contents);
    assert.equal(restore({ body: out, archive: result.archive }), body);
  });

  it("offers the recall tool as a function declaration", () => {
    const tool = recallToolDefinition("gemini");
    assert.deepEqual(Object.keys(tool), ["name", "description", "parameters"]);
    assert.equal(tool.name, "recall_archived");
    assert.deepEqual(tool.parameters, { type: "object", properties: { id: { type: "string", description: tool.parameters.properties.id.description } }, required: ["id"] });
  });

  it("names the field of a malformed content", async () => {
    await assert.rejects(
      compact({ sessionId: "g", pressure: pressure(1, 0), messages: [{ role: "user" }], format: "gemini" }),
      { name: "TypeError", code: "ERR_TC_INVALID_TYPE", message: "contents[0].parts is required" },
    );
  });
});

// Shared by the node:test files: pressures, contexts, camelCase keys, the input rebuilt from
// output + archive by location (one plan; lossless.mjs adds `restore`), and a worker thread to
// load the package in a JS realm of its own. This module does not import the package: a test of
// the explicit-init entry point must be able to use it before anything is initialised.
import assert from "node:assert/strict";
import { Worker } from "node:worker_threads";

export const TIERS = ["none", "micro", "time_based", "auto", "session_memory"];

export const pressure = (turnCount, contextPctUsed, idleSeconds = 0, sessionComplete = false) => ({
  turnCount,
  contextPctUsed,
  idleSeconds,
  sessionComplete,
});

/** The seed's micro example: 232 -> 36 tokens. */
export const SEED_MICRO_TEXT = "```tool_result name=bash\n" + "C".repeat(900) + "\n```";

/**
 * A tool result body: a command line, 20 passing lines naming a file each, one error line naming
 * src/lib.rs, and a last line. 677 characters for a one-digit `step`: micro stubs it.
 */
export const toolBody = (step) =>
  `$ make test${step}\n${Array.from({ length: 20 }, (_, k) => `ok ${k} src/mod${step}/file${k}.rs passes`).join("\n")}\nerror: test t${step} failed at src/lib.rs:${step}\ndone ${step}`;

/** Where step `step`'s tool result stands in `agentRun(format, ...)` (its message index). */
export const resultIndex = (format, step) => (format === "anthropic" ? 2 : 3) + 2 * step;

/**
 * An agent run as hosts hold it: one human prompt, then `steps` steps, each one assistant message
 * calling one tool (`bash` on even steps, `read` on odd ones) and that call's result; no user words
 * after the prompt. `options.id(step)` names the call ids (default `call_<step>`, Anthropic
 * `toolu_<step>`); `options.thinking` gives every Anthropic assistant message a thinking block
 * first (an AI SDK one a reasoning part).
 */
export function agentRun(format, steps, options = {}) {
  const id = options.id ?? ((step) => (format === "anthropic" ? `toolu_${step}` : `call_${step}`));
  const thought = (step) => `Step ${step}: the failing test points at the parser; read it next. `.repeat(12);
  const messages = format === "anthropic" ? [] : [{ role: "system", content: "You are a coding agent." }];
  messages.push(format === "openai" ? { role: "user", content: "Fix the failing tests." } : { role: "user", content: [{ type: "text", text: "Fix the failing tests." }] });
  for (let step = 0; step < steps; step += 1) {
    const tool = step % 2 === 0 ? "bash" : "read";
    const input = { step };
    if (format === "openai") {
      messages.push({ role: "assistant", content: null, tool_calls: [{ id: id(step), type: "function", function: { name: tool, arguments: JSON.stringify(input) } }] });
      messages.push({ role: "tool", tool_call_id: id(step), content: toolBody(step) });
    } else if (format === "anthropic") {
      const content = [{ type: "tool_use", id: id(step), name: tool, input }];
      if (options.thinking) content.unshift({ type: "thinking", thinking: thought(step), signature: `sig-${step}` });
      messages.push({ role: "assistant", content });
      messages.push({ role: "user", content: [{ type: "tool_result", tool_use_id: id(step), content: toolBody(step) }] });
    } else {
      const content = [{ type: "tool-call", toolCallId: id(step), toolName: tool, input }];
      if (options.thinking) content.unshift({ type: "reasoning", text: thought(step) });
      messages.push({ role: "assistant", content });
      messages.push({ role: "tool", content: [{ type: "tool-result", toolCallId: id(step), toolName: tool, output: { type: "text", value: toolBody(step) } }] });
    }
  }
  return messages;
}

/** Keys allowed to contain `_`: tier names (TIER_COST_WEIGHT, costWeights) and what the host sent. */
const FOREIGN = new Set(["messages", "content"]);

/**
 * Fails on a `_` in any key of any object reachable from `value`, except inside the host's own
 * data (message objects and archived content keep their wire format's snake_case).
 */
export function assertCamelCase(value, at = "value") {
  if (Array.isArray(value)) {
    value.forEach((item, index) => assertCamelCase(item, `${at}[${index}]`));
  } else if (value !== null && typeof value === "object") {
    for (const [key, item] of Object.entries(value)) {
      assert.ok(!key.includes("_"), `${at}.${key} is not camelCase`);
      if (!FOREIGN.has(key)) assertCamelCase(item, `${at}.${key}`);
    }
  }
}

const codePoints = (text) => Array.from(text);

/** Flat text: splices each archived range's content back in place of its replacement. */
export function restoreText(input, result) {
  const source = codePoints(input);
  const entries = result.archive
    .map((entry) => {
      const match = /^text\[(\d+)\.\.(\d+)\]$/.exec(entry.location);
      assert.ok(match, `archive location ${entry.location} is a text range`);
      return { ...entry, start: Number(match[1]), end: Number(match[2]) };
    })
    .sort((a, b) => a.start - b.start);
  // The archive holds exactly what was at each location in the input.
  for (const entry of entries) {
    assert.equal(entry.content, source.slice(entry.start, entry.end).join(""), `content of ${entry.id}`);
  }
  // Output = input with each range replaced by its replacement (so input = output with each
  // replacement replaced back by the archived content).
  let expected = "";
  let at = 0;
  for (const entry of entries) {
    expected += source.slice(at, entry.start).join("") + entry.replacement;
    at = entry.end;
  }
  expected += source.slice(at).join("");
  assert.equal(result.text, expected, "output is the input with archived ranges replaced");
  return input;
}

/** Parses `messages[3].content[1].content` into [3, "content", 1, "content"]. */
function parsePath(location) {
  const steps = [];
  for (const match of location.matchAll(/\[(\d+)\]|\.([A-Za-z_]\w*)/g)) {
    steps.push(match[1] !== undefined ? Number(match[1]) : match[2]);
  }
  return steps;
}

/**
 * Structured messages: rebuilds the input from the output and the archive. Range entries
 * (`messages[i..j]`) stand for the input messages i..j-1, replaced by one message or removed;
 * path entries (`messages[i].content...`) hold the value that was at that path.
 */
export function restoreMessages(input, result) {
  const ranges = [];
  const paths = [];
  for (const entry of result.archive) {
    const range = /^messages\[(\d+)\.\.(\d+)\]$/.exec(entry.location);
    if (range) {
      const [start, end] = [Number(range[1]), Number(range[2])];
      assert.deepEqual(entry.content, input.slice(start, end), `content of ${entry.id}`);
      ranges.push({ start, end, replaced: entry.replacement !== "" });
    } else {
      assert.match(entry.location, /^messages\[\d+\]/, `archive location ${entry.location}`);
      paths.push({ steps: parsePath(entry.location.slice("messages".length)), content: entry.content });
    }
  }
  ranges.sort((a, b) => a.start - b.start);
  // Output index of each input message outside the ranges.
  const restored = [];
  let outputIndex = 0;
  let inputIndex = 0;
  for (const range of [...ranges, { start: input.length, end: input.length, replaced: false }]) {
    for (; inputIndex < range.start; inputIndex += 1, outputIndex += 1) {
      restored[inputIndex] = structuredClone(result.messages[outputIndex]);
    }
    for (; inputIndex < range.end; inputIndex += 1) restored[inputIndex] = input[inputIndex];
    if (range.replaced) outputIndex += 1;
  }
  assert.equal(outputIndex, result.messages.length, "every output message is accounted for");
  for (const { steps, content } of paths) {
    let target = restored;
    for (const step of steps.slice(0, -1)) target = target[step];
    target[steps.at(-1)] = structuredClone(content);
  }
  assert.deepEqual(restored, input, "input = output + archive");
  return restored;
}

/**
 * Runs `body`, the source of an async function's body, in a worker thread: a JS realm of its own,
 * where the package's module graph is loaded afresh (in one realm every entry point shares one,
 * js/index.mjs). The body sees `workerData` and `require`; what it returns (structured-cloneable)
 * is the result.
 */
export function inWorker(body, workerData) {
  const source = `const { parentPort, workerData } = require("node:worker_threads");
(async () => {
${body}
})().then((value) => parentPort.postMessage(value));`;
  return new Promise((resolve, reject) => {
    const worker = new Worker(source, { eval: true, workerData });
    worker.once("message", (value) => {
      resolve(value);
      void worker.terminate();
    });
    worker.once("error", reject);
    worker.once("exit", (code) => reject(new Error(`worker exited (code ${code}) without an answer`)));
  });
}

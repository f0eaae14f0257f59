// Sample agent transcripts, generated (deterministically) rather than copied from real sessions:
// one per supported context shape, each with the things the tiers act on — long tool results,
// old turns, media, the user's own directives. Used by `npm start` (scripts/report.mjs) and by the
// JS tests.

/** A small deterministic PRNG (mulberry32), so every run prints the same report. */
export function random(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const FILES = ["src/server.ts", "src/db/pool.ts", "src/routes/users.ts", "test/users.test.ts", "package.json"];

/** A plausible tool output of `lines` lines. */
function toolOutput(next, kind, lines) {
  const out = [];
  for (let i = 0; i < lines; i += 1) {
    const file = FILES[Math.floor(next() * FILES.length)];
    const line = 1 + Math.floor(next() * 400);
    if (kind === "test") {
      out.push(next() < 0.15 ? `  ✗ ${file}:${line} failed: expected 200, received 500` : `  ✓ ${file}:${line} passes (${Math.floor(next() * 90)} ms)`);
    } else if (kind === "grep") {
      out.push(`${file}:${line}:  const pool = createPool({ max: ${Math.floor(next() * 50)} });`);
    } else {
      out.push(`${String(line).padStart(4)} | export function handler${i}(request, reply) { return reply.send(await load(${i})); }`);
    }
  }
  return out.join("\n");
}

/** The steps of a debugging session: [tool, arguments, output kind, output lines]. */
const STEPS = [
  ["bash", { command: "npm test" }, "test", 40],
  ["grep", { pattern: "createPool", path: "src" }, "grep", 25],
  ["read_file", { path: "src/db/pool.ts" }, "file", 60],
  ["bash", { command: "npm test -- users" }, "test", 30],
  ["read_file", { path: "src/routes/users.ts" }, "file", 45],
  ["bash", { command: "npm test" }, "test", 35],
];

const SYSTEM = "You are a coding agent. Work in the repository, run tools, keep answers short.";
const TASK = "The /users endpoint returns 500 under load. Find out why and fix it. Do not change the public API.";
const FOLLOW_UPS = [
  "Keep the pool size configurable through DB_POOL_MAX.",
  "Also make sure the tests still pass on Node 20.",
  "Check src/server.ts for the same leak.",
  "Add a regression test for the leak in test/users.test.ts.",
  "Run the whole suite once more.",
  "Never log the connection string.",
  "Good. Now summarise what you changed.",
];
/** A tiny 1x1 PNG, base64: media for `auto` to strip. */
const PNG =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";

/** Turns: each user message is followed by a few tool steps. */
function plan() {
  const next = random(42);
  const turns = [];
  let step = 0;
  for (const [index, user] of [TASK, ...FOLLOW_UPS].entries()) {
    const steps = [];
    const count = index === 0 ? 3 : index === FOLLOW_UPS.length ? 0 : 1 + (index % 2);
    for (let i = 0; i < count; i += 1, step += 1) {
      const [tool, args, kind, lines] = STEPS[step % STEPS.length];
      steps.push({ id: `call_${String(step).padStart(3, "0")}`, tool, args, output: toolOutput(next, kind, lines) });
    }
    turns.push({ user, steps, answer: index === FOLLOW_UPS.length ? "Pool size now comes from DB_POOL_MAX (default 10); the leak in users.ts is fixed and all tests pass." : `Step ${index + 1} done.` });
  }
  return turns;
}

/** OpenAI Chat Completions messages. */
export function openaiMessages() {
  const messages = [{ role: "system", content: SYSTEM }];
  for (const turn of plan()) {
    messages.push({ role: "user", content: turn.user });
    for (const step of turn.steps) {
      messages.push({
        role: "assistant",
        content: null,
        tool_calls: [{ id: step.id, type: "function", function: { name: step.tool, arguments: JSON.stringify(step.args) } }],
      });
      messages.push({ role: "tool", tool_call_id: step.id, content: step.output });
    }
    messages.push({ role: "assistant", content: turn.answer });
  }
  return messages;
}

/** Anthropic Messages API messages (a screenshot in the first turn, cache_control, and the model's thinking before each tool call). */
export function anthropicMessages() {
  const messages = [];
  for (const [index, turn] of plan().entries()) {
    const userContent = [{ type: "text", text: turn.user }];
    if (index === 0) userContent.push({ type: "image", source: { type: "base64", media_type: "image/png", data: PNG.repeat(40) } });
    messages.push({ role: "user", content: userContent });
    for (const step of turn.steps) {
      messages.push({
        role: "assistant",
        content: [
          { type: "thinking", thinking: `The last output points at ${step.args.path ?? "the tests"}; ${step.tool} ${JSON.stringify(step.args)} should tell me more. `.repeat(4), signature: `sig_${step.id}` },
          { type: "text", text: `Running ${step.tool}.` },
          { type: "tool_use", id: `toolu_${step.id}`, name: step.tool, input: step.args },
        ],
      });
      messages.push({
        role: "user",
        content: [{ type: "tool_result", tool_use_id: `toolu_${step.id}`, content: step.output, cache_control: { type: "ephemeral" } }],
      });
    }
    messages.push({ role: "assistant", content: [{ type: "text", text: turn.answer }] });
  }
  return messages;
}

/** Vercel AI SDK ModelMessages. */
export function aiSdkMessages() {
  const messages = [{ role: "system", content: SYSTEM }];
  for (const turn of plan()) {
    messages.push({ role: "user", content: [{ type: "text", text: turn.user }] });
    for (const step of turn.steps) {
      messages.push({
        role: "assistant",
        content: [{ type: "tool-call", toolCallId: step.id, toolName: step.tool, input: step.args }],
      });
      messages.push({
        role: "tool",
        content: [{ type: "tool-result", toolCallId: step.id, toolName: step.tool, output: { type: "text", value: step.output } }],
      });
    }
    messages.push({ role: "assistant", content: [{ type: "text", text: turn.answer }] });
  }
  return messages;
}

/** The seed's flat text: ```tool_result fences and [age:N] tags (N = turns ago). */
export function flatText() {
  const turns = plan();
  const blocks = [];
  for (const [index, turn] of turns.entries()) {
    const age = turns.length - 1 - index;
    const parts = [`[age:${age}] user: ${turn.user}`];
    for (const step of turn.steps) {
      parts.push(`assistant: calling ${step.tool} ${JSON.stringify(step.args)}`);
      parts.push(`\`\`\`tool_result name=${step.tool}\n${step.output}\n\`\`\``);
    }
    parts.push(`assistant: ${turn.answer}`);
    blocks.push(parts.join("\n"));
  }
  return blocks.join("\n\n");
}

/** An Anthropic Messages request body, as an edge proxy receives it. */
export function anthropicRequestBody() {
  return JSON.stringify({
    model: "claude-sonnet-4-5",
    max_tokens: 1024,
    system: [{ type: "text", text: SYSTEM, cache_control: { type: "ephemeral" } }],
    metadata: { user_id: "u-123" },
    messages: anthropicMessages(),
    stream: true,
  });
}

/** Every sample context, with the pressure a host would report for it. */
export function samples() {
  return [
    { name: "flat text (seed conventions)", text: flatText() },
    { name: "OpenAI Chat Completions", messages: openaiMessages() },
    { name: "Anthropic Messages", messages: anthropicMessages() },
    { name: "Vercel AI SDK", messages: aiSdkMessages() },
  ];
}

// Real agent sessions (../shared/realdata, see its README) converted to the message formats the
// library takes: Anthropic Messages, OpenAI Chat Completions and AI SDK ModelMessages.
//
// One reader per source (Claude Code JSONL, SWE-agent .traj, OpenHands JSONL, an OpenAI Chat
// request body) turns a session into a neutral list of messages; one writer per target format
// turns that list into the format's own messages; one checker per format says whether messages
// keep the provider's rules. No dependency outside Node, so tests can use it without bench/'s
// node_modules. Every rule applied is listed in CONVERSION_RULES (the report prints them).
//
// The neutral session: { id, label, source, file, system: string | null, messages, notes }, where
// messages are (Claude Code messages also carry `time`, their line's timestamp in seconds; a
// merged message keeps its first line's)
//   { role: "user", parts: [{ type: "text", text } | { type: "image", mediaType, data, raw? } | { type: "other", raw }] }
//   { role: "assistant", parts: [{ type: "text", text } | { type: "thinking", raw } |
//                                { type: "tool_call", id, name, input, rawArguments?, raw? }] }
//   { role: "tool", id, name, content: string | AnthropicBlock[], isError }
// `raw` keeps a source block that is already Anthropic's (Claude Code), so the Anthropic writer
// gives it back unchanged; `rawArguments` keeps an OpenAI call's arguments string as it was.
import * as fs from "node:fs";
import * as path from "node:path";

/** What SWE-agent showed the model for a command without output (its history has this text). */
export const SWE_AGENT_EMPTY_OBSERVATION = "Your command ran successfully and did not produce any output.";

/** The conversion rules, one markdown bullet each, in the order they are applied. */
export const CONVERSION_RULES = [
  "**Claude Code JSONL** (`*.jsonl` with `type: user | assistant` lines): the main thread, i.e. the lines with `isSidechain: false`; " +
    "when every line is a sidechain (a sub-agent file on its own), every line. Lines of other types (`summary`) are skipped, " +
    "and so is the `toolUseResult` copy of tool output (the model never sees it). Lines are taken in file order. `isMeta` user lines are kept (the model saw them). " +
    "Content blocks are kept as they are (Anthropic's own), `caller` and `is_error` included.",
  "**SWE-agent `.traj`** (0.x, text actions): the system prompt is `history[0]`; the user messages of `history` before the first " +
    "assistant message (the in-context demonstration, `is_demo`, and the issue) are the task. Each `trajectory` step becomes an " +
    "assistant message (its `thought` as text, its `action` as a call of a tool `bash` with input `{ command: action }`, ids `swe_1`, `swe_2`, ...) and " +
    `the tool result (its \`observation\`; an empty one becomes \`${SWE_AGENT_EMPTY_OBSERVATION}\`, the text SWE-agent showed the model).`,
  "**OpenHands JSONL** (one record per line, events in `history`; the same rules as the README of realdata for its OpenAI body): " +
    "the `system` action's `args.content` is the system prompt; the user's `message` action is a user message; an agent action with " +
    "`tool_call_metadata` is an assistant message built from `model_response.choices[0].message` (its `content`, and its `tool_calls` " +
    "with `id`, `function.name`, `function.arguments`), once per `model_response.id`; an observation with `tool_call_metadata` is the " +
    "tool result of `tool_call_id` (for `run`: `extras.metadata.prefix + content + extras.metadata.suffix`, as OpenHands renders it; " +
    "otherwise `content`); an `error` observation without a tool call is a user message; `recall` events are skipped.",
  "**OpenAI request body** (`*.openai_chat.json`): its `messages` as they are for the OpenAI format; read like any OpenAI Chat list for " +
    "the other formats (system/developer messages are the system prompt, `arguments` parsed as JSON).",
  "**Every source, then:** empty or whitespace-only texts are dropped; same-role neighbours are merged (consecutive assistant " +
    "messages into one, consecutive user messages into one; tool results are never merged into user words in the neutral list); " +
    "a trailing unanswered tool call (the last assistant message's calls with no result after them, e.g. OpenHands' `finish`) is dropped, " +
    "and the message with it when nothing else is left.",
  "**Anthropic writer:** the system prompt goes outside the list (`system`, counted in the tokens); a run of tool results and user words " +
    "becomes one `user` message (tool_result blocks first, in order), so roles alternate and start with `user`; a user message of a single " +
    "text is a string; Claude Code blocks are written back as they were; a result's `is_error` is kept.",
  "**OpenAI writer:** `system` message first; an assistant message has `content` (its texts joined by a blank line, `null` without text) " +
    "and `tool_calls` (`arguments` = the source's string, or `JSON.stringify(input)`); each result is a `tool` message (`content` a string: " +
    "text blocks joined by a newline, other blocks as `[type name]`); user images become `image_url` parts with a data URL.",
  "**AI SDK writer:** `system` message first; assistant parts `text`, `reasoning`, `tool-call` (`input` an object); the results of one " +
    "step are one `tool` message of `tool-result` parts with `toolName` and `output: { type: \"text\", value }` (`\"error-text\"` where " +
    "the source marks an error); user images become `image` parts (base64 string + `mediaType`).",
];

// ---------------------------------------------------------------------------------------------
// Readers (source → neutral)

/** Claude Code session JSONL → neutral session. */
export function fromClaudeCode(text, { id, file } = {}) {
  const entries = text
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line));
  const conversation = entries.filter(
    (entry) => (entry.type === "user" || entry.type === "assistant") && entry.message && typeof entry.message.role === "string",
  );
  const sidechainOnly = conversation.length > 0 && conversation.every((entry) => entry.isSidechain === true);
  const thread = sidechainOnly ? conversation : conversation.filter((entry) => entry.isSidechain !== true);
  const names = new Map();
  const messages = [];
  for (const entry of thread) {
    const { role, content } = entry.message;
    // When the line was written (seconds): the loop replay takes the gaps between model calls from it.
    const time = Number.isFinite(Date.parse(entry.timestamp)) ? Date.parse(entry.timestamp) / 1000 : undefined;
    if (role === "assistant") {
      const parts = [];
      for (const block of typeof content === "string" ? [{ type: "text", text: content }] : content) {
        if (block.type === "text") parts.push({ type: "text", text: block.text, raw: block });
        else if (block.type === "tool_use") {
          names.set(block.id, block.name);
          parts.push({ type: "tool_call", id: block.id, name: block.name, input: block.input, raw: block });
        } else if (block.type === "thinking" || block.type === "redacted_thinking") parts.push({ type: "thinking", raw: block });
        else parts.push({ type: "other", raw: block });
      }
      messages.push({ role: "assistant", parts, time });
    } else {
      let user = [];
      const flush = () => {
        if (user.length) messages.push({ role: "user", parts: user, time });
        user = [];
      };
      for (const block of typeof content === "string" ? [{ type: "text", text: content }] : content) {
        if (block.type === "tool_result") {
          flush();
          messages.push({ role: "tool", id: block.tool_use_id, name: names.get(block.tool_use_id) ?? "unknown", content: block.content ?? "", isError: block.is_error === true, raw: block, time });
        } else if (block.type === "text") user.push({ type: "text", text: block.text, raw: block });
        else if (block.type === "image" && block.source?.type === "base64") user.push({ type: "image", mediaType: block.source.media_type, data: block.source.data, raw: block });
        else user.push({ type: "other", raw: block });
      }
      flush();
    }
  }
  const notes = [
    sidechainOnly ? `sidechain file: all ${thread.length} lines` : `main thread: ${thread.length} of ${conversation.length} lines (${conversation.length - thread.length} sidechain lines left out)`,
  ];
  const label = sidechainOnly ? `${id} (sub-agent)` : id;
  return normalise({ id: label, label, source: "Claude Code", file, system: null, messages, notes });
}

/** SWE-agent 0.x trajectory (.traj JSON) → neutral session. */
export function fromSweAgent(text, { id, file } = {}) {
  const traj = JSON.parse(text);
  const history = traj.history ?? [];
  const system = history.find((m) => m.role === "system")?.content ?? null;
  const firstAssistant = history.findIndex((m) => m.role === "assistant");
  const messages = [];
  for (const m of history.slice(0, firstAssistant < 0 ? history.length : firstAssistant)) {
    if (m.role === "user") messages.push({ role: "user", parts: [{ type: "text", text: m.content }] });
  }
  traj.trajectory.forEach((step, index) => {
    const callId = `swe_${index + 1}`;
    messages.push({
      role: "assistant",
      parts: [{ type: "text", text: step.thought ?? "" }, { type: "tool_call", id: callId, name: "bash", input: { command: step.action } }],
    });
    messages.push({ role: "tool", id: callId, name: "bash", content: step.observation === "" || step.observation == null ? SWE_AGENT_EMPTY_OBSERVATION : step.observation, isError: false });
  });
  const notes = [`${traj.trajectory.length} steps; exit status ${traj.info?.exit_status ?? "?"}`];
  return normalise({ id, label: id, source: "SWE-agent", file, system, messages, notes });
}

/** One OpenHands evaluation record (an object with `history`) → neutral session. */
export function fromOpenHandsRecord(record, { id, file } = {}) {
  let system = null;
  const messages = [];
  const seenResponses = new Set();
  const skipped = new Map();
  const skip = (what) => skipped.set(what, (skipped.get(what) ?? 0) + 1);
  for (const event of record.history) {
    const meta = event.tool_call_metadata;
    if (event.action === "system") system = event.args?.content ?? event.message;
    else if (event.action === "recall" || event.observation === "recall") skip("recall");
    else if (event.action === "message" && event.source === "user") messages.push({ role: "user", parts: [{ type: "text", text: event.args?.content ?? event.message }] });
    else if (event.action && meta) {
      const response = meta.model_response;
      if (seenResponses.has(response.id)) continue;
      seenResponses.add(response.id);
      const message = response.choices[0].message;
      const parts = [];
      if (typeof message.content === "string") parts.push({ type: "text", text: message.content });
      for (const call of message.tool_calls ?? []) {
        parts.push({ type: "tool_call", id: call.id, name: call.function.name, input: parseArguments(call.function.arguments), rawArguments: call.function.arguments });
      }
      messages.push({ role: "assistant", parts });
    } else if (event.action === "message" && event.source === "agent") messages.push({ role: "assistant", parts: [{ type: "text", text: event.args?.content ?? event.message }] });
    else if (event.observation && meta) {
      const content = event.observation === "run" ? `${event.extras?.metadata?.prefix ?? ""}${event.content}${event.extras?.metadata?.suffix ?? ""}` : event.content;
      messages.push({ role: "tool", id: meta.tool_call_id, name: meta.function_name, content, isError: false });
    } else if (event.observation === "error") messages.push({ role: "user", parts: [{ type: "text", text: event.content }] });
    else skip(event.action ?? `observation ${event.observation}`);
  }
  const notes = [`${record.history.length} events${skipped.size ? `; skipped ${[...skipped].map(([k, n]) => `${n} ${k}`).join(", ")}` : ""}`];
  return normalise({ id, label: id, source: "OpenHands", file, system, messages, notes });
}

/** OpenHands evaluation output JSONL → one neutral session per record. */
export function fromOpenHands(text, { file } = {}) {
  return text
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line))
    .map((record) => fromOpenHandsRecord(record, { id: `openhands ${record.instance_id}`, file }));
}

/** OpenAI Chat Completions messages → neutral session. */
export function fromOpenAIChat(input, { id, file, source = "OpenAI body" } = {}) {
  const systems = [];
  const messages = [];
  const names = new Map();
  for (const m of input) {
    if (m.role === "system" || m.role === "developer") systems.push(textOf(m.content));
    else if (m.role === "user") {
      const parts = typeof m.content === "string" ? [{ type: "text", text: m.content }] : m.content.map(fromOpenAIPart);
      messages.push({ role: "user", parts });
    } else if (m.role === "assistant") {
      const parts = [];
      if (m.content != null) parts.push({ type: "text", text: textOf(m.content) });
      for (const call of m.tool_calls ?? []) {
        names.set(call.id, call.function.name);
        parts.push({ type: "tool_call", id: call.id, name: call.function.name, input: parseArguments(call.function.arguments), rawArguments: call.function.arguments });
      }
      messages.push({ role: "assistant", parts });
    } else if (m.role === "tool") {
      messages.push({ role: "tool", id: m.tool_call_id, name: names.get(m.tool_call_id) ?? "unknown", content: textOf(m.content), isError: false });
    }
  }
  return normalise({ id, label: id, source, file, system: systems.length ? systems.join("\n\n") : null, messages, notes: [] });
}

function fromOpenAIPart(part) {
  if (part.type === "text") return { type: "text", text: part.text };
  const url = part.type === "image_url" ? part.image_url?.url : undefined;
  const match = typeof url === "string" ? /^data:([^;,]+);base64,(.*)$/s.exec(url) : null;
  if (match) return { type: "image", mediaType: match[1], data: match[2] };
  return { type: "other", raw: part };
}

const textOf = (content) => (typeof content === "string" ? content : Array.isArray(content) ? content.filter((p) => p.type === "text").map((p) => p.text).join("\n") : "");

function parseArguments(text) {
  try {
    const value = JSON.parse(text);
    return value !== null && typeof value === "object" && !Array.isArray(value) ? value : { value };
  } catch {
    return { arguments: text };
  }
}

/** The rules every source shares: empty texts out, same-role neighbours merged, a trailing unanswered call dropped. */
function normalise(session) {
  const out = [];
  for (const message of session.messages) {
    if (message.role !== "tool") {
      const parts = message.parts.filter((p) => p.type !== "text" || p.text.trim() !== "");
      if (!parts.length) continue;
      const last = out[out.length - 1];
      if (last && last.role === message.role) last.parts = [...last.parts, ...parts];
      else out.push({ ...message, parts });
    } else out.push(message);
  }
  // A trailing unanswered call: the last assistant message, followed by nothing but tool results.
  let lastAssistant = out.length - 1;
  while (lastAssistant >= 0 && out[lastAssistant].role === "tool") lastAssistant -= 1;
  if (lastAssistant >= 0 && out[lastAssistant].role === "assistant") {
    const answered = new Set(out.slice(lastAssistant + 1).map((m) => m.id));
    const dropped = out[lastAssistant].parts.filter((p) => p.type === "tool_call" && !answered.has(p.id));
    if (dropped.length) {
      out[lastAssistant] = { ...out[lastAssistant], parts: out[lastAssistant].parts.filter((p) => !dropped.includes(p)) };
      if (!out[lastAssistant].parts.length) out.splice(lastAssistant, 1);
      session.notes.push(`dropped the trailing unanswered call${dropped.length > 1 ? "s" : ""} ${dropped.map((p) => `${p.name} (${p.id})`).join(", ")}`);
    }
  }
  return { ...session, messages: out };
}

// ---------------------------------------------------------------------------------------------
// Writers (neutral → format)

/** Neutral → Anthropic Messages: `{ system, messages }` (system outside the list, possibly null). */
export function toAnthropic(session) {
  const messages = [];
  let user = null;
  const flush = () => {
    if (user) messages.push({ role: "user", content: user.length === 1 && user[0].type === "text" && !user[0].cache_control ? user[0].text : user });
    user = null;
  };
  for (const m of session.messages) {
    if (m.role === "assistant") {
      flush();
      messages.push({ role: "assistant", content: m.parts.map(anthropicAssistantBlock) });
    } else if (m.role === "tool") {
      user ??= [];
      user.push(m.raw ?? { type: "tool_result", tool_use_id: m.id, content: m.content, ...(m.isError ? { is_error: true } : {}) });
    } else {
      user ??= [];
      for (const p of m.parts) {
        if (p.raw) user.push(p.raw);
        else if (p.type === "text") user.push({ type: "text", text: p.text });
        else if (p.type === "image") user.push({ type: "image", source: { type: "base64", media_type: p.mediaType, data: p.data } });
      }
    }
  }
  flush();
  return { system: session.system, messages };
}

function anthropicAssistantBlock(p) {
  if (p.raw) return p.raw;
  if (p.type === "text") return { type: "text", text: p.text };
  if (p.type === "tool_call") return { type: "tool_use", id: p.id, name: p.name, input: p.input };
  throw new Error(`no Anthropic block for a ${p.type} part`);
}

/** Neutral → OpenAI Chat Completions messages. */
export function toOpenAI(session) {
  const messages = [];
  if (session.system != null) messages.push({ role: "system", content: session.system });
  for (const m of session.messages) {
    if (m.role === "user") {
      const parts = m.parts.flatMap((p) =>
        p.type === "text"
          ? [{ type: "text", text: p.text }]
          : p.type === "image"
            ? [{ type: "image_url", image_url: { url: `data:${p.mediaType};base64,${p.data}` } }]
            : [{ type: "text", text: placeholderOf(p.raw) }],
      );
      messages.push({ role: "user", content: parts.length === 1 && parts[0].type === "text" ? parts[0].text : parts });
    } else if (m.role === "assistant") {
      const texts = m.parts.filter((p) => p.type === "text").map((p) => p.text);
      const calls = m.parts
        .filter((p) => p.type === "tool_call")
        .map((p) => ({ id: p.id, type: "function", function: { name: p.name, arguments: p.rawArguments ?? JSON.stringify(p.input) } }));
      messages.push({ role: "assistant", content: texts.length ? texts.join("\n\n") : null, ...(calls.length ? { tool_calls: calls } : {}) });
    } else {
      messages.push({ role: "tool", tool_call_id: m.id, content: resultText(m.content) });
    }
  }
  return messages;
}

/** Neutral → AI SDK ModelMessages. */
export function toAiSdk(session) {
  const messages = [];
  if (session.system != null) messages.push({ role: "system", content: session.system });
  let tool = null;
  for (const m of session.messages) {
    if (m.role === "tool") {
      if (!tool) messages.push((tool = { role: "tool", content: [] }));
      tool.content.push({ type: "tool-result", toolCallId: m.id, toolName: m.name, output: { type: m.isError ? "error-text" : "text", value: resultText(m.content) } });
      continue;
    }
    tool = null;
    if (m.role === "user") {
      const parts = m.parts.map((p) =>
        p.type === "text" ? { type: "text", text: p.text } : p.type === "image" ? { type: "image", image: p.data, mediaType: p.mediaType } : { type: "text", text: placeholderOf(p.raw) },
      );
      messages.push({ role: "user", content: parts.length === 1 && parts[0].type === "text" ? parts[0].text : parts });
    } else {
      const parts = m.parts.flatMap((p) =>
        p.type === "text"
          ? [{ type: "text", text: p.text }]
          : p.type === "tool_call"
            ? [{ type: "tool-call", toolCallId: p.id, toolName: p.name, input: p.input }]
            : p.type === "thinking" && typeof p.raw?.thinking === "string"
              ? [{ type: "reasoning", text: p.raw.thinking }]
              : [],
      );
      messages.push({ role: "assistant", content: parts });
    }
  }
  return messages;
}

const placeholderOf = (block) => `[${block?.type ?? "block"}${block?.tool_name ? ` ${block.tool_name}` : block?.name ? ` ${block.name}` : ""}]`;

/** A tool result's content as one string: text blocks joined by a newline, other blocks as `[type name]`. */
function resultText(content) {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return JSON.stringify(content);
  return content.map((b) => (b.type === "text" ? b.text : placeholderOf(b))).join("\n");
}

// ---------------------------------------------------------------------------------------------
// Provider rules

/** Problems of Anthropic Messages (empty when valid): roles alternate from `user`, every tool_use answered in the next message, unique ids. */
export function checkAnthropic(messages) {
  const problems = [];
  const seen = new Set();
  messages.forEach((m, i) => {
    if (m.role !== "user" && m.role !== "assistant") problems.push(`messages[${i}]: role ${m.role}`);
    if (i === 0 && m.role !== "user") problems.push("messages[0]: the first message is not from the user");
    if (i > 0 && messages[i - 1].role === m.role) problems.push(`messages[${i}]: two ${m.role} messages in a row`);
    if (typeof m.content === "string" ? m.content === "" : !Array.isArray(m.content) || m.content.length === 0) problems.push(`messages[${i}]: empty content`);
    if (!Array.isArray(m.content)) return;
    m.content.forEach((b, j) => {
      if (b.type === "text" && (typeof b.text !== "string" || b.text === "")) problems.push(`messages[${i}].content[${j}]: empty text`);
      if (b.type === "tool_use") {
        if (seen.has(b.id)) problems.push(`messages[${i}].content[${j}]: tool_use id ${b.id} used twice`);
        seen.add(b.id);
      }
    });
    if (m.role === "assistant") {
      const calls = m.content.filter((b) => b.type === "tool_use").map((b) => b.id);
      const next = messages[i + 1];
      const answers = new Set(next && Array.isArray(next.content) ? next.content.filter((b) => b.type === "tool_result").map((b) => b.tool_use_id) : []);
      for (const id of calls) if (!answers.has(id)) problems.push(`messages[${i}]: tool_use ${id} has no tool_result in the next message`);
    } else {
      const previous = messages[i - 1];
      const calls = new Set(previous && Array.isArray(previous.content) ? previous.content.filter((b) => b.type === "tool_use").map((b) => b.id) : []);
      let others = false;
      m.content.forEach((b, j) => {
        if (b.type !== "tool_result") others = true;
        else {
          if (!calls.has(b.tool_use_id)) problems.push(`messages[${i}].content[${j}]: tool_result ${b.tool_use_id} answers no tool_use of the previous message`);
          if (others) problems.push(`messages[${i}].content[${j}]: tool_result after other content`);
        }
      });
    }
  });
  return problems;
}

/** Problems of OpenAI Chat messages: every tool call answered by a `tool` message before the next other message (positional ids allowed). */
export function checkOpenAI(messages) {
  const problems = [];
  let pending = [];
  const close = (i) => {
    for (const id of pending) problems.push(`messages[${i}]: tool call ${id} has no result before it`);
    pending = [];
  };
  messages.forEach((m, i) => {
    if (m.role === "tool") {
      const at = pending.indexOf(m.tool_call_id);
      if (at < 0) problems.push(`messages[${i}]: tool result ${m.tool_call_id} answers no pending call`);
      else pending.splice(at, 1);
      if (typeof m.content !== "string" && !Array.isArray(m.content)) problems.push(`messages[${i}]: tool content`);
      return;
    }
    close(i);
    if (!["system", "developer", "user", "assistant"].includes(m.role)) problems.push(`messages[${i}]: role ${m.role}`);
    if (m.role === "assistant") {
      if ((m.content == null || m.content === "") && !m.tool_calls?.length) problems.push(`messages[${i}]: assistant without content or tool calls`);
      pending = (m.tool_calls ?? []).map((c) => c.id);
    } else if (m.content === "" || (Array.isArray(m.content) && !m.content.length)) problems.push(`messages[${i}]: empty content`);
  });
  close(messages.length);
  return problems;
}

/** Problems of AI SDK ModelMessages: every tool-call part answered by a tool-result part (same id and name) before the next other message. */
export function checkAiSdk(messages) {
  const problems = [];
  let pending = [];
  const close = (i) => {
    for (const c of pending) problems.push(`messages[${i}]: tool-call ${c.toolCallId} has no result before it`);
    pending = [];
  };
  messages.forEach((m, i) => {
    if (m.role === "tool") {
      if (!Array.isArray(m.content) || !m.content.length) problems.push(`messages[${i}]: empty tool message`);
      for (const [j, part] of (m.content ?? []).entries()) {
        if (part.type !== "tool-result") continue;
        const at = pending.findIndex((c) => c.toolCallId === part.toolCallId);
        if (at < 0) problems.push(`messages[${i}].content[${j}]: tool-result ${part.toolCallId} answers no pending call`);
        else {
          if (pending[at].toolName !== part.toolName) problems.push(`messages[${i}].content[${j}]: toolName ${part.toolName} differs from its call's`);
          pending.splice(at, 1);
        }
      }
      return;
    }
    close(i);
    if (!["system", "user", "assistant"].includes(m.role)) problems.push(`messages[${i}]: role ${m.role}`);
    if (m.content === "" || (Array.isArray(m.content) && !m.content.length)) problems.push(`messages[${i}]: empty content`);
    if (m.role === "assistant" && Array.isArray(m.content)) pending = m.content.filter((p) => p.type === "tool-call");
  });
  close(messages.length);
  return problems;
}

export const FORMATS = ["anthropic", "openai", "ai-sdk"];

/** Problems of `messages` in `format`. */
export const checkFormat = (format, messages) =>
  format === "anthropic" ? checkAnthropic(messages) : format === "openai" ? checkOpenAI(messages) : checkAiSdk(messages);

/**
 * The same OpenAI or AI SDK messages with the ids some OpenAI-compatible servers send: `call_0`,
 * `call_1`, ... numbered per assistant message, so every step reuses them (valid there: results
 * pair with calls by position). Issue 14, item 6.
 */
export function withReusedIds(format, messages) {
  let ids = new Map();
  return messages.map((m) => {
    if (format === "openai") {
      if (m.role === "assistant" && m.tool_calls?.length) {
        ids = new Map(m.tool_calls.map((c, k) => [c.id, `call_${k}`]));
        return { ...m, tool_calls: m.tool_calls.map((c) => ({ ...c, id: ids.get(c.id) })) };
      }
      return m.role === "tool" ? { ...m, tool_call_id: ids.get(m.tool_call_id) ?? m.tool_call_id } : m;
    }
    if (m.role === "assistant" && Array.isArray(m.content) && m.content.some((p) => p.type === "tool-call")) {
      ids = new Map(m.content.filter((p) => p.type === "tool-call").map((p, k) => [p.toolCallId, `call_${k}`]));
      return { ...m, content: m.content.map((p) => (p.type === "tool-call" ? { ...p, toolCallId: ids.get(p.toolCallId) } : p)) };
    }
    if (m.role === "tool" && Array.isArray(m.content)) {
      return { ...m, content: m.content.map((p) => (p.type === "tool-result" ? { ...p, toolCallId: ids.get(p.toolCallId) ?? p.toolCallId } : p)) };
    }
    return m;
  });
}

// ---------------------------------------------------------------------------------------------
// The real set

/**
 * Every session of `dir` (../shared/realdata), each in every format:
 * `[{ id, source, file, notes, neutral, formats: { anthropic: { system, messages }, openai: { system: null, messages }, "ai-sdk": {...} }, duplicateOf? }]`.
 */
export function loadSessions(dir) {
  const sessions = [];
  const names = fs.readdirSync(dir).sort();
  const read = (name) => fs.readFileSync(path.join(dir, name), "utf8");
  for (const name of names) {
    if (name.endsWith(".md")) continue;
    if (name.endsWith(".openai_chat.json")) {
      const body = JSON.parse(read(name));
      const neutral = fromOpenAIChat(body.messages, { id: `openai body ${name.replace(/\.openai_chat\.json$/, "")}`, file: name });
      sessions.push({ neutral, native: { openai: body.messages } });
    } else if (name.endsWith(".traj")) {
      sessions.push({ neutral: fromSweAgent(read(name), { id: `swe-agent ${name.replace(/\.traj$/, "")}`, file: name }) });
    } else if (name.endsWith(".jsonl")) {
      const text = read(name);
      const first = JSON.parse(text.slice(0, text.indexOf("\n")));
      if (Array.isArray(first.history)) for (const neutral of fromOpenHands(text, { file: name })) sessions.push({ neutral });
      else sessions.push({ neutral: fromClaudeCode(text, { id: `claude-code ${name.replace(/\.jsonl$/, "").replace(/^agent-/, "").slice(0, 8)}`, file: name }) });
    }
  }
  const out = sessions.map(({ neutral, native }) => {
    const anthropic = toAnthropic(neutral);
    return {
      id: neutral.id,
      source: neutral.source,
      file: neutral.file,
      notes: neutral.notes,
      neutral,
      formats: {
        anthropic: { system: anthropic.system, messages: anthropic.messages },
        openai: { system: null, messages: native?.openai ?? toOpenAI(neutral) },
        "ai-sdk": { system: null, messages: toAiSdk(neutral) },
      },
    };
  });
  // The OpenAI body was made from an OpenHands record: say so when the two conversions agree.
  for (const session of out) {
    if (session.source !== "OpenAI body") continue;
    const twin = out.find((other) => other !== session && other.source === "OpenHands" && session.id.endsWith(other.id.split(" ").pop().replace(/^.*__/, "")));
    if (twin && JSON.stringify(twin.formats.openai.messages) === JSON.stringify(session.formats.openai.messages)) {
      session.duplicateOf = twin.id;
      session.notes.push(`its messages are exactly the OpenAI conversion of ${twin.id}`);
    } else if (twin) session.notes.push(`differs from the OpenAI conversion of ${twin.id}`);
  }
  return out;
}

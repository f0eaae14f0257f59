// tiered-compaction/openai-agents: a `callModelInputFilter` for the OpenAI Agents SDK
// (`run(agent, input, { callModelInputFilter })`, or `new Runner({ callModelInputFilter })`). The
// SDK calls it before every model call with the run's input items; it returns them compacted with
// the tier the pressure selects, and the system instructions as they were.
//
// Items go to the library as Responses API input items (format "responses"): the SDK's items are
// that format but for a few names (`function_call.callId` is `call_id`; a `function_call_result`
// is a `function_call_output` whose text output may be `{ type: "text", text }`; an image part's
// `image` is `image_url`). Unchanged items come back as the SDK's own objects, edited ones as
// the original with the edited field, new ones as SDK items of the same kind
// (js/integrations.mjs, "the way back"). The filter asks for `preserveInputIdentity`: it never
// mutates an item, so the SDK need not clone the input for it.
//
// State: the SDK sends a run's whole history at every call (a stateless host, SPEC §11), so the
// filter keeps each run's loop state and passes it to the next call: per run context object (the
// `context` of `run(agent, input, { context })`, which the SDK hands the filter) when the run has
// one, else in the filter itself (then use one filter per conversation, or concurrent runs would
// share it; a state made for another run's history is ignored with a warning, never misapplied).
//
// The pressure: turnCount is the filter's calls for that run so far; contextPctUsed the last model
// call's input tokens over `contextWindow` (before any, the library's estimate); idleSeconds the
// time since the filter's previous call for the run; the cache facts the last call's
// `inputTokensDetails.cached_tokens`. The SDK gives a filter no usage: it is on the run's
// RunContext (`usage.requestUsageEntries`), which the agent's own events (`agent_start`,
// `agent_tool_start`, `agent_tool_end`) hand to their listeners; the filter listens on each
// agent it sees (once per agent, for every filter) and reads the entry of the last request.
// With `previousResponseId` or `conversationId` (a conversation the server keeps) the SDK sends
// only the new items: the filter then compacts those alone, and has little to do.
import { compact, estimateTokens, init } from "tiered-compaction";
import { SOURCE, count, hostOptions, invalid, partsBack, pressureOf, typeName } from "./integrations.mjs";

/** The key of runs without a context object, in the maps below. */
const NO_CONTEXT = Object.freeze({});

/**
 * The SDK's RunContext of each run, learned from the agents' events: by the run's context object
 * (any agent of the run, so a handoff keeps it), and per agent for runs without one.
 */
const runContexts = new WeakMap();
const bareRunContexts = new WeakMap();
const watched = new WeakSet();

/**
 * A `callModelInputFilter` that compacts each model call's input items (see the file's header).
 * @param {object} options see openai-agents.d.ts
 */
export function compactionFilter(options) {
  const host = hostOptions(options);
  const sessionId = host.sessionId ?? `openai-agents-${Math.random().toString(36).slice(2, 10)}`;
  const runs = new WeakMap();

  const filter = async ({ modelData, agent, context }) => {
    if (modelData === null || typeof modelData !== "object" || !Array.isArray(modelData.input)) {
      throw invalid("modelData.input", `must be an array of input items, got ${typeName(modelData?.input)}`);
    }
    watch(agent);
    const key = keyOf(context);
    let run = runs.get(key);
    if (run === undefined) {
      run = { calls: 0, last: null, inputTokens: null, state: undefined };
      runs.set(key, run);
    }
    const time = host.now();
    const idleSeconds = run.last === null ? 0 : Math.max(0, (time - run.last) / 1000);
    run.last = time;
    const request = lastRequest(agent, key);
    if (count(request?.inputTokens) !== undefined && request.inputTokens > 0) run.inputTokens = request.inputTokens;
    const items = modelData.input;
    const converted = items.map(toResponses);
    await init();
    const pressure = pressureOf({
      turnCount: run.calls,
      usedTokens: run.inputTokens ?? estimateTokens(JSON.stringify(converted) ?? ""),
      contextWindow: host.contextWindow,
      idleSeconds,
      cachedTokens: count(request?.inputTokensDetails?.cached_tokens),
    });
    run.calls += 1;
    const ctx = { sessionId, pressure, messages: converted, format: "responses", state: run.state };
    if (host.costPer1kTokens !== undefined) ctx.costPer1kTokens = host.costPer1kTokens;
    const result = await compact(ctx, host.compactOptions);
    run.state = result.state;
    const input = result.messages.map((item) => back(item, converted, items));
    if (host.onCompact !== undefined) await host.onCompact(result, { pressure, input, agent, context });
    return { ...modelData, input };
  };
  filter.preserveInputIdentity = true;
  return filter;
}

/** Listens, once per agent, for the events that carry the run's RunContext. */
function watch(agent) {
  if (agent === null || typeof agent !== "object" || typeof agent.on !== "function" || watched.has(agent)) return;
  watched.add(agent);
  const learn = (runContext) => {
    if (runContext === null || typeof runContext !== "object" || typeof runContext.usage !== "object") return;
    const key = keyOf(runContext.context);
    if (key === NO_CONTEXT) bareRunContexts.set(agent, runContext);
    else runContexts.set(key, runContext);
  };
  for (const event of ["agent_start", "agent_tool_start", "agent_tool_end"]) agent.on(event, learn);
}

/** The usage of the run's last model request (an SDK RequestUsage), when the SDK has told. */
function lastRequest(agent, key) {
  const runContext = key === NO_CONTEXT ? bareRunContexts.get(agent) : runContexts.get(key);
  const entries = runContext?.usage?.requestUsageEntries;
  return Array.isArray(entries) ? entries.at(-1) : undefined;
}

/** Where a run's state and RunContext are kept: its context object, else NO_CONTEXT. */
function keyOf(context) {
  return context !== null && (typeof context === "object" || typeof context === "function") ? context : NO_CONTEXT;
}

/** An SDK input item as a Responses API input item carrying its index (SOURCE). */
function toResponses(item, index) {
  if (item === null || typeof item !== "object" || Array.isArray(item)) throw invalid(`input[${index}]`, `must be an object (an input item), got ${typeName(item)}`);
  let converted;
  if (item.type === "function_call") {
    const { callId, ...rest } = item;
    converted = { ...rest, call_id: callId };
  } else if (item.type === "function_call_result") {
    const { callId, output, ...rest } = item;
    converted = { ...rest, type: "function_call_output", call_id: callId, output: outputToWire(output) };
  } else if ((item.type === undefined || item.type === "message") && Array.isArray(item.content)) {
    converted = { ...item, content: item.content.map(partToWire) };
  } else {
    converted = { ...item };
  }
  converted[SOURCE] = index;
  return converted;
}

/** A tool's output: a string, `{ type: "text", text }` (its text), or a list of parts. */
function outputToWire(output) {
  if (output !== null && typeof output === "object" && !Array.isArray(output) && output.type === "text" && typeof output.text === "string") return output.text;
  return Array.isArray(output) ? output.map(partToWire) : output;
}

/** An SDK content part in the Responses API's names (`image` -> `image_url` / `file_id`, `file` -> `file_data` / `file_url` / `file_id`). */
function partToWire(part) {
  if (part === null || typeof part !== "object") return part;
  if (part.type === "input_image" && part.image !== undefined) {
    const { image, ...rest } = part;
    if (typeof image === "string") return { ...rest, image_url: image };
    if (typeof image?.id === "string") return { ...rest, file_id: image.id };
  }
  if (part.type === "input_file" && part.file !== undefined) {
    const { file, ...rest } = part;
    if (typeof file === "string") return { ...rest, [file.startsWith("data:") ? "file_data" : "file_url"]: file };
    if (typeof file?.id === "string") return { ...rest, file_id: file.id };
    if (typeof file?.url === "string") return { ...rest, file_url: file.url };
  }
  return part;
}

/** A part the library wrote, in the SDK's names (text parts need none). */
function partFromWire(part) {
  if (part === null || typeof part !== "object") return part;
  if (part.type === "input_image" && typeof part.image_url === "string") {
    const { image_url: image, ...rest } = part;
    return { ...rest, image };
  }
  return part;
}

/** An output item as the SDK item it stands for (js/integrations.mjs, "the way back"). */
function back(output, converted, items) {
  const index = output[SOURCE];
  if (Number.isInteger(index) && index >= 0 && index < items.length) {
    if (output === converted[index]) return items[index];
    return rebuilt(items[index], converted[index], output);
  }
  return created(output, converted);
}

/** The original item with what the library edited: a call's arguments, a result's output, a message's content. */
function rebuilt(original, input, output) {
  switch (original.type) {
    case "function_call":
      return { ...original, arguments: output.arguments };
    case "function_call_result": {
      const was = original.output;
      if (typeof output.output === "string" && was !== null && typeof was === "object" && !Array.isArray(was) && was.type === "text") {
        return { ...original, output: { ...was, text: output.output } };
      }
      return { ...original, output: partsBack(was, input.output, output.output, partFromWire) };
    }
    default:
      return { ...original, content: partsBack(original.content, input.content, output.content, partFromWire) };
  }
}

/** An item the library wrote (a summary, a repair's result), as an SDK item of its kind. */
function created(output, converted) {
  if (output.type === "function_call_output") {
    const call = converted.find((item) => item.type === "function_call" && item.call_id === output.call_id);
    return { type: "function_call_result", callId: output.call_id, name: call?.name ?? "", status: "completed", output: partsBack(undefined, undefined, output.output, partFromWire) };
  }
  if (output.type !== undefined && output.type !== "message") return output;
  const content = output.content;
  if (output.role === "assistant") {
    return { type: "message", role: "assistant", status: "completed", content: typeof content === "string" ? [{ type: "output_text", text: content }] : content.map(partFromWire) };
  }
  if (output.role === "system" || output.role === "developer") {
    return { type: "message", role: "system", content: typeof content === "string" ? content : content.map((part) => part?.text ?? "").join("\n") };
  }
  return { type: "message", role: "user", content: typeof content === "string" ? content : content.map(partFromWire) };
}

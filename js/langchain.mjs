// tiered-compaction/langchain: a LangChain v1 agent middleware (`createAgent({ middleware })`)
// that compacts the messages of each model call with the tier the pressure selects.
//
// The hook is `wrapModelCall`: it replaces the messages of one model call and leaves the agent's
// history whole, as LangChain's own contextEditingMiddleware does (a `beforeModel` hook can only
// write the history itself: replacing messages there, as summarizationMiddleware does, loses the
// originals for every later call and for the host). It returns a `Command` that writes the loop's
// state into the agent's state (`stateSchema`, key `tieredCompaction`), so a checkpointer keeps it
// with the thread and the next call, in this process or another, repeats the earlier calls'
// decisions byte for byte (SPEC §11: the agent sends its whole history at every call, a stateless
// host).
//
// The pressure comes from the history: turnCount is the model calls so far (its AI messages);
// contextPctUsed the last AI message's usage_metadata.input_tokens over the context window (before
// any, the library's estimate of the messages); idleSeconds the time since the previous call of
// this middleware on the thread (kept in the state; 0 on the first); the cache facts are the last
// call's usage_metadata.input_token_details (cache_read + cache_creation).
//
// LangChain messages go to the library as OpenAI Chat messages (format "openai") and come back as
// LangChain messages: unchanged ones are the agent's own objects; edited ones are rebuilt from the
// original with the edited content or tool call arguments, keeping every other field (id, name,
// additional_kwargs, response_metadata, artifact, ...); new ones (a summary) are new messages of
// the role the library wrote (js/integrations.mjs, "the way back").
import { compact, estimateTokens, init } from "tiered-compaction";
import { AIMessage, HumanMessage, SystemMessage, ToolMessage, createMiddleware } from "langchain";
import { Command } from "@langchain/langgraph";
import { z } from "zod";
import { SOURCE, checkWindow, count, hostOptions, invalid, outOfRange, partsBack, pressureOf, sumCounts, typeName } from "./integrations.mjs";

/** Where the middleware keeps the loop's state in the agent's state. */
const STATE_KEY = "tieredCompaction";

/** Fields of a LangChain message carried into a rebuilt one (besides what the library edited). */
const FIELDS = ["content", "id", "name", "additional_kwargs", "response_metadata", "tool_calls", "invalid_tool_calls", "usage_metadata", "tool_call_id", "status", "artifact", "metadata", "role"];

/** Options of this middleware; LangChain's words where they mean what ours do, then ours. */
const OPTION_KEYS = new Set(["trigger", "keep", "excludeTools", "contextWindow", "sessionId", "compactOptions", "costPer1kTokens", "onCompact", "now"]);

/** LangChain option words that mean something else here, with what to use instead. */
const OTHER_WORDS = {
  model: "pass a summariser as options.compactOptions.summarise (without one, auto writes a structural digest)",
  summaryPrompt: "use options.compactOptions.instructions",
  tokenCounter: "use options.compactOptions.countTokens (text -> tokens)",
  placeholder: "the library writes its own stubs, which keep a body's head, error lines and paths and name the archive entry",
  clearToolInputs: "micro stubs long tool inputs by itself (policy.microBodyThresholdChars)",
};

/**
 * A LangChain v1 middleware that compacts each model call's messages (see the file's header).
 * @param {object} [options] see langchain.d.ts
 */
export function compactionMiddleware(options = {}) {
  const host = hostOptions(options, { windowOptional: true });
  for (const key of Object.keys(options)) {
    if (OPTION_KEYS.has(key) || options[key] === undefined) continue;
    throw invalid(`options.${key}`, Object.hasOwn(OTHER_WORDS, key) ? `is not an option of this middleware: ${OTHER_WORDS[key]}` : "is not an option of this middleware");
  }
  const trigger = parseTrigger(options.trigger);
  const keep = parseKeep(options.keep);
  const excludeTools = parseExcludeTools(options.excludeTools);
  const policy = host.compactOptions?.policy;
  for (const [given, word, field] of [[trigger, "trigger", "autoContextPct"], [keep, "keep", "keepRecentSteps"], [excludeTools, "excludeTools", "excludeTools"]]) {
    if (given !== undefined && policy !== null && typeof policy === "object" && policy[field] !== undefined) {
      throw invalid(`options.${word}`, `and options.compactOptions.policy.${field} set the same thing: give one of them`);
    }
  }

  return createMiddleware({
    name: "TieredCompactionMiddleware",
    stateSchema: z.object({
      [STATE_KEY]: z.object({ state: z.unknown().optional(), lastCallMs: z.number().optional() }).optional(),
    }),
    wrapModelCall: async (request, handler) => {
      const history = request.messages;
      if (!Array.isArray(history) || history.length === 0) return handler(request);
      const time = host.now();
      const saved = request.state?.[STATE_KEY];
      const contextWindow = host.contextWindow ?? profileWindow(request.model);
      const converted = history.map(toOpenAI);
      await init();
      const last = history.findLast((message) => typeOf(message) === "ai");
      const usage = last?.usage_metadata;
      const details = usage?.input_token_details;
      const pressure = pressureOf({
        turnCount: history.filter((message) => typeOf(message) === "ai").length,
        usedTokens: count(usage?.input_tokens) ?? estimateTokens(JSON.stringify(converted) ?? ""),
        contextWindow,
        idleSeconds: typeof saved?.lastCallMs === "number" ? Math.max(0, (time - saved.lastCallMs) / 1000) : 0,
        cachedTokens: sumCounts(details?.cache_read, details?.cache_creation),
      });
      const sessionId = host.sessionId ?? threadId(request.runtime) ?? "langchain";
      const ctx = { sessionId, pressure, messages: converted, format: "openai", state: saved?.state ?? undefined };
      if (host.costPer1kTokens !== undefined) ctx.costPer1kTokens = host.costPer1kTokens;
      const result = await compact(ctx, compactOptionsFor(host.compactOptions, { trigger, keep, excludeTools, contextWindow }));
      const messages = result.messages.map((message) => back(message, converted, history));
      if (host.onCompact !== undefined) await host.onCompact(result, { pressure, messages });
      const response = await handler({ ...request, messages });
      // A structured response (not an AI message) goes back as it is: a Command in its place would
      // drop it. The state then waits for the next call that answers with an AI message.
      if (!AIMessage.isInstance(response)) return response;
      return new Command({ update: { [STATE_KEY]: { state: result.state ?? null, lastCallMs: time } } });
    },
  });
}

/** The options of compact() with `trigger`, `keep` and `excludeTools` written into the policy. */
function compactOptionsFor(compactOptions, { trigger, keep, excludeTools, contextWindow }) {
  if (trigger === undefined && keep === undefined && excludeTools === undefined) return compactOptions;
  const policy = { ...compactOptions?.policy };
  if (trigger !== undefined) policy.autoContextPct = autoContextPct(trigger, contextWindow);
  if (keep !== undefined) policy.keepRecentSteps = keep;
  if (excludeTools !== undefined) policy.excludeTools = excludeTools;
  return { ...compactOptions, policy };
}

/**
 * `trigger` as LangChain reads it (summarizationMiddleware, ClearToolUsesEdit): one condition or
 * a list, any of which fires; within one, every field must hold. Here it says when auto (the
 * summarising tier) fires, as a share of the window: `fraction`, or `tokens` of the window.
 * `messages` has no meaning here (tiers are chosen by the context's share of the window).
 */
function parseTrigger(trigger) {
  if (trigger === undefined) return undefined;
  const listed = Array.isArray(trigger);
  const conditions = listed ? trigger : [trigger];
  if (conditions.length === 0) throw outOfRange("options.trigger", "must hold at least one condition");
  return conditions.map((condition, index) => {
    const path = listed ? `options.trigger[${index}]` : "options.trigger";
    if (condition === null || typeof condition !== "object" || Array.isArray(condition)) {
      throw invalid(path, `must be an object such as { fraction: 0.7 } or { tokens: 140000 }, got ${typeName(condition)}`);
    }
    for (const [key, value] of Object.entries(condition)) {
      if (value === undefined || key === "fraction" || key === "tokens") continue;
      if (key === "messages") {
        throw invalid(`${path}.messages`, "is not supported: the tier is chosen by the context's share of the window; give fraction or tokens");
      }
      throw invalid(`${path}.${key}`, "is not a trigger field (fraction, tokens)");
    }
    const { fraction, tokens } = condition;
    if (fraction === undefined && tokens === undefined) throw invalid(path, "must give fraction or tokens");
    if (fraction !== undefined) {
      if (typeof fraction !== "number") throw invalid(`${path}.fraction`, `must be a number, got ${typeName(fraction)}`);
      if (!(fraction > 0 && fraction <= 1)) throw outOfRange(`${path}.fraction`, `must be in (0, 1], got ${fraction}`);
    }
    if (tokens !== undefined) {
      if (typeof tokens !== "number") throw invalid(`${path}.tokens`, `must be a number, got ${typeName(tokens)}`);
      if (!(Number.isFinite(tokens) && tokens > 0)) throw outOfRange(`${path}.tokens`, `must be a finite number > 0, got ${tokens}`);
    }
    return { path, fraction, tokens };
  });
}

/** The trigger as `policy.autoContextPct`: each condition's larger threshold, the least of them. */
function autoContextPct(conditions, contextWindow) {
  return Math.min(
    ...conditions.map(({ path, fraction, tokens }) => {
      if (tokens !== undefined && tokens > contextWindow) {
        throw outOfRange(`${path}.tokens`, `must be at most the context window (${contextWindow} tokens), got ${tokens}`);
      }
      return Math.max(fraction ?? 0, tokens === undefined ? 0 : tokens / contextWindow);
    }),
  );
}

/**
 * `keep: { messages: N }`: the newest N steps (a model call and its tool results) stay whole, so
 * at least the N newest tool results (ClearToolUsesEdit's keep) and the N newest messages
 * (summarizationMiddleware's). `policy.keepRecentSteps`; at least 1.
 */
function parseKeep(keep) {
  if (keep === undefined) return undefined;
  if (keep === null || typeof keep !== "object" || Array.isArray(keep)) throw invalid("options.keep", `must be an object such as { messages: 3 }, got ${typeName(keep)}`);
  for (const [key, value] of Object.entries(keep)) {
    if (value === undefined || key === "messages") continue;
    if (key === "tokens" || key === "fraction") {
      throw invalid(`options.keep.${key}`, "is not supported: the protected tail is counted in steps; give messages (the newest N steps stay whole)");
    }
    throw invalid(`options.keep.${key}`, "is not a keep field (messages)");
  }
  const { messages } = keep;
  if (messages === undefined) throw invalid("options.keep", "must give messages");
  if (typeof messages !== "number") throw invalid("options.keep.messages", `must be a number, got ${typeName(messages)}`);
  if (!Number.isInteger(messages) || messages < 1) throw outOfRange("options.keep.messages", `must be an integer >= 1, got ${messages}`);
  return messages;
}

/** `excludeTools` (ClearToolUsesEdit's): tool names whose calls and results are never compacted. */
function parseExcludeTools(excludeTools) {
  if (excludeTools === undefined) return undefined;
  if (!Array.isArray(excludeTools)) throw invalid("options.excludeTools", `must be an array of tool names, got ${typeName(excludeTools)}`);
  excludeTools.forEach((name, index) => {
    if (typeof name !== "string") throw invalid(`options.excludeTools[${index}]`, `must be a string, got ${typeName(name)}`);
  });
  return [...excludeTools];
}

/** The model's context window from its LangChain profile, as LangChain's fraction triggers read it. */
function profileWindow(model) {
  let limit;
  try {
    limit = model?.profile?.maxInputTokens;
  } catch {
    // A model whose profile cannot be read: the option is then required.
  }
  if (limit === undefined || limit === null) {
    throw invalid("options.contextWindow", "is required: the model's profile gives no maxInputTokens to take it from");
  }
  return checkWindow(limit, "model.profile.maxInputTokens");
}

function threadId(runtime) {
  const id = runtime?.configurable?.thread_id;
  return id === undefined || id === null ? undefined : String(id);
}

/** A LangChain message's type ("human", "ai", "system", "tool", "generic", ...). */
function typeOf(message) {
  return message?.type ?? (typeof message?._getType === "function" ? message._getType() : undefined);
}

const ROLE_OF_TYPE = { human: "user", ai: "assistant", system: "system", developer: "developer", tool: "tool" };
const ROLE_OF_GENERIC = { user: "user", human: "user", assistant: "assistant", ai: "assistant", system: "system", developer: "developer" };

/** A LangChain message as an OpenAI Chat message carrying its index (SOURCE). */
function toOpenAI(message, index) {
  const type = typeOf(message);
  const role = type === "generic" ? ROLE_OF_GENERIC[message.role] : ROLE_OF_TYPE[type];
  if (role === undefined) {
    throw invalid(`messages[${index}]`, `is a LangChain message of type ${JSON.stringify(type ?? typeName(message))}${type === "generic" ? ` with role ${JSON.stringify(message.role)}` : ""}: expected human, ai, system, developer or tool`);
  }
  const converted = { role, content: message.content };
  if (role === "assistant" && Array.isArray(message.tool_calls) && message.tool_calls.length > 0) {
    // The arguments as LangChain holds them, an object: the library keeps an object an object.
    converted.tool_calls = message.tool_calls.map((call) => ({ id: call.id, type: "function", function: { name: call.name, arguments: call.args ?? {} } }));
  }
  if (role === "tool") converted.tool_call_id = message.tool_call_id;
  converted[SOURCE] = index;
  return converted;
}

/** An output message as the LangChain message it stands for (the file's header). */
function back(output, converted, history) {
  const index = output[SOURCE];
  if (Number.isInteger(index) && index >= 0 && index < history.length) {
    if (output === converted[index]) return history[index];
    return rebuilt(history[index], converted[index], output);
  }
  return created(output, converted);
}

/** The original with what the library edited: its content, its tool calls (stubbed arguments, a call a repair removed). */
function rebuilt(original, input, output) {
  const fields = {};
  for (const key of FIELDS) if (original[key] !== undefined) fields[key] = original[key];
  fields.content = partsBack(original.content, input.content, output.content ?? "", (part) => part);
  if (Array.isArray(original.tool_calls) && original.tool_calls.length > 0) {
    const calls = new Map(original.tool_calls.map((call) => [call.id, call]));
    fields.tool_calls = (output.tool_calls ?? []).map((call) => {
      const args = call.function?.arguments;
      const before = calls.get(call.id);
      return { ...before, args: JSON.stringify(args) === JSON.stringify(before?.args ?? {}) ? before.args : args };
    });
  }
  return new original.constructor(fields);
}

/** A message the library wrote (a summary, a repair's result), as a LangChain message of its role. */
function created(output, converted) {
  const content = output.content ?? "";
  switch (output.role) {
    case "assistant":
      return new AIMessage({
        content,
        tool_calls: (output.tool_calls ?? []).map((call) => ({ id: call.id, name: call.function?.name, args: call.function?.arguments ?? {}, type: "tool_call" })),
      });
    case "tool": {
      const call = converted.flatMap((message) => message.tool_calls ?? []).find((candidate) => candidate.id === output.tool_call_id);
      return new ToolMessage({ content, tool_call_id: output.tool_call_id, ...(call ? { name: call.function.name } : {}) });
    }
    case "system":
    case "developer":
      return new SystemMessage({ content });
    default:
      return new HumanMessage({ content });
  }
}

// What the host integrations (tiered-compaction/ai-sdk, /langchain and /openai-agents) share:
// their common options checked with errors that name the field, the budget pressure built from a
// model call's facts, and (LangChain, OpenAI Agents) the way back from compacted wire messages to
// the framework's own.
//
// The way back: each framework message is converted to a wire message carrying its index in the
// history under SOURCE (a field the library passes through untouched, and never counts). The
// library hands back unchanged messages as the very objects it was given, so an output message
// that is its input's converted object stands for the framework's original, as it was; one that
// carries SOURCE but is a new object is that message edited (a stub, a repair), rebuilt from the
// original with the edited fields; one without SOURCE is new (a summary, a repair's result).
// The index is a function of the history alone (it only grows at its end), so the converted
// messages, and with them the loop's state and the output bytes, are the same from call to call.

/** The field that carries a converted message's index in the framework's history. */
export const SOURCE = "tcSource";

/**
 * The options every integration takes, checked: `contextWindow` (required unless `windowOptional`),
 * `sessionId`, `compactOptions`, `costPer1kTokens`, `onCompact`, `now`. Returns them with defaults.
 */
export function hostOptions(options, { windowOptional = false } = {}) {
  if (options === null || typeof options !== "object") throw invalid("options", `must be an object, got ${typeName(options)}`);
  const { contextWindow, sessionId, compactOptions, costPer1kTokens, onCompact, now = Date.now } = options;
  if (contextWindow !== undefined || !windowOptional) checkWindow(contextWindow, "options.contextWindow");
  if (sessionId !== undefined && typeof sessionId !== "string") throw invalid("options.sessionId", `must be a string, got ${typeName(sessionId)}`);
  if (compactOptions !== undefined && (compactOptions === null || typeof compactOptions !== "object" || Array.isArray(compactOptions))) {
    throw invalid("options.compactOptions", `must be an object (the options of compact()), got ${typeName(compactOptions)}`);
  }
  if (costPer1kTokens !== undefined) {
    if (typeof costPer1kTokens !== "number") throw invalid("options.costPer1kTokens", `must be a number, got ${typeName(costPer1kTokens)}`);
    if (!Number.isFinite(costPer1kTokens) || costPer1kTokens < 0) throw outOfRange("options.costPer1kTokens", `must be a finite number >= 0, got ${costPer1kTokens}`);
  }
  if (onCompact !== undefined && typeof onCompact !== "function") throw invalid("options.onCompact", `must be a function, got ${typeName(onCompact)}`);
  if (typeof now !== "function") throw invalid("options.now", `must be a function, got ${typeName(now)}`);
  return { contextWindow, sessionId, compactOptions, costPer1kTokens, onCompact, now };
}

/** Checks a context window in tokens (a finite number > 0), naming `path`. */
export function checkWindow(value, path) {
  if (typeof value !== "number") throw invalid(path, `must be a number (the model's context window in tokens), got ${typeName(value)}`);
  if (!Number.isFinite(value) || value <= 0) throw outOfRange(path, `must be a finite number > 0, got ${value}`);
  return value;
}

/**
 * The pressure of one model call. `usedTokens`: the last call's input tokens as the provider
 * counted them, else the library's estimate of this call's messages; `cachedTokens`: what the
 * provider reported as read from and written to its prompt cache on the last call, when it did
 * (then the window puts it on the library's scale, SPEC §11).
 */
export function pressureOf({ turnCount, usedTokens, contextWindow, idleSeconds, cachedTokens }) {
  const pressure = { turnCount, contextPctUsed: Math.min(1, usedTokens / contextWindow), idleSeconds, sessionComplete: false };
  if (cachedTokens !== undefined) Object.assign(pressure, { cachedTokens, contextWindowTokens: contextWindow });
  return pressure;
}

/** A token count a provider reported: a finite number >= 0, else undefined. */
export function count(value) {
  return typeof value === "number" && Number.isFinite(value) && value >= 0 ? value : undefined;
}

/** The sum of the counts given, or undefined when none is one. */
export function sumCounts(...values) {
  const counts = values.map(count).filter((value) => value !== undefined);
  return counts.length === 0 ? undefined : counts.reduce((sum, value) => sum + value, 0);
}

/**
 * Content parts on the way back: where the library left a part as it was (JSON-equal to the
 * converted part at the same index of an edited message), the framework's original part;
 * otherwise `back(part)`, the framework's shape of the library's part.
 */
export function partsBack(original, converted, output, back) {
  if (!Array.isArray(output)) return output;
  const aligned = Array.isArray(original) && Array.isArray(converted) && converted.length === output.length;
  return output.map((part, index) => (aligned && JSON.stringify(part) === JSON.stringify(converted[index]) ? original[index] : back(part)));
}

/** A `TypeError` naming the field (the library's shape: `code`, `path`). */
export function invalid(path, problem) {
  const error = new TypeError(`${path} ${problem}`);
  error.code = "ERR_TC_INVALID_TYPE";
  error.path = path;
  return error;
}

/** A `RangeError` naming the field. */
export function outOfRange(path, problem) {
  const error = new RangeError(`${path} ${problem}`);
  error.code = "ERR_TC_OUT_OF_RANGE";
  error.path = path;
  return error;
}

/** A value's type in words for an error message. */
export function typeName(value) {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  return typeof value;
}

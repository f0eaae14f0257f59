// tiered-compaction/ai-sdk: a `prepareStep` for the Vercel AI SDK's generateText / streamText tool
// loops. It builds the budget pressure from the loop's own facts and compacts the step's messages
// (format "ai-sdk"); the SDK then sends the compacted list for that step.
//
//   turnCount       the model calls made so far through this helper (in one generateText call:
//                   the step number; a helper kept for a whole chat keeps counting)
//   contextPctUsed  the previous step's usage.inputTokens / contextWindow (before any step of
//                   this helper has usage: the built-in estimate of the messages)
//   idleSeconds     the time since the helper last ran, i.e. since the previous model call
//                   started (0 on the first call)
//   sessionComplete false
//
// It imports the package by its own name, so it loads through the entry point of the runtime
// (node.mjs, browser.mjs, workerd.mjs, ...); in browsers it awaits init() itself.
import { compact, estimateTokens, init } from "tiered-compaction";
import { hostOptions, pressureOf, sumCounts } from "./integrations.mjs";

/** Cached input tokens of an AI SDK step's usage (read + written), or undefined when it says nothing. */
function cachedTokens(usage) {
  const details = usage?.inputTokenDetails;
  return sumCounts(details?.cacheReadTokens ?? usage?.cachedInputTokens, details?.cacheWriteTokens);
}

/**
 * @param {{ contextWindow: number, sessionId?: string, compactOptions?: object, costPer1kTokens?: number,
 *   onCompact?: (result: object, step: { stepNumber: number, pressure: object }) => unknown, now?: () => number }} options
 */
export function prepareStep(options) {
  const checked = hostOptions(options);
  const { contextWindow, compactOptions, costPer1kTokens, onCompact, now } = checked;
  const sessionId = checked.sessionId ?? `ai-sdk-${Math.random().toString(36).slice(2, 10)}`;
  let calls = 0;
  let last = null;
  let lastInputTokens = null;
  // The loop's state (SPEC §11): prepareStep is a stateless host (the AI SDK sends the whole
  // history each step), so the helper passes each result's state to the next step.
  let state;

  return async function compactStep({ stepNumber, steps, messages }) {
    const time = now();
    const idleSeconds = last === null ? 0 : Math.max(0, (time - last) / 1000);
    last = time;
    const usage = Array.isArray(steps) && steps.length > 0 ? steps[steps.length - 1]?.usage : undefined;
    if (typeof usage?.inputTokens === "number" && usage.inputTokens >= 0) lastInputTokens = usage.inputTokens;
    await init();
    const usedTokens = lastInputTokens ?? estimateTokens(JSON.stringify(messages) ?? "");
    // The cache facts of the last step, where the provider reported them (SPEC §11): what was
    // read from and written to the prompt cache, on the provider's scale (the window puts it on
    // the library's).
    const pressure = pressureOf({ turnCount: calls, usedTokens, contextWindow, idleSeconds, cachedTokens: cachedTokens(usage) });
    calls += 1;
    const ctx = { sessionId, pressure, messages, format: "ai-sdk", state };
    if (costPer1kTokens !== undefined) ctx.costPer1kTokens = costPer1kTokens;
    const result = await compact(ctx, compactOptions);
    state = result.state;
    if (onCompact !== undefined) await onCompact(result, { stepNumber, pressure });
    return { messages: result.messages };
  };
}

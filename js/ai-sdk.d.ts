// Types of tiered-compaction/ai-sdk (an ES module; scripts/build.mjs writes ai-sdk.d.cts for
// `require`). Structural: they name no type of the `ai` package, so they need it only where it is
// used, and `prepareStep(...)` is assignable to generateText's `prepareStep` of any AI SDK version
// whose step options carry `stepNumber`, `steps[].usage.inputTokens` and `messages`.
import type { BudgetPressure, CompactOptions, MessageLike, MessagesResult } from "./index.js";

/** How the helper compacts. */
export interface PrepareStepOptions {
  /** The model's context window, in tokens: `contextPctUsed` is the last step's input tokens over it. */
  contextWindow: number;
  /** The session's id (in correlation ids and summary requests). Default: `ai-sdk-` and a random suffix. */
  sessionId?: string;
  /** Options of `compact`: `summarise`, `policy`, `countTokens`, ... */
  compactOptions?: CompactOptions;
  /** Price per 1,000 tokens in USD, for `costEstimate`. */
  costPer1kTokens?: number;
  /** Called with every step's result (its `archive` answers `recall`), before the step runs. */
  onCompact?: (result: MessagesResult<any>, step: { stepNumber: number; pressure: BudgetPressure }) => unknown;
  /** The clock, in milliseconds (default `Date.now`), for `idleSeconds`. */
  now?: () => number;
}

/** What the AI SDK passes to `prepareStep` (the fields the helper reads). */
export interface StepFacts<M extends MessageLike> {
  stepNumber: number;
  steps: ReadonlyArray<{
    usage?:
      | {
          inputTokens?: number | undefined;
          cachedInputTokens?: number | undefined;
          inputTokenDetails?: { cacheReadTokens?: number | undefined; cacheWriteTokens?: number | undefined } | undefined;
        }
      | undefined;
  }>;
  messages: M[];
}

/**
 * A `prepareStep` for `generateText` / `streamText`: compacts each step's messages with the tier
 * that the loop's pressure selects (step count, the last step's input tokens over
 * `contextWindow`, the time since the previous step, and the cache read and written on the last
 * step where the provider reports it), and returns them as `{ messages }`. The AI SDK sends the
 * whole history at each step, so the helper keeps each result's `state` and passes it to the next
 * step: stubs keep their bytes and the provider's cached prefix its hits.
 */
export function prepareStep(options: PrepareStepOptions): <M extends MessageLike>(step: StepFacts<M>) => Promise<{ messages: M[] }>;

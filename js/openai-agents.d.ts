// Types of tiered-compaction/openai-agents (an ES module; scripts/build.mjs writes
// openai-agents.d.cts for `require`). Structural: they name no type of `@openai/agents`, so they
// need it only where it is used, and `compactionFilter(...)` is assignable to `RunConfig`'s
// `callModelInputFilter` of any Agents SDK version whose filter takes `{ modelData: { input,
// instructions }, agent, context }`.
import type { BudgetPressure, CompactOptions, MessagesResult, ResponsesInputItem } from "./index.js";

/** How the filter compacts. */
export interface CompactionFilterOptions {
  /** The model's context window, in tokens: `contextPctUsed` is the last call's input tokens over it. */
  contextWindow: number;
  /** The session's id (in correlation ids and summary requests). Default: `openai-agents-` and a random suffix. */
  sessionId?: string;
  /** Options of `compact`: `summarise`, `policy`, `countTokens`, ... */
  compactOptions?: CompactOptions;
  /** Price per 1,000 tokens in USD, for `costEstimate`. */
  costPer1kTokens?: number;
  /**
   * Called with every call's result (its `archive` answers `recall`; its messages are Responses
   * API items) and the SDK items the model is sent, before the model call.
   */
  onCompact?: (result: MessagesResult<ResponsesInputItem>, call: { pressure: BudgetPressure; input: unknown[]; agent: unknown; context: unknown }) => unknown;
  /** The clock, in milliseconds (default `Date.now`), for `idleSeconds`. */
  now?: () => number;
}

/** What the SDK passes a `callModelInputFilter` (the fields the filter reads). */
export interface ModelCallFacts<Item> {
  modelData: { input: Item[]; instructions?: string | undefined };
  agent: unknown;
  context: unknown;
}

/** A `callModelInputFilter`: the call's input items compacted, the instructions as they were. */
export type CompactionFilter = (<Item>(call: ModelCallFacts<Item>) => Promise<{ input: Item[]; instructions?: string }>) & {
  /** The filter never mutates an item: the SDK need not clone the input for it. */
  readonly preserveInputIdentity: true;
};

/**
 * A `callModelInputFilter` for `run(agent, input, { callModelInputFilter })` or
 * `new Runner({ callModelInputFilter })`: compacts each model call's input items with the tier the
 * pressure selects (the filter's calls so far, the last call's input tokens over `contextWindow`,
 * the time since the last call, and the cached input tokens of the last call). The SDK sends a
 * run's whole history at every call, so the filter keeps each run's loop state, per run context
 * object (`run(agent, input, { context })`), else in the filter itself (one filter per
 * conversation): stubs keep their bytes and the provider's cached prefix its hits.
 */
export function compactionFilter(options: CompactionFilterOptions): CompactionFilter;

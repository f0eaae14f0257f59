// Types of tiered-compaction/langchain (an ES module; scripts/build.mjs writes langchain.d.cts for
// `require`). They name LangChain's own types (`langchain`, an optional peer dependency: a user of
// this entry point has it), so the middleware goes into `createAgent({ middleware })` as it is.
import type { AgentMiddleware, BaseMessage } from "langchain";
import type { BudgetPressure, CompactOptions, LoopState, MessagesResult, OpenAIChatMessage } from "./index.js";

/**
 * A condition as LangChain's `trigger` states it: every field given must hold. Here it says when
 * `auto` (the summarising tier) fires: at `fraction` of the context window, or at `tokens`.
 */
export interface TriggerCondition {
  /** A share of the context window, in (0, 1]. */
  fraction?: number;
  /** Tokens of the context window (at most the window). */
  tokens?: number;
}

/** Where the middleware keeps the loop between model calls: `state.tieredCompaction` of the agent. */
export interface CompactionAgentState {
  /** The last call's `result.state`, passed back to the next call (`ctx.state`). */
  state?: LoopState | null;
  /** When the last call started, in milliseconds of `options.now` (for `idleSeconds`). */
  lastCallMs?: number;
}

/**
 * How the middleware compacts. LangChain's words (`trigger`, `keep`, `excludeTools`) where they
 * mean what the library's policy fields do; each also has its policy field in
 * `compactOptions.policy` (give one or the other).
 */
export interface CompactionMiddlewareOptions {
  /**
   * When `auto` fires (`policy.autoContextPct`): one condition, or a list of which any fires (a
   * condition's larger threshold counts). `{ messages }` is refused: the tier is chosen by the
   * context's share of the window. Default: `policy.autoContextPct`, 0.70 of the window. auto
   * works the context down to `policy.autoTargetPct` (default 0.50): at or under it, a trigger
   * fires auto's model-free reductions only (stubs, media), not summaries.
   */
  trigger?: TriggerCondition | TriggerCondition[];
  /**
   * `{ messages: N }`: the newest N steps (a model call and its tool results) stay whole
   * (`policy.keepRecentSteps`), so at least the N newest tool results and the N newest messages.
   * An integer >= 1. Default 3 (contextEditingMiddleware's keep).
   */
  keep?: { messages: number };
  /** Tool names whose calls and results are never compacted (`policy.excludeTools`). Default []. */
  excludeTools?: string[];
  /**
   * The model's context window, in tokens: `contextPctUsed` is the last call's input tokens over
   * it. Default: the model's LangChain profile (`model.profile.maxInputTokens`); required when
   * the model has none.
   */
  contextWindow?: number;
  /** The session's id (the loop state is bound to it). Default: the run's `thread_id`, else `"langchain"`. */
  sessionId?: string;
  /** Options of `compact`: `summarise`, `policy`, `countTokens`, ... */
  compactOptions?: CompactOptions;
  /** Price per 1,000 tokens in USD, for `costEstimate`. */
  costPer1kTokens?: number;
  /**
   * Called with every call's result (its `archive` answers `recall`; its messages are OpenAI Chat
   * messages) and the LangChain messages the model is sent, before the model call.
   */
  onCompact?: (result: MessagesResult<OpenAIChatMessage>, call: { pressure: BudgetPressure; messages: BaseMessage[] }) => unknown;
  /** The clock, in milliseconds (default `Date.now`), for `idleSeconds`. */
  now?: () => number;
}

/**
 * A LangChain v1 agent middleware (`createAgent({ model, tools, middleware: [compactionMiddleware()] })`):
 * compacts the messages of each model call with the tier the pressure selects (the model calls so
 * far, the last call's input tokens over the window, the time since the last call, and the cache
 * read and written on the last call where the model reports them), through `wrapModelCall`, so the
 * agent's history stays whole. It keeps the loop's state in the agent's state
 * (`tieredCompaction`, {@link CompactionAgentState}): with a checkpointer the thread keeps it, so
 * stubs keep their bytes and the provider's cached prefix its hits from call to call.
 */
export function compactionMiddleware(options?: CompactionMiddlewareOptions): AgentMiddleware<CompactionStateSchema, undefined>;

/**
 * The middleware's state schema (a zod object at run time) as LangChain's types read a zod v4
 * object, so that an agent's state and `invoke` result type `tieredCompaction` without naming zod.
 */
export interface CompactionStateSchema {
  _zod: {
    def: { type: "object"; shape: Record<string, any> };
    output: { tieredCompaction?: CompactionAgentState | undefined };
    input: { tieredCompaction?: CompactionAgentState | undefined };
    [key: string]: any;
  };
  "~standard"?: any;
}

// Type declarations of the tiered-compaction package (every entry point has the same API).
// Hand-written, kept small, and checked by `tsc --noEmit` in the test suite (tests/js/types,
// tests/types). An ES module (the package is "type": "module"); scripts/build.mjs writes the same
// declarations as index.d.cts for `require`. They need no DOM lib and no @types/node: the few host
// types the API names (AbortSignal, URL, Request, Response, WebAssembly.Module) are the host's own
// where its libs declare them, and otherwise what the library uses of them (see `Global`).

/** One compaction strategy, cheapest first. */
export type Tier = "none" | "micro" | "time_based" | "auto" | "session_memory";

/** A session's budget pressure at one turn: what `selectTier` and `compact` decide from. */
export interface BudgetPressure {
  /** 1-based turn number of the session (an integer >= 0). */
  turnCount: number;
  /** Fraction of the context window used, 0.0 to 1.0. */
  contextPctUsed: number;
  /** Seconds since the last turn (>= 0). */
  idleSeconds: number;
  /** Whether the session has finished. */
  sessionComplete: boolean;
  /**
   * The prompt prefix the provider reported as cached on the last call, in its tokens
   * (Anthropic `cache_read_input_tokens + cache_creation_input_tokens`, OpenAI
   * `prompt_tokens_details.cached_tokens`). With it, micro and time_based do not break a warm
   * cache for less than it saves, and the result reports `cache`. Absent: no cache model.
   */
  cachedTokens?: number;
  /** The model's context window in the provider's tokens: puts `cachedTokens` on the counter's scale. */
  contextWindowTokens?: number;
}

/** The provider's prompt cache (`PolicyConfig.cache`). Prices in USD per 1,000 tokens. */
export interface CacheConfig {
  /** Seconds a cached prefix lives without a call. Default 300 (Anthropic's default). */
  ttlSeconds?: number;
  /** Price of reading cached tokens. Default: 0.1 × the context's `costPer1kTokens`. */
  cacheReadPer1k?: number;
  /** Price of writing tokens to the cache. Default: 1.25 × the context's `costPer1kTokens`. */
  cacheWritePer1k?: number;
  /** Model calls the session is expected to make after this one. Default: the calls so far (`turnCount`), at least 10. */
  expectedRemainingSteps?: number;
  /**
   * Tokens a batch of new stubs must save before micro moves its stub frontier (each move
   * rewrites the provider's cached prefix after its first edit). 0: every step as soon as it
   * leaves the protected tail. Default 5000.
   */
  batchTokens?: number;
}

/** What a compaction's edits did to the provider's prompt cache (`TierResult.cache`). */
export interface CacheReport {
  /** `idleSeconds < ttlSeconds` and `cachedTokens > 0`. */
  warm: boolean;
  /** Cached tokens the edits invalidated, on the counter's scale (0 when cold or unchanged). */
  invalidatedTokens: number;
  /** What writing them again costs beyond reading them, in USD. */
  rewriteCostUsd: number;
  /** What the tokens saved are worth over `expectedRemainingSteps` calls at the cache-read price, in USD. */
  expectedSavingsUsd: number;
  /** The tier deferred a batch (not worth its rewrite yet): the figures are that batch's, and nothing was invalidated. */
  deferred: boolean;
}

/**
 * Per-call thresholds. Every field is optional; the defaults are the seed's values. (Checked
 * against the library's one table of fields by `tests/config_table.rs`.)
 */
export interface PolicyConfig {
  /** `auto` fires at or above this fraction of the context window. Default 0.70. */
  autoContextPct?: number;
  /**
   * `auto` works the context down to this fraction of the window, by the pressure's own measure
   * (`contextPctUsed × afterTokens / beforeTokens`), cheapest reductions first, and stops once it
   * is met. At or above `autoContextPct` is allowed: auto then fires at or under its target and
   * makes only its model-free reductions. Default 0.50.
   */
  autoTargetPct?: number;
  /** `time_based` fires at or above this idle time, in seconds. Default 300. */
  idleSeconds?: number;
  /** `micro` fires from this turn on. Default 2. */
  microMinTurn?: number;
  /** `micro` fires above this fraction of the window. Default 0. */
  microMinContextPct?: number;
  /** Tool-result bodies longer than this many code points are collapsed by `micro`. Default 240. */
  microBodyThresholdChars?: number;
  /** Code points of a collapsed body that `micro` keeps. Default 80. */
  microKeepHeadChars?: number;
  /** Steps older than this many steps are pruned by `time_based` (an `[age:N]` tag overrides). Default 5. Was `maxBlockAgeTurns`. */
  maxBlockAgeSteps?: number;
  /** The protected tail: the newest this many steps stay whole (integer >= 1). Default 3. */
  keepRecentSteps?: number;
  /** Tool names whose calls and results are never compacted (a memory tool, a todo list). Default []. */
  excludeTools?: string[];
  /** Code points per token of the built-in estimator. Default 4. */
  charsPerToken?: number;
  /** Cost weight per tier (a multiplier on the per-token price). Defaults: `TIER_COST_WEIGHT`. */
  costWeights?: Partial<Record<Tier, number>>;
  /** A summarising tier that cannot save at least this fraction returns the input. Default 0.10. */
  minReduction?: number;
  /** A context holding our summary is summarised again only after growing by this factor. Default 1.5. */
  resummariseGrowth?: number;
  /** Largest input accepted, in bytes (UTF-8 text, or messages as compact JSON). Default 33554432 (32 MiB). */
  maxInputBytes?: number;
  /** Deepest nesting of objects/arrays inside one message (the message is level 1). Default 64. */
  maxNestingDepth?: number;
  /**
   * The provider's prompt cache: with `cachedTokens` in the pressure and the cache warm, micro and
   * time_based edit only where that is worth the rewrite. Default { ttlSeconds: 300, cacheReadPer1k: unset, cacheWritePer1k: unset, expectedRemainingSteps: unset, batchTokens: 5000 }.
   */
  cache?: CacheConfig;
}

/** An OpenAI Chat Completions message (fields the library reads; others pass through untouched). */
export interface OpenAIChatMessage {
  role: "system" | "developer" | "user" | "assistant" | "tool";
  content?: unknown;
  name?: string;
  tool_calls?: readonly unknown[];
  tool_call_id?: string;
  refusal?: string | null;
}

/** An Anthropic Messages API message (the system prompt lives outside the list). */
export interface AnthropicMessage {
  role: "user" | "assistant";
  content: string | readonly unknown[];
}

/**
 * Media data as the AI SDK's `DataContent` allows it: a base64 string, a `Uint8Array` (a Node
 * `Buffer` is one) or an `ArrayBuffer`. Binary data is never copied into the library's memory or
 * read as JSON: it is measured by its byte length (tokens as its base64 text), a media
 * placeholder names its size and the SHA-256 of its bytes, and the output and the archive hold
 * the caller's own object.
 */
export type DataContent = string | Uint8Array | ArrayBuffer;

/** The AI SDK's tagged file data (AI SDK 7): bytes, or a URL (a reference, kept as it is). */
export type AiSdkFileData = { type: "data"; data: DataContent } | { type: "url"; url: HostURL | string } | { type: string; [field: string]: unknown };

/** An AI SDK image part; `image` may be a `URL` object, kept as it is. */
export interface AiSdkImagePart {
  type: "image";
  image: DataContent | HostURL;
  mediaType?: string;
  providerOptions?: unknown;
}

/** An AI SDK file part (also a `reasoning-file` part's shape). */
export interface AiSdkFilePart {
  type: "file";
  data: DataContent | HostURL | AiSdkFileData;
  mediaType: string;
  filename?: string;
  providerOptions?: unknown;
}

/**
 * A Vercel AI SDK `ModelMessage`. Parts are read as the SDK defines them (`AiSdkImagePart`,
 * `AiSdkFilePart`, text, reasoning, tool calls and results); any `DataContent` form and `URL`
 * objects are accepted wherever the SDK allows them.
 */
export interface AiSdkModelMessage {
  role: "system" | "user" | "assistant" | "tool";
  content: string | readonly unknown[];
  providerOptions?: unknown;
}

/**
 * An OpenAI Responses API `input` item: a message (`type` may be left out), a `function_call`
 * and its `function_call_output` (paired by `call_id`), an opaque `reasoning` item (kept whole,
 * next to the item after it), or any other item, passed through untouched.
 */
export interface ResponsesInputItem {
  type?: string | null | undefined;
  role?: "user" | "assistant" | "system" | "developer" | undefined;
  content?: unknown;
  call_id?: string | null | undefined;
  name?: string | null | undefined;
  arguments?: string | undefined;
  output?: unknown;
  encrypted_content?: string | null | undefined;
}

/** A Gemini content (`contents` entry; the system instruction lives outside the list). */
export interface GeminiContent {
  /** `"user"` (the default) or `"model"`. */
  role?: string | undefined;
  parts?: readonly unknown[] | undefined;
}

/** A message in any supported wire format. */
export type Message = OpenAIChatMessage | AnthropicMessage | AiSdkModelMessage | ResponsesInputItem | GeminiContent;

/**
 * What `compact` and `compactWithTier` take as messages: an object with a `role` (or a Responses
 * item's `type`, or a Gemini content's `parts`), so that the providers' own SDK types (OpenAI
 * `ChatCompletionMessageParam` and Responses `ResponseInputItem`, Anthropic `MessageParam`, AI
 * SDK `ModelMessage`, Google GenAI `Content`) and plain object literals whose `role` TypeScript
 * widened to `string` are accepted as they are, and come back as the same type. The library
 * checks the rest at run time (a `TypeError` naming the message).
 */
export interface MessageLike {
  role?: string | null | undefined;
  type?: string | null | undefined;
  parts?: readonly unknown[] | undefined;
}

/** Which wire format `messages` are in; `"auto"` (the default) detects it. */
export type MessageFormat = "auto" | "openai" | "anthropic" | "ai-sdk" | "responses" | "gemini";

interface ContextBase {
  /** The session's id (part of correlation ids and summary requests). */
  sessionId: string;
  /** The session's budget pressure; `compact` selects the tier from it. */
  pressure: BudgetPressure;
  /** Price per 1,000 tokens in USD, for `costEstimate`. Default 0.003. */
  costPer1kTokens?: number;
}

/** A structured context: the host's messages in their own wire format. */
export interface MessagesContext<M = Message> extends ContextBase {
  messages: readonly M[];
  text?: never;
  format?: MessageFormat;
  /**
   * The previous call's `result.state`. A stateless host (one that sends the raw history at every
   * call) passes it back so this call repeats the earlier calls' decisions byte for byte:
   * time_based's pruning, micro's stub frontier. A state made for another session, for messages
   * this list does not extend, or by another version is ignored with a `warnings` line.
   */
  state?: LoopState | null;
}

/**
 * The loop's state after a call (`TierResult.state`): small, JSON-serialisable, opaque. Store it
 * beside the session (in memory, Workers KV, a Durable Object) and pass it back as `ctx.state`.
 */
export interface LoopState {
  readonly version: number;
  readonly session: string;
  readonly history: { readonly messages: number; readonly digest: string };
  readonly output: { readonly messages: number; readonly digest: string };
  readonly microSteps: number;
  readonly staleSteps: number;
  readonly replaced: ReadonlyArray<ReadonlyArray<{ readonly start: number; readonly end: number; readonly kind: string; readonly text: string }>>;
}

/** A flat-text context (the seed's conventions: ```tool_result fences, [age:N] tags). */
export interface TextContext extends ContextBase {
  text: string;
  messages?: never;
  format?: "auto" | "text";
}

/** What to compact: exactly one of `messages` or `text`. */
export type TierContext<M = Message> = MessagesContext<M> | TextContext;

/** Spend the summariser reported. */
export interface SummariserUsage {
  inputTokens: number;
  outputTokens: number;
  /** Cost in USD, when known. */
  costUsd?: number;
}

/** What `summarise` is asked. */
export interface SummaryRequest {
  /** The tier asking. */
  tier: "auto" | "session_memory";
  sessionId: string;
  correlationId: string;
  /** The prompt: the default handoff-summary prompt, or `options.instructions`. */
  instructions: string;
  /** The part to summarise, as readable text, media already stripped. */
  transcript: string;
  /** The same part in the caller's format (a one-string array for flat text). */
  messages: unknown[];
  /** How long the summary should be, in tokens. */
  targetTokens: number;
  /**
   * What the summary must carry verbatim: the user's directives first, each in full, then error
   * lines, file paths, URLs and identifiers, one of each kind per round (so a flood of one kind
   * never crowds out another; errors that differ only in numbers or ids count once). Besides the
   * directives the list takes at most half of `targetTokens`. Items a summary leaves out are
   * appended to it verbatim.
   */
  mustKeep: string[];
  /** Aborted when the call times out or the host's `options.signal` aborts: pass it on to fetch. */
  signal: HostAbortSignal;
}

/** A summariser's answer: the summary, or the summary with the spend it reports. */
export type SummaryResponse = string | { summary: string; usage?: SummariserUsage };

/** How to compact. */
export interface CompactOptions {
  /**
   * Delegated summarisation for `auto` and `session_memory`. Without it they use a structural
   * digest. A rejection, throw, timeout, abort, non-string or not-shorter answer falls back to the
   * digest and marks the result `degraded`.
   */
  summarise?: (request: SummaryRequest) => SummaryResponse | PromiseLike<SummaryResponse>;
  /**
   * An exact tokenizer: tokens of `text`, an integer >= 0. Default: the `tokenEstimator`. Media
   * (images, PDFs, files) are not text: they count as their provider bills them whatever counts
   * the text (see `tokenEstimator`).
   */
  countTokens?: (text: string) => number;
  /**
   * The built-in estimate used without `countTokens`. Default: `"heuristic"` for `messages`,
   * `"seed"` for flat `text` (so the seed's numbers reproduce).
   * - `"heuristic"`: o200k_base's pre-tokenizer and a fitted table of letter pairs; against exact
   *   o200k counts on real agent sessions, a median error of 2.4 % (90th percentile 8.8 %), every
   *   kind of content (prose, code, JSON, logs, CJK, base64) within 4 % / 12 % (bench/COUNTING.md).
   *   Media count as the format's provider bills them, from the image's header: Anthropic about
   *   width × height / 750 (at most 1,600), OpenAI 85 + 170 per 512-pixel tile (85 at
   *   `detail: "low"`), Gemini 258 per image or 768-pixel tile, a PDF by its pages; AI SDK
   *   messages by Anthropic's rule; an image without readable bytes (a URL) as 1092 × 1092.
   * - `"seed"`: code points / `policy.charsPerToken`, media as their base64 text.
   */
  tokenEstimator?: TokenEstimator;
  /** Threshold overrides. */
  policy?: PolicyConfig;
  /** How long `summarise` may take, in milliseconds. Default 60000. */
  timeoutMs?: number;
  /** Aborts a pending `summarise` call (the tier then falls back to the digest). */
  signal?: HostAbortSignal;
  /** The event's correlation id; derived from session, turn and content when absent. */
  correlationId?: string;
  /** Overrides the default summarisation prompt. */
  instructions?: string;
  /** Reserved: the host's clock in seconds; accepted and checked, not used yet. */
  now?: number;
}

/**
 * What an archive entry holds. `"repair"`: what broke the provider's rules in the input (an
 * orphan tool result, a call left without a result, a duplicate Anthropic `tool_use` id, a run of
 * one Anthropic role), removed or merged before any tier ran; each is named in `warnings`.
 */
export type ArchiveKind = "tool_result" | "tool_input" | "media" | "thinking" | "turn" | "run" | "session" | "repair";

/** One removed piece of content, exactly as it was. */
export interface ArchiveEntry {
  /** Short and stable (`a3f9c1b2e07d4`); a stub names it (`recall: a3f9c1b2e07d4`). */
  id: string;
  kind: ArchiveKind;
  /** The exact removed value: messages, a content part, a body, a substring. */
  content: unknown;
  /** Where it was: `messages[3].content[1]`, `messages[4..9]`, `text[120..1020]` (code points). */
  location: string;
  /** What stands in its place in the output ("" when removed outright). */
  replacement: string;
}

/** Every field of a `TierResult` but the compacted context (what a trace line records). */
export interface TierResultBase {
  /** The tier that ran. */
  tier: Tier;
  beforeTokens: number;
  /** Never more than `beforeTokens`. */
  afterTokens: number;
  /** `max(0, beforeTokens - afterTokens)`. */
  tokensSaved: number;
  /** `tokensSaved / 1000 × costPer1kTokens × weight`, unrounded, in USD. */
  costEstimate: number;
  correlationId: string;
  /** Why this tier was chosen and what it did (or why it changed nothing). */
  reason: string;
  /** Everything removed: input = output + archive. */
  archive: ArchiveEntry[];
  /** The session summary (`session_memory` only). */
  summary?: string;
  /** Present (and true) when the summariser failed and the structural digest was used. */
  degraded?: true;
  /**
   * Present when there is something to warn about: the summariser's failure cause, a repair of
   * broken input (one line each, `repair: removed the tool result at messages[3] (id "c1"): ...`),
   * or the engine's fallback when a tier's result broke a rule and the input was returned instead
   * (`rule check fallbacks: 1 (micro: the result would ...)`; the reason then says `rule check
   * failed`). A fallback is a defect of the library: worth reporting.
   */
  warnings?: string[];
  /** Present when the summariser reported its spend. */
  summariserUsage?: SummariserUsage;
  /** Present when the pressure gave `cachedTokens`: what the edits did to the prompt cache. */
  cache?: CacheReport;
  /** The loop's state for the next call (`ctx.state`); absent for flat text. */
  state?: LoopState;
  /** The format the context was read as. */
  format: "openai" | "anthropic" | "ai-sdk" | "responses" | "gemini" | "text";
}

/** The result of compacting messages. */
export interface MessagesResult<M = Message> extends TierResultBase {
  messages: M[];
  text?: never;
}

/** The result of compacting flat text. */
export interface TextResult extends TierResultBase {
  text: string;
  messages?: never;
}

/** The outcome of one compaction: the compacted context in the shape it was given, and more. */
export type TierResult<M = Message> = MessagesResult<M> | TextResult;

/** Fields of a trace step; any extra fields (trace id, turn number, ...) are kept in the line. */
export interface TraceStepInput {
  /** Seconds since the epoch; default `Date.now() / 1000`. */
  timestamp?: number;
  [field: string]: unknown;
}

/** Options of `runLegacyCompaction`. */
export interface LegacyOptions extends CompactOptions {
  /** Default 1.0. */
  contextPctUsed?: number;
  /** Default 1. */
  turnCount?: number;
}

/** Options of `compactRequestBody`. */
export interface RequestBodyOptions extends CompactOptions {
  sessionId: string;
  pressure: BudgetPressure;
  /** Default 0.003. */
  costPer1kTokens?: number;
  /**
   * The previous request's `result.state` for this session (a proxy keeps it, keyed by the
   * session, between requests): as `MessagesContext.state`, so that each request repeats the
   * previous one's compacted messages byte for byte and the provider's prompt cache holds.
   */
  state?: LoopState | null;
}

/** Picks exactly one tier for `pressure` (first match wins). Synchronous and pure. */
export function selectTier(pressure: BudgetPressure, policy?: PolicyConfig): Tier;

/** Selects a tier from `ctx.pressure` and runs it. */
export function compact<M extends MessageLike>(ctx: MessagesContext<M>, options?: CompactOptions): Promise<MessagesResult<M>>;
export function compact(ctx: TextContext, options?: CompactOptions): Promise<TextResult>;
export function compact(ctx: TierContext, options?: CompactOptions): Promise<TierResult>;

/** Runs `tier` whatever the pressure says. */
export function compactWithTier<M extends MessageLike>(tier: Tier, ctx: MessagesContext<M>, options?: CompactOptions): Promise<MessagesResult<M>>;
export function compactWithTier(tier: Tier, ctx: TextContext, options?: CompactOptions): Promise<TextResult>;
export function compactWithTier(tier: Tier, ctx: TierContext, options?: CompactOptions): Promise<TierResult>;

/** One JSON line (no newline inside): a trace step of type "compact" for `result`. */
export function recordTierEvent(result: TierResultBase, step?: TraceStepInput): string;

/** The seed's call site: compacts flat text with full-context pressure, which selects `auto`. */
export function runLegacyCompaction(sessionId: string, contextText: string, opts?: LegacyOptions): Promise<TextResult>;

/**
 * Edge-proxy path: compacts the message list of a provider request body (a JSON string): the
 * `messages` of an OpenAI Chat Completions or Anthropic Messages body, the `input` of an OpenAI
 * Responses body (`instructions` stays outside it; a plain-string `input` is one user message,
 * left as it is; with `previous_response_id` or `conversation` only what is in `input` is
 * compacted), the `contents` of a Gemini body (`systemInstruction` stays outside it). Every other
 * field of the body comes back byte-identical, and so does every message the tier left alone.
 * `result` has no `messages`: they are in `body`.
 */
export function compactRequestBody(body: string, options: RequestBodyOptions): Promise<{ body: string; result: TierResultBase }>;

/** A built-in token estimator: see `CompactOptions.tokenEstimator`. */
export type TokenEstimator = "seed" | "heuristic";

/**
 * A token estimate of a text. Default: the seed's rule, as for flat text: 0 for "", else
 * max(1, floor(code points / 4)). With `{ tokenEstimator: "heuristic" }`: the estimator structured
 * messages count by (see `CompactOptions.tokenEstimator`).
 */
export function estimateTokens(text: string, options?: { tokenEstimator?: TokenEstimator }): number;

/** The seed's cost weights per tier: none 0, micro 0.05, time_based 0.10, auto 0.50, session_memory 1.00. */
export const TIER_COST_WEIGHT: Readonly<Record<Tier, number>>;

/** What `restore` takes: a result's context (messages, text or a request body) and its archive. */
export type Restorable<M = unknown> =
  | { messages: M[]; archive: ArchiveEntry[] }
  | { text: string; archive: ArchiveEntry[] }
  | { body: string; archive: ArchiveEntry[] };

/**
 * The input of the call that gave `result`, its archive undone: deep-equal messages, the exact
 * text, or the request body (bytes outside the message list unchanged; messages JSON-equal). A
 * chain of results restores step by step, newest first.
 */
export function restore<M>(result: { messages: M[]; archive: ArchiveEntry[] }): M[];
export function restore(result: { text: string; archive: ArchiveEntry[] }): string;
export function restore(result: { body: string; archive: ArchiveEntry[] }): string;

/** The formats that have tool calls, and so a recall tool. */
export type ToolFormat = "openai" | "anthropic" | "ai-sdk" | "responses" | "gemini";

/** The JSON Schema of the recall tool's input: `{ id: string }`. */
export type RecallInputSchema = {
  type: "object";
  properties: { id: { type: "string"; description: string } };
  required: ["id"];
  additionalProperties: false;
};

/** The `recall_archived` tool in each format's own shape. */
export interface RecallToolByFormat {
  openai: { type: "function"; function: { name: "recall_archived"; description: string; parameters: RecallInputSchema } };
  anthropic: { name: "recall_archived"; description: string; input_schema: RecallInputSchema };
  /** Wrap with the AI SDK: `tool({ description, inputSchema: jsonSchema(def.inputSchema), execute })`. */
  "ai-sdk": { description: string; inputSchema: RecallInputSchema };
  /** A Responses API function tool (`tools` entry); `strict` is the API's default. */
  responses: { type: "function"; name: "recall_archived"; description: string; parameters: RecallInputSchema; strict: true };
  /**
   * A Gemini `FunctionDeclaration` (a `functionDeclarations` entry). Gemini's schema has no
   * `additionalProperties`. With `@google/genai`'s types, whose schema `type` is an enum, cast it
   * or pass `{ name, description, parametersJsonSchema: def.parameters }`.
   */
  gemini: { name: "recall_archived"; description: string; parameters: GeminiRecallSchema };
}

/** The recall tool's input schema in Gemini's dialect: `RecallInputSchema` without `additionalProperties`. */
export type GeminiRecallSchema = Omit<RecallInputSchema, "additionalProperties">;

/** A tool the model can call to read an archived body again by the id its stub names. */
export function recallToolDefinition<F extends ToolFormat>(format: F): RecallToolByFormat[F];

/**
 * Answers a `recall_archived` call: the entry with that id in one archive or a list of archives
 * (the host's own object), or `undefined`. Answer the model with `entry.content` (as text; JSON
 * for what is not a string), or say the id is unknown.
 */
export function recall(archives: ArchiveEntry[] | ArchiveEntry[][], id: string): ArchiveEntry | undefined;

/**
 * The `code` of every error this library throws or rejects with (`error.code`):
 * - `ERR_TC_INVALID_TYPE`: a `TypeError`; a value of the wrong type or shape, an unknown field;
 * - `ERR_TC_OUT_OF_RANGE`: a `RangeError`; NaN, Infinity, a negative, an input over the limits;
 * - `ERR_TC_PARSE`: a `SyntaxError`; a malformed request body;
 * - `ERR_TC_CALLBACK`: a `TypeError`; a host callback (`countTokens`) threw or broke its contract
 *   (what it threw is the `cause`);
 * - `ERR_TC_NOT_INITIALISED`: an `Error`; an export called before `init()` (browsers, workers), or
 *   the WebAssembly module could not be loaded: `init()` got a 404, a network error or something
 *   that is not wasm (an HTML page), or the Node entry point found no `.wasm` file (then every call
 *   throws it). The message says where it looked and what fixes it; the underlying error, if any,
 *   is the `cause`;
 * - `ERR_TC_INSTANCE_TRAPPED`: an `Error`; the WebAssembly instance trapped and the call was
 *   abandoned (the trap is the `cause`); the next call runs on a fresh instance;
 * - `ERR_TC_INTERNAL`: an `Error`; a bug of this library.
 */
export type ErrorCode = InputErrorCode | StateErrorCode;

/** The codes of errors about the caller's input: each names the offending field in `path`. */
export type InputErrorCode = "ERR_TC_INVALID_TYPE" | "ERR_TC_OUT_OF_RANGE" | "ERR_TC_PARSE" | "ERR_TC_CALLBACK";

/** The codes of errors about the library's state, not about one field: no `path`. */
export type StateErrorCode = "ERR_TC_NOT_INITIALISED" | "ERR_TC_INSTANCE_TRAPPED" | "ERR_TC_INTERNAL";

/** An error about the caller's input (a `TypeError`, `RangeError` or `SyntaxError`). */
export interface InputError extends Error {
  code: InputErrorCode;
  /**
   * The offending field path, as the message starts with it: `pressure.contextPctUsed`,
   * `messages[3].content`, `options.policy.autoContextPct` ("" when no one field is at fault).
   */
  path: string;
  /** `ERR_TC_CALLBACK`: what the host's callback threw. */
  cause?: unknown;
}

/** An error about the library's state (an `Error`): not initialised (or not loadable), trapped, or a bug. */
export interface StateError extends Error {
  code: StateErrorCode;
  path?: undefined;
  /** `ERR_TC_INSTANCE_TRAPPED`: the trap; `ERR_TC_NOT_INITIALISED`: why loading failed, if known. */
  cause?: unknown;
}

/**
 * The shape of every error this library throws or rejects with. A caught value is `unknown`:
 * check it has a string `code` starting with `ERR_TC_` (or cast), then narrow on `code`.
 */
export type CompactionError = InputError | StateError;

/**
 * The host types the API names, taken from the host's own declarations when its libs have them
 * (the DOM lib, @types/node, Deno, Bun, workers), so that a request's `signal` passes straight to
 * `fetch`; without them, the part of each that the library uses (no DOM lib needed).
 */
type Global<Name extends string, Fallback> = typeof globalThis extends { [K in Name]: { prototype: infer T } } ? T : Fallback;

/** What the library uses of an `AbortSignal`. */
export interface AbortSignalLike {
  readonly aborted: boolean;
  readonly reason?: unknown;
  addEventListener(type: "abort", listener: (event: any) => void, options?: { once?: boolean }): void;
  removeEventListener(type: "abort", listener: (event: any) => void): void;
}

/** The host's `AbortSignal` (DOM lib, @types/node), else `AbortSignalLike`. */
export type HostAbortSignal = Global<"AbortSignal", AbortSignalLike>;
/** The host's `URL`, `Request` and `Response`, where declared. */
export type HostURL = Global<"URL", never>;
export type HostRequest = Global<"Request", never>;
export type HostResponse = Global<"Response", never>;
/** A compiled module: the host's `WebAssembly.Module`, where declared. */
export type WasmModule = typeof globalThis extends { WebAssembly: { Module: { prototype: infer T } } } ? T : never;
/** The module's bytes (what the DOM lib calls `BufferSource`). */
export type WasmBytes = ArrayBuffer | ArrayBufferView;

/** What `init` can load the WebAssembly module from. */
export type InitInput = HostURL | string | HostRequest | HostResponse | WasmBytes | WasmModule;

/**
 * Browsers and web workers: instantiates the WebAssembly module; await it once before anything
 * else. Default: fetches the .wasm file next to the module. In Node, Deno, Bun and workerd the
 * module is ready on import and this resolves at once.
 */
export function init(input?: InitInput | Promise<InitInput>): Promise<void>;

/** Synchronous `init` from the module's bytes or a compiled module. */
export function initSync(module: WasmBytes | WasmModule): void;

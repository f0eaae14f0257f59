// Type-checked (never run) by `tsc -p tests/js/types`: every export used correctly against the
// package's declarations, resolved through pkg/package.json like any consumer; each
// `@ts-expect-error` line is a wrong use the declarations must reject.
import {
  TIER_COST_WEIGHT,
  compact,
  compactRequestBody,
  compactWithTier,
  estimateTokens,
  init,
  initSync,
  recordTierEvent,
  runLegacyCompaction,
  selectTier,
  type AnthropicMessage,
  type ArchiveEntry,
  type BudgetPressure,
  type CompactOptions,
  type GeminiContent,
  type MessagesResult,
  type OpenAIChatMessage,
  type PolicyConfig,
  type ResponsesInputItem,
  type SummariserUsage,
  type SummaryRequest,
  type SummaryResponse,
  type TextResult,
  type Tier,
  type TierContext,
  type TierResult,
  type TraceStepInput,
} from "tiered-compaction";

const pressure: BudgetPressure = { turnCount: 3, contextPctUsed: 0.72, idleSeconds: 0, sessionComplete: false };
const policy: PolicyConfig = { autoContextPct: 0.8, costWeights: { auto: 0.4 }, microBodyThresholdChars: 300 };
const tier: Tier = selectTier(pressure, policy);
const weight: number = TIER_COST_WEIGHT[tier];
const tokens: number = estimateTokens("hello");

const openai: OpenAIChatMessage[] = [
  { role: "system", content: "You are terse." },
  { role: "user", content: "List files" },
  { role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "ls", arguments: "{}" } }] },
  { role: "tool", tool_call_id: "c1", content: "a.txt" },
];
const anthropic: AnthropicMessage[] = [{ role: "user", content: [{ type: "text", text: "hi", cache_control: { type: "ephemeral" } }] }];

async function summarise(request: SummaryRequest): Promise<SummaryResponse> {
  const response = await fetch("https://example.invalid/summarise", {
    method: "POST",
    body: JSON.stringify({ prompt: request.instructions, transcript: request.transcript, keep: request.mustKeep }),
    signal: request.signal,
  });
  const usage: SummariserUsage = { inputTokens: request.targetTokens, outputTokens: 10, costUsd: 0.001 };
  return { summary: await response.text(), usage };
}

const options: CompactOptions = {
  summarise,
  countTokens: (text) => Math.ceil(text.length / 4),
  policy,
  timeoutMs: 30_000,
  signal: new AbortController().signal,
  correlationId: "c-1",
  instructions: "Summarise for a handoff.",
};

export async function everyExport(): Promise<string[]> {
  await init();
  await init(new URL("https://example.invalid/tiered_compaction_bg.wasm"));
  initSync(new Uint8Array(0));

  const structured: MessagesResult<OpenAIChatMessage> = await compact({ sessionId: "s", pressure, messages: openai, format: "openai" }, options);
  const first: OpenAIChatMessage | undefined = structured.messages[0];
  const flat: TextResult = await compact({ sessionId: "s", pressure, text: "```tool_result\nx\n```" });
  const text: string = flat.text;
  const forced = await compactWithTier("micro", { sessionId: "s", pressure, messages: anthropic, costPer1kTokens: 0.01 });
  const ctx: TierContext = Math.random() > 0.5 ? { sessionId: "s", pressure, text: "x" } : { sessionId: "s", pressure, messages: openai };
  const either: TierResult = await compact(ctx);
  const archive: ArchiveEntry[] = either.archive;
  const kinds = archive.map((entry) => entry.kind);
  const degraded: boolean = either.degraded ?? false;
  const step: TraceStepInput = { timestamp: 1_700_000_000, traceId: "t-1", turn: 3 };
  const legacy: TextResult = await runLegacyCompaction("s", "some text", { contextPctUsed: 0.9, turnCount: 4, summarise });
  const proxied = await compactRequestBody('{"model":"m","messages":[]}', { sessionId: "s", pressure, summarise });
  const lines: string[] = [recordTierEvent(structured, step), recordTierEvent(flat), recordTierEvent(proxied.result), proxied.body];
  // The Responses API's items and Gemini's contents, with the package's own types.
  const items: ResponsesInputItem[] = [
    { role: "user", content: "Fix it." },
    { type: "function_call", call_id: "c1", name: "bash", arguments: "{}" },
    { type: "function_call_output", call_id: "c1", output: "ok" },
  ];
  const fromItems: ResponsesInputItem[] = (await compact({ sessionId: "s", pressure, messages: items, format: "responses" })).messages;
  const contents: GeminiContent[] = [{ role: "user", parts: [{ text: "Fix it." }] }, { role: "model", parts: [{ functionCall: { name: "bash", args: {} } }] }];
  const fromContents = await compactWithTier("micro", { sessionId: "s", pressure, messages: contents, format: "gemini" });
  const geminiFormat: "gemini" | "responses" | "openai" | "anthropic" | "ai-sdk" | "text" = fromContents.format;
  void [weight, tokens, first, text, forced.tier, kinds, degraded, legacy, fromItems, geminiFormat];
  return lines;
}

// Wrong uses the declarations reject.
// @ts-expect-error "huge" is not a Tier
selectTier(pressure, { costWeights: { huge: 1 } });
// @ts-expect-error sessionComplete is required
selectTier({ turnCount: 1, contextPctUsed: 0, idleSeconds: 0 });
// @ts-expect-error "gemini-pro" is not a format
void compact({ sessionId: "s", pressure, messages: openai, format: "gemini-pro" });
// @ts-expect-error a context has exactly one of messages and text
void compact({ sessionId: "s", pressure, text: "x", messages: openai });
// @ts-expect-error "medium" is not a Tier
void compactWithTier("medium", { sessionId: "s", pressure, text: "x" });
// @ts-expect-error summarise must return a string or { summary }
void compact({ sessionId: "s", pressure, text: "x" }, { summarise: async () => 42 });
// @ts-expect-error TIER_COST_WEIGHT is read-only
TIER_COST_WEIGHT.auto = 0;
// @ts-expect-error compactRequestBody needs sessionId and pressure
void compactRequestBody("{}", {});
// @ts-expect-error estimateTokens takes a string
estimateTokens(42);

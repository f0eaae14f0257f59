// Type-checked (never run) by `tsc -p tests/js/types`: restore, recall and recallToolDefinition
// against the package's declarations. Each `@ts-expect-error` line is a wrong use they must reject.
import {
  compact,
  compactRequestBody,
  recall,
  recallToolDefinition,
  restore,
  type AiSdkModelMessage,
  type AnthropicMessage,
  type ArchiveEntry,
  type ArchiveKind,
  type BudgetPressure,
  type GeminiRecallSchema,
  type OpenAIChatMessage,
  type PolicyConfig,
  type RecallInputSchema,
  type RecallToolByFormat,
  type Restorable,
  type ToolFormat,
} from "tiered-compaction";

const pressure: BudgetPressure = { turnCount: 9, contextPctUsed: 0.5, idleSeconds: 0, sessionComplete: false };
const policy: PolicyConfig = { keepRecentSteps: 1, maxBlockAgeSteps: 4, excludeTools: ["memory", "todo_write"] };
const openai: OpenAIChatMessage[] = [{ role: "user", content: "Fix it." }];

export async function restoreAndRecall(): Promise<string[]> {
  // restore gives back the caller's message type, a string for text and for a body.
  const structured = await compact({ sessionId: "s", pressure, messages: openai, format: "openai" }, { policy });
  const messages: OpenAIChatMessage[] = restore(structured);
  const anthropic: AnthropicMessage[] = restore({ messages: [] as AnthropicMessage[], archive: structured.archive });
  const flat = await compact({ sessionId: "s", pressure, text: "```tool_result\nx\n```" });
  const text: string = restore(flat);
  const proxied = await compactRequestBody('{"model":"m","messages":[]}', { sessionId: "s", pressure });
  const body: string = restore({ body: proxied.body, archive: proxied.result.archive });
  const stored: Restorable<AiSdkModelMessage> = { messages: [], archive: [] };
  void stored;

  // recall: one archive or a list of them; the entry or undefined.
  const archives: ArchiveEntry[][] = [structured.archive, flat.archive];
  const entry: ArchiveEntry | undefined = recall(archives, "a3f9c1b2e07d4") ?? recall(structured.archive, "a3f9c1b2e07d4");
  const kind: ArchiveKind | undefined = entry?.kind;
  const answer: string = entry === undefined ? "unknown id" : typeof entry.content === "string" ? entry.content : JSON.stringify(entry.content);

  // recallToolDefinition: each format's own shape.
  const forOpenAI = recallToolDefinition("openai");
  const name: "recall_archived" = forOpenAI.function.name;
  const type: "function" = forOpenAI.type;
  const forAnthropic: { name: "recall_archived"; description: string; input_schema: RecallInputSchema } = recallToolDefinition("anthropic");
  const forAiSdk = recallToolDefinition("ai-sdk");
  const schema: RecallInputSchema = forAiSdk.inputSchema;
  const required: ["id"] = schema.required;
  const forResponses = recallToolDefinition("responses");
  const responsesName: "recall_archived" = forResponses.name;
  const strict: true = forResponses.strict;
  const geminiSchema: GeminiRecallSchema = recallToolDefinition("gemini").parameters;
  const geminiRequired: ["id"] = geminiSchema.required;
  const format: ToolFormat = Math.random() > 0.5 ? "responses" : "gemini";
  const any: RecallToolByFormat[ToolFormat] = recallToolDefinition(format);
  void [messages, anthropic, kind, name, type, forAnthropic, required, any, responsesName, strict, geminiRequired];
  return [text, body, answer];
}

// Wrong uses the declarations reject.
// @ts-expect-error flat text has no tool calls, so no recall tool
recallToolDefinition("text");
// @ts-expect-error not a format
recallToolDefinition("gemini-pro");
// @ts-expect-error the AI SDK shape has no input_schema
void recallToolDefinition("ai-sdk").input_schema;
// @ts-expect-error the Anthropic shape has no function wrapper
void recallToolDefinition("anthropic").function;
// @ts-expect-error the Responses shape is flat: no function wrapper
void recallToolDefinition("responses").function;
// @ts-expect-error Gemini's schema has no additionalProperties
void recallToolDefinition("gemini").parameters.additionalProperties;
// @ts-expect-error recall takes a string id
recall([], 42);
// @ts-expect-error recall takes archives, not a result
void recall({ archive: [] }, "a3f9c1b2e07d4");
// @ts-expect-error restore needs the archive
restore({ messages: openai });
// @ts-expect-error restore of messages is not a string
const notText: string = restore({ messages: openai, archive: [] });
// @ts-expect-error keepRecentSteps is a number
const badPolicy: PolicyConfig = { keepRecentSteps: "3" };
// @ts-expect-error excludeTools is a list of names
const badTools: PolicyConfig = { excludeTools: "memory" };
// @ts-expect-error maxBlockAgeTurns was renamed to maxBlockAgeSteps
const renamed: PolicyConfig = { maxBlockAgeTurns: 5 };
void [notText, badPolicy, badTools, renamed];

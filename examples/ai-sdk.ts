// Wiring `summarise` to the Vercel AI SDK's `generateText`, and compacting `ModelMessage`s
// before `generateText` runs the agent's next step, with the `recall_archived` tool the model
// calls to read a pruned tool result again (answered from the archives the host stored).
import { openai } from "@ai-sdk/openai";
import { generateText, jsonSchema, tool, type ModelMessage } from "ai";
import {
  compact,
  recall,
  recallToolDefinition,
  type ArchiveEntry,
  type BudgetPressure,
  type SummaryRequest,
  type SummaryResponse,
} from "tiered-compaction";

/** Summarises with any AI SDK model. */
export async function summariseWithAiSdk(request: SummaryRequest): Promise<SummaryResponse> {
  const { text, usage } = await generateText({
    model: openai("gpt-4.1-mini"),
    system: request.instructions,
    prompt: `Must keep verbatim:\n${request.mustKeep.join("\n")}\n\n${request.transcript}`,
    maxOutputTokens: request.targetTokens,
    abortSignal: request.signal,
  });
  return { summary: text, usage: { inputTokens: usage.inputTokens ?? 0, outputTokens: usage.outputTokens ?? 0 } };
}

/** The host's store: every archive the library returned in this session. */
const archives: ArchiveEntry[][] = [];

/** The recall tool: the library's definition, wrapped by the AI SDK (a plain JSON Schema, no zod). */
const definition = recallToolDefinition("ai-sdk");
export const recallArchived = tool({
  description: definition.description,
  inputSchema: jsonSchema<{ id: string }>(definition.inputSchema),
  execute: async ({ id }) => {
    const entry = recall(archives, id);
    if (entry === undefined) return `No archived content has the id ${id}.`;
    return typeof entry.content === "string" ? entry.content : JSON.stringify(entry.content);
  },
});

/** The agent's next step, on a compacted history; the model may recall what was pruned. */
export async function nextStep(sessionId: string, messages: ModelMessage[], pressure: BudgetPressure) {
  const compacted = await compact({ sessionId, messages, pressure, format: "ai-sdk" }, { summarise: summariseWithAiSdk });
  archives.push(compacted.archive);
  return generateText({ model: openai("gpt-4.1"), messages: compacted.messages, tools: { recall_archived: recallArchived } });
}

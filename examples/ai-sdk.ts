// Wiring `summarise` to the Vercel AI SDK's `generateText`, and compacting `ModelMessage`s
// before `generateText` runs the agent's next step.
import { openai } from "@ai-sdk/openai";
import { generateText, type ModelMessage } from "ai";
import { compact, type BudgetPressure, type SummaryRequest, type SummaryResponse } from "tiered-compaction";

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

/** The agent's next step, on a compacted history. */
export async function nextStep(sessionId: string, messages: ModelMessage[], pressure: BudgetPressure) {
  const compacted = await compact({ sessionId, messages, pressure, format: "ai-sdk" }, { summarise: summariseWithAiSdk });
  return generateText({ model: openai("gpt-4.1"), messages: compacted.messages });
}

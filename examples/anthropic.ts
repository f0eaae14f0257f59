// Wiring `summarise` to the Anthropic SDK (Messages API).
import Anthropic from "@anthropic-ai/sdk";
import { compactWithTier, type SummaryRequest, type SummaryResponse } from "tiered-compaction";

const client = new Anthropic(); // reads ANTHROPIC_API_KEY

/** Summarises with Claude; the library's prompt becomes the system prompt. */
export async function summariseWithClaude(request: SummaryRequest): Promise<SummaryResponse> {
  const message = await client.messages.create(
    {
      model: "claude-haiku-4-5",
      max_tokens: request.targetTokens,
      system: request.instructions,
      messages: [
        {
          role: "user",
          content: `Must keep verbatim:\n${request.mustKeep.join("\n")}\n\n<transcript>\n${request.transcript}\n</transcript>`,
        },
      ],
    },
    { signal: request.signal },
  );
  const summary = message.content
    .map((block) => (block.type === "text" ? block.text : ""))
    .join("");
  return {
    summary,
    usage: { inputTokens: message.usage.input_tokens, outputTokens: message.usage.output_tokens },
  };
}

/** At the end of a session: a durable summary for the host's own memory store. */
export async function endOfSession(sessionId: string, messages: Anthropic.MessageParam[]): Promise<string | undefined> {
  const result = await compactWithTier(
    "session_memory",
    { sessionId, messages, format: "anthropic", pressure: { turnCount: messages.length, contextPctUsed: 0.5, idleSeconds: 0, sessionComplete: true } },
    { summarise: summariseWithClaude },
  );
  if (result.degraded) console.warn("summariser failed, structural digest used:", result.warnings);
  return result.summary; // store it; the library stores nothing
}

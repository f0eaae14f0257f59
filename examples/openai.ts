// Wiring `summarise` to the OpenAI SDK (Chat Completions). The library hands the summariser a
// ready prompt (`instructions`), the part to summarise (`transcript`, media already stripped),
// the items it must keep verbatim, a target length and an AbortSignal; the summariser answers with
// the summary and the spend it incurred, which the library reports as `summariserUsage`.
import OpenAI from "openai";
import { compact, recordTierEvent, type SummaryRequest, type SummaryResponse, type TierContext } from "tiered-compaction";

const client = new OpenAI(); // reads OPENAI_API_KEY

/** Summarises through a small model; prices are per 1M tokens of that model. */
export async function summariseWithOpenAI(request: SummaryRequest): Promise<SummaryResponse> {
  const completion = await client.chat.completions.create(
    {
      model: "gpt-4.1-mini",
      max_completion_tokens: request.targetTokens,
      messages: [
        { role: "system", content: request.instructions },
        {
          role: "user",
          content: `Must keep verbatim:\n${request.mustKeep.map((item) => `- ${item}`).join("\n")}\n\n${request.transcript}`,
        },
      ],
    },
    { signal: request.signal }, // the library aborts it on timeout or when the host aborts
  );
  const usage = completion.usage;
  return {
    summary: completion.choices[0]?.message.content ?? "",
    usage: usage && {
      inputTokens: usage.prompt_tokens,
      outputTokens: usage.completion_tokens,
      costUsd: (usage.prompt_tokens * 0.4 + usage.completion_tokens * 1.6) / 1e6,
    },
  };
}

/** Chat Completions messages the library reads (the deprecated `function` role is refused). */
type ChatMessage = Exclude<OpenAI.Chat.ChatCompletionMessageParam, OpenAI.Chat.ChatCompletionFunctionMessageParam>;

/** One turn of an agent loop: compact before calling the model, log the trace line. */
export async function compactTurn(ctx: TierContext<ChatMessage>) {
  const result = await compact(ctx, { summarise: summariseWithOpenAI, timeoutMs: 30_000 });
  console.log(recordTierEvent(result, { turn: ctx.pressure.turnCount }));
  return result;
}

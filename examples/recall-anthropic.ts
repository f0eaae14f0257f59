// An agent loop on the Anthropic Messages API that compacts before every model call and lets the
// model read pruned tool output again: each stub names its archive entry (`recall: a3f9c1b2e07d4`),
// the model gets the `recall_archived` tool (recallToolDefinition), and the host answers its calls
// from the archives it stored (recall). `restore` gives the uncompacted history back for an audit log.
import Anthropic from "@anthropic-ai/sdk";
import { compact, recall, recallToolDefinition, restore, type ArchiveEntry, type BudgetPressure } from "tiered-compaction";

const client = new Anthropic(); // reads ANTHROPIC_API_KEY
const definition = recallToolDefinition("anthropic");
// The SDK's Tool wants an input_schema with an index signature; the package declares the schema as
// an interface, which TypeScript does not match to one, so the schema goes in as a plain copy.
const recallTool: Anthropic.Tool = { ...definition, input_schema: { ...definition.input_schema } };
const CONTEXT_WINDOW = 200_000;

/** The host's store: every archive the library returned in this session, oldest first. */
const archives: ArchiveEntry[][] = [];

/** The answer to a `recall_archived` call: the archived content as text, or why there is none. */
export function answerRecall(id: string): string {
  const entry = recall(archives, id);
  if (entry === undefined) return `No archived content has the id ${id}.`;
  return typeof entry.content === "string" ? entry.content : JSON.stringify(entry.content);
}

/** Runs the agent until it answers without a tool call; `runTool` runs the host's own tools. */
export async function runAgent(
  sessionId: string,
  task: string,
  tools: Anthropic.Tool[],
  runTool: (name: string, input: unknown) => Promise<string>,
): Promise<Anthropic.MessageParam[]> {
  let messages: Anthropic.MessageParam[] = [{ role: "user", content: task }];
  let lastCall = Date.now();
  let contextPctUsed = 0;
  for (let step = 1; step <= 100; step += 1) {
    // In an agent loop a step is a turn: turnCount is the number of model calls so far.
    const pressure: BudgetPressure = { turnCount: step, contextPctUsed, idleSeconds: (Date.now() - lastCall) / 1000, sessionComplete: false };
    const compacted = await compact({ sessionId, messages, pressure, format: "anthropic" });
    if (compacted.archive.length > 0) {
      archives.push(compacted.archive);
      // The history as it was before this compaction (restore undoes the archive), e.g. for a log.
      console.log(`step ${step}: ${compacted.tier} archived ${compacted.archive.length} item(s); before it: ${restore(compacted).length} messages`);
    }
    messages = compacted.messages;

    const response = await client.messages.create({ model: "claude-sonnet-4-5", max_tokens: 4096, tools: [...tools, recallTool], messages });
    lastCall = Date.now();
    contextPctUsed = Math.min(1, (response.usage.input_tokens + (response.usage.cache_read_input_tokens ?? 0)) / CONTEXT_WINDOW);
    messages.push({ role: "assistant", content: response.content });

    const calls = response.content.filter((block): block is Anthropic.ToolUseBlock => block.type === "tool_use");
    if (calls.length === 0) return messages;
    const results: Anthropic.ToolResultBlockParam[] = [];
    for (const call of calls) {
      const content = call.name === recallTool.name ? answerRecall((call.input as { id: string }).id) : await runTool(call.name, call.input);
      results.push({ type: "tool_result", tool_use_id: call.id, content });
    }
    messages.push({ role: "user", content: results });
  }
  return messages;
}

// Type-checked (never run) by `tsc -p tests/js/types`: the framework integrations against the
// frameworks' own types (langchain, @openai/agents: the workspace's devDependencies), as an ES
// module consumer sees them. Each `@ts-expect-error` line is a wrong use the declarations reject.
import { Agent, run, type CallModelInputFilter, type RunConfig } from "@openai/agents";
import { AIMessage, HumanMessage, createAgent, fakeModel, type AgentMiddleware } from "langchain";
import { compactionMiddleware, type CompactionAgentState, type CompactionMiddlewareOptions } from "tiered-compaction/langchain";
import { compactionFilter, type CompactionFilter } from "tiered-compaction/openai-agents";

// LangChain: the middleware goes into createAgent as it is; the agent keeps its own types.
const options: CompactionMiddlewareOptions = {
  trigger: [{ fraction: 0.8 }, { tokens: 150_000 }],
  keep: { messages: 3 },
  excludeTools: ["memory"],
  contextWindow: 200_000,
  compactOptions: { policy: { cache: { ttlSeconds: 300 } } },
  onCompact: (result, call) => {
    const tier: "none" | "micro" | "time_based" | "auto" | "session_memory" = result.tier;
    const sent: number = call.messages.length + call.pressure.turnCount;
    void [tier, sent];
  },
};
const middleware: AgentMiddleware = compactionMiddleware(options);
const agent = createAgent({ model: fakeModel().respond(new AIMessage("hi")), tools: [], middleware: [compactionMiddleware()] });
export async function langchainLoop(): Promise<string> {
  const result = await agent.invoke({ messages: [new HumanMessage("Fix the failing test.")] });
  const saved: CompactionAgentState | undefined = result.tieredCompaction;
  void [middleware, saved?.state?.version];
  return String(result.messages.at(-1)?.content);
}
// @ts-expect-error the middleware is LangChain's AgentMiddleware (were an import of ours unresolved, any)
export const notAString: string = compactionMiddleware();
// @ts-expect-error keep counts messages (steps), not tokens
compactionMiddleware({ keep: { tokens: 1000 } });
// @ts-expect-error a trigger condition is a fraction or tokens
compactionMiddleware({ trigger: { fraction: "0.8" } });

// OpenAI Agents SDK: the filter is a RunConfig's callModelInputFilter.
const filter: CompactionFilter = compactionFilter({ contextWindow: 200_000, onCompact: (result, call) => void [result.afterTokens, call.input.length] });
const asSdkFilter: CallModelInputFilter = filter;
const config: Partial<RunConfig> = { callModelInputFilter: filter };
export async function agentsRun(): Promise<unknown> {
  const result = await run(new Agent({ name: "a", instructions: "Be brief." }), "hello", { callModelInputFilter: filter, context: { user: "u" } });
  void [asSdkFilter, config];
  return result.finalOutput;
}
// @ts-expect-error the context window is required
compactionFilter({});

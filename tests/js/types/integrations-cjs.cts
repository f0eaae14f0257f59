// The framework integrations seen from CommonJS (`require`): langchain.d.cts, openai-agents.d.cts.
import langchain = require("tiered-compaction/langchain");
import agents = require("tiered-compaction/openai-agents");
import sdk = require("@openai/agents");

export const middleware = langchain.compactionMiddleware({ contextWindow: 200_000, keep: { messages: 2 } });
export const filter: sdk.CallModelInputFilter = agents.compactionFilter({ contextWindow: 200_000 });
// @ts-expect-error the context window is a number
agents.compactionFilter({ contextWindow: "200k" });

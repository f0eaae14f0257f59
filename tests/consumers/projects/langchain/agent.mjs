// tiered-compaction/langchain from the installed tarball, as a LangChain user imports it: a
// createAgent tool loop (LangChain's fake chat model, five bash calls with long logs) whose model
// receives stubbed results, and the loop's state in the agent's state. Prints one line.
import { AIMessage, HumanMessage, createAgent, fakeModel, tool } from "langchain";
import { compactionMiddleware } from "tiered-compaction/langchain";

const log = (step) => `$ npm test # ${step}\n${"ok - a passing test\n".repeat(60)}FAIL src/users.ts:${step}\n`;
const model = fakeModel();
for (let step = 1; step <= 5; step += 1) model.respondWithTools([{ name: "bash", args: { command: `npm test # ${step}` }, id: `call-${step}` }]);
model.respond(new AIMessage("Fixed."));
const bash = tool(async ({ command }) => log(command.split("# ")[1]), {
  name: "bash",
  description: "Runs a shell command",
  schema: { type: "object", properties: { command: { type: "string" } }, required: ["command"] },
});
const middleware = compactionMiddleware({ contextWindow: 100_000, keep: { messages: 2 }, compactOptions: { policy: { cache: { batchTokens: 0 } } } });
const agent = createAgent({ model, tools: [bash], middleware: [middleware] });
const result = await agent.invoke({ messages: [new HumanMessage("Fix the failing test.")] });
const last = model.calls.at(-1).messages;
const stubs = last.filter((message) => message.type === "tool" && String(message.content).includes("recall: ")).length;
console.log(`ESM langchain: ${stubs} stubs sent, history whole ${result.messages.filter((message) => message.type === "tool").every((message) => !String(message.content).includes("recall: "))}, state v${result.tieredCompaction.state.version}`);

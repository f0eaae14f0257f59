// agent.mjs through `require`: tiered-compaction/openai-agents' CommonJS build, with the SDK's.
const { Agent, Usage, run, setTracingDisabled, tool } = require("@openai/agents");
const { compactionFilter } = require("tiered-compaction/openai-agents");

setTracingDisabled(true);
const log = (step) => `$ npm test # ${step}\n${"ok - a passing test\n".repeat(60)}FAIL src/users.ts:${step}\n`;
const requests = [];
const model = {
  async getResponse(request) {
    requests.push(request.input);
    const step = requests.length;
    const usage = new Usage({ requests: 1, inputTokens: 1000, outputTokens: 10, totalTokens: 1010 });
    if (step > 5) return { usage, output: [{ type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text: "Fixed." }] }] };
    return { usage, output: [{ type: "function_call", callId: `call-${step}`, name: "bash", arguments: JSON.stringify({ command: `npm test # ${step}` }), status: "completed" }] };
  },
  async *getStreamedResponse() {
    throw new Error("not used");
  },
};
const bash = tool({
  name: "bash",
  description: "Runs a shell command",
  parameters: { type: "object", properties: { command: { type: "string" } }, required: ["command"], additionalProperties: false },
  strict: false,
  execute: async ({ command }) => log(command.split("# ")[1]),
});
const agent = new Agent({ name: "fixer", instructions: "Fix the failing test.", model, tools: [bash] });
const callModelInputFilter = compactionFilter({ contextWindow: 100_000, compactOptions: { policy: { keepRecentSteps: 2, cache: { batchTokens: 0 } } } });
run(agent, "Fix the failing test.", { callModelInputFilter }).then((result) => {
  const stubs = requests.at(-1).filter((item) => item.type === "function_call_result" && JSON.stringify(item.output).includes("recall: ")).length;
  console.log(`CJS openai-agents: ${stubs} stubs sent, history whole ${!JSON.stringify(result.history).includes("recall: ")}, ${result.finalOutput}`);
});

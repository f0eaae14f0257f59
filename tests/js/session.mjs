// The session the integration tests (LangChain, OpenAI Agents) replay: a real Claude Code
// sub-agent session where ../shared/realdata is beside the repository, else a generated run of
// the same shape. Either way the tests run; `TC_GENERATED_SESSION=1` forces the generated run.
import * as fs from "node:fs";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { fromClaudeCode, toOpenAI } from "../../bench/sessions.mjs";
import { agentRun, toolBody } from "./helpers.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
/** The real session's file. */
export const SESSION = path.join(root, "..", "shared", "realdata", "agent-a4ca7529859c158c2.jsonl");

/**
 * The real session as OpenAI Chat messages when ../shared/realdata is beside the repository (it
 * is on the project's machines); otherwise (a plain clone) a generated run of the same shape: a
 * task, 20 tool steps with long outputs, a last answer. The test runs either way, never skipped.
 */
export function sessionMessages(id) {
  if (fs.existsSync(SESSION) && !process.env.TC_GENERATED_SESSION) {
    return toOpenAI(fromClaudeCode(fs.readFileSync(SESSION, "utf8"), { id, file: path.basename(SESSION) }));
  }
  const run = agentRun("openai", 20).slice(1);
  // Long outputs, and a long input on every other call (a script the agent writes), as real runs have.
  const script = (index) => JSON.stringify({ command: `cat > fix_${index}.py << 'EOF'\n${"print('patching src/lib.rs')\n".repeat(24)}EOF` });
  const long = run.map((message, index) => {
    if (message.role === "tool") return { ...message, content: Array.from({ length: 5 }, () => toolBody(index)).join("\n") };
    if (message.tool_calls && index % 4 === 1) return { ...message, tool_calls: message.tool_calls.map((call) => ({ ...call, function: { ...call.function, arguments: script(index) } })) };
    return message;
  });
  return [...long, { role: "assistant", content: "The failing tests pass now." }];
}

// tiered-compaction/inline in a runtime (Node, Deno, Bun): init() compiles the embedded module, so
// Deno runs this with no --allow-read. Prints one line; exits non-zero on failure.
import { compact, init } from "tiered-compaction/inline";

const runtime = globalThis.Deno ? "deno" : globalThis.Bun ? "bun" : "node";
await init();
const pressure = { turnCount: 2, contextPctUsed: 0.1, idleSeconds: 0, sessionComplete: false };
const result = await compact({ sessionId: "inline", pressure, text: "```tool_result name=bash\n" + "C".repeat(900) + "\n```" });
if (result.tier !== "micro" || result.afterTokens !== 36) throw new Error(`${runtime} inline: ${JSON.stringify(result)}`);
console.log(`${runtime} tiered-compaction/inline: ${result.tier} ${result.beforeTokens} -> ${result.afterTokens}`);

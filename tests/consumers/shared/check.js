// The check every consumer project runs, in a page, a worker or a server: the package as its
// users import it (no init argument, no configuration), one compaction whose answer is known.
import { compact, init, selectTier } from "tiered-compaction";

export const EXPECTED = "micro 232 -> 36";

export async function check(initArgument) {
  // A no-op where the entry point loaded the module on import (Node, Deno, Bun, workerd).
  await (initArgument === undefined ? init() : init(initArgument));
  const pressure = { turnCount: 2, contextPctUsed: 0.1, idleSeconds: 0, sessionComplete: false };
  if (selectTier(pressure) !== "micro") throw new Error("selectTier gave " + selectTier(pressure));
  const result = await compact({ sessionId: "consumer", pressure, text: "```tool_result name=bash\n" + "C".repeat(900) + "\n```" });
  return `${result.tier} ${result.beforeTokens} -> ${result.afterTokens}`;
}

/** In a page: the result (or the error) where the test runner reads it. */
export function report(promise, key = "__result") {
  promise.then(
    (value) => {
      globalThis[key] = value;
    },
    (error) => {
      globalThis[key] = `error: ${error?.code ? `[${error.code}] ` : ""}${error?.message ?? error}`;
    },
  );
}

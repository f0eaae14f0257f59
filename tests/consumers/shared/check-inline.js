// check.js's compaction through tiered-compaction/inline, the module embedded in the JavaScript:
// a file of its own, since importing check.js would bundle the package's main entry point too.
import { compact, init, selectTier } from "tiered-compaction/inline";

export const EXPECTED = "micro 232 -> 36";

export async function check() {
  // Compiles the embedded module: no request, no file beside the bundle.
  await init();
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

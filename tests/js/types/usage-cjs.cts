// The same declarations seen from CommonJS (`require`), as a CJS TypeScript consumer would.
import tc = require("tiered-compaction");

export async function viaRequire(): Promise<number> {
  const pressure = { turnCount: 2, contextPctUsed: 0.1, idleSeconds: 0, sessionComplete: false };
  const result = await tc.compact({ sessionId: "s", pressure, text: "x" });
  // @ts-expect-error results are numbers, not strings
  const wrong: string = result.afterTokens;
  void wrong;
  const input: string = tc.restore(result);
  const entry: tc.ArchiveEntry | undefined = tc.recall([result.archive], "a3f9c1b2e07d4");
  const tool: "recall_archived" = tc.recallToolDefinition("anthropic").name;
  void [input, entry, tool];
  return result.afterTokens + tc.TIER_COST_WEIGHT[tc.selectTier(pressure)];
}

// The same declarations seen from CommonJS (`require`), as a CJS TypeScript consumer would.
import tc = require("tiered-compaction");

export async function viaRequire(): Promise<number> {
  const pressure = { turnCount: 2, contextPctUsed: 0.1, idleSeconds: 0, sessionComplete: false };
  const result = await tc.compact({ sessionId: "s", pressure, text: "x" });
  // @ts-expect-error results are numbers, not strings
  const wrong: string = result.afterTokens;
  void wrong;
  return result.afterTokens + tc.TIER_COST_WEIGHT[tc.selectTier(pressure)];
}

// tiered-compaction/inline seen from CommonJS (`require`): its .d.cts declarations.
import inline = require("tiered-compaction/inline");

export async function viaRequire(): Promise<number> {
  await inline.init();
  const pressure = { turnCount: 2, contextPctUsed: 0.1, idleSeconds: 0, sessionComplete: false };
  const result = await inline.compact({ sessionId: "s", pressure, text: "x" });
  // @ts-expect-error results are numbers, not strings
  const wrong: string = result.afterTokens;
  void wrong;
  const entry: inline.ArchiveEntry | undefined = inline.recall([result.archive], "a3f9c1b2e07d4");
  void entry;
  return result.afterTokens;
}

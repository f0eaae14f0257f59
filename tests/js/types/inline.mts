// Type-checked (never run) by `tsc -p tests/js/types`: tiered-compaction/inline has the browser
// entry point's API (its own `init` declaration), ES module and CommonJS declarations alike.
import * as inline from "tiered-compaction/inline";
import { compact, init, initSync, type InitInput, type OpenAIChatMessage, type TextResult } from "tiered-compaction/inline";
import * as web from "tiered-compaction/web";
import inlineCjs = require("./inline-cjs.cjs");

export async function viaInline(): Promise<number> {
  // No argument: the embedded module; any other source still loads.
  await init();
  const input: InitInput = new Uint8Array(0);
  await init(input);
  // @ts-expect-error initSync needs the module (the embedded copy unpacks asynchronously)
  initSync();
  const pressure = { turnCount: 2, contextPctUsed: 0.1, idleSeconds: 0, sessionComplete: false };
  const flat: TextResult = await compact({ sessionId: "s", pressure, text: "```tool_result\nx\n```" });
  const messages: OpenAIChatMessage[] = [{ role: "user", content: "hi" }];
  const structured = await compact({ sessionId: "s", pressure, messages });
  const first: OpenAIChatMessage | undefined = structured.messages[0];
  void first;
  return flat.afterTokens + (await inlineCjs.viaRequire());
}

// The same exports as the browser entry point, both ways round: a name missing or added fails.
export const asWeb: typeof web = inline;
export const asInline: typeof inline = web;

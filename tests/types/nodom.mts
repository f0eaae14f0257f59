// Type-checked by tests/types/run.mjs with no DOM lib and skipLibCheck off (tsconfig.nodom.json:
// @types/node; tsconfig.bare.json: no host types at all): the package's declarations need neither.
import { compact, init, initSync, type CompactOptions, type SummaryRequest } from "tiered-compaction";
import { prepareStep } from "tiered-compaction/ai-sdk";
import * as inline from "tiered-compaction/inline";

const options: CompactOptions = {
  summarise: (request: SummaryRequest) => {
    // The request's signal is the host's AbortSignal type where the host declares one.
    const aborted: boolean = request.signal.aborted;
    return aborted ? "" : `summary of ${request.transcript.length} chars`;
  },
};
const result = await compact({ sessionId: "s", pressure: { turnCount: 3, contextPctUsed: 0.8, idleSeconds: 0, sessionComplete: false }, messages: [{ role: "user", content: "hi" }] }, options);
initSync(new Uint8Array(8));
await init(new Uint8Array(8).buffer);
const step = prepareStep({ contextWindow: 1000 });
await inline.init();
void [result.messages, step];

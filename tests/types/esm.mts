// Type-checked by tests/types/run.mjs: ES module declarations for the ES module entry points.
import * as tc from "tiered-compaction";
import wasmUrl from "tiered-compaction/tiered_compaction_bg.wasm";
import { init } from "tiered-compaction/web";
import * as inline from "tiered-compaction/inline";

// @ts-expect-error there is no default export (it would fail at run time)
import tcDefault from "tiered-compaction";

const url: string = wasmUrl;
await init(url);
const tier: tc.Tier = tc.selectTier({ turnCount: 1, contextPctUsed: 0, idleSeconds: 0, sessionComplete: false });
// tiered-compaction/inline: init() needs no argument (the module is embedded).
await inline.init();
const inlineTier: tc.Tier = inline.selectTier({ turnCount: 1, contextPctUsed: 0, idleSeconds: 0, sessionComplete: false });
void [tier, tcDefault, inlineTier];

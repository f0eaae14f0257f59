// Type-checked by tests/types/run.mjs: `require` gets the CommonJS declarations (index.d.cts,
// ai-sdk.d.cts, inline.d.cts), and the module has no default export in either kind.
import tc = require("tiered-compaction");
import aiSdk = require("tiered-compaction/ai-sdk");
import web = require("tiered-compaction/web");
import inline = require("tiered-compaction/inline");

const tier: tc.Tier = tc.selectTier({ turnCount: 1, contextPctUsed: 0, idleSeconds: 0, sessionComplete: false });
const step = aiSdk.prepareStep({ contextWindow: 1000 });
void [tier, step, web.init, inline.init, inline.compact];

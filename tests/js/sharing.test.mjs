// Structural sharing: messages a tier leaves unchanged come back as the caller's own objects
// (identity, not a copy); only edited and new messages are built anew.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { compactWithTier } from "./unbatched.mjs";
import { openaiMessages } from "../../scripts/samples.mjs";
import { pressure } from "./helpers.mjs";
import { assertNothingLost } from "./lossless.mjs";

describe("structural sharing", () => {
  for (const tier of ["none", "micro", "time_based", "auto"]) {
    it(`${tier}: untouched messages are the caller's objects, edited ones are new`, async () => {
      const messages = openaiMessages();
      const ctx = { sessionId: "share", pressure: pressure(9, 0.8, 900), messages };
      const result = await compactWithTier(tier, ctx);
      const shared = result.messages.filter((message) => messages.includes(message));
      const fresh = result.messages.filter((message) => !messages.includes(message));
      assert.ok(shared.length > 0, "some messages are shared");
      if (tier === "none") assert.equal(fresh.length, 0);
      else assert.ok(fresh.length > 0, `${tier} edits something in the sample`);
      assertNothingLost(ctx, result);
    });
  }
});

// Many compact calls in flight at once in one instance must not interfere (docs/design.md, "The tiers": digests and summaries): 500
// concurrent calls whose summarisers answer after random delays (some failing, some timing out)
// give exactly the results of the same calls made one after another.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { compact, compactWithTier } from "./unbatched.mjs";
import { random, samples } from "../../scripts/samples.mjs";
import { pressure } from "./helpers.mjs";

const CALLS = 500;

/** Call `index`: a sample, a tier-choosing pressure and a summariser behaviour, all from `index`. */
function call(index, delay) {
  const input = { ...samples()[index % 4] };
  delete input.name;
  const ctx = { sessionId: `session-${index}`, pressure: pressure(9, [0.9, 0.5, 0.2][index % 3], 0, index % 7 === 0), ...input };
  const behaviour = index % 5;
  const summarise = async (request) => {
    // Behaviour 4 times out (after 1 ms) while its summariser takes 30 ms.
    await new Promise((resolve) => setTimeout(resolve, behaviour === 4 ? 30 : delay));
    if (behaviour === 3) throw new Error(`failure ${index}`);
    return { summary: `summary ${index} of ${request.tier} for ${request.sessionId}`, usage: { inputTokens: index, outputTokens: 3 } };
  };
  const options = { summarise, timeoutMs: behaviour === 4 ? 1 : 5000 };
  return [ctx, options];
}

describe("concurrency", () => {
  it(`${CALLS} concurrent compact calls equal sequential ones`, async () => {
    const next = random(7);
    const delays = Array.from({ length: CALLS }, () => Math.floor(next() * 25));
    const make = call;
    const sequential = [];
    for (let index = 0; index < CALLS; index += 1) {
      const [ctx, options] = make(index, 0);
      sequential.push(await compact(ctx, options));
    }
    const concurrent = await Promise.all(
      Array.from({ length: CALLS }, (_, index) => {
        const [ctx, options] = make(index, delays[index]);
        return index % 11 === 0 ? compactWithTier("auto", ctx, options) : compact(ctx, options);
      }),
    );
    for (let index = 0; index < CALLS; index += 1) {
      const expected = index % 11 === 0 ? await compactWithTier("auto", ...make(index, 0)) : sequential[index];
      assert.deepEqual(concurrent[index], expected, `call ${index}`);
    }
    // The mix really exercised the summariser paths.
    assert.ok(concurrent.some((result) => result.summariserUsage !== undefined));
    assert.ok(concurrent.some((result) => result.degraded === true));
  });
});

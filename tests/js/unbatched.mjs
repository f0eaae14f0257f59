// The package with micro unbatched unless a test says otherwise (`policy.cache.batchTokens` 0:
// every step stubbed as it leaves the protected tail). The tests of what a stub holds, of restore
// and of the invariants use fixtures far smaller than a batch (5,000 tokens by default), which
// would leave every body whole. The batches and the loop are tested against the package as it is
// (cache.test.mjs, loop.test.mjs).
import * as api from "tiered-compaction";

export * from "tiered-compaction";

function unbatched(options) {
  // What is not an options object (the error tests' inputs) goes to the package as it is.
  const object = (value) => typeof value === "object" && value !== null && !Array.isArray(value);
  if (options !== undefined && !object(options)) return options;
  if (options?.policy !== undefined && !object(options.policy)) return options;
  if (options?.policy?.cache !== undefined && !object(options.policy.cache)) return options;
  if (options?.policy?.cache?.batchTokens !== undefined) return options;
  const policy = options?.policy ?? {};
  return { ...options, policy: { ...policy, cache: { batchTokens: 0, ...policy.cache } } };
}

export const compact = (ctx, options) => api.compact(ctx, unbatched(options));
export const compactWithTier = (tier, ctx, options) => api.compactWithTier(tier, ctx, unbatched(options));
export const compactRequestBody = (body, options) => api.compactRequestBody(body, unbatched(options));

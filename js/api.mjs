// The public API shared by every ES-module entry point of the package: exactly the names of
// SPEC §2, each a thin guard in front of the wasm-bindgen glue. An entry point creates one API,
// instantiates the wasm module (at once in Node, Deno, Bun and workerd; on `init()` in browsers)
// and hands the glue over with `bind`. Calling an export before that throws (or, for the
// promise-returning ones, rejects with) an Error saying to call init() first.

/** @param {string} name */
function notInitialised(name) {
  const error = new Error(
    `tiered-compaction: ${name}() was called before the WebAssembly module was initialised; ` +
      "in browsers and workers, await init() once first (the Node, Deno, Bun and workerd entry points need no init)",
  );
  error.code = "ERR_TC_NOT_INITIALISED";
  return error;
}

export function createApi() {
  let glue = null;
  const ready = (name) => {
    if (glue === null) throw notInitialised(name);
    return glue;
  };
  const later = (name, call) => {
    if (glue === null) return Promise.reject(notInitialised(name));
    return call(glue);
  };
  return {
    bind(initialisedGlue) {
      glue = initialisedGlue;
    },
    isReady: () => glue !== null,
    selectTier: (pressure, policy) => ready("selectTier").selectTier(pressure, policy),
    compact: (ctx, options) => later("compact", (g) => g.compact(ctx, options)),
    compactWithTier: (tier, ctx, options) =>
      later("compactWithTier", (g) => g.compactWithTier(tier, ctx, options)),
    recordTierEvent: (result, step) => ready("recordTierEvent").recordTierEvent(result, step),
    runLegacyCompaction: (sessionId, contextText, opts) =>
      later("runLegacyCompaction", (g) => g.runLegacyCompaction(sessionId, contextText, opts)),
    compactRequestBody: (body, options) =>
      later("compactRequestBody", (g) => g.compactRequestBody(body, options)),
    estimateTokens: (text, options) => ready("estimateTokens").estimateTokens(text, options),
  };
}

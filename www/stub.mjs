// The demo's stand-in for a real summarisation model: a `summarise` callback (docs/design.md, "The tiers": digests and summaries) with a
// configurable delay and failure mode, so the page can show the async path and every fallback.
// Deterministic (no clock or randomness in what it returns), so the page test can run the same
// stub in Node against the Node build and expect the same numbers.

/** The failure modes, in the order the page offers them. */
export const STUB_MODES = Object.freeze({
  resolve: "resolve: answer with a short summary (and its usage)",
  reject: "reject: the promise rejects (an upstream 503)",
  hang: "hang: never settles, ignores the signal (the timeout fires)",
  too_long: "return too long: an answer longer than what it replaces",
});

/** Illustrative prices of the pretend model, USD per million tokens. */
export const STUB_PRICE_PER_MILLION = Object.freeze({ input: 3, output: 15 });

/** The summary the stub answers with: short, and carrying `mustKeep` verbatim within the budget. */
export function stubSummary(request) {
  const budgetChars = Math.max(160, Math.floor(request.targetTokens * 4 * 0.8));
  const lines = [`Stub summary (${request.tier}) of ${request.transcript.length} chars of transcript.`];
  let used = lines[0].length;
  for (const item of request.mustKeep) {
    const line = `- ${item}`;
    if (used + line.length + 1 > budgetChars) break;
    lines.push(line);
    used += line.length + 1;
  }
  return lines.join("\n");
}

/** What a model would report for that call (tokens at 4 chars each). */
export function stubUsage(request, summary) {
  const inputTokens = Math.ceil((request.instructions.length + request.transcript.length) / 4);
  const outputTokens = Math.ceil(summary.length / 4);
  const costUsd = (inputTokens * STUB_PRICE_PER_MILLION.input + outputTokens * STUB_PRICE_PER_MILLION.output) / 1e6;
  return { inputTokens, outputTokens, costUsd };
}

/** Resolves after `ms` unless `signal` aborts first (then rejects with the abort reason). */
function sleep(ms, signal) {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    function onAbort() {
      clearTimeout(timer);
      reject(signal.reason);
    }
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/**
 * A `summarise` callback.
 * @param {{ mode: keyof STUB_MODES, delayMs: number,
 *           onCall?: (request: object, settled: Promise<unknown>) => void }} settings
 *   `onCall` sees each request and a promise that settles like the answer (the page's call log).
 */
export function createStubSummariser({ mode, delayMs, onCall }) {
  if (!(mode in STUB_MODES)) throw new TypeError(`stub mode must be one of ${Object.keys(STUB_MODES).join(", ")}, got ${mode}`);
  return function summarise(request) {
    let answer;
    if (mode === "hang") {
      answer = new Promise(() => {});
    } else {
      answer = sleep(delayMs, request.signal).then(() => {
        if (mode === "reject") throw new Error("stub summariser: upstream model returned HTTP 503 (overloaded)");
        if (mode === "too_long") return `${request.transcript}\n\n${request.transcript}`;
        const summary = stubSummary(request);
        return { summary, usage: stubUsage(request, summary) };
      });
    }
    onCall?.(request, answer);
    return answer;
  };
}

// Shared by the reliability tests: a deterministic mix of calls (every format, every tier, the
// request-body path, the synchronous exports) and of summariser behaviours, each fault kind a
// summariser can show. Call `index` is the same call every time it is made, so a run in any
// order, sequential or concurrent, must give the same results.
import { anthropicRequestBody, samples } from "../../scripts/samples.mjs";

const SAMPLES = samples().map(({ name, ...input }) => ({ name, input }));
const BODY = anthropicRequestBody();

/** Every way a summariser can behave, in the order calls cycle through them. */
export const SUMMARISER_KINDS = [
  "none", // no summariser: the structural digest
  "resolve", // a string after a short delay
  "usage", // { summary, usage }
  "reject", // a rejected promise
  "throw", // throws synchronously
  "hang", // never answers: times out after timeoutMs
  "abort", // never answers; the host aborts options.signal first
  "non-string", // 42, null or { summary: 5 }
  "empty", // ""
  "too-long", // longer than what it would replace
  "slow", // answers correctly, but only after 40 ms or more
];

const pressureFor = (index) => ({
  turnCount: [9, 9, 2, 9, 9][index % 5],
  contextPctUsed: [0.9, 0.75, 0.1, 0.5, 0.95][index % 5],
  idleSeconds: index % 13 === 0 ? 7200 : 0,
  sessionComplete: index % 17 === 0,
});

/**
 * The summariser option of call `index` (`undefined` for "none"). `delay` (ms) is how long the
 * well-behaved kinds take; `counts` (optional) tallies the kinds actually handed out.
 */
export function summariserFor(index, kind, delay, counts) {
  if (counts) counts[kind] = (counts[kind] ?? 0) + 1;
  // No delay: answer in a microtask (still asynchronous), not a timer's millisecond.
  const wait = (ms) => (ms === 0 ? Promise.resolve() : new Promise((resolve) => setTimeout(resolve, ms)));
  switch (kind) {
    case "none":
      return {};
    case "resolve":
      return { summarise: async () => (await wait(delay), `Summary ${index}: the agent ran the tests and read the pool code.`) };
    case "usage":
      return {
        summarise: async (request) => {
          await wait(delay);
          return { summary: `Summary ${index} for ${request.sessionId}.`, usage: { inputTokens: index, outputTokens: 9, costUsd: 0.001 } };
        },
      };
    case "reject":
      return { summarise: async () => (await wait(delay), Promise.reject(new Error(`model overloaded ${index}`))) };
    case "throw":
      return {
        summarise: () => {
          throw new TypeError(`no client configured ${index}`);
        },
      };
    case "hang":
      return { summarise: () => new Promise(() => {}), timeoutMs: 2 };
    case "abort": {
      const controller = new AbortController();
      setTimeout(() => controller.abort(new Error(`user cancelled ${index}`)), 1);
      return { summarise: () => new Promise(() => {}), signal: controller.signal };
    }
    case "non-string":
      return { summarise: async () => (await wait(delay), [42, null, { summary: 5 }][index % 3]) };
    case "empty":
      return { summarise: () => "" };
    case "too-long":
      return { summarise: (request) => request.transcript.repeat(2) };
    case "slow":
      // Slow for real under concurrency; 1 ms in a sequential baseline (delay 0), same answer.
      return { summarise: async () => (await wait(delay === 0 ? 1 : 40 + delay), `Slow summary ${index}.`), timeoutMs: 30_000 };
    default:
      throw new Error(`unknown summariser kind ${kind}`);
  }
}

/**
 * Call `index` of the mix: `[name, run]`, where `run(api, delay, counts)` makes the call on the
 * given API object (any entry point's exports) and returns a promise of its outcome.
 */
export function callFor(index) {
  const sample = SAMPLES[index % SAMPLES.length];
  const kind = SUMMARISER_KINDS[Math.floor(index / SAMPLES.length) % SUMMARISER_KINDS.length];
  const ctx = () => ({ sessionId: `session-${index}`, pressure: pressureFor(index), ...structuredClone(sample.input) });
  // Generous where a deadline is not the point: a loaded event loop must not turn a good answer
  // into a timeout (answers seen after the deadline count as late).
  const options = (delay, counts) => ({ timeoutMs: 30_000, ...summariserFor(index, kind, delay, counts) });
  switch (index % 23) {
    case 5:
      return [`compactWithTier(micro) ${sample.name}`, (api, delay, counts) => api.compactWithTier("micro", ctx(), options(delay, counts))];
    case 11:
      return [`compactWithTier(session_memory) ${sample.name} ${kind}`, (api, delay, counts) => api.compactWithTier("session_memory", ctx(), options(delay, counts))];
    case 7:
      return [
        `runLegacyCompaction ${kind}`,
        (api, delay, counts) => api.runLegacyCompaction(`legacy-${index}`, SAMPLES[0].input.text, options(delay, counts)),
      ];
    case 13:
      return [
        "compactRequestBody",
        (api) => api.compactRequestBody(BODY, { sessionId: `edge-${index}`, pressure: pressureFor(index) }),
      ];
    case 19:
      // A refused call in the mix: its error must be the same too.
      return ["compact with a bad pressure", (api) => api.compact({ ...ctx(), pressure: { ...pressureFor(index), contextPctUsed: 2 } })];
    default:
      return [`compact ${sample.name} ${kind}`, (api, delay, counts) => api.compact(ctx(), options(delay, counts))];
  }
}

/** What must be equal between runs: the content of a result, or the error of a refusal. */
export function outcome(settled) {
  if (settled.status === "rejected") {
    const error = settled.reason;
    return { error: error?.name, code: error?.code, message: error?.message };
  }
  const value = settled.value;
  const result = value.result ?? value; // compactRequestBody: { body, result }
  return {
    body: value.body,
    tier: result.tier,
    text: result.text,
    messages: result.messages,
    beforeTokens: result.beforeTokens,
    afterTokens: result.afterTokens,
    archive: result.archive,
    degraded: result.degraded,
    warnings: result.warnings,
    summariserUsage: result.summariserUsage,
  };
}

/** Settles `promise` into `{ status, value | reason }` (like Promise.allSettled for one). */
export function settle(promise) {
  return promise.then(
    (value) => ({ status: "fulfilled", value }),
    (reason) => ({ status: "rejected", reason }),
  );
}

// Fault injection under concurrency: 1,000 calls in flight at once in one instance, their
// summarisers misbehaving in every way a summariser can (reject, throw, hang past timeoutMs,
// aborted through options.signal, non-string, empty, too long, slow), mixed with well-behaved
// ones, calls without a summariser, the request-body path and a refused call. Every result must
// equal the sequential run of the same call, by content: messages / text, tokens, archive,
// degraded, warnings, usage (and for a refusal, the same error).
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { random } from "../../scripts/samples.mjs";
import { SUMMARISER_KINDS, callFor, outcome, settle } from "./reliability-workload.mjs";

const registry = new Map();
globalThis[Symbol.for("tiered-compaction.testing")] = registry;
const api = await import("tiered-compaction");
const hooks = registry.get("index.mjs");

const CALLS = 1000;

/** The fault a result shows, from its warnings (what the summariser did, as the result says it). */
function fault(result) {
  const warnings = (result.result ?? result).warnings ?? [];
  const causes = [
    ["timed out", /summariser timed out/],
    ["aborted", /summariser aborted/],
    ["rejected", /summariser rejected/],
    ["threw", /summariser threw/],
    ["non-string", /summariser returned (number|null|an object)/],
    ["empty", /empty summary/],
    ["too long", /is not shorter than what it replaces/],
  ];
  return causes.find(([, pattern]) => warnings.some((warning) => pattern.test(warning)))?.[0];
}

describe(`${CALLS} concurrent calls with summariser faults of every kind`, () => {
  it("give exactly the results of the same calls made one after another", async (t) => {
    const sequential = [];
    for (let index = 0; index < CALLS; index += 1) sequential.push(outcome(await settle(callFor(index)[1](api, 0))));

    const next = random(97);
    const delays = Array.from({ length: CALLS }, () => Math.floor(next() * 50));
    const handedOut = {};
    const started = performance.now();
    const calls = Array.from({ length: CALLS }, (_, index) => settle(callFor(index)[1](api, delays[index], handedOut)));
    const inFlight = hooks.diagnostics().pending;
    const concurrent = await Promise.all(calls);
    const seconds = (performance.now() - started) / 1000;

    let mismatches = 0;
    for (let index = 0; index < CALLS; index += 1) {
      const got = outcome(concurrent[index]);
      try {
        assert.deepEqual(got, sequential[index]);
      } catch {
        mismatches += 1;
      }
    }
    for (let index = 0; index < CALLS; index += 1) {
      assert.deepEqual(outcome(concurrent[index]), sequential[index], `call ${index}: ${callFor(index)[0]}`);
    }

    // The mix really held every fault, and each fault really showed in the results.
    const seen = {};
    let summarised = 0;
    let refused = 0;
    for (const result of concurrent) {
      if (result.status === "rejected") {
        refused += 1;
        continue;
      }
      const cause = fault(result.value);
      if (cause) seen[cause] = (seen[cause] ?? 0) + 1;
      if ((result.value.result ?? result.value).summariserUsage) summarised += 1;
    }
    for (const kind of SUMMARISER_KINDS) assert.ok(handedOut[kind] > 0, `kind ${kind} handed out`);
    for (const cause of ["timed out", "aborted", "rejected", "threw", "non-string", "empty", "too long"]) {
      assert.ok(seen[cause] > 0, `a result degraded because the summariser ${cause}`);
    }
    assert.ok(summarised > 0, "some summaries were used");
    assert.equal(inFlight, CALLS, "every call was in flight at once");
    assert.equal(hooks.diagnostics().pending, 0);
    assert.equal(hooks.diagnostics().traps, 0);
    t.diagnostic(
      `${CALLS} calls in flight at once, ${seconds.toFixed(2)} s; summarisers handed out ${JSON.stringify(handedOut)}; ` +
        `faults seen in results ${JSON.stringify(seen)}; summaries used ${summarised}; refused ${refused}; mismatches ${mismatches}`,
    );
  });
});

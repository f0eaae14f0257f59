// Memory over 10,000 sequential calls of the reliability mix (every format and tier, the
// request-body path, with and without a summariser, every summariser fault, the synchronous
// exports on each result), measured in a child process started with --expose-gc
// (reliability-memory-run.mjs) after full collections: the instance's WebAssembly.Memory, the JS
// heap, the JS values the instance holds (wasm-bindgen's externref table), timers and listeners.
// After a warm-up of 1,000 calls nothing may grow beyond the bounds below.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import * as path from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const CALLS = 10_000;
const WARM_UP = 1_000;
const BOUNDS = {
  /** WebAssembly.Memory: at most one 64 KiB page more than after the warm-up (measured: 0). */
  memoryBytes: 64 * 1024,
  /** JS heap after full collections (measured: about +0.25 MiB, not trending up over 40,000). */
  heapUsed: 1024 * 1024,
};

const kib = (bytes) => `${(bytes / 1024).toFixed(0)} KiB`;

describe(`memory over ${CALLS.toLocaleString("en")} calls`, () => {
  it("does not grow after the warm-up: wasm memory, JS heap, JS handles held by the instance, timers, listeners", (t) => {
    const out = execFileSync(process.execPath, ["--expose-gc", path.join(here, "reliability-memory-run.mjs"), String(CALLS)], {
      encoding: "utf8",
      maxBuffer: 16 * 1024 * 1024,
    });
    const { seconds, fulfilled, rejected, samples } = JSON.parse(out.trim().split("\n").at(-1));
    const [start] = samples;
    const warm = samples.find((sample) => sample.calls === WARM_UP);
    const end = samples.at(-1);
    assert.equal(end.calls, CALLS);
    assert.equal(fulfilled + rejected, CALLS);

    for (const sample of samples.filter(({ calls }) => calls >= WARM_UP)) {
      const at = `after ${sample.calls} calls`;
      assert.ok(sample.memoryBytes - warm.memoryBytes <= BOUNDS.memoryBytes, `${at}: wasm memory ${sample.memoryBytes} vs ${warm.memoryBytes} after the warm-up`);
      assert.ok(sample.heapUsed - warm.heapUsed <= BOUNDS.heapUsed, `${at}: JS heap ${kib(sample.heapUsed)} vs ${kib(warm.heapUsed)} after the warm-up`);
      // JS values the instance holds between calls: exactly as many as after the warm-up.
      assert.equal(sample.externrefsInUse, warm.externrefsInUse, `${at}: JS values held by the instance`);
      assert.deepEqual([sample.pending, sample.timers, sample.listeners, sample.activeTimers], [0, 0, 0, 0], `${at}: nothing left in flight`);
      assert.equal(sample.instances, 1, `${at}: one instance`);
      assert.equal(sample.traps, 0, `${at}: no trap`);
    }
    // The table's length is a high-water mark; it also grows by one slot per JS exception caught
    // at the boundary (wasm-bindgen 0.2.130; the slot is emptied but not reused: RELIABILITY.md).
    assert.ok(end.externrefs <= 4096, `externref table: ${end.externrefs} slots`);

    t.diagnostic(
      `${CALLS} calls in ${seconds.toFixed(1)} s (${fulfilled} results, ${rejected} refusals); ` +
        `wasm memory ${kib(start.memoryBytes)} at start, ${kib(warm.memoryBytes)} after ${WARM_UP}, ${kib(end.memoryBytes)} after ${CALLS}; ` +
        `JS heap ${kib(start.heapUsed)} / ${kib(warm.heapUsed)} / ${kib(end.heapUsed)}; ` +
        `JS values held by the instance ${start.externrefsInUse} / ${warm.externrefsInUse} / ${end.externrefsInUse} (table ${start.externrefs} / ${warm.externrefs} / ${end.externrefs} slots); ` +
        `RSS ${kib(start.rss)} / ${kib(warm.rss)} / ${kib(end.rss)}`,
    );
  });
});

// Timing and table helpers for bench/run.mjs.

export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

const gc = () => globalThis.gc?.();

/**
 * Measures `contenders` ({ name, fn }) side by side in this process: each is warmed up, then the
 * contenders take turns (the order rotates every round) for `runs` rounds. A sample is one call,
 * or the mean of several calls when one call is shorter than `minSampleMs`. Returns
 * { name: median ms per call }.
 *
 * Warm-up: at least `warmup` calls and at least `warmupMs` of calls per contender. V8 compiles
 * JS and wasm first with a baseline compiler and swaps in optimised code in the background once
 * a function has run enough; a 0.1 ms wasm call took about 150 calls (80 ms) to settle, so a
 * warm-up counted in calls alone measured the baseline code at small sizes.
 */
export async function compare(contenders, { runs = 7, warmup = 2, warmupMs = 300, minSampleMs = 8 } = {}) {
  const reps = new Map();
  for (const { name, fn } of contenders) {
    let elapsed = 0;
    const until = performance.now() + warmupMs;
    for (let i = 0; i < warmup || performance.now() < until; i++) {
      const t0 = performance.now();
      await fn();
      elapsed = performance.now() - t0;
    }
    reps.set(name, Math.max(1, Math.min(1000, Math.ceil(minSampleMs / Math.max(elapsed, 0.001)))));
  }
  const samples = new Map(contenders.map(({ name }) => [name, []]));
  for (let round = 0; round < runs; round++) {
    for (let k = 0; k < contenders.length; k++) {
      const { name, fn } = contenders[(k + round) % contenders.length];
      const n = reps.get(name);
      gc();
      const t0 = performance.now();
      for (let i = 0; i < n; i++) await fn();
      samples.get(name).push((performance.now() - t0) / n);
    }
  }
  return Object.fromEntries([...samples].map(([name, values]) => [name, median(values)]));
}

/** Least-squares slope of log(time) on log(size): the scaling exponent. */
export function exponent(points) {
  const xs = points.map(([size]) => Math.log(size));
  const ys = points.map(([, time]) => Math.log(time));
  const mx = xs.reduce((a, b) => a + b, 0) / xs.length;
  const my = ys.reduce((a, b) => a + b, 0) / ys.length;
  let num = 0;
  let den = 0;
  for (let i = 0; i < xs.length; i++) {
    num += (xs[i] - mx) * (ys[i] - my);
    den += (xs[i] - mx) ** 2;
  }
  return num / den;
}

/** A markdown table; columns whose cells all start with a number are right-aligned. */
export function table(header, rows) {
  const line = (cells) => `| ${cells.join(" | ")} |`;
  const numeric = header.map((_, i) => rows.length > 0 && rows.every((row) => row[i] === "" || /^[-\d.]/.test(String(row[i]))));
  return [line(header), line(numeric.map((n) => (n ? "---:" : "---"))), ...rows.map(line)].join("\n");
}

export const ms = (v) => (v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v >= 1 ? v.toFixed(2) : v.toFixed(3));
export const ratio = (v) => `${v.toFixed(2)}×`;
export const pct = (v) => `${(v * 100).toFixed(1)} %`;
export const mb = (bytes) => (bytes >= 1e6 ? `${(bytes / 1e6).toFixed(1)} MB` : `${(bytes / 1e3).toFixed(0)} KB`);
export const kib = (bytes) => `${(bytes / 1024).toFixed(1)} KiB`;
/** "met" / "NOT met" for a target check. */
export const verdict = (ok) => (ok ? "met" : "**not met**");

// Fits the coefficients of the built-in "heuristic" token estimator (src/tokens.rs) against
// exact o200k_base counts from `gpt-tokenizer`, and checks the shipped estimator.
//
//   node bench/calibrate.mjs            fit on the calibration corpus (seed 1), report the error
//                                       per slice on it and on a held-out corpus (seed 2), print
//                                       the Rust constants
//   node bench/calibrate.mjs --check    also check that the wasm estimator (pkg/) gives exactly
//                                       the counts of the reference model with the committed
//                                       constants (read from src/tokens.rs)
//
// The fit: weighted least squares of the exact count on the feature counts of
// `estimator-model.mjs`, each sample weighted by 1 / exact² (so the relative error is what is
// minimised), with coefficients kept >= 0 (a feature whose coefficient comes out negative is
// dropped and the fit repeated), which keeps the estimate monotone when text is appended.
import * as fs from "node:fs";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { countTokens } from "gpt-tokenizer/encoding/o200k_base";
import { estimate, FEATURES, features } from "./estimator-model.mjs";
import { tokenCorpus } from "./generate.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
export const CALIBRATION_SEED = 1;
export const HOLDOUT_SEED = 2;
export const CORPUS_OPTIONS = { perSlice: 150, minChars: 40, maxChars: 8000 };

/** Median of the absolute relative errors of `predict` on `samples` (with `exact` counts), per slice. */
export function errorsBySlice(samples, predict) {
  const bySlice = new Map();
  for (const sample of samples) {
    const predicted = predict(sample);
    const error = Math.abs(predicted - sample.exact) / Math.max(1, sample.exact);
    if (!bySlice.has(sample.slice)) bySlice.set(sample.slice, []);
    bySlice.get(sample.slice).push(error);
  }
  return new Map([...bySlice].map(([slice, errors]) => [slice, median(errors)]));
}

export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** Solves `a x = b` (small, dense) by Gaussian elimination with partial pivoting. */
function solve(a, b) {
  const n = b.length;
  const m = a.map((row, i) => [...row, b[i]]);
  for (let col = 0; col < n; col++) {
    let pivot = col;
    for (let row = col + 1; row < n; row++) if (Math.abs(m[row][col]) > Math.abs(m[pivot][col])) pivot = row;
    [m[col], m[pivot]] = [m[pivot], m[col]];
    if (Math.abs(m[col][col]) < 1e-12) return null;
    for (let row = 0; row < n; row++) {
      if (row === col) continue;
      const factor = m[row][col] / m[col][col];
      for (let k = col; k <= n; k++) m[row][k] -= factor * m[col][k];
    }
  }
  return m.map((row, i) => row[n] / row[i]);
}

/** Non-negative weighted least squares over the active features. */
export function fit(samples) {
  let active = FEATURES.map((_, k) => k).filter((k) => samples.some((s) => s.features[k] > 0));
  for (;;) {
    const n = active.length;
    const ata = Array.from({ length: n }, () => new Array(n).fill(0));
    const atb = new Array(n).fill(0);
    for (const s of samples) {
      const w = 1 / Math.max(1, s.exact) ** 2;
      for (let i = 0; i < n; i++) {
        const fi = s.features[active[i]];
        if (fi === 0) continue;
        atb[i] += w * fi * s.exact;
        for (let j = 0; j < n; j++) ata[i][j] += w * fi * s.features[active[j]];
      }
    }
    const x = solve(ata, atb);
    if (x === null) throw new Error("singular fit");
    const negative = x.findIndex((v) => v < 0);
    if (negative === -1) {
      const coefficients = new Array(FEATURES.length).fill(0);
      active.forEach((k, i) => (coefficients[k] = x[i]));
      return coefficients;
    }
    active = active.filter((_, i) => i !== negative);
  }
}

export function labelledCorpus(seed) {
  return tokenCorpus(seed, CORPUS_OPTIONS).map((sample) => ({
    ...sample,
    exact: countTokens(sample.text),
    features: features(sample.text),
  }));
}

/** The coefficients committed in src/tokens.rs (`HEURISTIC_COEFFICIENTS`). */
export function committedCoefficients() {
  const source = fs.readFileSync(path.join(here, "..", "src", "tokens.rs"), "utf8");
  const block = source.match(/const HEURISTIC_COEFFICIENTS: \[f64; \d+\] = \[([^\]]*)\]/);
  if (!block) return null;
  return block[1]
    .split("\n")
    .map((line) => line.replace(/\/\/.*$/, "").trim())
    .join("")
    .split(",")
    .filter((v) => v.trim() !== "")
    .map(Number);
}

async function main() {
  const started = performance.now();
  const calibration = labelledCorpus(CALIBRATION_SEED);
  const holdout = labelledCorpus(HOLDOUT_SEED);
  const coefficients = fit(calibration);
  const committed = committedCoefficients();
  const seed = (s) => Math.max(1, Math.floor([...s.text].length / 4));
  const fitted = (s) => estimate(s.text, coefficients);
  const rows = [["slice", "seed rule (cal)", "fitted (cal)", "fitted (held-out)", committed ? "committed (held-out)" : ""]];
  const cal = errorsBySlice(calibration, fitted);
  const calSeed = errorsBySlice(calibration, seed);
  const held = errorsBySlice(holdout, fitted);
  const heldCommitted = committed && errorsBySlice(holdout, (s) => estimate(s.text, committed));
  for (const slice of cal.keys()) {
    const pct = (v) => `${(v * 100).toFixed(1)} %`;
    rows.push([slice, pct(calSeed.get(slice)), pct(cal.get(slice)), pct(held.get(slice)), committed ? pct(heldCommitted.get(slice)) : ""]);
  }
  for (const row of rows) console.log(row.map((cell, i) => String(cell).padEnd(i === 0 ? 10 : 22)).join(""));
  console.log(`\n${calibration.length} calibration + ${holdout.length} held-out samples, ${((performance.now() - started) / 1000).toFixed(1)} s`);
  console.log("\nconst HEURISTIC_COEFFICIENTS: [f64; %d] = [", FEATURES.length);
  FEATURES.forEach((name, k) => console.log(`    ${coefficients[k].toFixed(4)}, // ${name}`));
  console.log("];");

  if (process.argv.includes("--check")) {
    if (!committed) throw new Error("no HEURISTIC_COEFFICIENTS in src/tokens.rs");
    const { estimateTokens } = await import("tiered-compaction");
    let mismatches = 0;
    for (const s of holdout) {
      const ours = estimateTokens(s.text, { tokenEstimator: "heuristic" });
      const model = estimate(s.text, committed);
      if (ours !== model && mismatches++ < 5) console.log(`mismatch (${s.slice}): wasm ${ours}, model ${model}: ${JSON.stringify(s.text.slice(0, 80))}`);
    }
    console.log(mismatches === 0 ? `check: the wasm estimator agrees with the model on all ${holdout.length} held-out samples` : `check: ${mismatches} mismatches`);
    if (mismatches) process.exitCode = 1;
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main();

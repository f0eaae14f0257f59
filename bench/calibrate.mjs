// Fits the built-in "heuristic" token estimator (src/tokens/estimator.rs, its constants in
// src/tokens/model.rs) to exact o200k_base counts from `gpt-tokenizer`, and checks the shipped
// estimator.
//
//   node bench/calibrate.mjs            fit, report the error per kind (in-sample, held-out
//                                       sessions, generated held-out seed), print the constants
//   node bench/calibrate.mjs --write    also write them into src/tokens/model.rs
//   node bench/calibrate.mjs --check    check that the wasm estimator (pkg/) gives exactly the
//                                       counts of the reference model (estimator-model.mjs) with
//                                       the committed constants
//   node bench/calibrate.mjs --fixture  write the exact counts of generate.mjs's `agentPieces`
//                                       (tests/js/fixtures/o200k-agent-pieces.json)
//
// The corpus: the generated corpus (bench/generate.mjs, seed 1) and, when ../shared is beside the
// repository, the text pieces of the real sessions (counting.mjs). Without the real sessions the
// fit is of the generated corpus alone, and differs from the committed one.
//
// The fit, in two steps:
// 1. The cut table. Every word piece of the corpus (estimator-model.mjs's `pieces`) is encoded on
//    its own; for each pair of neighbouring letters, whether a token starts between them. The
//    share of pairs cut is estimated per letter pair and lead (what is before the word: nothing,
//    a space, another character), plus one offset per lead, first pair or not, and case, by
//    alternating means (each pair's share shrunk towards the corpus' share by 3 pairs' weight),
//    then rounded to 0..=LEVELS.
// 2. The coefficients: weighted least squares of each text's exact count on its features, each
//    text weighted by 1 / exact² (the relative error is minimised; generated texts count 0.3 of
//    a real one), coefficients kept >= 0 (a feature whose coefficient comes out negative is
//    dropped and the fit repeated), which keeps the estimate from shrinking as text is appended.
import * as fs from "node:fs";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { encode, decode } from "gpt-tokenizer/encoding/o200k_base";
import { classify, estimate, FEATURES, features, LEADS, LETTERS, LEVELS, OFFSETS, pieces, wordPairs, afterEscape } from "./estimator-model.mjs";
import { agentPieces, tokenCorpus } from "./generate.mjs";
import { errorOf, KINDS, realDirs, realPieces } from "./counting.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const MODEL_RS = path.join(here, "..", "src", "tokens", "model.rs");
const FIXTURE = path.join(here, "..", "tests", "js", "fixtures", "o200k-agent-pieces.json");
export const CALIBRATION_SEED = 1;
export const HOLDOUT_SEED = 2;
export const CORPUS_OPTIONS = { perSlice: 150, minChars: 40, maxChars: 8000 };
/** The kind (counting.mjs) of each slice of the generated corpus. */
export const SLICE_KINDS = { english: "prose", code: "code", json: "JSON", logs: "logs", cjk: "CJK", emoji: "emoji", base64: "base64" };
/** How much a generated text weighs in the coefficients' fit, beside a real one. */
const GENERATED_WEIGHT = 0.3;
/** Pairs' weight of the corpus share a pair's own share is shrunk towards. */
const SHRINK = 3;
const PAIRS = LEADS * LETTERS * LETTERS;

/** The generated corpus of `seed`, labelled. */
export function generatedCorpus(seed, options = CORPUS_OPTIONS) {
  return tokenCorpus(seed, options).map((s) => ({ text: s.text, kind: SLICE_KINDS[s.slice], generated: true }));
}

/** The cut table and offsets fitted on `samples` (step 1). */
export function fitCuts(samples) {
  const events = [];
  for (const { text } of samples) {
    const { cps, classes } = classify(text);
    const word = (start, end, lead) => {
      const rest = afterEscape(cps, start, end, lead);
      if (rest === null || end - rest[0] < 2) return;
      const [from, how] = rest;
      const whole = how === lead ? start - (lead ? 1 : 0) : from;
      // Only ASCII words: a token's text is then its characters.
      for (let k = whole; k < end; k++) if (cps[k] >= 0x80) return;
      const starts = new Set();
      let at = whole;
      for (const id of encode(String.fromCodePoint(...cps.slice(whole, end)))) {
        starts.add(at);
        at += decode([id]).length;
      }
      wordPairs(cps, classes, from, end, how, (pair, offset, k) => events.push(pair, offset, starts.has(k) ? 1 : 0));
    };
    pieces(cps, classes, word, () => {});
  }
  let cut = 0;
  for (let i = 2; i < events.length; i += 3) cut += events[i];
  const share = cut / (events.length / 3);
  const pairs = new Float64Array(PAIRS);
  const offsets = new Float64Array(OFFSETS);
  for (let round = 0; round < 20; round++) {
    const sum = new Float64Array(PAIRS);
    const n = new Float64Array(PAIRS);
    for (let i = 0; i < events.length; i += 3) {
      sum[events[i]] += events[i + 2] - offsets[events[i + 1]];
      n[events[i]] += 1;
    }
    for (let k = 0; k < PAIRS; k++) pairs[k] = (sum[k] + SHRINK * share) / (n[k] + SHRINK);
    const offsetSum = new Float64Array(OFFSETS);
    const offsetN = new Float64Array(OFFSETS);
    for (let i = 0; i < events.length; i += 3) {
      offsetSum[events[i + 1]] += events[i + 2] - pairs[events[i]];
      offsetN[events[i + 1]] += 1;
    }
    for (let k = 0; k < OFFSETS; k++) offsets[k] = offsetN[k] ? offsetSum[k] / offsetN[k] : 0;
  }
  return {
    pairs: Array.from(pairs, (v) => Math.max(0, Math.min(LEVELS, Math.round(v * LEVELS)))),
    offsets: Array.from(offsets, (v) => Math.round(v * LEVELS)),
  };
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

/** Non-negative weighted least squares of `exact` on `features` (step 2). */
export function fitCoefficients(samples) {
  let active = FEATURES.map((_, k) => k).filter((k) => samples.some((s) => s.features[k] > 0));
  for (;;) {
    const n = active.length;
    const ata = Array.from({ length: n }, () => new Array(n).fill(0));
    const atb = new Array(n).fill(0);
    for (const s of samples) {
      const w = (s.generated ? GENERATED_WEIGHT : 1) / Math.max(1, s.exact) ** 2;
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
      return coefficients.map((v) => Number(v.toFixed(4)));
    }
    active = active.filter((_, i) => i !== negative);
  }
}

/** The model fitted on `samples` (each with `exact`). */
export function fitModel(samples) {
  const model = { ...fitCuts(samples), coefficients: [] };
  for (const s of samples) s.features = features(s.text, model);
  model.coefficients = fitCoefficients(samples);
  return model;
}

/** The model committed in src/tokens/model.rs, or null. */
export function committedModel() {
  if (!fs.existsSync(MODEL_RS)) return null;
  const source = fs.readFileSync(MODEL_RS, "utf8");
  const coefficients = source.match(/pub const COEFFICIENTS: \[f64; \d+\] = \[([^\]]*)\]/);
  const pairs = source.match(/pub const PAIRS: &\[u8; \d+\] = b"([^"]*)"/);
  const offsets = source.match(/pub const OFFSETS: \[i8; \d+\] = \[([^\]]*)\]/);
  if (!coefficients || !pairs || !offsets) return null;
  const numbers = (list) =>
    list
      .split("\n")
      .map((line) => line.replace(/\/\/.*$/, "").trim())
      .join("")
      .split(",")
      .filter((v) => v.trim() !== "")
      .map(Number);
  return {
    coefficients: numbers(coefficients[1]),
    pairs: [...pairs[1].replace(/\\\n\s*/g, "")].map((c) => c.charCodeAt(0) - 97),
    offsets: numbers(offsets[1]),
  };
}

/** The Rust source of src/tokens/model.rs for `model`. */
export function modelSource(model, about) {
  const rows = [];
  const letters = model.pairs.map((v) => String.fromCharCode(97 + v)).join("");
  for (let i = 0; i < letters.length; i += LETTERS * 3) rows.push(letters.slice(i, i + LETTERS * 3));
  return `//! The fitted constants of the heuristic estimator ([\`super::Estimator\`]), written by
//! \`node bench/calibrate.mjs --write\` (see there how they are fitted); do not edit by hand.
//! ${about}

/// Tokens per feature, in the order of [\`super::estimator\`]'s features.
#[rustfmt::skip]
pub const COEFFICIENTS: [f64; ${FEATURES.length}] = [
${FEATURES.map((name, k) => `    ${model.coefficients[k].toFixed(4)}, // ${name}`).join("\n")}
];

/// The share of a letter pair o200k cuts between, in 1/${LEVELS} (\`b'a'\` + 0..=${LEVELS}), by
/// lead (none, space, other), first letter (a-z, then any other) and second letter.
#[rustfmt::skip]
pub const PAIRS: &[u8; ${model.pairs.length}] = b"\\
${rows.map((row) => `${row}\\`).join("\n")}
";

/// Added to a pair's share, by lead, first pair of the word or not, and case (lower-lower,
/// upper-upper, upper-lower).
#[rustfmt::skip]
pub const OFFSETS: [i8; ${OFFSETS}] = [${model.offsets.join(", ")}];
`;
}

function report(title, samples, model) {
  const rows = [];
  for (const kind of [...KINDS, "all"]) {
    const set = kind === "all" ? samples : samples.filter((s) => s.kind === kind);
    if (!set.length) continue;
    const e = errorOf(set, (text) => estimate(text, model));
    rows.push(`${kind.padEnd(7)} ${String(set.length).padStart(5)}  ${(e.median * 100).toFixed(1).padStart(5)} % / ${(e.p90 * 100).toFixed(1).padStart(5)} %`);
  }
  console.log(`${title}\n${rows.join("\n")}\n`);
}

async function main() {
  if (process.argv.includes("--fixture")) {
    const counts = agentPieces().map((text) => encode(text).length);
    const about = "Exact o200k_base counts (gpt-tokenizer) of bench/generate.mjs agentPieces(), in order; written by node bench/calibrate.mjs --fixture";
    fs.mkdirSync(path.dirname(FIXTURE), { recursive: true });
    fs.writeFileSync(FIXTURE, `${JSON.stringify({ about, counts })}\n`);
    console.error(`[calibrate] wrote ${path.relative(process.cwd(), FIXTURE)} (${counts.length} counts)`);
    return;
  }
  const started = performance.now();
  const label = (samples) => samples.map((s) => ({ ...s, exact: encode(s.text).length }));
  const real = label(realPieces(realDirs()));
  const calibration = [...label(generatedCorpus(CALIBRATION_SEED)), ...real];
  const holdout = label(generatedCorpus(HOLDOUT_SEED));
  const model = fitModel(calibration);
  if (real.length) {
    const crossCheck = fitModel([...calibration.filter((s) => s.generated), ...real.filter((s) => !s.heldOut)]);
    report("real pieces, in-sample (the fit below)", real, model);
    report("held-out sessions, fitted without them", real.filter((s) => s.heldOut), crossCheck);
  } else {
    console.log("../shared was not found: the fit is of the generated corpus alone\n");
  }
  report(`generated, held-out seed ${HOLDOUT_SEED}`, holdout, model);
  const about = `Fitted on ${real.length} pieces of the real sessions and ${calibration.length - real.length} generated texts (seed ${CALIBRATION_SEED}).`;
  const source = modelSource(model, about);
  console.log(source);
  console.log(`${((performance.now() - started) / 1000).toFixed(1)} s`);
  if (process.argv.includes("--write")) {
    fs.writeFileSync(MODEL_RS, source);
    console.error(`[calibrate] wrote ${path.relative(process.cwd(), MODEL_RS)}`);
  }
  if (process.argv.includes("--check")) {
    const committed = committedModel();
    if (!committed) throw new Error("no model in src/tokens/model.rs");
    const { estimateTokens } = await import("tiered-compaction");
    let mismatches = 0;
    const checked = [...holdout, ...real];
    for (const s of checked) {
      const ours = estimateTokens(s.text, { tokenEstimator: "heuristic" });
      const reference = estimate(s.text, committed);
      if (ours !== reference && mismatches++ < 5) console.log(`mismatch (${s.kind}): wasm ${ours}, model ${reference}: ${JSON.stringify(s.text.slice(0, 80))}`);
    }
    console.log(mismatches === 0 ? `check: the wasm estimator agrees with the model on all ${checked.length} texts` : `check: ${mismatches} mismatches`);
    if (mismatches) process.exitCode = 1;
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main();

// Output fingerprints: a SHA-256 of every tier's result (and of the new body on the body path)
// on the real sessions in every format and on two generated runs, so a change meant to be
// behaviour-neutral (speed, size, refactoring) can be shown to leave every output byte-identical.
//
//   node bench/golden.mjs            compares with bench/golden.txt; exits 1 and prints the
//                                    lines that differ when any does
//   node bench/golden.mjs --write    rewrites bench/golden.txt (after a change of behaviour that
//                                    was meant, said so in its commit)
//
// Not part of `npm test`: the real sessions are for reports only (their README), and a
// fingerprint says that something changed, not whether the change is right (the tests say that).
// Timings (`elapsedMs`, `durationMs`) are left out of the fingerprints.
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import * as gen from "./generate.mjs";
import { realdataDir } from "./realdata.mjs";
import { loadSessions } from "./sessions.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, "..");
const expectedFile = path.join(here, "golden.txt");
const TIERS = ["none", "micro", "time_based", "auto", "session_memory"];

/** A short fingerprint of a string or of a JSON value without its timings. */
function fingerprint(value) {
  const text = typeof value === "string" ? value : JSON.stringify(value, (key, x) => (key === "elapsedMs" || key === "durationMs" ? undefined : x));
  return createHash("sha256").update(text).digest("hex").slice(0, 16);
}

/** The pressure that makes `tier` the one a body call selects (micro at idle 0, time_based at 400 s). */
function pressure(tier, steps) {
  return {
    contextPctUsed: tier === "auto" || tier === "session_memory" ? 0.85 : 0.5,
    turnCount: steps,
    idleSeconds: tier === "time_based" ? 400 : 0,
    sessionComplete: tier === "session_memory",
  };
}

function cases() {
  const all = [];
  const dir = realdataDir(root);
  if (dir) {
    for (const s of loadSessions(dir)) {
      for (const [format, input] of Object.entries(s.formats)) all.push({ name: `${s.id} ${format}`, format, messages: input.messages });
    }
  }
  for (const [name, events] of [["agent-run-300", gen.agentRun(7, 300).events], ["conversation-1MB", gen.conversation(11, 1_000_000).events]]) {
    all.push({ name: `${name} openai`, format: "openai", messages: gen.toOpenAI(events), body: true });
    all.push({ name: `${name} ai-sdk`, format: "ai-sdk", messages: gen.toAiSdk(events), body: true });
  }
  return all;
}

/** One line per tier and path: `<case> <tier> <path> <fingerprint(s)>`. */
export async function fingerprints(tc) {
  const lines = [];
  for (const c of cases()) {
    const steps = c.messages.filter((m) => m.role === "assistant").length;
    for (const tier of TIERS) {
      let out;
      try {
        out = fingerprint(await tc.compactWithTier(tier, { sessionId: "g", format: c.format, pressure: pressure(tier, steps), messages: c.messages }));
      } catch (error) {
        out = `ERR ${error.message.slice(0, 80)}`;
      }
      lines.push(`${c.name} ${tier} objects ${out}`);
    }
    if (c.body) {
      const body = JSON.stringify({ model: "m", messages: c.messages });
      for (const tier of ["micro", "time_based"]) {
        const r = await tc.compactRequestBody(body, { sessionId: "g", pressure: pressure(tier, steps) });
        lines.push(`${c.name} ${tier} body ${fingerprint(r.body)} ${fingerprint(r.result)}`);
      }
    }
  }
  return lines;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const tc = await import(path.join(root, "pkg", "node.mjs"));
  const lines = await fingerprints(tc);
  if (process.argv.includes("--write")) {
    fs.writeFileSync(expectedFile, lines.join("\n") + "\n");
    console.log(`wrote ${lines.length} fingerprints to ${path.relative(process.cwd(), expectedFile)}`);
  } else {
    const expected = fs.readFileSync(expectedFile, "utf8").trimEnd().split("\n");
    const differ = lines.filter((line, i) => line !== expected[i]);
    if (expected.length !== lines.length) console.log(`${lines.length} fingerprints, ${expected.length} expected`);
    for (const line of differ) console.log(`differs: ${line}`);
    console.log(differ.length === 0 && expected.length === lines.length ? `${lines.length} fingerprints identical` : `${differ.length} of ${lines.length} differ`);
    process.exitCode = differ.length === 0 && expected.length === lines.length ? 0 : 1;
  }
}

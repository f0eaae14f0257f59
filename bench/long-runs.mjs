// Issue 21's workloads: micro and time_based on long runs, each beside one JSON round trip of the
// same data, the price a host pays anyway to receive and forward it. Called by run.mjs (section 7);
// `node bench/long-runs.mjs` prints the section alone.
//
// Workloads, each in the OpenAI and AI SDK formats (the real sessions in every format they
// convert to), as a request body and as message objects parsed from it:
// - a single-prompt agent run of 300 steps, one tool call each, 1-5 KB outputs (gen.agentRun);
// - a 300-turn conversation, 1-6 steps a turn, 0.5-3 KB outputs (gen.conversation);
// - the few-huge-outputs shape of sections 1-3 at 1 MB (outputs up to 200 KB);
// - the real sessions of ../shared/realdata (bench/sessions.mjs), when present.
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import * as gen from "./generate.mjs";
import { compare, ms, pct, ratio, table } from "./lib.mjs";
import { realdataDir } from "./realdata.mjs";
import { loadSessions } from "./sessions.mjs";

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), "..");

/** The targets of issue 21: ours ÷ the JSON round trip of the same data. */
export const BODY_TARGET = 1.0;
export const OBJECTS_TARGET = 0.5;

/** microBodyThresholdChars' largest value: no text is that long, so micro stubs nothing. */
export const NOTHING_LONG = 2 ** 31 - 1;

const generated = (smoke) => {
  const agent = gen.agentRun(21, smoke ? 12 : 300);
  const chat = gen.conversation(300, Infinity, { turns: smoke ? 4 : 300, minOutput: 500, maxOutput: 3000 });
  const huge = gen.conversation(42 + 1_000_000, smoke ? 60_000 : 1_000_000);
  return [
    [smoke ? "agent run, 12 steps" : "agent run, 300 steps, 1-5 KB outputs", agent.events],
    [smoke ? "conversation, 4 turns" : "conversation, 300 turns", chat.events],
    [smoke ? "few huge outputs, 60 KB" : "few huge outputs, 1 MB", huge.events],
  ].flatMap(([name, events]) => [
    { name, format: "openai", body: JSON.stringify({ model: "gpt-4o", messages: gen.toOpenAI(events) }) },
    { name, format: "ai-sdk", body: JSON.stringify({ model: "gpt-4o", messages: gen.toAiSdk(events) }) },
  ]);
};

const real = (smoke) => {
  const dir = realdataDir(root);
  if (!dir) return [];
  const sessions = loadSessions(dir).filter((s) => !s.duplicateOf);
  return (smoke ? sessions.slice(0, 1) : sessions).flatMap((s) =>
    Object.entries(s.formats).map(([format, { system, messages }]) => ({
      name: `real: ${s.id}`,
      format,
      body: JSON.stringify({ model: "m", ...(system ? { system } : {}), messages }),
    })),
  );
};

/** The section's workloads: `{ name, format, body }`, generated then real. */
export const workloads = (smoke) => [...generated(smoke), ...real(smoke)];

/**
 * Issue 29: what counting by the heuristic (the default of messages since) costs beside the
 * seed's rule, side by side: tier none and micro on the generated conversations of 1 MB and
 * 10 MB (OpenAI objects). The seed's rule counts a text by its length in code points; the
 * heuristic reads every character once (each block's count is kept for the call). Kept linear,
 * not sampled: a count must stay a sum over the text, the same in every call.
 */
export async function countingCost({ tc, smoke = false, opts = {} }) {
  const rows = [];
  for (const size of smoke ? [30_000, 60_000] : [1_000_000, 10_000_000]) {
    const { events, turns } = gen.conversation(42 + size, size);
    const messages = JSON.parse(JSON.stringify(gen.toOpenAI(events)));
    const ctx = { sessionId: "bench", pressure: { turnCount: turns, contextPctUsed: 0.5, idleSeconds: 0, sessionComplete: false }, messages, format: "openai" };
    const seed = { tokenEstimator: "seed" };
    const t = await compare(
      [
        { name: "none seed", fn: () => tc.compactWithTier("none", ctx, seed) },
        { name: "none heuristic", fn: () => tc.compactWithTier("none", ctx) },
        { name: "micro seed", fn: () => tc.compactWithTier("micro", ctx, seed) },
        { name: "micro heuristic", fn: () => tc.compactWithTier("micro", ctx) },
      ],
      opts,
    );
    rows.push({ size, bytes: JSON.stringify(messages).length, t });
  }
  const kb = (n) => (n >= 1e6 ? `${(n / 1e6).toFixed(1)} MB` : `${(n / 1e3).toFixed(0)} KB`);
  const markdown = table(
    ["conversation (OpenAI objects)", "none, seed's rule ms", "none, heuristic ms", "× seed", "micro, seed's rule ms", "micro, heuristic ms", "× seed"],
    rows.map((r) => [
      kb(r.bytes),
      ms(r.t["none seed"]),
      ms(r.t["none heuristic"]),
      ratio(r.t["none heuristic"] / r.t["none seed"]),
      ms(r.t["micro seed"]),
      ms(r.t["micro heuristic"]),
      ratio(r.t["micro heuristic"] / r.t["micro seed"]),
    ]),
  );
  return { markdown, rows };
}

/**
 * Measures every workload and returns `{ markdown, worstBody, worstObjects, rows }`. `tc` is the
 * loaded package; `opts` go to lib.mjs's `compare`.
 */
export async function longRuns({ tc, smoke = false, opts = {} }) {
  const rows = [];
  for (const w of workloads(smoke)) {
    const messages = JSON.parse(w.body).messages;
    const steps = messages.filter((m) => m.role === "assistant").length;
    const pressure = (idle) => ({ turnCount: steps, contextPctUsed: 0.5, idleSeconds: idle, sessionComplete: false });
    const call = (idle) => ({ sessionId: "bench", pressure: pressure(idle) });
    const objects = (tier, idle) => ({ ...call(idle), messages, format: w.format });
    // micro with no result or input long enough to stub: everything a call does but the edits
    // (reading, checking, counting, deciding), so that a row shows what the edits cost apart.
    const untouched = { policy: { microBodyThresholdChars: NOTHING_LONG, microKeepHeadChars: 0 } };
    const saved = async (idle) => {
      const { result } = await tc.compactRequestBody(w.body, call(idle));
      return result.beforeTokens ? result.tokensSaved / result.beforeTokens : 0;
    };
    const { body: unchangedBody } = await tc.compactRequestBody(w.body, { ...call(0), ...untouched });
    if (unchangedBody !== w.body) throw new Error(`${w.name} (${w.format}): the nothing-to-edit call edited the body`);
    const t = await compare(
      [
        { name: "body micro", fn: () => tc.compactRequestBody(w.body, call(0)) },
        { name: "body time_based", fn: () => tc.compactRequestBody(w.body, call(400)) },
        { name: "body round trip", fn: () => JSON.stringify(JSON.parse(w.body)) },
        { name: "body untouched", fn: () => tc.compactRequestBody(w.body, { ...call(0), ...untouched }) },
        { name: "objects micro", fn: () => tc.compactWithTier("micro", objects("micro", 0)) },
        { name: "objects time_based", fn: () => tc.compactWithTier("time_based", objects("time_based", 400)) },
        { name: "objects round trip", fn: () => JSON.parse(JSON.stringify(messages)) },
        { name: "objects untouched", fn: () => tc.compactWithTier("micro", objects("micro", 0), untouched) },
        // A floor for any design that serialises the messages to hand them over (as the objects
        // path's skeleton does today): the stringify half of the round trip alone.
        { name: "objects stringify", fn: () => JSON.stringify(messages) },
      ],
      opts,
    );
    rows.push({ ...w, bytes: w.body.length, messages: messages.length, steps, t, savedMicro: await saved(0), savedTime: await saved(400) });
  }
  const of = (r, path, tier) => r.t[`${path} ${tier}`] / r.t[`${path} round trip`];
  const worstBody = Math.max(...rows.flatMap((r) => [of(r, "body", "micro"), of(r, "body", "time_based")]));
  const worstObjects = Math.max(...rows.flatMap((r) => [of(r, "objects", "micro"), of(r, "objects", "time_based")]));
  const kb = (n) => (n >= 1e6 ? `${(n / 1e6).toFixed(2)} MB` : `${(n / 1e3).toFixed(0)} KB`);
  const counting = await countingCost({ tc, smoke, opts });
  const markdown = [
    "Issue 21: each call beside one JSON round trip of the same data in the same process: `JSON.stringify(JSON.parse(body))` for the body path " +
      "(`compactRequestBody`), `JSON.parse(JSON.stringify(messages))` for the objects path (`compactWithTier`). Pressure 0.5, idle 0 s (micro) or " +
      `400 s (time_based), turnCount = the run's assistant messages. Targets: body ≤ ${BODY_TARGET.toFixed(1)}×, objects ≤ ${OBJECTS_TARGET.toFixed(1)}×. ` +
      "Cut = tokens saved ÷ tokens before, by the library's own count (the body path's result). " +
      "`JSON.stringify` alone (of the messages, ÷ the objects round trip) is the floor of any design that hands the messages over as JSON text: " +
      "at about 0.5× on its own, it leaves the objects target no room. " +
      "Nothing to edit = the same micro call with `microBodyThresholdChars` at its largest, so that no text is long enough to stub: " +
      "what a call costs before its first edit (reading, checking, counting and deciding), the rest of a micro call being the edits " +
      "(the stubs, the archive and the output).",
    "",
    table(
      ["workload", "format", "body", "msgs", "round trip ms", "body micro", "body time_based", "body, nothing to edit", "objects round trip ms", "objects micro", "objects time_based", "objects, nothing to edit", "JSON.stringify alone", "cut micro / time_based"],
      rows.map((r) => [
        r.name,
        r.format,
        kb(r.bytes),
        r.messages,
        ms(r.t["body round trip"]),
        `${ms(r.t["body micro"])} (${ratio(of(r, "body", "micro"))})`,
        `${ms(r.t["body time_based"])} (${ratio(of(r, "body", "time_based"))})`,
        ratio(of(r, "body", "untouched")),
        ms(r.t["objects round trip"]),
        `${ms(r.t["objects micro"])} (${ratio(of(r, "objects", "micro"))})`,
        `${ms(r.t["objects time_based"])} (${ratio(of(r, "objects", "time_based"))})`,
        ratio(of(r, "objects", "untouched")),
        ratio(of(r, "objects", "stringify")),
        `${pct(r.savedMicro)} / ${pct(r.savedTime)}`,
      ]),
    ),
    "",
    "Counting (issue 29): tier none and micro counting by the seed's rule (named, `tokenEstimator: \"seed\"`) and by the heuristic (messages' default), side by side. " +
      "The seed's rule counts a text by its length in code points; the heuristic reads every character once " +
      "(a byte-class table, ASCII one lookup per character and one per letter pair, each block counted once per call). " +
      "Before this change, on the same machine, the heuristic took 16.8 / 169 ms (none, 1 / 10 MB) and 48 / 489 ms (micro): it counted at 64 MB/s " +
      "and counted a long tool output again for each stub's saving. Sampling the text would be faster still, but a count must stay a sum over its text, " +
      "the same in every call, so it stays linear.",
    "",
    counting.markdown,
  ].join("\n");
  return { markdown, worstBody, worstObjects, rows, counting: counting.rows };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const tc = await import("tiered-compaction");
  const smoke = process.argv.includes("--smoke");
  const { markdown } = await longRuns({ tc, smoke, opts: smoke ? { runs: 1, warmup: 1, warmupMs: 0 } : { runs: 5 } });
  console.log(markdown);
}

// The loop replay (issue 28 part 7, SPEC §11 "Loop replay"): every real session replayed one
// model call at a time, the way agent hosts call the library, each request billed with the
// providers' prompt-cache prices. 100 % = the same loop sending everything uncompacted.
//
//   node bench/loop-replay.mjs [--write] [--only NAME] [--format F] [--gaps real|long|both]
//                              [--policy JSON] [--sweep [N,N,...]] [--calls CONTENDER] [--smoke]
//
// --write     writes bench/LOOP_REPLAY.md (otherwise a summary is printed)
// --only      runs whose name contains NAME; --format one of anthropic, openai, ai-sdk, gemini
// --gaps      the idle gaps replayed: the real ones (timestamps where the session has them, else
//             5 s), those plus 10 minutes every 30 calls ("long"), or both (default)
// --policy    a PolicyConfig merged into every library call's `options.policy`
// --sweep     also replays the library for each `policy.cache.batchTokens` of the list
//             (default 0,2000,5000,10000,20000,40000) and writes the sweep table
// --calls     prints the calls of one contender one by one (tier, reason, prefix kept)
// --smoke     a generated 40-step run in one format (no real data), asserts the numbers are finite
//
// What is simulated (see bench/README.md, "The loop replay"):
// - Sessions: ../shared/realdata through bench/sessions.mjs (each in anthropic, openai, ai-sdk)
//   and ../shared/realruns (<name>.<format>.json, already converted; gemini_cli_contents.json is
//   the Gemini run's raw `contents`, replayed in format gemini).
// - Call k sends every message before the k-th assistant (Gemini: `model`) message: H_k.
// - Hosts: stateless (sends H_k, uses the output for that call only, passes `result.state` back)
//   and stateful (keeps the output and appends what H_k adds to H_{k-1}).
// - Billing: the longest prefix of whole messages (JSON.stringify equal) shared with the previous
//   request, system prompt included, is read from the cache when the gap is under 300 s; the rest
//   is written (Anthropic 1.25×, reads 0.1×) or fresh input (OpenAI 1×, cached reads 0.1×, in
//   128-token steps from 1,024 tokens). Tokens: o200k (gpt-tokenizer) of what the model reads in
//   each message (texts, each tool call's name and JSON input, each result; images by Anthropic's
//   (w × h) / 750 rule), as bench/agent-runs.mjs counts them.
import * as fs from "node:fs";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { CLEAR_KEEP, clearToolUses, ensureBenchDeps, errorLinesOf, factsKept, factsOf, pathsOf, pressureFor, segmentsOf } from "./agent-runs.mjs";
import { PRICES } from "./cache-replay.mjs";
import { median, table } from "./lib.mjs";
import { PRUNE_TOOL_CALLS } from "./peers.mjs";
import { realdataDir } from "./realdata.mjs";
import { loadSessions } from "./sessions.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.join(here, "..");

export const WINDOW = 200_000;
export const TTL_SECONDS = 300;
/** The gap between calls where a session has no timestamps. */
export const DEFAULT_IDLE_SECONDS = 5;
/** The "long" gap variant: a gap of LONG_GAP_SECONDS before every LONG_GAP_EVERY-th call, so the cache expires and time_based fires. */
export const LONG_GAP_SECONDS = 600;
export const LONG_GAP_EVERY = 30;
export const CLEAR_TRIGGERS = [
  ["clear_tool_uses 100k", 100_000],
  ["clear_tool_uses 30k", 30_000],
  ["clear_tool_uses always", 0],
];
export const SWEEP_BATCH_TOKENS = [0, 2000, 5000, 10000, 20000, 40000];
/** OpenAI caches prompts of 1,024 tokens or more, in 128-token steps. */
const OPENAI_MIN_CACHED = 1024;
const OPENAI_CACHE_STEP = 128;
const GAP_VARIANTS = { real: "real gaps", long: "+10 min every 30 calls" };
/** The Gemini run's raw `contents`, and the run it is the source of. */
const RAW_GEMINI = { file: "gemini_cli_contents.json", run: "gemini_cli_teams" };
const FORMAT_ORDER = ["anthropic", "openai", "ai-sdk", "gemini"];

// ---------------------------------------------------------------------------------------------
// Runs

/** The model calls of a list: the index of each assistant (Gemini: `model`) message after the first message; call k sends `messages.slice(0, starts[k])`. */
export function callStarts(format, messages) {
  const role = format === "gemini" ? "model" : "assistant";
  const starts = [];
  messages.forEach((m, i) => {
    if (i > 0 && m.role === role) starts.push(i);
  });
  return starts;
}

/**
 * The idle seconds before each call: the real gap between the calls' timestamps (`times`, one
 * per call, or null: DEFAULT_IDLE_SECONDS), and with `long` at least LONG_GAP_SECONDS before
 * every LONG_GAP_EVERY-th call. The first call has 0 (and no cache to find).
 */
export function gapsOf(times, count, long) {
  return Array.from({ length: count }, (_, k) => {
    if (k === 0) return 0;
    const real = times && Number.isFinite(times[k] - times[k - 1]) ? Math.max(0, times[k] - times[k - 1]) : DEFAULT_IDLE_SECONDS;
    return long && k % LONG_GAP_EVERY === 0 ? Math.max(real, LONG_GAP_SECONDS) : real;
  });
}

/** A run: `{ id, source, format, system, messages, calls, times, duplicateOf? }`. */
function makeRun(fields) {
  return { ...fields, calls: callStarts(fields.format, fields.messages) };
}

/** Every session of ../shared/realdata in each format, with the call times of Claude Code sessions. */
function realdataRuns(dir) {
  const runs = [];
  for (const session of loadSessions(dir)) {
    const times = session.neutral.messages.filter((m) => m.role === "assistant").map((m) => m.time);
    for (const [format, { system, messages }] of Object.entries(session.formats)) {
      const run = makeRun({ id: session.id, source: session.source, format, system, messages, duplicateOf: session.duplicateOf });
      run.times = times.length === run.calls.length && times.every(Number.isFinite) ? times : null;
      runs.push(run);
    }
  }
  return runs;
}

/** Every run of ../shared/realruns: `<name>.<format>.json` and the Gemini run's raw contents. */
function realrunsRuns(dir) {
  const runs = [];
  for (const name of fs.readdirSync(dir).sort()) {
    const match = /^(.+)\.(anthropic|openai|ai-sdk)\.json$/.exec(name);
    const read = () => JSON.parse(fs.readFileSync(path.join(dir, name), "utf8"));
    if (match) {
      const file = read();
      runs.push(makeRun({ id: match[1], source: file.agent ?? "realruns", format: match[2], system: file.system ?? null, messages: file.messages, times: null }));
    } else if (name === RAW_GEMINI.file) {
      runs.push(makeRun({ id: RAW_GEMINI.run, source: "Gemini CLI", format: "gemini", system: null, messages: read(), times: null }));
    }
  }
  return runs;
}

/** The real runs (../shared/realdata and ../shared/realruns), or `{ skipped }` when neither is there. */
export function loadRuns() {
  const dataDir = realdataDir(root);
  const runsDir = path.join(root, "..", "shared", "realruns");
  if (!dataDir && !fs.existsSync(runsDir)) return { skipped: "neither ../shared/realdata nor ../shared/realruns is beside the repository" };
  const runs = [...(dataDir ? realdataRuns(dataDir) : []), ...(fs.existsSync(runsDir) ? realrunsRuns(runsDir) : [])];
  runs.sort((a, b) => a.id.localeCompare(b.id) || FORMAT_ORDER.indexOf(a.format) - FORMAT_ORDER.indexOf(b.format));
  return { runs };
}

/** A generated single-prompt agent run of `steps` steps in `format` (bench/generate.mjs), for the smoke test. */
export async function generatedRun(format = "ai-sdk", steps = 40) {
  const gen = await import("./generate.mjs");
  const { events } = gen.agentRun(7, steps);
  const messages = format === "openai" ? gen.toOpenAI(events) : gen.toAiSdk(events);
  return makeRun({ id: `generated ${steps}-step run`, source: "bench/generate.mjs", format, system: null, messages, times: null });
}

// ---------------------------------------------------------------------------------------------
// Tokens and billing

/**
 * Counts what the model reads, memoised: `text(s)` is o200k of a string; `message(format, m)`
 * gives `{ json, tokens }` for a message (by object, then by its JSON), tokens as
 * bench/agent-runs.mjs counts a message's segments.
 */
function tokenMeter(o200k) {
  const byText = new Map();
  const byJson = new Map();
  const byObject = new WeakMap();
  const none = new Set();
  const text = (s) => {
    if (!s) return 0;
    let n = byText.get(s);
    if (n === undefined) {
      n = o200k.countTokens(s, { disallowedSpecial: none });
      byText.set(s, n);
    }
    return n;
  };
  const segTokens = (segs) => segs.reduce((n, s) => n + text(s.text) + (s.image ?? 0), 0);
  const message = (format, m) => {
    let entry = byObject.get(m);
    if (entry === undefined) {
      const json = JSON.stringify(m);
      let tokens = byJson.get(json);
      if (tokens === undefined) {
        tokens = segTokens(segmentsOf(format, { system: null, messages: [m] }));
        byJson.set(json, tokens);
      }
      entry = { json, tokens };
      byObject.set(m, entry);
    }
    return entry;
  };
  return { text, segTokens, message };
}

/** A request as billed: each message's JSON and tokens, the system prompt's tokens, the total. */
function requestOf(meter, run, messages) {
  const jsons = new Array(messages.length);
  const tokens = new Array(messages.length);
  let total = run.systemTokens;
  messages.forEach((m, i) => {
    const entry = meter.message(run.format, m);
    jsons[i] = entry.json;
    tokens[i] = entry.tokens;
    total += entry.tokens;
  });
  return { jsons, tokens, total, messages };
}

/**
 * One request's bill against the previous one. Warm (a previous request less than TTL_SECONDS
 * ago): the shared prefix of whole messages, with the constant system prompt, is read from the
 * cache. Anthropic writes the rest at 1.25×; OpenAI caches the prefix in 128-token steps from
 * 1,024 tokens and bills the rest as input. USD.
 */
export function billRequest(prev, cur, warm, systemTokens) {
  let sharedMessages = 0;
  let shared = 0;
  if (prev) {
    shared = systemTokens;
    const n = Math.min(prev.jsons.length, cur.jsons.length);
    while (sharedMessages < n && prev.jsons[sharedMessages] === cur.jsons[sharedMessages]) shared += cur.tokens[sharedMessages++];
  }
  const read = warm ? shared : 0;
  const written = cur.total - read;
  const openaiCached = read >= OPENAI_MIN_CACHED ? Math.floor(read / OPENAI_CACHE_STEP) * OPENAI_CACHE_STEP : 0;
  const { anthropic: a, openai: o } = PRICES;
  return {
    shared,
    sharedMessages,
    read,
    written,
    anthropic: (read * a.read + written * a.write) / 1e6,
    openai: (openaiCached * o.read + (cur.total - openaiCached) * o.input) / 1e6,
  };
}

// ---------------------------------------------------------------------------------------------
// Contenders: each `start(run, env)` gives a function of one call, `({ k, raw, gap, warm, prev }) → { messages, ms?, result? }`.

/** `options` with `policy` merged into `options.policy` (plain objects merged key by key). */
export function withPolicy(options, policy) {
  if (!policy) return options;
  const merge = (a, b) => {
    if (!isPlain(a) || !isPlain(b)) return b;
    const out = { ...a };
    for (const [key, value] of Object.entries(b)) out[key] = merge(a[key], value);
    return out;
  };
  return { ...options, policy: merge(options.policy ?? {}, policy) };
}
const isPlain = (v) => v !== null && typeof v === "object" && !Array.isArray(v);

/** What the provider reported as cached on the previous call (read + written; Anthropic's one breakpoint at the end caches the whole prompt), 0 once the cache has expired. */
const cachedTokensFor = ({ warm, prev }) => (warm ? prev.sent.total : 0);

/** The library through `compact`, by a stateless or a stateful host, without (a) or with (b) the cache facts. */
function libraryContender(host, cacheFacts) {
  return {
    name: `library ${host} (${cacheFacts ? "b" : "a"})`,
    library: true,
    host,
    cacheFacts,
    start(run, env) {
      let kept = null;
      let keptRawLength = 0;
      let state;
      const sessionId = `loop-replay ${run.id} ${run.format}`;
      return async (call) => {
        const { k, raw, gap } = call;
        const input = host === "stateful" && kept ? kept.concat(raw.slice(keptRawLength)) : raw;
        const pressure = {
          turnCount: k + 1,
          contextPctUsed: Math.min(1, env.tokensOf(run, input) / WINDOW),
          idleSeconds: gap,
          sessionComplete: false,
          ...(cacheFacts ? { cachedTokens: cachedTokensFor(call), contextWindowTokens: WINDOW } : {}),
        };
        const ctx = { sessionId, pressure, messages: input, format: run.format, ...(state !== undefined ? { state } : {}) };
        const t0 = performance.now();
        const result = await env.tc.compact(ctx, env.options);
        const ms = performance.now() - t0;
        state = result.state;
        if (host === "stateful") {
          kept = result.messages;
          keptRawLength = raw.length;
        }
        return { messages: result.messages, ms, result };
      };
    },
  };
}

/**
 * The AI SDK helper (`tiered-compaction/ai-sdk`), driven as generateText drives `prepareStep`:
 * the step number, the steps so far with their usage (what the provider reported for each
 * request: all of it as input, the cached prefix read, the rest written), the whole history as
 * `messages`, and a clock that moves by the replayed gaps. Stateless by nature.
 */
const helperContender = {
  name: "prepareStep helper",
  library: true,
  host: "stateless",
  formats: ["ai-sdk"],
  start(run, env) {
    let clock = 0;
    let last = null;
    const steps = [];
    const step = env.prepareStep({
      contextWindow: WINDOW,
      sessionId: `loop-replay helper ${run.id}`,
      now: () => clock * 1000,
      ...(env.options.policy ? { compactOptions: env.options } : {}),
      onCompact: (result) => {
        last = result;
      },
    });
    return async ({ k, raw, gap, prev }) => {
      clock += gap;
      if (prev) steps.push({ usage: usageOf(prev) });
      const t0 = performance.now();
      const { messages } = await step({ stepNumber: k, steps, messages: raw });
      return { messages, ms: performance.now() - t0, result: last };
    };
  },
};

/** An AI SDK `LanguageModelUsage` for a billed request (Anthropic: every input token is either read from the cache or written to it). */
const usageOf = ({ sent, bill }) => ({
  inputTokens: sent.total,
  inputTokenDetails: { noCacheTokens: 0, cacheReadTokens: bill.read, cacheWriteTokens: bill.written },
  outputTokens: 0,
  outputTokenDetails: { textTokens: 0, reasoningTokens: 0 },
  totalTokens: sent.total,
});

const noneContender = { name: "no compaction", start: () => async ({ raw }) => ({ messages: raw }) };

/** Anthropic's `clear_tool_uses` (keep 3), applied by the server to each request whose input is over `trigger` tokens: the cache holds the edited prompt. */
const clearContender = ([name, trigger]) => ({
  name,
  start: (run, env) => async ({ raw }) => ({ messages: env.tokensOf(run, raw) > trigger ? clearToolUses(run.format, raw, CLEAR_KEEP).messages : raw }),
});

/** The AI SDK's own `pruneMessages` on each request (`before-last-2-messages`), stateless. */
const pruneContender = {
  name: "pruneMessages",
  formats: ["ai-sdk"],
  start: (_run, env) => async ({ raw }) => ({ messages: env.pruneMessages({ messages: raw, toolCalls: PRUNE_TOOL_CALLS }) }),
};

/**
 * An edge proxy (examples/worker-proxy): the client's request body as a string, compacted by
 * `compactRequestBody` with the session's state and the cache facts of the previous response,
 * as configuration (b). Stateless by nature; the CPU is the `compactRequestBody` call.
 */
const proxyContender = {
  name: "edge proxy (compactRequestBody)",
  library: true,
  host: "stateless",
  formats: ["anthropic", "openai", "gemini"],
  start(run, env) {
    let state;
    const sessionId = `loop-replay proxy ${run.id} ${run.format}`;
    const listKey = run.format === "gemini" ? "contents" : "messages";
    return async (call) => {
      const { k, raw, gap } = call;
      const fields = run.format === "anthropic" ? { model: "m", max_tokens: 4096, ...(run.system ? { system: run.system } : {}) } : { model: "m" };
      const body = JSON.stringify({ ...fields, [listKey]: raw });
      const pressure = {
        turnCount: k + 1,
        contextPctUsed: Math.min(1, env.tokensOf(run, raw) / WINDOW),
        idleSeconds: gap,
        sessionComplete: false,
        cachedTokens: cachedTokensFor(call),
        contextWindowTokens: WINDOW,
      };
      const t0 = performance.now();
      const out = await env.tc.compactRequestBody(body, { ...env.options, sessionId, pressure, ...(state !== undefined ? { state } : {}) });
      const ms = performance.now() - t0;
      state = out.result.state;
      return { messages: JSON.parse(out.body)[listKey], ms, result: out.result };
    };
  },
};

/** Every contender, in the order of the tables. */
export const LIBRARY = [libraryContender("stateless", false), libraryContender("stateless", true), libraryContender("stateful", false), libraryContender("stateful", true)];
export const CONTENDERS = [noneContender, ...CLEAR_TRIGGERS.map(clearContender), pruneContender, ...LIBRARY, helperContender, proxyContender];
const appliesTo = (contender, run) => !contender.formats || contender.formats.includes(run.format);

// ---------------------------------------------------------------------------------------------
// The replay

/** A key for an archived value that does not depend on its id: a new key is a new decision. */
const archiveKey = (entry) => `${entry.kind}\u0000${typeof entry.content === "string" ? entry.content : JSON.stringify(entry.content)}`;

/**
 * Replays `run` call by call for `contender` with the idle `gaps`; returns the totals:
 * `{ calls, usd: { anthropic, openai }, tokens, warm, rewritesHalf, rewritesAny, ms, tiers, events, last, perCall }`.
 */
export async function replayRun(run, contender, gaps, env, { keepCalls = false } = {}) {
  const step = contender.start(run, env);
  const totals = { calls: 0, usd: { anthropic: 0, openai: 0 }, tokens: 0, warm: 0, rewritesHalf: 0, rewritesAny: 0, ms: [], tiers: {}, events: {}, eventCount: 0, repairs: 0, stateSeen: false, perCall: [] };
  let prev = null;
  const archived = new Map(); // archived value -> the most times one call's archive held it
  for (let k = 0; k < run.calls.length; k++) {
    const raw = run.messages.slice(0, run.calls[k]);
    const gap = gaps[k];
    const warm = prev !== null && gap < TTL_SECONDS;
    const out = await step({ k, raw, gap, warm, prev });
    const sent = requestOf(env.meter, run, out.messages);
    const bill = billRequest(prev?.sent, sent, warm, run.systemTokens);
    const rewroteAny = warm && bill.sharedMessages < prev.sent.jsons.length;
    const rewroteHalf = warm && bill.shared < prev.sent.total / 2;
    totals.calls += 1;
    totals.usd.anthropic += bill.anthropic;
    totals.usd.openai += bill.openai;
    totals.tokens += sent.total;
    totals.warm += warm ? 1 : 0;
    totals.rewritesAny += rewroteAny ? 1 : 0;
    totals.rewritesHalf += rewroteHalf ? 1 : 0;
    let event = false;
    if (out.ms !== undefined) totals.ms.push(out.ms);
    if (out.result) {
      const { tier } = out.result;
      totals.tiers[tier] = (totals.tiers[tier] ?? 0) + 1;
      if (out.result.state !== undefined) totals.stateSeen = true;
      if (out.result.warnings?.some((w) => w.startsWith("repair"))) totals.repairs += 1;
      const removed = out.result.archive.filter((e) => e.kind !== "repair");
      // An event: the tier made a decision no earlier call had made (a new batch of stubs,
      // time_based's stubs, auto's cut). A stateful host's archive holds this call's removals
      // only; a stateless host's holds every removal again, so its values (a multiset: equal
      // tool outputs recur) are compared with every earlier call's, not their ids: a stub taken
      // back and made again is no new decision.
      const counts = new Map();
      for (const e of removed) counts.set(archiveKey(e), (counts.get(archiveKey(e)) ?? 0) + 1);
      const fresh = contender.host === "stateful" ? removed.length > 0 : [...counts].some(([key, n]) => n > (archived.get(key) ?? 0));
      event = tier !== "none" && fresh;
      for (const [key, n] of counts) archived.set(key, Math.max(n, archived.get(key) ?? 0));
      if (event) {
        totals.events[tier] = (totals.events[tier] ?? 0) + 1;
        totals.eventCount += 1;
      }
    }
    if (keepCalls) {
      totals.perCall.push({ k: k + 1, gap, warm, total: sent.total, shared: bill.shared, prevTotal: prev?.sent.total ?? 0, rewroteAny, rewroteHalf, event, tier: out.result?.tier, reason: out.result?.reason, ms: out.ms });
    }
    prev = { sent, bill };
  }
  totals.last = prev?.sent.messages ?? [];
  totals.lastTokens = prev?.sent.total ?? 0;
  return totals;
}

/** What a stub names of its body (SPEC §4, micro): at most 10 paths and URLs, at most 8 lines that matter. */
const STUB_PATHS = 10;
const STUB_LINES = 8;

/** Facts of the last request kept: of the paths and error lines of the raw last request, how many are in what was sent. */
function lastFacts(run, sentMessages) {
  const kept = factsKept(run.facts, segmentsOf(run.format, { system: run.system, messages: sentMessages }));
  const outPaths = pathsOf(segmentsOf(run.format, { system: run.system, messages: sentMessages }).map((s) => s.facts ?? s.text).join("\n"));
  let pathsBeyond = 0;
  let errorsBeyond = 0;
  for (const p of run.facts.beyondPaths) if (!outPaths.has(p)) pathsBeyond += 1;
  for (const l of run.facts.beyondErrors) if (!kept.present(l)) errorsBeyond += 1;
  return {
    paths: run.facts.paths.size,
    pathsKept: kept.pathsKept,
    errors: run.facts.errors.size,
    errorsKept: kept.errorsKept,
    pathsBeyond,
    errorsBeyond,
    // What no stub can keep, where a body it is in was stubbed (some of its facts are gone).
    pathsUnavoidable: pathsBeyond ? run.facts.unavoidablePaths : 0,
    errorsUnavoidable: errorsBeyond ? run.facts.unavoidableErrors : 0,
  };
}

/**
 * The facts of the raw last request that only occur in one tool result or input, one naming more
 * than a stub may carry (more than STUB_PATHS paths, more than STUB_LINES error lines): once that
 * body is stubbed, a stub of the SPEC's shape cannot keep them all, whatever it picks.
 * `beyond*`: those facts; `unavoidable*`: how many of them no stub can keep when every such body
 * is stubbed (per body, its facts found nowhere else minus what a stub carries). A lower bound
 * of the loss for errors (repeats that differ only in numbers count once in a stub, SPEC §4).
 */
function beyondStubs(facts) {
  const textOf = (s) => s.facts ?? s.text;
  const bodies = facts.segs.filter((s) => s.kind === "result" || s.kind === "call");
  const only = (set, cap, countOf) => {
    const beyond = new Set();
    let unavoidable = 0;
    for (const seg of bodies) {
      if (countOf(textOf(seg)) <= cap) continue;
      const mine = [...set].filter((fact) => textOf(seg).includes(fact) && !facts.segs.some((s) => s !== seg && textOf(s).includes(fact)));
      for (const fact of mine) beyond.add(fact);
      unavoidable += Math.max(0, mine.length - cap);
    }
    return { beyond, unavoidable };
  };
  const paths = only(facts.paths, STUB_PATHS, (t) => pathsOf(t).size);
  const errors = only(facts.errors, STUB_LINES, (t) => errorLinesOf(t).size);
  Object.assign(facts, { beyondPaths: paths.beyond, unavoidablePaths: paths.unavoidable, beyondErrors: errors.beyond, unavoidableErrors: errors.unavoidable });
}

/** Loads the library, its AI SDK helper, the peers and the counter. */
async function environment(options) {
  const notInstalled = ensureBenchDeps();
  if (notInstalled) return { skipped: notInstalled };
  const tc = await import("tiered-compaction");
  const { prepareStep } = await import("tiered-compaction/ai-sdk");
  const { pruneMessages } = await import("ai");
  const o200k = await import("gpt-tokenizer/encoding/o200k_base");
  const meter = tokenMeter(o200k);
  const tokensOf = (run, messages) => messages.reduce((n, m) => n + meter.message(run.format, m).tokens, run.systemTokens);
  const unbatched = (await policyRejected(tc, { cache: { batchTokens: 0 } })) ? {} : { policy: { cache: { batchTokens: 0 } } };
  return { tc, prepareStep, pruneMessages, meter, tokensOf, options, unbatched };
}

/** Whether the library accepts `policy` (it rejects unknown fields with a TypeError): null, or the error's message. */
async function policyRejected(tc, policy) {
  try {
    await tc.compact({ sessionId: "probe", pressure: { turnCount: 1, contextPctUsed: 0, idleSeconds: 0, sessionComplete: false }, messages: [{ role: "user", content: "x" }] }, { policy });
    return null;
  } catch (error) {
    return error.message;
  }
}

/**
 * Prepares a run's constants: the system prompt's tokens, the facts of its raw last request, and
 * for reference the facts micro keeps of it in one call (`compactWithTier("micro")` as
 * bench/agent-runs.mjs runs it, unbatched where the core has batches: the target's yardstick).
 */
async function prepareRun(run, env) {
  const system = typeof run.system === "string" ? run.system : Array.isArray(run.system) ? run.system.map((b) => b.text ?? "").join("\n") : "";
  run.systemTokens = env.meter.text(system);
  const lastRaw = run.messages.slice(0, run.calls.at(-1) ?? 0);
  run.facts = factsOf(run.format, { system: run.system, messages: lastRaw });
  beyondStubs(run.facts);
  run.lastRawTokens = env.tokensOf(run, lastRaw);
  const steps = lastRaw.filter((m) => m.role === (run.format === "gemini" ? "model" : "assistant")).length;
  const micro = await env.tc.compactWithTier("micro", { sessionId: "loop-replay reference", pressure: pressureFor("micro", steps), messages: lastRaw, format: run.format }, env.unbatched);
  run.microOnce = lastFacts(run, micro.messages);
}

/**
 * Replays `runs` for `contenders` under each gap variant in `gapVariants` ("real", "long").
 * Returns rows `{ run, gaps, contender, ...totals, facts, error? }`.
 */
export async function replayAll(runs, contenders, gapVariants, env, { traceContender } = {}) {
  const rows = [];
  for (const run of runs) {
    if (!run.calls.length) continue;
    await prepareRun(run, env);
    for (const gapsName of gapVariants) {
      const gaps = gapsOf(run.times, run.calls.length, gapsName === "long");
      for (const contender of contenders.filter((c) => appliesTo(c, run))) {
        const keepCalls = traceContender === contender.name;
        try {
          const totals = await replayRun(run, contender, gaps, env, { keepCalls });
          rows.push({ run, gaps: gapsName, contender: contender.name, ...totals, facts: lastFacts(run, totals.last) });
          if (keepCalls) printCalls(run, gapsName, contender.name, totals.perCall);
        } catch (error) {
          rows.push({ run, gaps: gapsName, contender: contender.name, error: error.message });
        }
      }
    }
  }
  return rows;
}

function printCalls(run, gaps, name, perCall) {
  console.log(`\n${run.id} / ${run.format} / ${GAP_VARIANTS[gaps]} / ${name}`);
  console.log("call  gap s  warm  tokens  prefix kept  rewrite  event  ms      tier: reason");
  for (const c of perCall) {
    const kept = c.prevTotal ? `${c.shared}/${c.prevTotal}` : "";
    const flag = c.rewroteHalf ? "HALF" : c.rewroteAny ? "any" : "";
    console.log(
      `${String(c.k).padStart(4)}  ${c.gap.toFixed(0).padStart(5)}  ${c.warm ? "warm" : "cold"}  ${String(c.total).padStart(6)}  ${kept.padStart(11)}  ${flag.padEnd(7)}  ${c.event ? "yes" : "   "}    ${c.ms === undefined ? "" : c.ms.toFixed(1).padStart(6)}  ${c.tier ?? ""}${c.reason ? `: ${c.reason.slice(0, 160)}` : ""}`,
    );
  }
}

// ---------------------------------------------------------------------------------------------
// Pooling and targets

const counted = (rows) => rows.filter((r) => !r.run.duplicateOf && !r.error);
const runKey = (r) => `${r.run.id}\u0000${r.run.format}\u0000${r.gaps}`;

/** Pooled figures of `contender` over `rows` (one gap variant): bills against no compaction on the same runs, context, rewrites, CPU, facts. */
export function pooled(rows, contender) {
  const mine = counted(rows).filter((r) => r.contender === contender);
  const base = new Map(counted(rows).filter((r) => r.contender === noneContender.name).map((r) => [runKey(r), r]));
  const sum = (f) => mine.reduce((n, r) => n + f(r), 0);
  const ms = mine.flatMap((r) => r.ms);
  return {
    runs: mine.length,
    calls: sum((r) => r.calls),
    anthropic: sum((r) => r.usd.anthropic) / sum((r) => base.get(runKey(r)).usd.anthropic),
    openai: sum((r) => r.usd.openai) / sum((r) => base.get(runKey(r)).usd.openai),
    meanContext: sum((r) => r.tokens) / sum((r) => r.calls),
    warm: sum((r) => r.warm),
    rewritesHalf: sum((r) => r.rewritesHalf),
    rewritesAny: sum((r) => r.rewritesAny),
    events: sum((r) => r.eventCount),
    repairs: sum((r) => r.repairs),
    msMedian: ms.length ? median(ms) : null,
    msP95: ms.length ? quantile(ms, 0.95) : null,
    paths: share(sum((r) => r.facts.pathsKept), sum((r) => r.facts.paths)),
    errors: share(sum((r) => r.facts.errorsKept), sum((r) => r.facts.errors)),
    // Of the facts lost, those beyond what a stub of the SPEC's shape carries (beyondStubs).
    pathsLost: sum((r) => r.facts.paths - r.facts.pathsKept),
    pathsBeyond: sum((r) => r.facts.pathsBeyond ?? 0),
    errorsLost: sum((r) => r.facts.errors - r.facts.errorsKept),
    errorsBeyond: sum((r) => r.facts.errorsBeyond ?? 0),
    // The most a stub of the SPEC's shape could keep: all but what no stub can (beyondStubs).
    pathsBound: share(sum((r) => r.facts.paths - (r.facts.pathsUnavoidable ?? 0)), sum((r) => r.facts.paths)),
    errorsBound: share(sum((r) => r.facts.errors - (r.facts.errorsUnavoidable ?? 0)), sum((r) => r.facts.errors)),
  };
}

/** A run's bill as a share of no compaction on the same run and gaps. */
function billOf(rows, r, provider = "anthropic") {
  const base = rows.find((x) => x.contender === noneContender.name && runKey(x) === runKey(r));
  return r.usd[provider] / base.usd[provider];
}

function quantile(values, q) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
}
const share = (kept, total) => (total ? kept / total : null);

/**
 * Issue 28's targets for one library contender under one gap variant: `[{ name, pass, detail }]`
 * (pass null: nothing to judge).
 */
export function targetsOf(rows, contender) {
  const mine = counted(rows).filter((r) => r.contender === contender);
  const errors = rows.filter((r) => r.contender === contender && r.error);
  const p = pooled(rows, contender);
  const clears = CLEAR_TRIGGERS.map(([name]) => [name, pooled(rows, name)]);
  const over = (limit, subset) => subset.filter((r) => billOf(rows, r) > limit);
  const list = (subset) => subset.map((r) => `${r.run.id}/${r.run.format} ${pc(billOf(rows, r))}`).join(", ");
  const long = mine.filter((r) => r.calls >= 100);
  const lateRewrites = mine.filter((r) => r.rewritesAny > r.eventCount);
  const out = [];
  if (errors.length) out.push({ name: "every call completes", pass: false, detail: `${errors.length} runs failed: ${errors[0].error}` });
  out.push({ name: "every run ≤ 100 %", pass: over(1, mine).length === 0, detail: over(1, mine).length ? `over on ${over(1, mine).length} of ${mine.length}: ${list(over(1, mine))}` : `${mine.length} runs, worst ${pc(Math.max(...mine.map((r) => billOf(rows, r))))}` });
  out.push({
    name: "pooled ≤ 75 % and below every clear_tool_uses",
    pass: p.anthropic <= 0.75 && clears.every(([, c]) => p.anthropic < c.anthropic),
    detail: `${pc(p.anthropic)} vs ${clears.map(([n, c]) => `${n.replace("clear_tool_uses ", "")} ${pc(c.anthropic)}`).join(", ")}`,
  });
  out.push({
    name: "every run of ≥ 100 calls ≤ 80 %",
    pass: long.length ? over(0.8, long).length === 0 : null,
    detail: long.length ? list(long) : "no run of 100 calls",
  });
  // Against each clear_tool_uses variant on the runs where it cut the last request: a variant that
  // cut nothing kept everything, and nothing can keep more (it is listed as such, not counted).
  const versus = CLEAR_TRIGGERS.map(([name]) => {
    const cut = new Set(counted(rows).filter((r) => r.contender === name && r.lastTokens < r.run.lastRawTokens).map(runKey));
    if (!cut.size) return { name, pass: true, text: `${name.replace("clear_tool_uses ", "")}: cut no last request` };
    const on = (c) => pooled(rows.filter((r) => cut.has(runKey(r))), c);
    const [lib, peer] = [on(contender), on(name)];
    return { name, pass: lib.paths > peer.paths && lib.errors > peer.errors, text: `${name.replace("clear_tool_uses ", "")} on the ${cut.size} runs it cut: ${pc(lib.paths)} / ${pc(lib.errors)} vs ${pc(peer.paths)} / ${pc(peer.errors)}` };
  });
  const once = (f) => share(mine.reduce((n, r) => n + r.run.microOnce[`${f}Kept`], 0), mine.reduce((n, r) => n + r.run.microOnce[f], 0));
  out.push({
    name: "facts ≥ 86 % and better than every clear_tool_uses",
    pass: p.paths >= 0.86 && p.errors >= 0.86 && versus.every((v) => v.pass),
    detail:
      `paths / error lines ${pc(p.paths)} / ${pc(p.errors)} (micro in one call on the same last requests: ${pc(once("paths"))} / ${pc(once("errors"))}); ` +
      `of those lost, ${p.pathsBeyond} of ${p.pathsLost} paths and ${p.errorsBeyond} of ${p.errorsLost} error lines were in a body naming more than a stub carries (${STUB_PATHS} paths, ${STUB_LINES} lines: SPEC §4), ` +
      `so stubs of that shape keep at most ${pc(p.pathsBound)} / ${pc(p.errorsBound)} (paths per body per call; errors a lower bound of the loss); ` +
      `${versus.map((v) => v.text).join("; ")}`,
  });
  out.push({
    name: "rewrites ≤ one per batch or time_based/auto event",
    pass: lateRewrites.length === 0,
    detail: `${p.rewritesAny} rewrites for ${p.events} events${p.repairs ? ` (${p.repairs} calls repaired the input)` : ""}${lateRewrites.length ? `; more rewrites than events on ${lateRewrites.length} runs, e.g. ${lateRewrites.slice(0, 3).map((r) => `${r.run.id}/${r.run.format} ${r.rewritesAny} vs ${r.eventCount}`).join(", ")}` : ""}`,
  });
  return out;
}

/** Target 6: the stateless host (with state) and the stateful host bill within 2 points, per configuration. */
export function hostGap(rows, config) {
  const stateless = pooled(rows, `library stateless (${config})`);
  const stateful = pooled(rows, `library stateful (${config})`);
  const gap = Math.abs(stateless.anthropic - stateful.anthropic);
  const withState = counted(rows).some((r) => r.contender === `library stateless (${config})` && r.stateSeen);
  return { pass: gap <= 0.02, detail: `stateless ${pc(stateless.anthropic)}, stateful ${pc(stateful.anthropic)}: ${(gap * 100).toFixed(1)} points${withState ? "" : " (the core returned no state)"}` };
}

const pc = (x) => (x == null || !Number.isFinite(x) ? "–" : `${(100 * x).toFixed(1)} %`);
const num = (x, digits = 0) => (x == null || !Number.isFinite(x) ? "–" : x.toFixed(digits));
const mark = (pass) => (pass === null ? "–" : pass ? "PASS" : "MISS");

// ---------------------------------------------------------------------------------------------
// The report

/** The pooled table of one gap variant: one row per contender. */
function pooledTable(rows, contenders) {
  return table(
    ["contender", "host", "runs", "calls", "bill (Anthropic)", "bill (OpenAI)", "mean context", "rewrites > half / any (of warm calls)", "library events", "ms / call median, p95", "paths kept", "error lines kept"],
    contenders
      .map((c) => [c, pooled(rows, c.name)])
      .filter(([, p]) => p.runs)
      .map(([c, p]) => [
        c.name,
        c.host ?? "server / stateless",
        p.runs,
        p.calls,
        pc(p.anthropic),
        pc(p.openai),
        num(p.meanContext),
        `${p.rewritesHalf} / ${p.rewritesAny} (of ${p.warm})`,
        c.library ? p.events : "",
        p.msMedian == null ? "" : `${num(p.msMedian, 2)}, ${num(p.msP95, 2)}`,
        pc(p.paths),
        pc(p.errors),
      ]),
  );
}

/** A table of one figure per run (rows) and contender (columns). */
function perRunTable(rows, contenders, cellOf) {
  const runs = [...new Map(rows.map((r) => [`${r.run.id}/${r.run.format}`, r.run])).values()];
  return table(
    ["run", "format", "calls", ...contenders.map((c) => c.name)],
    runs.map((run) => {
      const of = (c) => rows.find((r) => r.run === run && r.contender === c.name);
      return [`${run.id}${run.duplicateOf ? " †" : ""}`, run.format, run.calls.length, ...contenders.map((c) => (of(c) ? (of(c).error ? "error" : cellOf(of(c), rows)) : ""))];
    }),
  );
}

const PER_RUN_FIGURES = [
  ["Bill, Anthropic prices (% of no compaction)", (r, rows) => pc(billOf(rows, r))],
  ["Bill, OpenAI prices (% of no compaction)", (r, rows) => pc(billOf(rows, r, "openai"))],
  ["Mean context (o200k tokens per request)", (r) => num(r.tokens / r.calls)],
  ["Prefix rewrites: over half / any beyond the appended tail (warm calls only); library: events", (r) => `${r.rewritesHalf} / ${r.rewritesAny}${r.ms.length || Object.keys(r.tiers).length ? `; ${r.eventCount} ev.` : ""}`],
  ["Library CPU per call (ms, median / p95 of the `compact` call)", (r) => (r.ms.length ? `${num(median(r.ms), 2)} / ${num(quantile(r.ms, 0.95), 2)}` : "")],
  ["Facts of the last request kept (paths / error lines)", (r) => `${pc(share(r.facts.pathsKept, r.facts.paths))} / ${pc(share(r.facts.errorsKept, r.facts.errors))}`],
  ["Library tiers (calls per tier; events in brackets)", (r) => Object.entries(r.tiers).map(([t, n]) => `${t} ${n}${r.events[t] ? ` (${r.events[t]})` : ""}`).join(", ")],
];

/** The target lines of one gap variant, and the table of them. */
function targetSection(rows, gapsName) {
  const lines = [];
  const libraries = LIBRARY.filter((c) => rows.some((r) => r.contender === c.name));
  for (const c of libraries) {
    for (const t of targetsOf(rows, c.name)) lines.push(`${mark(t.pass)} ${GAP_VARIANTS[gapsName]}, ${c.name}: ${t.name} (${t.detail})`);
  }
  for (const config of ["a", "b"]) {
    if (!rows.some((r) => r.contender === `library stateless (${config})`) || !rows.some((r) => r.contender === `library stateful (${config})`)) continue;
    const g = hostGap(rows, config);
    lines.push(`${mark(g.pass)} ${GAP_VARIANTS[gapsName]}, configuration (${config}): stateless (with state) and stateful within 2 points (${g.detail})`);
  }
  return lines;
}

/** The markdown report and the printed summary of a replay. */
function render({ rows, gapVariants, contenders, sweep, seconds, policy, versions, sweepNote }) {
  const md = [];
  const say = (...lines) => md.push(...(lines.length ? lines : [""]));
  const pooledRuns = [...new Set(counted(rows).map((r) => `${r.run.id}/${r.run.format}`))];
  const calls = counted(rows).filter((r) => r.contender === noneContender.name && r.gaps === gapVariants[0]).reduce((n, r) => n + r.calls, 0);
  say("# Loop replay: every real session, one model call at a time");
  say();
  say(
    `Generated by \`node bench/loop-replay.mjs --write${sweep ? " --sweep" : ""}${policy ? ` --policy '${JSON.stringify(policy)}'` : ""}\` on ${new Date().toISOString().slice(0, 10)}, ` +
      `commit ${versions.commit}, tiered-compaction ${versions.library}, ai ${versions.ai}, in ${seconds.toFixed(0)} s. ` +
      `${pooledRuns.length} run-format pairs pooled (${calls} model calls each way) from \`../shared/realdata\` and \`../shared/realruns\`; † = the same messages as another run, shown, not pooled.`,
  );
  say();
  say(
    `- **Calls**: call k sends every message before the k-th assistant (Gemini: \`model\`) message. **Hosts**: *stateless* sends that whole history and uses the library's output for that call only, passing the previous \`result.state\` back as \`ctx.state\` when there is one; *stateful* keeps the output and appends the new messages. The peers are stateless by nature (clear_tool_uses is the server's edit of each request; pruneMessages runs on each request).`,
    `- **Pressure**: \`turnCount\` = k, \`contextPctUsed\` = o200k tokens of what the host passes ÷ ${WINDOW.toLocaleString("en")}, \`idleSeconds\` = the gap, \`sessionComplete\` false. Configuration (a): as in the README's Quick start. (b): plus \`cachedTokens\` = what the provider reported as cached on the previous call (read + written; 0 once the cache has expired) and \`contextWindowTokens\` ${WINDOW.toLocaleString("en")}. Library defaults otherwise${policy ? `, with \`options.policy\` ${JSON.stringify(policy)}` : ""}. The AI SDK helper gets what \`generateText\` gives \`prepareStep\`: the step number, the steps with their usage (\`inputTokens\` = the request's tokens, \`inputTokenDetails\` read and written), the messages, and a clock moved by the gaps.`,
    `- **Gaps**: *${GAP_VARIANTS.real}*: the time between the calls' timestamps where the session has them (the Claude Code sessions), else ${DEFAULT_IDLE_SECONDS} s; *${GAP_VARIANTS.long}*: the same with at least ${LONG_GAP_SECONDS / 60} minutes before every ${LONG_GAP_EVERY}th call.`,
    `- **Billing**: the longest prefix of whole messages (equal \`JSON.stringify\`) shared with the previous request, the system prompt included as constant, is a cache read when the gap is under ${TTL_SECONDS} s; the rest is written. Anthropic (${PRICES.anthropic.model}): input $${PRICES.anthropic.input}, write $${PRICES.anthropic.write} (1.25×), read $${PRICES.anthropic.read} (0.1×) per 1M. OpenAI (${PRICES.openai.model}): input $${PRICES.openai.input}, cached $${PRICES.openai.read} (0.1×), no write premium, the cached prefix counted in ${OPENAI_CACHE_STEP}-token steps from ${OPENAI_MIN_CACHED} tokens, the same ${TTL_SECONDS} s lifetime. The library runs once per contender (with its defaults, i.e. Anthropic's ratios) and the same requests are billed both ways. Anthropic's minimum cacheable prompt and its 20-block lookback are not simulated (every shared prefix is read), and the tools' definitions are not in the recorded sessions (not counted). **100 %** = the same loop sending everything uncompacted.`,
    `- **Tokens**: o200k_base (gpt-tokenizer) of what the model reads in each message, counted as bench/agent-runs.mjs does (texts, each tool call's name and JSON input, each result's text; images by Anthropic's (w × h) / 750 rule; ids, roles and JSON punctuation not counted), memoised per message; the library counts with its own estimator.`,
    `- **Prefix rewrites** (warm calls only, i.e. not the first call and not after a gap ≥ ${TTL_SECONDS} s): *over half*: the prefix shared with the previous request is under half of it; *any*: the previous request is not whole at the start of this one (something before the appended tail changed). **Library events**: calls whose tier (micro, time_based, auto) made a decision no earlier call had made: a batch of stubs, time_based's stubs, auto's cut (a stateful host: the call archived anything; a stateless host: it archived a value no earlier call's archive held, the values compared, not their ids, so a stub taken back and made again is no event). Calls whose input the library repaired are counted in the targets' lines.`,
    `- **Facts**: of the file paths and error lines in the raw last request (bench/agent-runs.mjs's regexes), the share still in the last request sent. **CPU**: the \`compact\` call only (the helper: its whole call), ms.`,
  );
  const summary = pooledSummary(rows, gapVariants, contenders, "##");
  say();
  say(summary);
  if (sweep) {
    say();
    say("## Sweep of `policy.cache.batchTokens`");
    say();
    say(sweep);
  } else if (sweepNote) {
    say();
    say(`Sweep of \`policy.cache.batchTokens\`: ${sweepNote}`);
  }
  for (const gapsName of gapVariants) {
    const mine = rows.filter((r) => r.gaps === gapsName);
    for (const [title, cell] of PER_RUN_FIGURES) {
      say();
      say(`## Per run, ${GAP_VARIANTS[gapsName]}: ${title}`);
      say();
      const shown = title.startsWith("Library") ? contenders.filter((c) => c.library) : contenders;
      say(perRunTable(mine, shown, cell));
    }
  }
  const errors = rows.filter((r) => r.error);
  if (errors.length) {
    say();
    say("## Errors");
    say();
    for (const r of errors) say(`- ${r.run.id} / ${r.run.format} / ${GAP_VARIANTS[r.gaps]} / ${r.contender}: ${r.error}`);
  }
  const markdown = `${md.join("\n")}\n`;
  const brief = [
    summary,
    "",
    ...(sweep ? ["Sweep of policy.cache.batchTokens:", sweep, ""] : sweepNote ? [`Sweep: ${sweepNote}`, ""] : []),
    `${seconds.toFixed(1)} s`,
  ].join("\n");
  return { markdown, brief, summary };
}

/** Markdown: per gap variant, the pooled table and the target lines (`level` = the headings' #s). */
function pooledSummary(rows, gapVariants, contenders, level) {
  const out = [];
  for (const gapsName of gapVariants) {
    const mine = rows.filter((r) => r.gaps === gapsName);
    out.push(`${level} Pooled, ${GAP_VARIANTS[gapsName]}`, "", pooledTable(mine, contenders), "", `${level}# Targets of issue 28, ${GAP_VARIANTS[gapsName]}`, "");
    out.push(...targetSection(mine, gapsName).map((line) => `- ${line}`), "");
  }
  return out.join("\n").trimEnd();
}

/**
 * Replays the library (both hosts, both configurations) for each `policy.cache.batchTokens` of
 * `values`, beside the peers' rows of the main replay (`peerRows`, which no policy changes):
 * `{ table }`, or `{ note }` with the reason the core gave for rejecting the field.
 */
async function runSweep(runs, gapVariants, env, basePolicy, values, peerRows) {
  const rejected = await policyRejected(env.tc, withPolicy({}, { ...(basePolicy ?? {}), cache: { ...(basePolicy?.cache ?? {}), batchTokens: values[0] } }).policy);
  if (rejected) return { note: `not run: the core rejects \`cache.batchTokens\` (${rejected})` };
  const rowsOut = [];
  for (const value of values) {
    const options = withPolicy(env.options, { cache: { batchTokens: value } });
    const rows = [...peerRows, ...(await replayAll(runs, LIBRARY, gapVariants, { ...env, options }))];
    for (const g of gapVariants) {
      const mine = rows.filter((r) => r.gaps === g);
      const cells = LIBRARY.map((c) => {
        const p = pooled(mine, c.name);
        return `${pc(p.anthropic)} (${p.rewritesAny} rw, ${pc(p.paths)}/${pc(p.errors)})`;
      });
      const passes = LIBRARY.map((c) => {
        const judged = targetsOf(mine, c.name).filter((t) => t.pass !== null);
        return `${judged.filter((t) => t.pass).length}/${judged.length}`;
      });
      rowsOut.push([value, GAP_VARIANTS[g], ...cells, passes.join(", ")]);
    }
  }
  return {
    table: table(["batchTokens", "gaps", ...LIBRARY.map((c) => `${c.name}: bill (rewrites, paths/errors kept)`), "targets 1–5 passed of those judged (per contender, same order)"], rowsOut),
  };
}

const versionOf = (dir) => {
  try {
    return JSON.parse(fs.readFileSync(path.join(dir, "package.json"), "utf8")).version;
  } catch {
    return "?";
  }
};
const gitHead = async () => {
  const { execFileSync } = await import("node:child_process");
  try {
    const head = execFileSync("git", ["rev-parse", "--short", "HEAD"], { cwd: root, encoding: "utf8" }).trim();
    const dirty = execFileSync("git", ["status", "--porcelain", "--", "src", "js"], { cwd: root, encoding: "utf8" }).trim();
    return dirty ? `${head} (with uncommitted changes in src/ or js/)` : head;
  } catch {
    return "?";
  }
};

/**
 * Runs the loop replay. `only` (a substring of the run's name), `format`, `gaps` ("real", "long"
 * or "both"), `policy` (merged into `options.policy`), `sweep` (a list of batchTokens or
 * undefined), `contenders` (names; default all), `write` (bench/LOOP_REPLAY.md), `calls` (a
 * contender whose calls to print), `smoke` (a generated run instead of the real data).
 * Returns `{ rows, markdown, brief, summary (the pooled tables and targets), seconds }` or `{ skipped }`.
 */
export async function loopReplay({ only, format, gaps = "both", policy, sweep, contenders, write = false, calls, smoke = false } = {}) {
  const started = performance.now();
  const env = await environment(withPolicy({}, policy));
  if (env.skipped) return { skipped: env.skipped };
  let runs;
  if (smoke) runs = [await generatedRun(format ?? "ai-sdk")];
  else {
    const loaded = loadRuns();
    if (loaded.skipped) return { skipped: loaded.skipped };
    runs = loaded.runs.filter((r) => (!only || r.id.includes(only)) && (!format || r.format === format));
  }
  const gapVariants = gaps === "both" ? ["real", "long"] : [gaps];
  const chosen = contenders ? CONTENDERS.filter((c) => c === noneContender || contenders.includes(c.name)) : CONTENDERS;
  const rows = await replayAll(runs, chosen, gapVariants, env, { traceContender: calls });
  let sweepTable = null;
  let sweepNote = null;
  if (sweep) {
    const peerRows = rows.filter((r) => r.contender === noneContender.name || r.contender.startsWith("clear_tool_uses"));
    const result = await runSweep(runs, gapVariants, env, policy, sweep, peerRows);
    sweepTable = result.table ?? null;
    sweepNote = result.note ?? null;
  }
  const seconds = (performance.now() - started) / 1000;
  const versions = { commit: await gitHead(), library: versionOf(path.join(root, "pkg")), ai: versionOf(path.join(here, "node_modules", "ai")) };
  const { markdown, brief, summary } = render({ rows, gapVariants, contenders: chosen, sweep: sweepTable, sweepNote, seconds, policy, versions });
  if (write) fs.writeFileSync(path.join(here, "LOOP_REPLAY.md"), markdown);
  return { rows, markdown, brief, summary, seconds, sweepNote };
}

/** The line `npm start` prints: the library's pooled bill in the loop on a quick subset (every run in one format, real gaps, configuration (b), both hosts). */
export async function loopReplayLine({ format = "openai" } = {}) {
  const names = ["library stateless (b)", "library stateful (b)"];
  const report = await loopReplay({ format, gaps: "real", contenders: names });
  if (report.skipped) return `loop replay: skipped: ${report.skipped}`;
  const [stateless, stateful] = names.map((n) => pooled(report.rows, n));
  return (
    `loop replay (every run in format ${format}, ${stateless.calls} calls, real gaps, with cache facts): the library bills ${pc(stateless.anthropic)} stateless, ` +
    `${pc(stateful.anthropic)} stateful of sending everything (Anthropic prices), ${report.seconds.toFixed(1)} s; full: node bench/loop-replay.mjs`
  );
}

/** The smoke check: a generated run replays for every contender of its format with finite numbers. Throws otherwise. */
export async function loopReplaySmoke() {
  const report = await loopReplay({ smoke: true, gaps: "both" });
  if (report.skipped) throw new Error(`loop replay smoke: ${report.skipped}`);
  const failed = report.rows.filter((r) => r.error);
  if (failed.length) throw new Error(`loop replay smoke: ${failed[0].contender}: ${failed[0].error}`);
  const numbers = report.rows.flatMap((r) => [r.usd.anthropic, r.usd.openai, r.tokens, r.rewritesAny, ...r.ms]);
  // Every contender that applies to the run's format (the edge proxy: provider wire formats), both gap variants.
  const expected = CONTENDERS.filter((contender) => appliesTo(contender, report.rows[0].run)).length * 2;
  if (report.rows.length !== expected || numbers.some((n) => !Number.isFinite(n)) || report.rows.some((r) => !(r.usd.anthropic > 0))) {
    throw new Error(`loop replay smoke: ${report.rows.length} of ${expected} replays, or a number that is not finite`);
  }
  // The simulation itself: sending everything only ever appends, so it rewrites nothing.
  const none = report.rows.filter((r) => r.contender === noneContender.name);
  if (none.some((r) => r.rewritesAny !== 0)) throw new Error("loop replay smoke: sending everything rewrote the prefix");
  return `loop replay smoke ok: ${report.rows.length} replays of a ${report.rows[0].calls}-call generated run, every number finite (${report.seconds.toFixed(1)} s)`;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const value = (flag) => (args.includes(flag) ? args[args.indexOf(flag) + 1] : undefined);
  if (args.includes("--smoke")) {
    console.log(await loopReplaySmoke());
  } else {
    const sweepArg = value("--sweep");
    const sweep = args.includes("--sweep") ? (sweepArg && !sweepArg.startsWith("--") ? sweepArg.split(",").map(Number) : SWEEP_BATCH_TOKENS) : undefined;
    const report = await loopReplay({
      only: value("--only"),
      format: value("--format"),
      gaps: value("--gaps") ?? "both",
      policy: value("--policy") ? JSON.parse(value("--policy")) : undefined,
      sweep,
      calls: value("--calls"),
      write: args.includes("--write"),
    });
    if (report.skipped) console.log(`loop replay: skipped: ${report.skipped}`);
    else console.log(args.includes("--write") ? `${report.brief}\nwrote bench/LOOP_REPLAY.md` : report.brief);
  }
}

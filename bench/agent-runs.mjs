// Agent runs (issue 14, "How it is measured"): the library's tiers on the real sessions of
// ../shared/realdata, each converted to every format it converts to (bench/sessions.mjs), beside a
// simulation of Anthropic's context-editing `clear_tool_uses` and the AI SDK's real `pruneMessages`.
//
//   node bench/agent-runs.mjs [--no-write] [--policy JSON] [--count-tokens]
//
// Per run (session × format) and contender: tokens cut, the share of the distinct file paths and
// error lines of the original still in the context, and the share of the error lines of the tool
// results it altered that are still in the context; then the issue's targets. Everything is
// measured here, independently of the library: one token counter for every contender (o200k_base,
// gpt-tokenizer), and a path regex and an error-line regex of this file's own. Only the public API
// is used (compactWithTier, recordTierEvent, estimateTokens), so the report runs unchanged on later
// builds. Writes bench/AGENT_RUNS.md unless --no-write; `npm start` prints a short form.
// --policy passes a PolicyConfig to every tier call (e.g. '{"keepRecentSteps":3}' once it exists);
// --count-tokens gives the library the same o200k counter (`options.countTokens`) instead of its default.
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { realdataDir } from "./realdata.mjs";
import { CONVERSION_RULES, FORMATS, checkFormat, loadSessions, withReusedIds } from "./sessions.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.join(here, "..");

export const TIERS = ["micro", "time_based", "auto", "session_memory"];
export const PEERS = ["clear_tool_uses", "pruneMessages"];
export const CLEAR_KEEP = 3;
export const CLEAR_PLACEHOLDER = "[cleared]";

/** The pressure each tier is run at (compactWithTier forces the tier; the pressure still sizes auto). */
export const pressureFor = (tier, steps) => ({
  turnCount: steps,
  contextPctUsed: tier === "auto" || tier === "session_memory" ? 0.85 : 0.5,
  idleSeconds: tier === "time_based" ? 400 : 0,
  sessionComplete: tier === "session_memory",
});

// ---------------------------------------------------------------------------------------------
// What is measured: these regexes are this report's own (no code shared with the library's stubs).

/** URLs (trailing punctuation trimmed). */
export const URL_RE = /\bhttps?:\/\/[^\s"'`<>()[\]{}|\\^]+/g;
/** File paths with an extension: absolute (`/a/b.c`, `~/a.c`, `./a.c`, `../a/b.c`) or relative with a slash (`src/a.ts`). */
export const PATH_RE =
  /(?<![\w./@+~-])(?:~|\.{1,2})?\/(?:[\w@+-][\w.@+-]*\/)*[\w@+-][\w.@+-]*\.[A-Za-z][A-Za-z0-9]{0,7}(?![\w/])|(?<![\w./@+~-])[\w@+-][\w.@+-]*(?:\/[\w@+-][\w.@+-]*)+\.[A-Za-z][A-Za-z0-9]{0,7}(?![\w/])/g;
/** An error line: one of these words (any case), or a CamelCase `…Error` / `…Exception` name. */
export const ERROR_WORD_RE = /\b(?:errors?|exceptions?|fail(?:s|ed|ures?)?|panic(?:ked|s)?|traceback|fatal)\b/i;
export const ERROR_NAME_RE = /[a-z0-9](?:Error|Exception)\b/;
/** Error lines longer than this (after trimming) are not counted. */
export const ERROR_LINE_MAX = 120;

/** Distinct file paths and URLs named in `text`. */
export function pathsOf(text, into = new Set()) {
  const rest = text.replace(URL_RE, (url) => {
    into.add(url.replace(/[.,;:!?'"]+$/, ""));
    return " ";
  });
  for (const match of rest.matchAll(PATH_RE)) into.add(match[0]);
  return into;
}

/** Distinct error lines of `text` (trimmed, 1 to ERROR_LINE_MAX characters). */
export function errorLinesOf(text, into = new Set()) {
  for (const raw of text.split("\n")) {
    const line = raw.trim();
    if (line.length && line.length <= ERROR_LINE_MAX && (ERROR_WORD_RE.test(line) || ERROR_NAME_RE.test(line))) into.add(line);
  }
  return into;
}

// ---------------------------------------------------------------------------------------------
// What the model sees, per format: segments { kind, text (counted), facts (searched), image tokens }.

/** Anthropic's image cost: (w × h) / 750 after scaling the long edge to at most 1568 px; 1,600 when the size is unknown. */
export function imageTokens(base64) {
  try {
    const head = Buffer.from(base64.slice(0, 44), "base64");
    if (head.length >= 24 && head.readUInt32BE(0) === 0x89504e47) {
      const w = head.readUInt32BE(16);
      const h = head.readUInt32BE(20);
      const scale = Math.min(1, 1568 / Math.max(w, h));
      return Math.ceil((w * scale * h * scale) / 750);
    }
  } catch {
    // fall through
  }
  return 1600;
}

const dataOfUrl = (url) => (typeof url === "string" && url.startsWith("data:") ? url.slice(url.indexOf(",") + 1) : null);

function leaves(value, out = []) {
  if (typeof value === "string") out.push(value);
  else if (Array.isArray(value)) value.forEach((v) => leaves(v, out));
  else if (value !== null && typeof value === "object") Object.values(value).forEach((v) => leaves(v, out));
  return out;
}

const call = (name, input, json) => ({ kind: "call", text: `${name}\n${json}`, facts: [name, ...leaves(input)].join("\n") });
const parseOr = (text) => {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
};

/** The segments of `{ system, messages }` in `format`. */
export function segmentsOf(format, { system, messages }) {
  const segs = [];
  const text = (kind, value) => {
    if (typeof value === "string") segs.push({ kind, text: value });
  };
  const image = (data) => segs.push({ kind: "image", text: "", image: data ? imageTokens(data) : 1600 });
  const unknown = (kind, part) => segs.push({ kind, text: JSON.stringify(part) });
  if (typeof system === "string") text("system", system);
  else if (Array.isArray(system)) system.forEach((b) => text("system", b.text));
  for (const m of messages) {
    const kind = m.role === "tool" ? "result" : m.role === "developer" ? "system" : m.role;
    if (typeof m.content === "string") text(kind, m.content);
    if (format === "openai") {
      if (Array.isArray(m.content)) {
        for (const p of m.content) {
          if (p.type === "text") text(kind, p.text);
          else if (p.type === "image_url") image(dataOfUrl(p.image_url?.url));
          else unknown(kind, p);
        }
      }
      for (const c of m.tool_calls ?? []) segs.push(call(c.function?.name ?? "", parseOr(c.function?.arguments ?? ""), c.function?.arguments ?? ""));
      continue;
    }
    if (format === "gemini") {
      for (const p of m.parts ?? []) geminiSegment(segs, p, text, image, unknown);
      continue;
    }
    if (!Array.isArray(m.content)) continue;
    for (const p of m.content) {
      if (format === "anthropic") {
        if (p.type === "text") text(kind, p.text);
        else if (p.type === "image") image(p.source?.type === "base64" ? p.source.data : null);
        else if (p.type === "tool_use") segs.push(call(p.name, p.input, JSON.stringify(p.input)));
        else if (p.type === "tool_result") {
          // One segment per result (its text blocks, and other blocks as JSON), images apart.
          if (typeof p.content === "string") text("result", p.content);
          else {
            const blocks = Array.isArray(p.content) ? p.content : [];
            for (const b of blocks) if (b.type === "image") image(b.source?.type === "base64" ? b.source.data : null);
            text("result", blocks.filter((b) => b.type !== "image").map((b) => (b.type === "text" ? b.text : JSON.stringify(b))).join("\n"));
          }
        } else if (p.type === "thinking") text("thinking", p.thinking);
        else if (p.type === "redacted_thinking") text("thinking", p.data);
        else unknown(kind, p);
      } else {
        if (p.type === "text") text(kind, p.text);
        else if (p.type === "reasoning") text("thinking", p.text);
        else if (p.type === "image") image(typeof p.image === "string" ? (dataOfUrl(p.image) ?? p.image) : null);
        else if (p.type === "tool-call") segs.push(call(p.toolName, p.input, JSON.stringify(p.input)));
        else if (p.type === "tool-result") {
          const o = p.output ?? {};
          if (o.type === "text" || o.type === "error-text") text("result", o.value);
          else if (o.type === "json" || o.type === "error-json") text("result", JSON.stringify(o.value));
          else if (o.type === "content") text("result", (o.value ?? []).map((b) => (b.type === "text" ? b.text : JSON.stringify(b))).join("\n"));
          else unknown("result", o);
        } else unknown(kind, p);
      }
    }
  }
  return segs;
}

/**
 * One Gemini part as segments: text (a `thought` part is thinking), a call, a result (the strings
 * of its `response` object, one per line, as the other formats' result texts: its JSON would hide
 * the lines), inline data.
 */
function geminiSegment(segs, p, text, image, unknown) {
  if (typeof p.text === "string") text(p.thought === true ? "thinking" : "text", p.text);
  else if (p.functionCall) segs.push(call(p.functionCall.name ?? "", p.functionCall.args ?? {}, JSON.stringify(p.functionCall.args ?? {})));
  else if (p.functionResponse) text("result", leaves(p.functionResponse.response ?? null).join("\n"));
  else if (p.inlineData) image(p.inlineData.data);
  else unknown("text", p);
}

/**
 * The distinct file paths and error lines the model is sent in `input` (`{ system, messages }` in
 * `format`), and their segments: `{ segs, paths, errors }`.
 */
export function factsOf(format, input) {
  const segs = segmentsOf(format, input);
  const paths = new Set();
  const errors = new Set();
  for (const s of segs) {
    pathsOf(s.facts ?? s.text, paths);
    errorLinesOf(s.facts ?? s.text, errors);
  }
  return { segs, paths, errors };
}

/**
 * How many of `facts` (from `factsOf`) are still in `outSegs`: a path when the same regexes find
 * it there, an error line when it is a line or a substring of the output. `{ pathsKept, errorsKept, present }`.
 */
export function factsKept(facts, outSegs) {
  const outText = outSegs.map((s) => s.facts ?? s.text).join("\n");
  const outPaths = pathsOf(outText);
  const outLines = new Set(outText.split("\n").map((l) => l.trim()));
  const present = (line) => outLines.has(line) || outText.includes(line);
  let pathsKept = 0;
  for (const p of facts.paths) if (outPaths.has(p)) pathsKept += 1;
  let errorsKept = 0;
  for (const l of facts.errors) if (present(l)) errorsKept += 1;
  return { pathsKept, errorsKept, present };
}

// ---------------------------------------------------------------------------------------------
// The peers

/** Anthropic's context editing `clear_tool_uses` (keep 3), simulated: every tool result but the newest `keep` becomes the placeholder; tool inputs stay. Formats: anthropic, openai, ai-sdk, gemini (its `functionResponse.response` becomes `{ output: placeholder }`). */
export function clearToolUses(format, messages, keep = CLEAR_KEEP, placeholder = CLEAR_PLACEHOLDER) {
  const where = [];
  messages.forEach((m, i) => {
    if (format === "openai" && m.role === "tool") where.push([i, -1]);
    else if (format === "gemini") (m.parts ?? []).forEach((p, j) => p.functionResponse && where.push([i, j]));
    else if (Array.isArray(m.content)) {
      m.content.forEach((p, j) => {
        if ((format === "anthropic" && p.type === "tool_result") || (format === "ai-sdk" && p.type === "tool-result")) where.push([i, j]);
      });
    }
  });
  const clear = where.slice(0, Math.max(0, where.length - keep));
  const out = messages.slice();
  for (const [i, j] of clear) {
    if (j < 0) out[i] = { ...out[i], content: placeholder };
    else if (format === "gemini") {
      const parts = out[i].parts.slice();
      parts[j] = { ...parts[j], functionResponse: { ...parts[j].functionResponse, response: { output: placeholder } } };
      out[i] = { ...out[i], parts };
    } else {
      const content = out[i].content.slice();
      const part = content[j];
      content[j] = format === "anthropic" ? { ...part, content: placeholder } : { ...part, output: { type: part.output?.type === "error-text" ? "error-text" : "text", value: placeholder } };
      out[i] = { ...out[i], content };
    }
  }
  return { messages: out, cleared: clear.length };
}

/** pruneMessages' `before-last-N-messages` with N the fewest trailing messages that hold the newest `keep` tool results (their calls are kept with them). */
export function pruneWindow(messages, keep = CLEAR_KEEP) {
  let seen = 0;
  for (let i = messages.length - 1; i >= 0; i -= 1) {
    const m = messages[i];
    if (m.role === "tool" && Array.isArray(m.content)) seen += m.content.filter((p) => p.type === "tool-result").length;
    if (seen >= keep) return messages.length - i;
  }
  return messages.length;
}

// ---------------------------------------------------------------------------------------------

/** Installs bench/'s own dependencies (the token counter, the `ai` package) from its lockfile when missing; a reason when that fails. */
export function ensureBenchDeps() {
  const stamp = path.join(here, "node_modules", ".package-lock.json");
  const lock = path.join(here, "package-lock.json");
  if (!fs.existsSync(stamp) || fs.statSync(stamp).mtimeMs < fs.statSync(lock).mtimeMs) {
    console.error("[agent-runs] installing bench/ dependencies (npm ci)");
    try {
      execFileSync("npm", ["ci", "--no-audit", "--no-fund", "--loglevel=error"], { cwd: here, stdio: ["ignore", "inherit", "inherit"] });
    } catch (error) {
      return `bench/'s dependencies (gpt-tokenizer, ai) could not be installed: ${error.message.split("\n")[0]}`;
    }
  }
  return null;
}

const git = (...args) => {
  try {
    return execFileSync("git", args, { cwd: root, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim();
  } catch {
    return "?";
  }
};

const pct = (x) => (x == null || Number.isNaN(x) ? "–" : `${(100 * x).toFixed(1)} %`);
const share = (kept, total) => (total ? kept / total : null);
const cell = (kept, total) => (total ? `${pct(kept / total)} (${kept}/${total})` : "–");
const esc = (text) => String(text).replace(/\|/g, "\\|").replace(/\n/g, " ");
const short = (text, n) => (text.length > n ? `${text.slice(0, n - 1)}…` : text);
const mdTable = (head, rows) => [`| ${head.join(" | ")} |`, `| ${head.map(() => "---").join(" | ")} |`, ...rows.map((r) => `| ${r.map(esc).join(" | ")} |`)];

/**
 * Runs the measurement and returns `{ markdown, brief, runs, pooled, seconds }`, or
 * `{ skipped: reason }` when ../shared/realdata is not there.
 */
/** SPEC §4's stub: the head (`microKeepHeadChars`, default 80), at most 8 lines that matter, the body's last line. */
export const STUB_HEAD_CHARS = 80;
export const STUB_LINES = 8;

/**
 * At most how many error lines of `bodies` any stubs made by SPEC §4's recipe could keep, whatever
 * lines they picked (an upper bound for target 3, independent of the stub code). Free: a line
 * already in the rest of the output (`elsewhere`), starting in a body's first STUB_HEAD_CHARS
 * characters, a body's last line, or inside another error line of a body (the measure finds
 * substrings too; counting those as kept only raises the bound). The other lines each need a
 * stub that picks them, and a stub picks at most STUB_LINES: the most that can be kept is a
 * maximum bipartite b-matching of lines to the bodies holding them (augmenting paths).
 * Returns { kept, of }.
 */
export function stubBound(bodies, elsewhere) {
  const all = new Set();
  for (const body of bodies) errorLinesOf(body, all);
  const lines = [...all];
  const free = new Set(lines.filter((line) => elsewhere.includes(line) || lines.some((other) => other !== line && other.includes(line))));
  const holders = new Map(); // line -> bodies that could pick it
  bodies.forEach((body, b) => {
    const rows = body.split("\n");
    const last = rows.filter((l) => l.trim()).at(-1)?.trim() ?? "";
    let offset = 0;
    for (const raw of rows) {
      const line = raw.trim();
      if (all.has(line)) {
        if (offset < STUB_HEAD_CHARS || line === last) free.add(line);
        else holders.set(line, [...(holders.get(line) ?? []), b]);
      }
      offset += raw.length + 1;
    }
  });
  const picked = bodies.map(() => []); // body -> lines it picks
  const assign = (line, seen) => {
    for (const b of holders.get(line) ?? []) {
      if (seen.has(b)) continue;
      seen.add(b);
      if (picked[b].length < STUB_LINES) {
        picked[b].push(line);
        return true;
      }
      // Move one of b's lines to another body, freeing a slot.
      for (let i = 0; i < picked[b].length; i++) {
        const moved = picked[b][i];
        picked[b].splice(i, 1);
        if (assign(moved, seen)) {
          picked[b].push(line);
          return true;
        }
        picked[b].splice(i, 0, moved);
      }
    }
    return false;
  };
  let matched = 0;
  for (const line of lines) if (!free.has(line) && assign(line, new Set())) matched += 1;
  return { kept: free.size + matched, of: all.size };
}

export async function agentRunsReport({ write = false, policy, libraryCounter = false } = {}) {
  const dir = realdataDir(root);
  if (!dir) return { skipped: `../shared/realdata was not found next to the repository (${path.join(root, "..", "shared", "realdata")}), so there are no real sessions to measure` };
  const notInstalled = ensureBenchDeps();
  if (notInstalled) return { skipped: notInstalled };
  const started = performance.now();
  const tc = await import("tiered-compaction");
  const { pruneMessages } = await import("ai");
  const o200k = await import("gpt-tokenizer/encoding/o200k_base");
  const aiVersion = JSON.parse(fs.readFileSync(path.join(here, "node_modules", "ai", "package.json"), "utf8")).version;
  const tokCache = new Map();
  const count = (text) => {
    if (!text) return 0;
    let n = tokCache.get(text);
    if (n === undefined) {
      n = o200k.countTokens(text, { disallowedSpecial: new Set() });
      tokCache.set(text, n);
    }
    return n;
  };
  const options = { ...(policy ? { policy } : {}), ...(libraryCounter ? { countTokens: count } : {}) };

  const sessions = loadSessions(dir);
  // A variant, not a real session: the OpenAI body with the ids of servers that reuse `call_0` (OpenAI and AI SDK only).
  const body = sessions.find((s) => s.source === "OpenAI body");
  if (body) {
    sessions.push({
      ...body,
      id: `${body.id} (ids reused)`,
      variant: true,
      duplicateOf: undefined,
      notes: ["variant: every call id is `call_0` (numbered per assistant message), results paired by position"],
      formats: {
        openai: { system: null, messages: withReusedIds("openai", body.formats.openai.messages) },
        "ai-sdk": { system: null, messages: withReusedIds("ai-sdk", body.formats["ai-sdk"].messages) },
      },
    });
  }
  const runs = [];
  const oddities = [];
  let libraryMs = 0;

  for (const session of sessions) {
    for (const format of FORMATS) {
      if (!session.formats[format]) continue;
      const input = session.formats[format];
      const { messages } = input;
      const facts = factsOf(format, input);
      const { segs: inSegs, paths: allPaths, errors: allErrors } = facts;
      const tokensOf = (segs) => segs.reduce((n, s) => n + count(s.text) + (s.image ?? 0), 0);
      const before = tokensOf(inSegs);
      const results = inSegs.filter((s) => s.kind === "result");
      const steps = messages.filter((m) => m.role === "assistant").length;
      const run = {
        session: session.id,
        source: session.source,
        format,
        duplicateOf: session.duplicateOf,
        variant: session.variant === true,
        messages: messages.length,
        steps,
        toolResults: results.length,
        before,
        paths: allPaths.size,
        errors: allErrors.size,
        contenders: {},
        library: {},
      };
      runs.push(run);

      const measure = (name, outMessages, extra = {}) => {
        const outSegs = segmentsOf(format, { system: input.system, messages: outMessages });
        const after = tokensOf(outSegs);
        const { pathsKept, errorsKept, present } = factsKept(facts, outSegs);
        // The tool results it altered: bodies of the input not found whole in the output (as
        // many times as the input has them: two equal bodies, one stubbed, count one as pruned).
        const outTexts = new Map();
        for (const s of outSegs) if (s.kind === "result") outTexts.set(s.text, (outTexts.get(s.text) ?? 0) + 1);
        const prunedErrors = new Set();
        const prunedTexts = [];
        let pruned = 0;
        for (const r of results) {
          const left = outTexts.get(r.text) ?? 0;
          if (left > 0) {
            outTexts.set(r.text, left - 1);
            continue;
          }
          pruned += 1;
          prunedTexts.push(r.text);
          errorLinesOf(r.text, prunedErrors);
        }
        let prunedErrorsKept = 0;
        for (const l of prunedErrors) if (present(l)) prunedErrorsKept += 1;
        const bound = name === "micro" ? stubBound(prunedTexts, outSegs.filter((s) => s.kind !== "result").map((s) => s.facts ?? s.text).join("\n")) : undefined;
        const problems = checkFormat(format, outMessages);
        run.contenders[name] = {
          after,
          cut: before - after,
          pathsKept,
          errorsKept,
          pruned,
          prunedErrors: prunedErrors.size,
          prunedErrorsKept,
          bound,
          problems,
          ...extra,
        };
        if (problems.length) {
          const where = extra.archive?.length ? `; its archive: ${extra.archive.slice(0, 3).join(", ")}${extra.archive.length > 3 ? ", …" : ""}` : "";
          oddities.push(`${session.id} / ${format} / ${name}: output breaks the provider's rules: ${problems.slice(0, 3).join("; ")}${problems.length > 3 ? ` (+${problems.length - 3})` : ""}${where}`);
        }
      };

      // The library: tier none first (the input must be valid, so none is a no-op), then each tier.
      const ctxFor = (tier) => ({ sessionId: `agent-runs ${session.id} ${format}`, pressure: pressureFor(tier, steps), messages, format });
      try {
        const none = await tc.compactWithTier("none", { ...ctxFor("micro"), format: "auto" }, options);
        run.library.none = { detected: none.format, archive: none.archive.length, warnings: none.warnings ?? [], same: none.messages.every((m, i) => m === messages[i]) && none.messages.length === messages.length };
        if (none.format !== format) oddities.push(`${session.id} / ${format}: detected as ${none.format}`);
        if (none.archive.length || none.warnings?.length) oddities.push(`${session.id} / ${format}: tier none repaired valid input: ${(none.warnings ?? []).join("; ")} (${none.archive.length} archive entries)`);
      } catch (error) {
        run.library.none = { error: error.message };
        oddities.push(`${session.id} / ${format}: tier none rejected the input: ${error.message}`);
      }
      for (const tier of TIERS) {
        const t0 = performance.now();
        try {
          const result = await tc.compactWithTier(tier, ctxFor(tier), options);
          const ms = performance.now() - t0;
          libraryMs += ms;
          const trace = JSON.parse(tc.recordTierEvent(result, { run: `${session.id} ${format}` }));
          run.library[tier] = { ms, reason: result.reason, saved: result.tokensSaved, before: result.beforeTokens, archive: result.archive.length, warnings: result.warnings ?? [] };
          if (result.tier !== tier || trace.compaction_tier !== tier || trace.compaction_tokens_before !== result.beforeTokens) {
            oddities.push(`${session.id} / ${format} / ${tier}: result tier ${result.tier}, trace line tier ${trace.compaction_tier} (before ${trace.compaction_tokens_before} vs ${result.beforeTokens})`);
          }
          measure(tier, result.messages, { archive: result.archive.map((e) => `${e.kind} ${e.location}`) });
          if (result.warnings?.length) oddities.push(`${session.id} / ${format} / ${tier}: warnings: ${result.warnings.join("; ")}`);
        } catch (error) {
          run.library[tier] = { error: error.message };
          oddities.push(`${session.id} / ${format} / ${tier}: rejected: ${error.message}`);
          measure(tier, messages, { error: error.message });
        }
      }
      const cleared = clearToolUses(format, messages);
      measure("clear_tool_uses", cleared.messages, { cleared: cleared.cleared });
      if (format === "ai-sdk") {
        const n = pruneWindow(messages);
        run.pruneWindow = n;
        measure("pruneMessages", pruneMessages({ messages, toolCalls: `before-last-${n}-messages` }));
      }
    }
  }

  // The variant against the run it was made from: the ids alone should change nothing.
  for (const run of runs.filter((r) => r.variant)) {
    const base = runs.find((r) => !r.variant && r.format === run.format && `${r.session} (ids reused)` === run.session);
    if (!base) continue;
    for (const name of Object.keys(run.contenders)) {
      const [a, b] = [base.contenders[name].cut, run.contenders[name].cut];
      if (a !== b) oddities.push(`${run.session} / ${run.format} / ${name}: reusing the call ids changes the cut from ${pct(a / base.before)} to ${pct(b / run.before)}${run.library[name]?.reason ? ` (reason: "${run.library[name].reason}")` : ""}`);
    }
  }

  // Targets, on every run with tool output to cut (clear_tool_uses cuts something).
  for (const run of runs) {
    const { micro, auto, clear_tool_uses: ctu } = run.contenders;
    const applies = ctu.cut > 0;
    run.targets = {
      applies,
      microCut: applies ? micro.cut >= 0.8 * ctu.cut : null,
      microFacts: applies ? micro.pathsKept >= ctu.pathsKept && micro.errorsKept >= ctu.errorsKept : null,
      microPrunedErrors: applies && micro.prunedErrors > 0 ? micro.prunedErrorsKept >= 0.9 * micro.prunedErrors : null,
      auto: applies ? auto.cut >= micro.cut && auto.pathsKept >= ctu.pathsKept && auto.errorsKept >= ctu.errorsKept : null,
    };
  }

  const counted = runs.filter((r) => !r.duplicateOf && !r.variant);
  const contenders = [...TIERS, ...PEERS];
  const pooledOf = (name, subset) => {
    const rs = subset.filter((r) => r.contenders[name]);
    const sum = (f) => rs.reduce((n, r) => n + f(r), 0);
    return {
      runs: rs.length,
      before: sum((r) => r.before),
      cut: sum((r) => r.contenders[name].cut),
      paths: sum((r) => r.paths),
      pathsKept: sum((r) => r.contenders[name].pathsKept),
      errors: sum((r) => r.errors),
      errorsKept: sum((r) => r.contenders[name].errorsKept),
      prunedErrors: sum((r) => r.contenders[name].prunedErrors),
      prunedErrorsKept: sum((r) => r.contenders[name].prunedErrorsKept),
    };
  };
  const pooled = Object.fromEntries(contenders.map((name) => [name, pooledOf(name, counted)]));
  const seconds = (performance.now() - started) / 1000;

  // ------------------------------------------------------------------------------------------
  const md = [];
  const say = (...lines) => md.push(...(lines.length ? lines : [""]));
  const label = (r) => `${r.session}${r.duplicateOf ? " †" : ""}${r.variant ? " ‡" : ""}`;
  const fmtName = { anthropic: "Anthropic", openai: "OpenAI", "ai-sdk": "AI SDK" };
  const mark = (v) => (v === null ? "–" : v ? "✓" : "✗");
  const pkgVersion = JSON.parse(fs.readFileSync(path.join(root, "node_modules", "tiered-compaction", "package.json"), "utf8")).version;

  say("# Agent runs: the tiers on real agent sessions");
  say();
  say(
    `Generated by \`node bench/agent-runs.mjs\` at commit ${git("rev-parse", "--short", "HEAD")}${git("status", "--porcelain", "--", "src", "js").length ? " (with uncommitted changes in src/ or js/)" : ""}, ` +
      `tiered-compaction ${pkgVersion}, ai ${aiVersion}; ${sessions.filter((x) => !x.variant).length} sessions × ${FORMATS.length} formats from \`../shared/realdata\` and 1 variant; ` +
      `${seconds.toFixed(1)} s (of which ${(libraryMs / 1000).toFixed(1)} s in the library's tier calls).` +
      (policy ? ` Policy: \`${JSON.stringify(policy)}\`.` : " Default policy.") +
      (libraryCounter ? " The library counts with the same o200k counter (`options.countTokens`)." : " The library counts with its default estimator; the figures here are o200k."),
  );
  say();
  say("Issue 14 asks for this measurement. Every figure here is computed by this report, not taken from the library:");
  say();
  say("- **Tokens**: o200k_base (gpt-tokenizer), the same counter for every contender, over what the model is sent: the system prompt, every text, each tool call's name and JSON input, each tool result; ids, roles and type tags are not counted; an image costs (w × h) / 750 tokens (Anthropic's rule, size read from the PNG header; 1,600 when unknown). **Cut** = 1 − after / before.");
  say(`- **File paths**: the distinct matches of \`${PATH_RE.source}\` (paths with an extension, absolute or relative with a slash) and of \`${URL_RE.source}\` (URLs) anywhere in the original (tool inputs parsed); **kept** = the same regexes still find it in the output.`);
  say(`- **Error lines**: distinct trimmed lines of 1 to ${ERROR_LINE_MAX} characters matching \`${ERROR_WORD_RE.source}\` (any case) or \`${ERROR_NAME_RE.source}\`; **kept** = still a line of (or a substring of) the output.`);
  say("- **Error lines of the bodies it pruned**: the tool results whose text is not found whole in the output are the contender's pruned bodies; the share of their distinct error lines still in the output.");
  say(`- **Contenders**: the tiers through \`compactWithTier\` (micro and time_based at contextPctUsed 0.5, time_based idle 400 s, auto at 0.85 without a summariser and with the default target, session_memory at 0.85 with the session complete; turnCount = the run's assistant messages), ` +
    `**clear_tool_uses**: Anthropic's context editing simulated here (every tool result but the ${CLEAR_KEEP} newest replaced by \`${CLEAR_PLACEHOLDER}\`, tool inputs kept, in each format), ` +
    `**pruneMessages**: the AI SDK's own (\`ai\` ${aiVersion}) on the AI SDK messages, \`{ toolCalls: "before-last-N-messages" }\` (reasoning and emptyMessages at their defaults, "none" and "remove") with N per run the fewest trailing messages holding the ${CLEAR_KEEP} newest tool results (N is in the runs table; it drops older calls and results whole, inputs included).`);
  say("- † = the same messages as another run (the OpenAI body was converted from that OpenHands record); shown, not pooled, no targets counted.");
  say("- ‡ = not a real session: the OpenAI body with the ids some OpenAI-compatible servers send (`call_0` in every step, paired by position; valid in OpenAI and the AI SDK, issue 14 item 6), in those two formats; shown, not pooled, no targets counted.");
  say();
  say("## Conversions");
  say();
  for (const rule of CONVERSION_RULES) say(`- ${rule}`);
  say();
  say("Every converted run was checked against its provider's rules (every tool call answered by its result, ids paired, Anthropic roles alternating from `user`, no empty content), and tier `none` (format `\"auto\"`) must detect the format and return the input unchanged with an empty archive and no warnings.");
  say();
  say("## Runs");
  say();
  say(
    ...mdTable(
      ["run", "format", "messages", "steps", "tool results", "tokens", "paths", "error lines", "pruneMessages N", "tier none", "notes"],
      runs.map((r) => {
        const none = r.library.none;
        const noneCell = none.error ? `rejected: ${short(none.error, 80)}` : `${none.detected}${none.same ? ", unchanged" : ", CHANGED"}${none.archive ? `, ${none.archive} archived` : ""}${none.warnings.length ? `, ${none.warnings.length} warnings` : ""}`;
        const session = sessions.find((s) => s.id === r.session);
        return [label(r), fmtName[r.format], r.messages, r.steps, r.toolResults, r.before, r.paths, r.errors, r.pruneWindow ?? "", noneCell, r.format === "anthropic" ? session.notes.join("; ") : ""];
      }),
    ),
  );
  const wide = (title, value, note) => {
    say();
    say(`## ${title}`);
    say();
    if (note) {
      say(note);
      say();
    }
    say(...mdTable(["run", "format", ...contenders], runs.map((r) => [label(r), fmtName[r.format], ...contenders.map((c) => (r.contenders[c] ? value(r, r.contenders[c]) : ""))])));
  };
  wide("Tokens cut", (r, c) => (c.error ? "rejected" : pct(c.cut / r.before)));
  wide("File paths still in the context", (r, c) => pct(share(c.pathsKept, r.paths)));
  wide("Error lines still in the context", (r, c) => pct(share(c.errorsKept, r.errors)));
  wide(
    "Error lines of the bodies it pruned, still in the context",
    (r, c) => (!c.pruned ? "none pruned" : c.prunedErrors ? `${cell(c.prunedErrorsKept, c.prunedErrors)} of ${c.pruned} bodies` : `– (${c.pruned} bodies, no error line)`),
    "Kept / distinct error lines (≤ 120 characters) of the tool results the contender altered (replaced, stubbed, digested or dropped), and how many results that is.",
  );

  say();
  say("## Targets (issue 14)");
  say();
  say("On every run with tool output to cut (clear_tool_uses cuts something):");
  say();
  say("1. micro cuts ≥ 80 % of what clear_tool_uses cuts;");
  say("2. micro keeps ≥ as many paths and as many error lines as clear_tool_uses;");
  say("3. micro keeps ≥ 90 % of the distinct error lines (≤ 120 characters) of the bodies it prunes (– when it prunes none that have any);");
  say("4. auto cuts ≥ micro and keeps ≥ clear_tool_uses' paths and error lines.");
  say();
  say("Targets 2 and 4 compare what is kept, so a tier that cuts nothing meets them: read them beside target 1. Cells: tokens cut (o200k); paths / error lines kept.");
  say();
  say(`Target 3's **bound**: at most how many of those error lines any stubs made by SPEC §4's recipe could keep from the same pruned bodies, whichever lines they picked (computed here, not by the library): every line already elsewhere in the output, starting in a body's first ${STUB_HEAD_CHARS} characters or a body's last line, or inside another error line, plus the most lines ${STUB_LINES} picks per body can cover (a maximum matching of lines to the bodies holding them), ignoring the rule that a stub is at most half its body. Where the bound is under 90 %, the target cannot be met within SPEC §4 (at most ${STUB_LINES} lines, and lines that differ only in numbers count once).`);
  say();
  say(
    ...mdTable(
      ["run", "format", "1. micro cut vs 0.8 × clear", "2. micro paths / errors vs clear", "3. micro, pruned bodies' errors", "4. auto cut / paths / errors"],
      runs.map((r) => {
        const { micro, auto, clear_tool_uses: ctu } = r.contenders;
        const t = r.targets;
        if (!t.applies) return [label(r), fmtName[r.format], "– (nothing to cut)", "–", "–", "–"];
        return [
          label(r),
          fmtName[r.format],
          `${mark(t.microCut)} ${micro.cut} vs ${Math.round(0.8 * ctu.cut)}`,
          `${mark(t.microFacts)} ${micro.pathsKept}/${micro.errorsKept} vs ${ctu.pathsKept}/${ctu.errorsKept}`,
          `${mark(t.microPrunedErrors)} ${micro.prunedErrors ? `${micro.prunedErrorsKept}/${micro.prunedErrors} (bound ${micro.bound.kept}/${micro.bound.of})` : ""}`,
          `${mark(t.auto)} ${auto.cut} vs ${micro.cut}; ${auto.pathsKept}/${auto.errorsKept} vs ${ctu.pathsKept}/${ctu.errorsKept}`,
        ];
      }),
    ),
  );
  const targetNames = [
    ["microCut", "1. micro cuts ≥ 80 % of clear_tool_uses"],
    ["microFacts", "2. micro keeps ≥ clear_tool_uses' paths and error lines"],
    ["microPrunedErrors", "3. micro keeps ≥ 90 % of its pruned bodies' error lines"],
    ["auto", "4. auto cuts ≥ micro, keeps ≥ clear_tool_uses' paths and error lines"],
  ];
  const targetLines = targetNames.map(([key, name]) => {
    const applicable = counted.filter((r) => r.targets[key] !== null);
    const met = applicable.filter((r) => r.targets[key]).length;
    const reachable = key === "microPrunedErrors" ? applicable.filter((r) => r.contenders.micro.bound.kept >= 0.9 * r.contenders.micro.bound.of) : applicable;
    const metReachable = reachable.filter((r) => r.targets[key]).length;
    const why = reachable.length < applicable.length ? ` (on ${applicable.length - reachable.length} of them no stub within SPEC §4 can keep 90 %, see the bound; met on ${metReachable} of the ${reachable.length} where one can)` : "";
    return `${name}: met on ${met} of ${applicable.length} runs${met === applicable.length && applicable.length ? " — MET" : ` — not met${why}`}`;
  });
  say();
  for (const line of targetLines) say(`- ${line}`);

  say();
  say(`## Pooled over the ${counted.length} distinct runs`);
  say();
  const pooledLines = contenders.map((name) => {
    const p = pooled[name];
    return `${name.padEnd(15)} cut ${pct(p.cut / p.before).padStart(7)} of ${p.before} tokens; paths kept ${pct(share(p.pathsKept, p.paths))}, error lines kept ${pct(share(p.errorsKept, p.errors))}, error lines of pruned bodies kept ${p.prunedErrors ? pct(p.prunedErrorsKept / p.prunedErrors) : "–"}${p.runs !== counted.length ? ` (${p.runs} runs: AI SDK only)` : ""}`;
  });
  say("```");
  for (const line of pooledLines) say(line);
  say("```");
  say();
  say("Tokens cut, pooled per format:");
  say();
  say(
    ...mdTable(
      ["contender", ...FORMATS.map((f) => fmtName[f]), "all"],
      contenders.map((name) => [
        name,
        ...FORMATS.map((f) => {
          const p = pooledOf(name, counted.filter((r) => r.format === f));
          return p.runs ? pct(p.cut / p.before) : "";
        }),
        pct(pooled[name].cut / pooled[name].before),
      ]),
    ),
  );

  say();
  say("## What the library said");
  say();
  say("Its own count of tokens saved (its counter, not o200k) and its `reason`, per tier:");
  say();
  say(
    ...mdTable(
      ["run", "format", ...TIERS],
      runs.map((r) => [label(r), fmtName[r.format], ...TIERS.map((t) => (r.library[t].error ? `rejected: ${short(r.library[t].error, 120)}` : `${r.library[t].saved} saved; ${short(r.library[t].reason, 160)}`))]),
    ),
  );
  say();
  say("## Oddities");
  say();
  if (oddities.length) for (const o of oddities) say(`- ${o}`);
  else say("None: every conversion was accepted as valid (tier none a no-op), and every output kept the provider's rules.");
  say();

  const markdown = md.join("\n");
  if (write) fs.writeFileSync(path.join(here, "AGENT_RUNS.md"), `${markdown}\n`);
  const brief = [
    `Agent runs: ${sessions.filter((x) => !x.variant).length} real sessions (../shared/realdata) × ${FORMATS.length} formats, o200k tokens, ${seconds.toFixed(1)} s (full tables: node bench/agent-runs.mjs → bench/AGENT_RUNS.md)`,
    "Pooled:",
    ...pooledLines.map((l) => `  ${l}`),
    "Issue 14 targets:",
    ...targetLines.map((l) => `  ${l}`),
    ...(oddities.length ? [`Oddities (${oddities.length}):`, ...oddities.map((o) => `  ${o}`)] : []),
  ].join("\n");
  return { markdown, brief, runs, pooled, oddities, seconds };
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const policyAt = args.indexOf("--policy");
  const report = await agentRunsReport({
    write: !args.includes("--no-write"),
    policy: policyAt >= 0 ? JSON.parse(args[policyAt + 1]) : undefined,
    libraryCounter: args.includes("--count-tokens"),
  });
  if (report.skipped) console.log(`agent runs: skipped: ${report.skipped}`);
  else console.log(report.markdown);
}

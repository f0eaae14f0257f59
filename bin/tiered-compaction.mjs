#!/usr/bin/env node
// npx tiered-compaction FILE: what each tier would do to a real session. Copied into the package
// as bin/tiered-compaction.mjs by scripts/build.mjs (it imports the package's own files).
import * as fs from "node:fs";
import { compactRequestBody, compactWithTier, selectTier, TIER_COST_WEIGHT } from "../node.mjs";
import { fromClaudeCode, isClaudeCodeJsonl } from "../claude-code.mjs";

/** Files over this size get progress lines on standard error. */
const LARGE = 1 << 20;
const megabytes = (bytes) => `${(bytes / (1 << 20)).toFixed(1)} MB`;
const status = () => (process.stderr.isTTY ? "\r\x1b[K" : "");
/** What the report counts as kept: file paths (with an extension), and lines that report errors. */
const PATH = /(?:^|[\s"'`(\[=:,])((?:~|\.{1,2})?\/?(?:[\w@.+-]+\/)+[\w@+-]+(?:\.[A-Za-z0-9]{1,10})+)(?::\d+)?/g;
const ERROR_LINE = /\b(?:error|errors|exception|traceback|fail|failed|failure|fatal|panic(?:ked)?)\b/i;
const TIERS = ["none", "micro", "time_based", "auto", "session_memory"];
const FORMATS = ["auto", "claude-code", "openai", "anthropic", "ai-sdk", "responses", "gemini", "body", "text"];
/** The keys a request body's message list is found by: Chat Completions, Anthropic and the AI SDK's
 * `messages`, the OpenAI Responses API's `input`, Gemini's `contents`. */
const LIST_KEYS = ["messages", "input", "contents"];
const HELP = `Usage: tiered-compaction FILE [options]

Shows what each tier would cut from FILE, what it would keep and what it would cost.
FILE is a Claude Code session (.jsonl), a JSON array of messages (OpenAI Chat Completions,
Anthropic Messages, AI SDK, OpenAI Responses input items or Gemini contents), a provider
request body (JSON with "messages", a Responses "input" or Gemini "contents"), or plain text.
"-" reads standard input.

Options:
  --tier T               only tier T (${TIERS.join(", ")})
  --out F                with --tier: write the compacted result to F (messages JSON, the
                         request body, or text, as FILE was) and its archive to F.archive.json
  --archive A            write the archive to A instead
  --format F             read FILE as F (${FORMATS.join(", ")}); default: detected
  --context-window N     the model's context window in tokens, for the policy's pick (200000)
  --price USD            price per 1,000 input tokens, for the cost (0.003)
  --token-estimator E    heuristic (close to o200k, media as billed: the default for messages)
                         or seed (code points / 4: the default for text)
  --policy JSON          policy overrides, e.g. '{"keepRecentSteps":5}' (cache.batchTokens
                         is 0 here, every step at once, unless given)
  --json                 print the report as JSON
  -h, --help             this text

Progress goes to standard error for files over 1 MB.`;

main().catch((error) => {
  process.stderr.write(`tiered-compaction: ${error?.message ?? error}\n`);
  process.exit(error?.exitCode ?? 1);
});

async function main() {
  const options = parseArguments(process.argv.slice(2));
  if (options.help) {
    process.stdout.write(`${HELP}\n`);
    return;
  }
  const text = await readInput(options.file);
  const progress = makeProgress(text.length);
  const input = readFormat(text, options.format, options.file);
  progress(`read ${input.label}`);

  // One call on a whole session: micro stubs every step outside the tail at once, unless
  // --policy names a batch (the library's default waits for a batch worth a cache rewrite, which
  // is for a loop of calls).
  const policy = unbatched(options.policy);
  const compactOptions = { ...(options.tokenEstimator ? { tokenEstimator: options.tokenEstimator } : {}), ...(policy ? { policy } : {}) };
  // The tokens as the library counts them (tier none changes nothing), for the policy's pick.
  const baseline = await run("none", input, { sessionId: "cli", pressure: { turnCount: 0, contextPctUsed: 0, idleSeconds: 0, sessionComplete: false } }, compactOptions);
  const beforeTokens = baseline.result.beforeTokens;
  // Model calls so far: assistant messages (Gemini's "model" contents).
  const turnCount = input.messages ? input.messages.filter((message) => message?.role === "assistant" || message?.role === "model").length : 0;
  const pressure = { turnCount, contextPctUsed: Math.min(1, beforeTokens / options.contextWindow), idleSeconds: 0, sessionComplete: false };
  const picked = selectTier(pressure, policy);
  const facts = factsOf(input.kind === "body" ? input.messages : input.messages ?? [input.text], input.format);

  const tiers = options.tier ? [options.tier] : TIERS;
  const rows = [];
  for (const tier of tiers) {
    progress(`running ${tier}`);
    const started = performance.now();
    const { output, result } = await run(tier, input, { sessionId: "cli", pressure, costPer1kTokens: options.price }, compactOptions);
    const seconds = (performance.now() - started) / 1000;
    const after = factsOf(output, input.format);
    rows.push({ tier, result, output, seconds, kept: keptOf(facts, after) });
  }
  progress(null);

  if (options.out) {
    const [{ output, result }] = rows;
    const written = input.kind === "body" ? output : input.kind === "text" ? output : `${JSON.stringify(output, null, 2)}\n`;
    fs.writeFileSync(options.out, typeof written === "string" ? written : `${JSON.stringify(written, null, 2)}\n`);
    const archiveFile = options.archive ?? `${options.out}.archive.json`;
    fs.writeFileSync(archiveFile, `${JSON.stringify(result.archive, null, 2)}\n`);
    process.stderr.write(`wrote ${options.out} (${rows[0].tier}: ${result.beforeTokens} -> ${result.afterTokens} tokens) and ${archiveFile} (${result.archive.length} entries)\n`);
  }

  if (options.json) {
    const report = {
      file: options.file,
      input: input.label,
      format: rows[0]?.result.format,
      beforeTokens,
      pressure,
      policyPicks: picked,
      facts: { paths: facts.paths.size, errorLines: facts.errors.size, userMessages: facts.user.length, userChars: facts.user.reduce((sum, words) => sum + words.length, 0) },
      tiers: rows.map(({ tier, result, seconds, kept }) => ({
        tier,
        beforeTokens: result.beforeTokens,
        afterTokens: result.afterTokens,
        tokensSaved: result.tokensSaved,
        costEstimate: result.costEstimate,
        costWeight: TIER_COST_WEIGHT[tier],
        archived: countKinds(result.archive),
        kept,
        degraded: result.degraded === true,
        reason: result.reason,
        seconds: Number(seconds.toFixed(3)),
      })),
    };
    process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
    return;
  }
  process.stdout.write(report({ options, input, beforeTokens, pressure, picked, facts, rows }));
}

// ---------------------------------------------------------------------------------------------

function parseArguments(argv) {
  const options = { file: null, tier: null, out: null, archive: null, format: "auto", contextWindow: 200_000, price: 0.003, tokenEstimator: null, policy: null, json: false, help: false };
  const value = (name, index) => {
    if (index + 1 >= argv.length) throw usage(`${name} needs a value`);
    return argv[index + 1];
  };
  for (let index = 0; index < argv.length; index += 1) {
    const arg = argv[index];
    const [flag, inline] = arg.startsWith("--") && arg.includes("=") ? [arg.slice(0, arg.indexOf("=")), arg.slice(arg.indexOf("=") + 1)] : [arg, undefined];
    const take = () => (inline !== undefined ? inline : value(flag, index++));
    switch (flag) {
      case "-h":
      case "--help":
        options.help = true;
        break;
      case "--json":
        options.json = true;
        break;
      case "--tier":
        options.tier = take();
        if (!TIERS.includes(options.tier)) throw usage(`--tier must be one of ${TIERS.join(", ")}, got ${options.tier}`);
        break;
      case "--out":
        options.out = take();
        break;
      case "--archive":
        options.archive = take();
        break;
      case "--format":
        options.format = take();
        if (!FORMATS.includes(options.format)) throw usage(`--format must be one of ${FORMATS.join(", ")}, got ${options.format}`);
        break;
      case "--context-window":
        options.contextWindow = Number(take());
        if (!(options.contextWindow > 0)) throw usage("--context-window must be a number of tokens > 0");
        break;
      case "--price":
        options.price = Number(take());
        if (!(options.price >= 0)) throw usage("--price must be a number >= 0 (USD per 1,000 tokens)");
        break;
      case "--token-estimator":
        options.tokenEstimator = take();
        if (options.tokenEstimator !== "seed" && options.tokenEstimator !== "heuristic") throw usage("--token-estimator must be seed or heuristic");
        break;
      case "--policy":
        try {
          options.policy = JSON.parse(take());
        } catch (error) {
          throw usage(`--policy must be JSON: ${error.message}`);
        }
        break;
      default:
        if (arg.startsWith("-") && arg !== "-") throw usage(`unknown option ${arg}`);
        if (options.file !== null) throw usage(`one FILE only (got ${options.file} and ${arg})`);
        options.file = arg;
    }
  }
  if (options.help) return options;
  if (options.file === null) throw usage("no FILE given");
  if (options.out && !options.tier) throw usage("--out needs --tier (which tier's result to write)");
  if (options.archive && !options.out) throw usage("--archive needs --out");
  return options;
}

function usage(message) {
  const error = new Error(`${message}\n\n${HELP}`);
  error.exitCode = 2;
  return error;
}

/** The whole input, with progress on large files. */
async function readInput(file) {
  if (file === "-") {
    const chunks = [];
    for await (const chunk of process.stdin) chunks.push(chunk);
    return Buffer.concat(chunks).toString("utf8");
  }
  const size = fs.statSync(file).size;
  if (size < LARGE) return fs.readFileSync(file, "utf8");
  const chunks = [];
  let read = 0;
  let shown = -1;
  for await (const chunk of fs.createReadStream(file, { highWaterMark: 1 << 20 })) {
    chunks.push(chunk);
    read += chunk.length;
    const percent = Math.floor((read / size) * 10) * 10;
    if (percent !== shown) {
      shown = percent;
      process.stderr.write(`${status()}reading ${file}: ${percent} % of ${megabytes(size)}${process.stderr.isTTY ? "" : "\n"}`);
    }
  }
  return Buffer.concat(chunks).toString("utf8");
}


/** Progress lines on standard error for large inputs (`null` clears the line). */
function makeProgress(size) {
  const started = performance.now();
  return (message) => {
    if (size < LARGE) return;
    if (message === null) {
      if (process.stderr.isTTY) process.stderr.write(status());
      return;
    }
    process.stderr.write(`${status()}${message} (${((performance.now() - started) / 1000).toFixed(1)} s)${process.stderr.isTTY ? "" : "\n"}`);
  };
}

/** What FILE holds: messages (with their format), a request body, or text. */
function readFormat(text, format, file) {
  const claudeCode = () => {
    const { messages, notes } = fromClaudeCode(text);
    if (messages.length === 0) throw new Error(`${file}: no Claude Code messages found`);
    return { kind: "messages", format: "anthropic", messages, label: `Claude Code session: ${messages.length} messages (Anthropic format; ${notes.join("; ")})` };
  };
  if (format === "claude-code") return claudeCode();
  if (format === "text") return { kind: "text", format: "text", text, label: `text: ${text.length.toLocaleString("en-US")} chars` };
  if (format === "auto" && /\.jsonl$/i.test(file ?? "") && isClaudeCodeJsonl(text)) return claudeCode();
  let json;
  try {
    json = JSON.parse(text);
  } catch (error) {
    if (format === "auto" && isClaudeCodeJsonl(text)) return claudeCode();
    if (format === "auto") return { kind: "text", format: "text", text, label: `text: ${text.length.toLocaleString("en-US")} chars` };
    throw new Error(`${file}: not JSON (${error.message})`);
  }
  if (Array.isArray(json)) {
    if (format === "body") throw new Error(`${file}: a request body is a JSON object with "messages", "input" or "contents", got an array`);
    return { kind: "messages", format: format === "auto" ? "auto" : format, messages: json, label: `${json.length} messages` };
  }
  const key = json !== null && typeof json === "object" ? LIST_KEYS.find((name) => Array.isArray(json[name])) : undefined;
  if (key !== undefined) {
    const list = json[key];
    if (format === "body" || format === "auto") {
      return { kind: "body", format: "auto", body: text, messages: list, label: `request body${typeof json.model === "string" ? ` for ${json.model}` : ""}: ${list.length} messages in "${key}"` };
    }
    return { kind: "messages", format, messages: list, label: `${list.length} messages (from "${key}")` };
  }
  throw new Error(`${file}: expected a JSON array of messages, a request body with "messages", "input" or "contents", a Claude Code .jsonl or text`);
}

/** One tier's result, and the compacted messages (or text, or body) it gave. */
async function run(tier, input, context, compactOptions) {
  if (input.kind === "body") {
    const { body, result } = await compactWithTierOnBody(tier, input.body, context, compactOptions);
    return { output: body, result };
  }
  const ctx = input.kind === "text" ? { ...context, text: input.text } : { ...context, messages: input.messages, format: input.format };
  const result = await compactWithTier(tier, ctx, compactOptions);
  return { output: input.kind === "text" ? result.text : result.messages, result };
}

/**
 * compactRequestBody selects its tier from the pressure; to run one tier, the policy's thresholds
 * are set so that exactly that tier fires (session_memory: a complete session).
 */
async function compactWithTierOnBody(tier, body, { sessionId, pressure, costPer1kTokens }, compactOptions) {
  const forced = {
    none: { pressure: { turnCount: 0, contextPctUsed: 0, idleSeconds: 0, sessionComplete: false }, policy: {} },
    micro: { pressure: { ...pressure, turnCount: Math.max(2, pressure.turnCount), contextPctUsed: Math.min(0.5, Math.max(0.01, pressure.contextPctUsed)), idleSeconds: 0, sessionComplete: false }, policy: { autoContextPct: 1, microMinTurn: 0, microMinContextPct: 0 } },
    time_based: { pressure: { ...pressure, contextPctUsed: 0, idleSeconds: 3600, sessionComplete: false }, policy: { autoContextPct: 1, idleSeconds: 1 } },
    auto: { pressure: { ...pressure, contextPctUsed: 1, sessionComplete: false }, policy: { autoContextPct: 0 } },
    session_memory: { pressure: { ...pressure, sessionComplete: true }, policy: {} },
  }[tier];
  const policy = { ...compactOptions.policy, ...forced.policy };
  const { body: out, result } = await compactRequestBody(body, { ...compactOptions, sessionId, pressure: forced.pressure, costPer1kTokens, policy });
  if (result.tier !== tier) throw new Error(`internal: forcing ${tier} on a request body selected ${result.tier}`);
  return { body: out, result };
}

// ---------------------------------------------------------------------------------------------
// What is kept: paths, error lines, the user's words.


/** Paths, error lines and user texts in messages (or text, or a body) of the given format. */
function factsOf(value, format) {
  const strings = [];
  const user = [];
  const messages = typeof value === "string" ? tryMessages(value) : value;
  collectStrings(messages ?? value, strings);
  if (Array.isArray(messages)) for (const message of messages) userWords(message, user, format);
  const paths = new Set();
  const errors = new Set();
  for (const text of strings) {
    for (const match of text.matchAll(PATH)) paths.add(match[1]);
    if (ERROR_LINE.test(text)) {
      for (const line of text.split("\n")) {
        const trimmed = line.trim();
        if (trimmed.length > 0 && trimmed.length <= 300 && ERROR_LINE.test(trimmed)) errors.add(trimmed);
      }
    }
  }
  return { paths, errors, user, text: strings.join("\n") };
}

function tryMessages(text) {
  try {
    const json = JSON.parse(text);
    if (Array.isArray(json)) return json;
    const key = LIST_KEYS.find((name) => Array.isArray(json?.[name]));
    return key === undefined ? null : json[key];
  } catch {
    return null;
  }
}

function collectStrings(value, out) {
  if (typeof value === "string") out.push(value);
  else if (Array.isArray(value)) for (const item of value) collectStrings(item, out);
  else if (value !== null && typeof value === "object") for (const item of Object.values(value)) collectStrings(item, out);
}

/** The user's own words in a message (not tool results), in any of the formats: text parts
 * (`input_text` in the Responses API; Gemini's parts have no type, and a thought is not one). */
function userWords(message, out) {
  if (message?.role !== "user" && !(Array.isArray(message?.parts) && message.role === undefined)) return;
  if (typeof message.content === "string") {
    if (message.content.trim() !== "") out.push(message.content);
    return;
  }
  const parts = Array.isArray(message.content) ? message.content : Array.isArray(message.parts) ? message.parts : [];
  for (const part of parts) {
    const text = part?.type === "text" || part?.type === "input_text" || (part?.type === undefined && part?.thought !== true) ? part?.text : undefined;
    if (typeof text === "string" && text.trim() !== "") out.push(text);
  }
}

function keptOf(before, after) {
  const share = (items, has) => {
    const list = [...items];
    return { total: list.length, kept: list.filter(has).length };
  };
  return {
    paths: share(before.paths, (path) => after.paths.has(path)),
    errorLines: share(before.errors, (line) => after.errors.has(line) || after.text.includes(line)),
    userWords: share(before.user, (words) => after.text.includes(words)),
  };
}

function countKinds(archive) {
  const kinds = {};
  for (const entry of archive) kinds[entry.kind] = (kinds[entry.kind] ?? 0) + 1;
  return kinds;
}

// ---------------------------------------------------------------------------------------------
// The report.

function report({ options, input, beforeTokens, pressure, picked, facts, rows }) {
  const number = (value) => value.toLocaleString("en-US");
  const percent = ({ total, kept }) => (total === 0 ? "-" : `${Math.round((kept / total) * 100)} %`);
  const lines = [];
  lines.push(`${options.file}: ${input.label}`);
  lines.push(
    `${number(beforeTokens)} tokens (${options.tokenEstimator ?? (input.kind === "text" ? "seed" : "heuristic")} estimator); ${number(facts.paths.size)} paths, ${number(facts.errors.size)} error lines, ` +
      `${number(facts.user.length)} user messages (${number(facts.user.reduce((sum, words) => sum + words.length, 0))} chars)`,
  );
  lines.push(
    `the policy would pick ${picked} (turn ${pressure.turnCount}, ${(pressure.contextPctUsed * 100).toFixed(1)} % of a ${number(options.contextWindow)}-token window, idle 0 s)`,
  );
  lines.push("");
  const header = ["tier", "tokens after", "cut", "kept: paths", "errors", "user words", "cost (USD)", "time"];
  const table = rows.map(({ tier, result, seconds, kept }) => [
    tier,
    number(result.afterTokens),
    result.beforeTokens === 0 ? "0 %" : `${((result.tokensSaved / result.beforeTokens) * 100).toFixed(1)} %`,
    percent(kept.paths),
    percent(kept.errorLines),
    percent(kept.userWords),
    result.costEstimate.toFixed(6),
    `${seconds.toFixed(2)} s`,
  ]);
  const widths = header.map((title, column) => Math.max(title.length, ...table.map((row) => row[column].length)));
  const format = (row) => row.map((cell, column) => (column === 0 ? cell.padEnd(widths[column]) : cell.padStart(widths[column]))).join("  ");
  lines.push(format(header));
  for (const row of table) lines.push(format(row));
  lines.push("");
  lines.push(`cost: tokens saved / 1000 x ${options.price} USD x the tier's weight (${TIERS.map((tier) => `${tier} ${TIER_COST_WEIGHT[tier]}`).join(", ")})`);
  for (const { tier, result } of rows) {
    lines.push("");
    const kinds = Object.entries(countKinds(result.archive)).map(([kind, count]) => `${count} ${kind}`);
    lines.push(`${tier}: ${result.reason}${result.degraded ? " (degraded)" : ""}`);
    if (kinds.length === 0) {
      lines.push("  cuts nothing");
      continue;
    }
    lines.push(`  cuts ${kinds.join(", ")}; the largest:`);
    const sized = result.archive.map((entry) => ({ entry, size: JSON.stringify(entry.content)?.length ?? 0 })).sort((a, b) => b.size - a.size);
    for (const { entry, size } of sized.slice(0, 3)) {
      const replacement = entry.replacement.replace(/\s+/g, " ");
      lines.push(`  - ${entry.location} (${entry.kind}, ${number(size)} chars) -> ${replacement === "" ? "removed" : JSON.stringify(replacement.length > 140 ? `${replacement.slice(0, 140)}…` : replacement)}`);
    }
  }
  if (!options.out) {
    lines.push("");
    lines.push("Write one tier's result and its archive: --tier T --out FILE");
  }
  return `${lines.join("\n")}\n`;
}

/** `policy` with `cache.batchTokens` 0 unless it names one. */
function unbatched(policy) {
  const given = policy ?? {};
  // What is not an object goes to the library as it is, whose error names it.
  if (typeof given !== "object" || Array.isArray(given) || (given.cache !== undefined && (typeof given.cache !== "object" || given.cache === null))) return given;
  if (given.cache?.batchTokens !== undefined) return given;
  return { ...given, cache: { ...given.cache, batchTokens: 0 } };
}

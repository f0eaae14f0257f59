// The cache replay (SPEC §11, issue 19): a long recorded Claude Code session replayed call by
// call under three policies — no compaction, the seed's policy (`compact` without cache facts)
// and the cache-aware policy (`compact` with `cachedTokens` and `contextWindowTokens`) — with
// Anthropic's and OpenAI's published prices. It prints total input cost, cache-write cost, peak
// context and the number of compactions of each, and writes bench/CACHE_REPLAY.md.
//
//   node bench/cache-replay.mjs [--write]
//
// What it simulates, since the recorded usage no longer applies once the context was edited:
// - The session: the main thread of ../shared/realdata/9e953218-….jsonl (744 KB), read as the
//   agent-runs report reads Claude Code files (same-role neighbours merged, a trailing unanswered
//   tool_use dropped). Each assistant message is one model call; the messages before it that the
//   host had not sent yet (tool results, user words) are appended to the host's history first.
// - Pressure and idle time come from the session itself: `turnCount` is the call's number,
//   `contextPctUsed` the history's tokens over the window, `idleSeconds` the gap between the
//   recorded timestamps of this call and the previous one.
// - The cache: after each call the provider holds the whole prompt it was sent (automatic caching,
//   one breakpoint at the end). On the next call, if fewer than `ttlSeconds` passed, the longest
//   common prefix of the two prompts (whole messages) is read from the cache and the rest is
//   written (Anthropic) or billed as fresh input (OpenAI); after a longer gap nothing is cached.
//   The cache-aware policy is told what the provider would report: the cached prefix of the last
//   call (`cachedTokens`) and the window (`contextWindowTokens`).
// - Tokens: o200k (gpt-tokenizer) of each message's JSON, for every policy alike.
import * as fs from "node:fs";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { realdataDir } from "./realdata.mjs";
import { checkAnthropic } from "./sessions.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, "..");
const SESSION = "9e953218-585f-4692-89df-9e0747a31c68.jsonl";
const WINDOW = 200_000;
const TTL_SECONDS = 300;

/**
 * List prices in USD per 1M tokens, read on 2026-12-01 from stored copies of the providers'
 * pricing pages (this machine has no internet): Anthropic's "Model pricing" table
 * (platform.claude.com/docs/en/about-claude/pricing: Claude Sonnet 4.x $3 input, $3.75 5-minute
 * cache writes, $0.30 cache hits) and OpenAI's API pricing as summarised for June 2026 (GPT-5.4
 * $2.50 input, $0.25 cached input; OpenAI charges no cache write premium).
 */
export const PRICES = {
  anthropic: { model: "Claude Sonnet 4.x", input: 3.0, write: 3.75, read: 0.3 },
  openai: { model: "GPT-5.4", input: 2.5, write: 2.5, read: 0.25 },
};

/** The main thread of a Claude Code JSONL as Anthropic messages, each with its line's timestamp. */
export function anthropicWithTimes(text) {
  const entries = text
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line))
    .filter((e) => (e.type === "user" || e.type === "assistant") && e.message && e.isSidechain !== true);
  const messages = [];
  const times = [];
  for (const entry of entries) {
    const { role } = entry.message;
    const content = typeof entry.message.content === "string" ? [{ type: "text", text: entry.message.content }] : entry.message.content;
    const last = messages[messages.length - 1];
    if (last && last.role === role) last.content.push(...content);
    else {
      messages.push({ role, content: [...content] });
      times.push(Date.parse(entry.timestamp) / 1000);
    }
  }
  const last = messages[messages.length - 1];
  if (last?.role === "assistant" && last.content.some((b) => b.type === "tool_use")) {
    messages.pop();
    times.pop();
  }
  return { messages, times };
}

/** Replays `messages` under `policy` ("none" | "seed" | "cache-aware"), billing with `prices`. */
export async function replay(tc, { messages, times }, policy, prices, count) {
  const tokensOf = (message) => count(JSON.stringify(message));
  const sum = (list) => list.reduce((n, m) => n + tokensOf(m), 0);
  let history = [];
  let sent = null; // the prompt of the last call (message JSON texts)
  let lastTime = null;
  let lastCached = 0;
  const totals = { inputUsd: 0, writeUsd: 0, readUsd: 0, peak: 0, compactions: 0, deferred: 0, calls: 0, invalidated: 0 };
  let pending = 0;
  for (let i = 0; i < messages.length; i++) {
    if (messages[i].role !== "assistant") continue;
    history = history.concat(messages.slice(pending, i));
    pending = i + 1;
    const idle = lastTime === null ? 0 : Math.max(0, times[i] - lastTime);
    const before = sum(history);
    if (policy !== "none" && totals.calls > 0) {
      const pressure = {
        turnCount: totals.calls + 1,
        contextPctUsed: Math.min(1, before / WINDOW),
        idleSeconds: idle,
        sessionComplete: false,
        ...(policy === "cache-aware" ? { cachedTokens: lastCached, contextWindowTokens: WINDOW } : {}),
      };
      const result = await tc.compact(
        { sessionId: "replay", pressure, messages: history, costPer1kTokens: prices.input / 1000 },
        // The provider's own cache prices (OpenAI has no write premium), USD per 1k tokens.
        { countTokens: count, policy: { cache: { ttlSeconds: TTL_SECONDS, cacheReadPer1k: prices.read / 1000, cacheWritePer1k: prices.write / 1000 } } },
      );
      if (result.tokensSaved > 0) {
        totals.compactions++;
        history = result.messages;
        totals.invalidated += result.cache?.invalidatedTokens ?? 0;
      } else if (/cache warm: deferred/.test(result.reason)) totals.deferred++;
    }
    const prompt = history.map((m) => JSON.stringify(m));
    let cached = 0;
    if (sent && idle < TTL_SECONDS) {
      for (let k = 0; k < Math.min(sent.length, prompt.length) && sent[k] === prompt[k]; k++) cached += count(prompt[k]);
    }
    const total = sum(history);
    totals.readUsd += (cached / 1e6) * prices.read;
    totals.writeUsd += ((total - cached) / 1e6) * prices.write;
    totals.inputUsd += (cached / 1e6) * prices.read + ((total - cached) / 1e6) * prices.write;
    totals.peak = Math.max(totals.peak, total);
    totals.calls++;
    lastCached = cached;
    sent = prompt;
    lastTime = times[i];
    history = history.concat([messages[i]]);
  }
  return totals;
}

export async function cacheReplayReport({ write = false } = {}) {
  const dir = realdataDir(root);
  if (!dir || !fs.existsSync(path.join(dir, SESSION))) return { skipped: `${SESSION} not found in ../shared/realdata` };
  const tc = await import("tiered-compaction");
  const o200k = await import("gpt-tokenizer/encoding/o200k_base");
  const memo = new Map();
  const count = (text) => {
    let n = memo.get(text);
    if (n === undefined) {
      n = o200k.countTokens(text, { disallowedSpecial: new Set() });
      memo.set(text, n);
    }
    return n;
  };
  const session = anthropicWithTimes(fs.readFileSync(path.join(dir, SESSION), "utf8"));
  const problems = checkAnthropic(session.messages);
  const rows = [];
  for (const [provider, prices] of Object.entries(PRICES)) {
    for (const policy of ["none", "seed", "cache-aware"]) {
      rows.push({ provider, policy, ...(await replay(tc, session, policy, prices, count)) });
    }
  }
  const usd = (n) => `$${n.toFixed(4)}`;
  const lines = [
    "# Cache replay",
    "",
    `Generated by \`node bench/cache-replay.mjs --write\` (${new Date().toISOString().slice(0, 10)}). The Claude Code session ${SESSION} (main thread, ${session.messages.length} messages, ${session.messages.filter((m) => m.role === "assistant").length} model calls, two gaps of 5 minutes or more) replayed call by call; the cache is simulated (see the script's header). Window ${WINDOW} tokens, cache lifetime ${TTL_SECONDS} s, tokens by o200k.`,
    problems.length ? `\nConversion problems: ${problems.join("; ")}` : "",
    "",
    "Prices (USD per 1M tokens; read 2026-12-01 from stored copies of the providers' pricing pages, this machine has no internet):",
    ...Object.values(PRICES).map((p) => `- ${p.model}: input ${p.input}, cache write ${p.write}, cache read ${p.read}`),
    "",
    "| provider | policy | total input cost | of which cache writes (fresh input for OpenAI) | cache reads | peak context (tokens) | compactions | deferred by the cache model |",
    "|---|---|---:|---:|---:|---:|---:|---:|",
    ...rows.map((r) => `| ${r.provider} | ${r.policy} | ${usd(r.inputUsd)} | ${usd(r.writeUsd)} | ${usd(r.readUsd)} | ${r.peak} | ${r.compactions} | ${r.deferred} |`),
    "",
  ];
  for (const provider of Object.keys(PRICES)) {
    const of = (policy) => rows.find((r) => r.provider === provider && r.policy === policy);
    const aware = of("cache-aware");
    const vs = (other) => `${(((other.inputUsd - aware.inputUsd) / other.inputUsd) * 100).toFixed(1)} %`;
    lines.push(`- ${provider}: the cache-aware policy costs ${usd(aware.inputUsd)}, ${vs(of("none"))} less than no compaction and ${vs(of("seed"))} less than the seed's policy.`);
  }
  const markdown = lines.filter((line, i, all) => !(line === "" && all[i - 1] === "")).join("\n") + "\n";
  if (write) fs.writeFileSync(path.join(here, "CACHE_REPLAY.md"), markdown);
  return { rows, markdown };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  const report = await cacheReplayReport({ write: process.argv.includes("--write") });
  if (report.skipped) console.log(`skipped: ${report.skipped}`);
  else process.stdout.write(report.markdown);
}

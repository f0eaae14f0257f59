// "Run the loop": the page's messages replayed as an agent loop sends them, one model call at a
// time, through the library with the loop's state (a stateless host: docs/design.md §11), and billed call by call with a provider's prompt-cache prices beside the
// same loop sending everything. Plain module: the page passes the package's functions in, and
// tests/www/modules.test.mjs runs it in Node.

/** Anthropic's cache prices as multiples of the input price: a cache read, a cache write. */
export const CACHE_PRICES = Object.freeze({ read: 0.1, write: 1.25 });

/** An item the model wrote: an assistant (Gemini: `model`) message, or a Responses output item. */
const isOutput = (message) =>
  message.role === "assistant" || message.role === "model" || (message.type !== undefined && message.type !== "message" && message.type !== "function_call_output");

/** Where each model call's request ends: call k sends every message before the k-th run of items the model wrote. */
export function callEnds(messages) {
  const ends = [];
  messages.forEach((message, index) => {
    if (index > 0 && isOutput(message) && !isOutput(messages[index - 1])) ends.push(index);
  });
  return ends;
}

/** Messages of `b`, from the start, equal (as JSON text) to `a`'s. */
export function sharedPrefix(a, b) {
  let n = 0;
  while (n < a.length && n < b.length && JSON.stringify(a[n]) === JSON.stringify(b[n])) n += 1;
  return n;
}

/**
 * The bill of one request after `previous` (both lists of `{ message, tokens }`-counted messages):
 * the prefix of whole messages it shares with the previous request is read from the cache, the
 * rest written to it. In units of the input price per token.
 */
export function billRequest(previous, current, tokensOf) {
  const shared = previous ? sharedPrefix(previous, current) : 0;
  let read = 0;
  let written = 0;
  current.forEach((message, index) => {
    if (index < shared) read += tokensOf(message);
    else written += tokensOf(message);
  });
  return { shared, read, written, cost: read * CACHE_PRICES.read + written * CACHE_PRICES.write };
}

/**
 * Replays `messages` call by call. `compact(ctx, options)` is the package's; `tokensOf(message)`
 * counts one message. Each call passes the previous result's `state` (as a host stores it:
 * through JSON). Returns `{ rows, total }`: per call, the tier, the tokens sent, how many
 * messages of the previous request it repeats, whether it rewrote the cached prefix, and the
 * running bills (library and sending everything) in input-token units.
 */
export async function runLoop({ messages, format, sessionId, policy, windowTokens, compact, tokensOf }) {
  const ends = callEnds(messages);
  const rows = [];
  let state;
  let previousSent = null;
  let previousRaw = null;
  let bill = 0;
  let rawBill = 0;
  for (const [k, end] of ends.entries()) {
    const raw = messages.slice(0, end);
    const rawTokens = raw.reduce((n, message) => n + tokensOf(message), 0);
    const ctx = {
      sessionId,
      // The cache facts a provider reports: the previous request was cached whole (read + written).
      pressure: {
        turnCount: k + 1,
        contextPctUsed: Math.min(1, rawTokens / windowTokens),
        idleSeconds: 0,
        sessionComplete: false,
        ...(previousSent ? { cachedTokens: previousSent.reduce((n, message) => n + tokensOf(message), 0), contextWindowTokens: windowTokens } : {}),
      },
      messages: raw,
      ...(format && format !== "auto" ? { format } : {}),
      ...(state === undefined ? {} : { state }),
    };
    const result = await compact(ctx, { policy });
    state = JSON.parse(JSON.stringify(result.state ?? null)) ?? undefined;
    const sent = result.messages;
    const mine = billRequest(previousSent, sent, tokensOf);
    const theirs = billRequest(previousRaw, raw, tokensOf);
    bill += mine.cost;
    rawBill += theirs.cost;
    rows.push({
      call: k + 1,
      tier: result.tier,
      sentTokens: mine.read + mine.written,
      rawTokens,
      repeated: previousSent ? mine.shared : 0,
      rewrote: previousSent !== null && mine.shared < previousSent.length,
      bill,
      rawBill,
      reason: result.reason,
    });
    previousSent = sent;
    previousRaw = raw;
  }
  const total = { calls: rows.length, bill, rawBill, share: rawBill > 0 ? bill / rawBill : 1, rewrites: rows.filter((row) => row.rewrote).length };
  return { rows, total };
}

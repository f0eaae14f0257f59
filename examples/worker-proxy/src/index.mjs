// A Cloudflare Worker that compacts agent requests on their way to the model provider.
//
//   POST /v1/messages           Anthropic Messages        -> ANTHROPIC_UPSTREAM
//   POST /v1/chat/completions   OpenAI Chat Completions   -> OPENAI_UPSTREAM
//   POST /v1/responses          OpenAI Responses          -> OPENAI_UPSTREAM
//
// Every request of one session (the `x-session-id` header) goes to that session's Durable
// Object, which runs them one at a time: it reads the loop's state the previous request left,
// compacts the body with `compactRequestBody`, stores the new state, forwards the body with the
// client's headers, and hands the provider's response (streamed or not) back untouched. With the
// state, each request repeats the previous one's compacted messages byte for byte up to the first
// change a batch, time_based or auto brings, so the provider's prompt cache keeps its prefix. A
// request without a session header is forwarded as it came.
//
// The pressure is the proxy's own: turnCount = requests of the session so far, contextPctUsed =
// the library's estimate of the body / CONTEXT_WINDOW_TOKENS, idleSeconds = time since the
// session's previous request, and cachedTokens = what the provider reported as cached (read +
// written) on the previous response, read from a copy of it after it has been passed on.
import { compactRequestBody, estimateTokens, recordTierEvent } from "tiered-compaction";

// Only handlers may be exported from a worker module (workerd refuses other exports).
/** The header that names a session; requests without it are forwarded uncompacted. */
const SESSION_HEADER = "x-session-id";

const ROUTES = { "/v1/messages": "ANTHROPIC_UPSTREAM", "/v1/chat/completions": "OPENAI_UPSTREAM", "/v1/responses": "OPENAI_UPSTREAM" };
const DEFAULTS = { ANTHROPIC_UPSTREAM: "https://api.anthropic.com", OPENAI_UPSTREAM: "https://api.openai.com", CONTEXT_WINDOW_TOKENS: "200000" };

export default {
  /** Routes a request: to the session's Durable Object, or straight through. */
  async fetch(request, env) {
    const url = new URL(request.url);
    if (request.method !== "POST" || !(url.pathname in ROUTES)) return new Response("POST /v1/messages, /v1/chat/completions or /v1/responses\n", { status: 404 });
    const session = request.headers.get(SESSION_HEADER);
    if (!session) return fetch(upstreamRequest(request, env, await request.text()));
    return env.SESSIONS.get(env.SESSIONS.idFromName(session)).fetch(request);
  },
};

/** One session: its loop state in the object's storage, its requests one at a time. */
export class Session {
  constructor(ctx, env) {
    this.ctx = ctx;
    this.env = env;
  }

  async fetch(request) {
    const received = await request.text();
    const session = request.headers.get(SESSION_HEADER);
    const kept = (await this.ctx.storage.get("loop")) ?? { calls: 0, at: 0, state: undefined };
    // Under its own key: the previous response's copy may still be read while this request runs.
    const cached = await this.ctx.storage.get("cachedTokens");
    const now = Date.now();
    const window = Number(setting(this.env, "CONTEXT_WINDOW_TOKENS"));
    const pressure = {
      turnCount: kept.calls + 1,
      contextPctUsed: Math.min(1, estimateTokens(received, { tokenEstimator: "heuristic" }) / window),
      idleSeconds: kept.at === 0 ? 0 : Math.max(0, (now - kept.at) / 1000),
      sessionComplete: false,
      ...(cached === undefined ? {} : { cachedTokens: cached, contextWindowTokens: window }),
    };
    let body = received;
    let headers = {};
    try {
      const out = await compactRequestBody(received, { sessionId: session, pressure, state: kept.state });
      body = out.body;
      headers = {
        "x-compaction-tier": out.result.tier,
        "x-compaction-tokens": `${out.result.beforeTokens}->${out.result.afterTokens}`,
        "x-compaction-archived": String(out.result.archive.length),
      };
      kept.state = out.result.state;
      console.log(recordTierEvent(out.result, { sessionId: session }));
    } catch (error) {
      // A body the library refuses goes to the provider as it came; the provider answers it.
      console.log(JSON.stringify({ type: "compact_error", sessionId: session, code: error.code, message: error.message }));
    }
    kept.calls += 1;
    kept.at = now;
    await this.ctx.storage.put("loop", kept);
    const response = await fetch(upstreamRequest(request, this.env, body));
    // The client gets the provider's response as it streams; a copy is read for its usage.
    const [client, copy] = response.body ? response.body.tee() : [null, null];
    if (copy) this.ctx.waitUntil(this.readUsage(copy));
    const out = new Response(client, response);
    for (const [name, value] of Object.entries(headers)) out.headers.set(name, value);
    return out;
  }

  /** Keeps the cached input tokens the provider reported (JSON or server-sent events). */
  async readUsage(stream) {
    const text = await new Response(stream).text();
    const cached = cachedTokens(text);
    if (cached !== undefined) await this.ctx.storage.put("cachedTokens", cached);
  }
}

/** Cached input tokens in a provider's response text: the last figures reported. */
function cachedTokens(text) {
  const last = (name) => {
    const all = [...text.matchAll(new RegExp(`"${name}"\\s*:\\s*(\\d+)`, "g"))];
    return all.length === 0 ? undefined : Number(all[all.length - 1][1]);
  };
  const figures = ["cache_read_input_tokens", "cache_creation_input_tokens", "cached_tokens"].map(last).filter((n) => n !== undefined);
  return figures.length === 0 ? undefined : figures.reduce((a, b) => a + b, 0);
}

/** The request to the provider: the client's method and headers, `body`, the upstream's origin. */
function upstreamRequest(request, env, body) {
  const url = new URL(request.url);
  const upstream = new URL(url.pathname + url.search, setting(env, ROUTES[url.pathname]));
  const headers = new Headers(request.headers);
  headers.delete("content-length");
  headers.delete(SESSION_HEADER);
  return new Request(upstream, { method: "POST", headers, body });
}

function setting(env, name) {
  return env[name] ?? DEFAULTS[name];
}

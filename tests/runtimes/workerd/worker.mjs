// A Cloudflare Worker as an edge proxy would write it: POST a provider request body (Anthropic
// Messages or OpenAI Chat Completions), get the compacted body back. The session's pressure
// comes in the `x-pressure` header. The package needs no init in workerd: its "workerd" entry
// point imports the .wasm as a compiled module.
import { compactRequestBody, restore } from "tiered-compaction";

export default {
  async fetch(request) {
    if (request.method !== "POST") {
      return new Response("POST a provider request body\n", { status: 405 });
    }
    const pressure = JSON.parse(request.headers.get("x-pressure") ?? "null");
    try {
      const received = await request.text();
      const { body, result } = await compactRequestBody(received, {
        sessionId: request.headers.get("x-session-id") ?? "edge",
        pressure,
      });
      // A proxy would store result.archive (KV, R2) to answer recall_archived calls later; here it
      // only says whether the archive gives the request back (restore: the same JSON).
      const restores = JSON.stringify(JSON.parse(restore({ body, archive: result.archive }))) === JSON.stringify(JSON.parse(received));
      return new Response(body, {
        headers: {
          "content-type": "application/json",
          "x-compaction-tier": result.tier,
          "x-compaction-tokens": `${result.beforeTokens}->${result.afterTokens}`,
          "x-compaction-archive": String(result.archive.length),
          "x-compaction-restores": String(restores),
        },
      });
    } catch (error) {
      return new Response(`${error.name}: ${error.message}\n`, { status: error instanceof TypeError || error instanceof RangeError || error instanceof SyntaxError ? 400 : 500 });
    }
  },
};

// What the library bills for media (issue 29, point 6): the providers' published examples, each
// an image of that size (a PNG header) in a user message of the format, and the screenshot pasted
// into the Claude Code session of ../shared/realdata. Used by counting.mjs.
import * as fs from "node:fs";
import * as path from "node:path";

const TEXT = "What is in this image?";
const QUIET = { turnCount: 1, contextPctUsed: 0, idleSeconds: 0, sessionComplete: false };

/** A PNG signature and IHDR chunk of `width` × `height`, then a few bytes. */
export function pngHeader(width, height) {
  const bytes = new Uint8Array(64);
  bytes.set([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]);
  new DataView(bytes.buffer).setUint32(16, width);
  new DataView(bytes.buffer).setUint32(20, height);
  bytes.set([8, 6, 0, 0, 0], 24);
  return Buffer.from(bytes).toString("base64");
}

/** A user message of `format` holding `TEXT` and, when `data` (base64 PNG) is given, the image. */
function message(format, data, detail) {
  const text = format === "gemini" ? { text: TEXT } : format === "responses" ? { type: "input_text", text: TEXT } : { type: "text", text: TEXT };
  if (data === undefined) return format === "gemini" ? [{ role: "user", parts: [text] }] : [{ role: "user", content: [text] }];
  const image = {
    anthropic: { type: "image", source: { type: "base64", media_type: "image/png", data } },
    openai: { type: "image_url", image_url: { url: `data:image/png;base64,${data}`, ...(detail ? { detail } : {}) } },
    responses: { type: "input_image", image_url: `data:image/png;base64,${data}`, ...(detail ? { detail } : {}) },
    gemini: { inlineData: { mimeType: "image/png", data } },
  }[format];
  return format === "gemini" ? [{ role: "user", parts: [text, image] }] : [{ role: "user", content: [text, image] }];
}

/** Tokens the image (base64 `data`) adds to its message under `options`. */
export async function imageTokens(tc, format, data, detail, options) {
  const before = async (messages) => (await tc.compactWithTier("none", { sessionId: "count", pressure: QUIET, messages, format }, options)).beforeTokens;
  return (await before(message(format, data, detail))) - (await before(message(format)));
}

/** The providers' published examples: `{ provider, what, published, count(tc) }`. */
export function mediaExamples() {
  const example = (provider, format, width, height, detail, published, source) => ({
    provider,
    what: `${width} × ${height}${detail ? `, detail ${detail}` : ""} (${source})`,
    published,
    count: (tc) => imageTokens(tc, format, pngHeader(width, height), detail),
  });
  return [
    example("Anthropic", "anthropic", 200, 200, undefined, 54, "vision guide, ~54"),
    example("Anthropic", "anthropic", 1000, 1000, undefined, 1334, "vision guide, ~1334"),
    example("Anthropic", "anthropic", 1092, 1092, undefined, 1590, "vision guide, ~1590"),
    example("OpenAI", "openai", 1024, 1024, "high", 765, "vision guide"),
    example("OpenAI", "openai", 2048, 4096, "high", 1105, "vision guide"),
    example("OpenAI", "openai", 4096, 8192, "low", 85, "vision guide"),
    example("OpenAI (Responses)", "responses", 1024, 1024, "high", 765, "vision guide"),
    example("Gemini", "gemini", 384, 384, undefined, 258, "token guide: both sides ≤ 384"),
    example("Gemini", "gemini", 600, 400, undefined, 258, "Gemini by Example: one 768 tile"),
  ];
}

/**
 * The screenshot of the Claude Code session (`9e953218-….jsonl`, line 225) when ../shared/realdata
 * is beside the repository: `{ data, bytes, width, height }`, else null.
 */
export function screenshot(root) {
  const file = path.join(root, "..", "shared", "realdata", "9e953218-585f-4692-89df-9e0747a31c68.jsonl");
  if (!fs.existsSync(file)) return null;
  for (const line of fs.readFileSync(file, "utf8").split("\n")) {
    if (!line.includes('"type":"image"')) continue;
    const content = JSON.parse(line).message?.content;
    const image = Array.isArray(content) && content.find((block) => block?.type === "image" && block.source?.type === "base64");
    if (!image) continue;
    const bytes = Buffer.from(image.source.data, "base64");
    return { data: image.source.data, bytes: bytes.length, width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
  }
  return null;
}

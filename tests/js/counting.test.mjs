// Counting as the provider bills (issue 29, points 6 and 7; SPEC §5 "Counting"): structured
// contexts count by the heuristic estimator and flat text by the seed's rule; media count as the
// format's provider bills them (the providers' published examples); the estimator's error on
// generated agent texts against their exact o200k counts (a fixture bench/calibrate.mjs writes).
import assert from "node:assert/strict";
import * as fs from "node:fs";
import { describe, it } from "node:test";
import { agentPieces } from "../../bench/generate.mjs";
import { compactWithTier, estimateTokens } from "tiered-compaction";
import { pressure } from "./helpers.mjs";

const quiet = pressure(1, 0);

/** The seed's time_based example (SPEC §5): 85 -> 14 tokens. */
const SEED_TIME_BASED_TEXT = "[age:12] very old block\n" + "stale content ".repeat(20) + "\n\n[age:1] fresh block\nkept content here";

/** beforeTokens of `messages` under tier none. */
async function before(messages, format, options) {
  const result = await compactWithTier("none", { sessionId: "count", pressure: quiet, messages, format }, options);
  return result.beforeTokens;
}

describe("tokenEstimator defaults (regression: issue 29, point 7)", () => {
  it("flat text keeps the seed's rule: the seed's 85 -> 14", async () => {
    const result = await compactWithTier("time_based", { sessionId: "count", pressure: pressure(1, 0.1, 400), text: SEED_TIME_BASED_TEXT });
    assert.equal(result.beforeTokens, 85);
    assert.equal(result.afterTokens, 14);
    assert.equal(estimateTokens(SEED_TIME_BASED_TEXT), 85);
  });

  it("structured messages count by the heuristic unless the host names the seed's rule", async () => {
    const text = "Refactor the parser so that `parse_config` accepts trailing commas; run cargo test after.";
    const messages = [{ role: "user", content: text }];
    const heuristic = estimateTokens(text, { tokenEstimator: "heuristic" });
    const seed = estimateTokens(text);
    assert.notEqual(heuristic, seed);
    assert.equal(await before(messages, "openai"), heuristic);
    assert.equal(await before(messages, "openai", { tokenEstimator: "heuristic" }), heuristic);
    assert.equal(await before(messages, "openai", { tokenEstimator: "seed" }), seed);
  });
});

/** A PNG signature and IHDR chunk of `width` × `height`, then bytes that look compressed. */
function png(width, height, extra = 20_000) {
  const bytes = new Uint8Array(33 + extra);
  bytes.set([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]);
  new DataView(bytes.buffer).setUint32(16, width);
  new DataView(bytes.buffer).setUint32(20, height);
  bytes.set([8, 6, 0, 0, 0], 24);
  let state = 0x9e3779b9;
  for (let i = 33; i < bytes.length; i++) {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    bytes[i] = state & 0xff;
  }
  return bytes;
}

/** A JPEG whose size comes after a 30 KB EXIF segment. */
function jpeg(width, height) {
  const exif = new Uint8Array(30_000);
  exif.set([0xff, 0xe1, (30_000 - 2) >> 8, (30_000 - 2) & 0xff]);
  const frame = [0xff, 0xc0, 0, 17, 8, height >> 8, height & 0xff, width >> 8, width & 0xff, 3];
  return new Uint8Array([0xff, 0xd8, ...exif, ...frame, ...new Uint8Array(64)]);
}

const base64 = (bytes) => Buffer.from(bytes).toString("base64");
const TEXT = "What is in this image?";

/** A user message with `TEXT` and an image of `bytes` in `format` (OpenAI: at `detail`). */
function withImage(format, bytes, detail) {
  const data = base64(bytes);
  switch (format) {
    case "anthropic":
      return [{ role: "user", content: [{ type: "text", text: TEXT }, { type: "image", source: { type: "base64", media_type: "image/png", data } }] }];
    case "openai":
      return [{ role: "user", content: [{ type: "text", text: TEXT }, { type: "image_url", image_url: { url: `data:image/png;base64,${data}`, ...(detail ? { detail } : {}) } }] }];
    case "responses":
      return [{ role: "user", content: [{ type: "input_text", text: TEXT }, { type: "input_image", image_url: `data:image/png;base64,${data}`, ...(detail ? { detail } : {}) }] }];
    case "gemini":
      return [{ role: "user", parts: [{ text: TEXT }, { inlineData: { mimeType: "image/png", data } }] }];
    case "ai-sdk":
      return [{ role: "user", content: [{ type: "text", text: TEXT }, { type: "image", image: bytes, mediaType: "image/png" }] }];
    default:
      throw new Error(format);
  }
}

/** The tokens the image adds to its message. */
async function imageTokens(format, bytes, detail) {
  const text = format === "gemini" ? [{ role: "user", parts: [{ text: TEXT }] }] : [{ role: "user", content: TEXT }];
  return (await before(withImage(format, bytes, detail), format)) - (await before(text, format));
}

describe("media count as the provider bills them (regression: issue 29, point 6)", () => {
  // Anthropic's vision guide: "~54", "~1334", "~1590" tokens.
  for (const [width, height, tokens] of [
    [200, 200, 54],
    [1000, 1000, 1334],
    [1092, 1092, 1590],
  ]) {
    it(`Anthropic: ${width} × ${height} is ${tokens}`, async () => {
      assert.equal(await imageTokens("anthropic", png(width, height)), tokens);
    });
  }
  it("Anthropic: a large screenshot is scaled down, at most about 1,600, never its base64 text", async () => {
    const image = png(3000, 2000, 200_000);
    const tokens = await imageTokens("anthropic", image);
    assert.ok(tokens <= 1600, `${tokens}`);
    const asText = (await before(withImage("anthropic", image), "anthropic", { tokenEstimator: "seed" })) - 5;
    assert.ok(asText > 60_000, `${asText}`);
  });
  // OpenAI's vision guide: 1024 × 1024 at high detail 765, 2048 × 4096 1105, any size at low 85.
  for (const format of ["openai", "responses"]) {
    it(`OpenAI (${format}): 765, 1105, and 85 at detail low`, async () => {
      assert.equal(await imageTokens(format, png(1024, 1024), "high"), 765);
      assert.equal(await imageTokens(format, png(2048, 4096)), 1105);
      assert.equal(await imageTokens(format, png(4096, 8192), "low"), 85);
    });
  }
  // Gemini: 258 when both sides are at most 384 (600 × 400 too: one tile), 258 per 768 tile.
  it("Gemini: 258 per image or 768-pixel tile", async () => {
    assert.equal(await imageTokens("gemini", png(384, 384)), 258);
    assert.equal(await imageTokens("gemini", png(600, 400)), 258);
    assert.equal(await imageTokens("gemini", png(1024, 1024)), 1032);
  });
  it("AI SDK binary values: the header the binding sends gives the size (PNG, JPEG after EXIF)", async () => {
    assert.equal(await imageTokens("ai-sdk", png(1000, 1000)), 1334);
    assert.equal(await imageTokens("ai-sdk", jpeg(1000, 1000)), 1334);
  });
  it("a URL image counts as the default 1092 × 1092", async () => {
    const messages = [{ role: "user", content: [{ type: "text", text: TEXT }, { type: "image", source: { type: "url", url: "https://example.com/cat.png" } }] }];
    assert.equal((await before(messages, "anthropic")) - (await before([{ role: "user", content: TEXT }], "anthropic")), 1590);
  });
  it("auto strips media for what they are billed, not for their base64 text", async () => {
    const messages = [
      { role: "user", content: "Fix the layout of the settings page." },
      { role: "assistant", content: "Which part looks wrong?" },
      { role: "user", content: [{ type: "text", text: "Here is the screen." }, { type: "image", source: { type: "base64", media_type: "image/png", data: base64(png(1002, 606, 148_000)) } }] },
      { role: "assistant", content: "I see it." },
      { role: "user", content: "Go on." },
    ];
    const result = await compactWithTier("auto", { sessionId: "count", pressure: pressure(3, 0.9), messages, format: "anthropic" }, { policy: { keepRecentSteps: 1 } });
    assert.match(result.reason, /stripped 1 inline media block/);
    assert.ok(result.tokensSaved < 810, `${result.tokensSaved}`);
    assert.ok(result.tokensSaved > 700, `${result.tokensSaved}`);
  });
});

describe("the heuristic's error on generated agent texts (regression: issue 29, point 7)", () => {
  const { counts } = JSON.parse(fs.readFileSync(new URL("./fixtures/o200k-agent-pieces.json", import.meta.url), "utf8"));
  const pieces = agentPieces();
  const quantile = (values, q) => [...values].sort((a, b) => a - b)[Math.floor(q * values.length)];
  const errors = (count) => pieces.map((text, i) => Math.abs(count(text) - counts[i]) / counts[i]);

  it("the fixture matches the generator", () => {
    assert.equal(counts.length, pieces.length);
  });
  it("median under 4 %, 90th percentile under 15 %; the seed's rule is off by more than 10 %", () => {
    const heuristic = errors((text) => estimateTokens(text, { tokenEstimator: "heuristic" }));
    assert.ok(quantile(heuristic, 0.5) < 0.04, `median ${quantile(heuristic, 0.5)}`);
    assert.ok(quantile(heuristic, 0.9) < 0.15, `p90 ${quantile(heuristic, 0.9)}`);
    const seed = errors((text) => estimateTokens(text));
    assert.ok(quantile(seed, 0.5) > 0.1, `seed median ${quantile(seed, 0.5)}`);
  });
});

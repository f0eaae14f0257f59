// Every value a host can send as media (issue 16, SPEC §4 invariant 2): the AI SDK's
// `DataContent` in every form — base64 string, Uint8Array, Node Buffer, ArrayBuffer — and URL
// objects, in image and file parts (bare and tagged `FileData`) and in a tool result's content,
// through every tier. Each binary value is measured by its byte length (tokens as its base64
// text), never read as JSON; its placeholder states its real size and the SHA-256 of its bytes,
// the same in every format; the archive holds the caller's own object, and `restore` gives it
// back. `binary-shared.mjs` holds the checks, which the browser test runs too.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { describe, it } from "node:test";
import * as api from "./unbatched.mjs";
import { sha256HexJs } from "../../pkg/host-values.mjs";
import { TIERS, checkTier, forms, imageBytes, session } from "./binary-shared.mjs";

const sha256 = (bytes) => createHash("sha256").update(bytes).digest("hex");

describe("binary values in every tier", () => {
  for (const [name, form] of Object.entries(forms())) {
    for (const tier of TIERS) {
      it(`${name}, ${tier}`, async () => {
        const failures = await checkTier(api, tier, form, sha256);
        assert.deepEqual(failures, []);
      });
    }
  }
});

describe("measured by byte length, named by the bytes' hash", () => {
  const pressure = { turnCount: 9, contextPctUsed: 0.9, idleSeconds: 0, sessionComplete: false };

  it("a 1 MB image counts the same in every form: as billed, or as its base64 text under the seed's rule", async () => {
    const bytes = imageBytes(1024 * 1024);
    // A PNG header of 1000 × 1000 before the random bytes.
    bytes.set([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52, 0, 0, 3, 0xe8, 0, 0, 3, 0xe8]);
    for (const [options, expected] of [
      // AI SDK messages are billed by Anthropic's rule: ⌈1000 × 1000 / 750⌉.
      [undefined, 1334],
      // 1,048,576 bytes -> 1,398,104 base64 characters -> 349,526 tokens under the seed's rule.
      [{ tokenEstimator: "seed" }, 349526],
    ]) {
      const counts = new Set();
      for (const data of [bytes, Buffer.from(bytes), bytes.buffer, Buffer.from(bytes).toString("base64")]) {
        const messages = [{ role: "user", content: [{ type: "image", image: data, mediaType: "image/png" }] }];
        const result = await api.compactWithTier("none", { sessionId: "b", pressure, messages }, options);
        counts.add(result.beforeTokens);
      }
      assert.deepEqual([...counts], [expected]);
    }
  });

  it("a 4 MB image is accepted in every tier (it was refused by maxInputBytes)", async () => {
    const bytes = imageBytes(4 * 1024 * 1024);
    for (const tier of TIERS) {
      const messages = session([{ type: "image", image: bytes, mediaType: "image/png" }]);
      const result = await api.compactWithTier(tier, { sessionId: "b", pressure, messages });
      assert.ok(result.beforeTokens < 1_500_000, `${tier}: ${result.beforeTokens}`);
      assert.deepEqual(api.restore(result), messages);
    }
  });

  it("the same bytes get the same placeholder in OpenAI, Anthropic and AI SDK, as base64 or bytes", async () => {
    const bytes = imageBytes(5000);
    const base64 = Buffer.from(bytes).toString("base64");
    const expected = `[media removed: image/png, 5000 bytes, sha256:${sha256(bytes).slice(0, 32)}]`;
    const tail = [
      { role: "assistant", content: "one" },
      { role: "user", content: "next" },
      { role: "assistant", content: "two" },
      { role: "user", content: "next" },
      { role: "assistant", content: "three" },
      { role: "user", content: "thanks" },
    ];
    const contexts = {
      openai: [{ type: "image_url", image_url: { url: `data:image/png;base64,${base64}` } }],
      anthropic: [{ type: "image", source: { type: "base64", media_type: "image/png", data: base64 } }],
      "ai-sdk base64": [{ type: "image", image: base64, mediaType: "image/png" }],
      "ai-sdk Uint8Array": [{ type: "image", image: bytes, mediaType: "image/png" }],
      "ai-sdk Buffer": [{ type: "file", data: Buffer.from(bytes), mediaType: "image/png" }],
      "ai-sdk ArrayBuffer": [{ type: "file", data: bytes.buffer, mediaType: "image/png" }],
      "ai-sdk tagged": [{ type: "file", data: { type: "data", data: bytes }, mediaType: "image/png" }],
    };
    for (const [name, content] of Object.entries(contexts)) {
      const format = name.startsWith("ai-sdk") ? "ai-sdk" : name;
      const messages = [{ role: "user", content: "the task" }, { role: "assistant", content: "ok" }, { role: "user", content }, ...tail];
      const result = await api.compactWithTier("auto", { sessionId: "b", pressure, messages, format });
      const media = result.archive.filter((entry) => entry.kind === "media").map((entry) => entry.replacement);
      assert.deepEqual(media, [expected], name);
    }
  });

  it("the summariser's request holds the caller's own objects, never a placeholder", async () => {
    const bytes = imageBytes(2000);
    const url = new URL("https://example.test/c.png");
    const messages = [
      { role: "user", content: [{ type: "text", text: "the task \ud800" }, { type: "image", image: bytes }, { type: "file", data: url, mediaType: "image/png" }] },
      { role: "assistant", content: "ok" },
    ];
    let request = null;
    const summarise = async (seen) => {
      request = seen;
      return "short";
    };
    await api.compactWithTier("session_memory", { sessionId: "b", pressure: { ...pressure, sessionComplete: true }, messages }, { summarise });
    assert.equal(request.messages[0].content[1].image, bytes);
    assert.equal(request.messages[0].content[2].data, url);
    assert.equal(request.messages[0].content[0].text, "the task \ud800");
    assert.ok(!request.transcript.includes("\u0000"), request.transcript);
    assert.deepEqual(request.mustKeep, ["the task \ud800"]);
  });

  it("the JS SHA-256 (browsers, workerd) agrees with node:crypto", () => {
    for (const length of [0, 1, 55, 56, 63, 64, 65, 119, 120, 1000, 100_003]) {
      const bytes = imageBytes(length);
      assert.equal(sha256HexJs(bytes), sha256(bytes), `${length} bytes`);
    }
  });
});

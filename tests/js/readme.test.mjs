// The README's runnable snippets (fenced as exactly ```js) run against pkg/, so the quick start
// cannot rot. Fences marked ```js norun need a network, a browser or a worker and are skipped.
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const readme = fs.readFileSync(path.join(root, "README.md"), "utf8");
const snippets = [...readme.matchAll(/^```js\n([\s\S]*?)^```$/gm)].map((match) => match[1]);
// Inside the repository, so that "tiered-compaction" resolves through node_modules to pkg/.
const dir = path.join(root, "target", "readme-snippets");

describe("README snippets", () => {
  it("has runnable snippets", () => assert.ok(snippets.length >= 1));
  snippets.forEach((code, index) => {
    it(`snippet ${index + 1} runs`, async () => {
      fs.mkdirSync(dir, { recursive: true });
      const file = path.join(dir, `snippet-${index + 1}.mjs`);
      fs.writeFileSync(file, code);
      const log = console.log;
      const lines = [];
      console.log = (...args) => lines.push(args.join(" "));
      try {
        await import(`${pathToFileURL(file).href}?${Date.now()}`);
      } finally {
        console.log = log;
      }
      assert.ok(lines.length > 0, "the snippet prints its result");
    });
  });
});

// The README's code blocks are checked against what they claim, so that the first thing a newcomer
// runs cannot rot into an example that shows nothing:
//   - every fenced block whose info string has no `norun` word must be a ```js block; it runs in
//     its own `node` process against pkg/ (the package as installed, resolved by name), and the
//     ```text block right after it (blank lines allowed between) is its output, which must match
//     what the block printed, line for line (trailing spaces aside);
//   - a block marked `norun` (```js norun, ```sh norun, ...) is shown, not run: it needs a network,
//     a browser, a worker, or is a shell command or a declaration. A ```text block after it is an
//     illustration and is not checked.
// When the library's output changes on purpose, update the shown output: the failure message
// prints what the block printed, or `UPDATE_README=1 node --test tests/js/readme.test.mjs`
// rewrites each runnable block's ```text block in README.md with what it printed (review the diff).
// `README_PATH=FILE` checks another file (the test of this test, below, uses it).
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, describe, it } from "node:test";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const readmePath = process.env.README_PATH ? path.resolve(process.env.README_PATH) : path.join(root, "README.md");
const update = process.env.UPDATE_README === "1";
// Inside the repository, so that "tiered-compaction" resolves through node_modules to pkg/; one
// directory per process (the check of this test runs it in a second one).
const dir = path.join(root, "target", "readme-snippets", String(process.pid));

/**
 * Every fenced block of a Markdown text: its info string, its body (indentation of the fence
 * removed), and where it starts and ends (0-based line numbers of the fences).
 */
function fencedBlocks(text) {
  const lines = text.split("\n");
  const blocks = [];
  for (let i = 0; i < lines.length; i++) {
    const open = lines[i].match(/^( *)```(.*)$/);
    if (!open) continue;
    const [, indent, info] = open;
    const body = [];
    let j = i + 1;
    while (j < lines.length && !/^ *```\s*$/.test(lines[j])) {
      body.push(lines[j].startsWith(indent) ? lines[j].slice(indent.length) : lines[j]);
      j++;
    }
    if (j === lines.length) throw new Error(`${path.basename(readmePath)}:${i + 1}: a code fence that is never closed`);
    const words = info.trim().split(/\s+/).filter(Boolean);
    blocks.push({ lang: words[0] ?? "", norun: words.includes("norun"), code: body.join("\n"), open: i, close: j, indent });
    i = j;
  }
  // A ```text block is the output of the block right before it when only blank lines separate them.
  for (let k = 1; k < blocks.length; k++) {
    const gap = lines.slice(blocks[k - 1].close + 1, blocks[k].open);
    if (blocks[k].lang === "text" && gap.every((line) => line.trim() === "")) {
      blocks[k - 1].shown = blocks[k];
      blocks[k].isOutput = true;
    }
  }
  return blocks;
}

/** Lines without trailing spaces, and no trailing blank lines: what "the same output" means here. */
const normalise = (text) => text.replace(/[ \t]+$/gm, "").replace(/\n+$/, "");

/** The shown and the printed output side by side, with the first line where they part. */
function difference(shown, printed) {
  const a = shown.split("\n");
  const b = printed.split("\n");
  let first = 0;
  while (first < a.length && first < b.length && a[first] === b[first]) first++;
  const block = (text) => text.split("\n").map((line) => `    | ${line}`).join("\n");
  return [
    `first difference at output line ${first + 1}:`,
    `    shown:   ${JSON.stringify(a[first] ?? "(no more lines)")}`,
    `    printed: ${JSON.stringify(b[first] ?? "(no more lines)")}`,
    "  shown in the README:",
    block(shown),
    "  printed by the block:",
    block(printed),
  ].join("\n");
}

const readme = fs.readFileSync(readmePath, "utf8");
const name = path.basename(readmePath);
const blocks = fencedBlocks(readme);
const runnable = blocks.filter((block) => !block.norun && !block.isOutput);
const printedByBlock = new Map();

describe(`${name} code blocks`, () => {
  it("has runnable blocks", () => assert.ok(runnable.length >= 1, `no block of ${name} runs: mark the Quick start as a plain \`\`\`js block`));

  runnable.forEach((block, index) => {
    const where = `${name}:${block.open + 1}`;
    it(`block ${index + 1} (${where}) prints what the README shows`, () => {
      assert.equal(
        block.lang,
        "js",
        `${where}: a \`\`\`${block.lang} block is neither run nor marked: mark it \`\`\`${block.lang} norun (shown, not run) or make it a \`\`\`js block followed by its output`,
      );
      fs.mkdirSync(dir, { recursive: true });
      const file = path.join(dir, `block-${index + 1}.mjs`);
      fs.writeFileSync(file, `${block.code}\n`);
      // Its own process: what a newcomer who pastes the block into a file and runs it sees.
      const run = spawnSync(process.execPath, [file], { cwd: root, encoding: "utf8", timeout: 60_000 });
      assert.equal(run.status, 0, `${where}: the block exited with ${run.status ?? run.signal}\n${run.stderr}`);
      const printed = normalise(run.stdout);
      assert.notEqual(printed, "", `${where}: the block prints nothing; a Quick start should show its result`);
      if (update) {
        printedByBlock.set(block, printed);
        return;
      }
      assert.ok(
        block.shown,
        `${where}: no \`\`\`text block follows the block to show its output; add one with what it prints:\n${printed}`,
      );
      const shown = normalise(block.shown.code);
      if (shown !== printed) {
        assert.fail(
          `${where}: the output shown at ${name}:${block.shown.open + 1} is not what the block prints.\n` +
            `Fix the example, or update the shown output (UPDATE_README=1 node --test tests/js/readme.test.mjs rewrites it).\n` +
            difference(shown, printed),
        );
      }
    });
  });

  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  // The check of the check: the same test, on a copy of the README whose first runnable block
  // shows an output it does not print, must fail and say where and what differs.
  if (!process.env.README_PATH && !update) {
    it("fails on a README whose shown output is wrong", () => {
      const first = runnable.find((block) => block.shown);
      assert.ok(first, "no runnable block with a shown output to spoil");
      const lines = readme.split("\n");
      const wrong = "this line is not what the block prints";
      lines.splice(first.shown.open + 1, 1, first.shown.indent + wrong);
      const copy = path.join(root, "target", "readme-snippets", `wrong-${process.pid}`, "README.md");
      fs.mkdirSync(path.dirname(copy), { recursive: true });
      fs.writeFileSync(copy, lines.join("\n"));
      try {
        // Without NODE_TEST_CONTEXT, which `node --test` sets for its own children (they then
        // report in its binary protocol): the child reports as a test file run by hand does.
        const { NODE_TEST_CONTEXT, ...env } = process.env;
        const run = spawnSync(process.execPath, ["--test-reporter=tap", fileURLToPath(import.meta.url)], {
          cwd: root,
          encoding: "utf8",
          env: { ...env, README_PATH: copy },
          timeout: 120_000,
        });
        assert.equal(run.status, 1, `the test passed a README with a wrong shown output:\n${run.stdout}`);
        assert.match(run.stdout, /README\.md:\d+: the output shown at README\.md:\d+ is not what the block prints/);
        assert.ok(run.stdout.includes(`shown:   ${JSON.stringify(wrong)}`), `the failure does not show the wrong line:\n${run.stdout}`);
        assert.match(run.stdout, /# fail 1\b/);
      } finally {
        fs.rmSync(path.dirname(copy), { recursive: true, force: true });
      }
    });
  }

  if (update) {
    it("rewrites the shown output (UPDATE_README=1)", () => {
      const lines = readme.split("\n");
      // From the end, so that earlier line numbers stay valid.
      for (const block of [...printedByBlock.keys()].reverse()) {
        const fence = `${block.indent}\`\`\``;
        const output = printedByBlock.get(block).split("\n").map((line) => (line === "" ? "" : block.indent + line));
        if (block.shown) lines.splice(block.shown.open + 1, block.shown.close - block.shown.open - 1, ...output);
        else lines.splice(block.close + 1, 0, `${fence}text`, ...output, fence);
      }
      fs.writeFileSync(readmePath, lines.join("\n"));
    });
  }
});

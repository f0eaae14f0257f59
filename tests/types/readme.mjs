// Writes the README's JavaScript examples (every ```js fence, runnable or `norun`) into
// .readme/snippet-N.mts, for `tsc -p tsconfig.readme.json`: the examples type-check as written, as
// TypeScript, against the package's declarations (the DOM lib and @types/node, as an app has; no
// implicit-any errors, since they are JavaScript). An example that imports `npm:` specifiers
// (Deno) is left out: tsc cannot resolve them.
import * as fs from "node:fs";
import * as path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const readme = fs.readFileSync(path.join(here, "..", "..", "README.md"), "utf8");
const out = path.join(here, ".readme");
fs.rmSync(out, { recursive: true, force: true });
fs.mkdirSync(out);
let count = 0;
for (const [index, match] of [...readme.matchAll(/^ *```js(?: norun)?\n([\s\S]*?)^ *```$/gm)].entries()) {
  const code = match[1].replace(/^ {2}/gm, "");
  if (code.includes('"npm:')) continue;
  // A module either way, so that top-level await and `export` type-check.
  fs.writeFileSync(path.join(out, `snippet-${index + 1}.mts`), `${code}\nexport {};\n`);
  count += 1;
}
console.log(`${count} README examples written to ${path.relative(process.cwd(), out)}/`);

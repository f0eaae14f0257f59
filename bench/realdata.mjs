// A token-counting slice from real agent transcripts, when the project's shared/realdata/ (six
// MIT-licensed public transcripts, see its README) is beside the repository: every distinct
// string of the files of 40+ characters, cut into pieces of at most `maxChars`, then an evenly
// spaced subset of `samples` of them, for the counters' throughput (run.mjs section 5; the error
// tables are counting.mjs's, on every piece of realdata and realruns).
import * as fs from "node:fs";
import * as path from "node:path";

export function realdataDir(root) {
  const dir = path.join(root, "..", "shared", "realdata");
  return fs.existsSync(dir) ? dir : null;
}

export function realCorpus(dir, { samples = 300, minChars = 40, maxChars = 8000 } = {}) {
  const strings = [];
  const walk = (value) => {
    if (typeof value === "string") {
      if (value.length >= minChars) strings.push(value);
    } else if (Array.isArray(value)) {
      value.forEach(walk);
    } else if (value !== null && typeof value === "object") {
      Object.values(value).forEach(walk);
    }
  };
  for (const name of fs.readdirSync(dir).sort()) {
    if (name.endsWith(".md")) continue;
    const text = fs.readFileSync(path.join(dir, name), "utf8");
    if (name.endsWith(".jsonl")) {
      for (const line of text.split("\n")) if (line.trim()) walk(JSON.parse(line));
    } else {
      walk(JSON.parse(text));
    }
  }
  const pieces = [];
  for (const string of new Set(strings)) {
    const chars = [...string];
    for (let i = 0; i < chars.length; i += maxChars) {
      const piece = chars.slice(i, i + maxChars).join("");
      if (piece.length >= minChars) pieces.push(piece);
    }
  }
  const step = Math.max(1, pieces.length / samples);
  const picked = [];
  for (let k = 0; k < pieces.length && picked.length < samples; k += step) picked.push(pieces[Math.floor(k)]);
  return picked.map((text) => ({ slice: "real transcripts", text }));
}

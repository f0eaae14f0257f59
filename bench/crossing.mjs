// What handing the messages to wasm costs, by design, beside one JSON round trip of the same
// messages: the measurement behind issue 21's "objects path ≤ 0.5×" and the designs weighed for
// it (bench/README.md, round 4). Not part of `npm run bench`: it measures designs, not the package.
//
//   node bench/crossing.mjs
//
// - `JSON.stringify` alone: any design that hands the messages over as JSON text (the objects
//   path today, through `readSkeleton`) pays at least this.
// - the package's `readSkeleton`: today's handover (long strings swapped for placeholders, host
//   values found), without the copy into wasm.
// - a structured walk: every value written into one buffer as wasm could read it without a JSON
//   parser (a tag, a length, the UTF-8 bytes by `encodeInto`; keys by number after their first
//   use). A prototype of the "structured crossing" design, kept here so the figure can be re-run.
import { fileURLToPath } from "node:url";
import * as gen from "./generate.mjs";
import { readSkeleton } from "../js/api.mjs";
import { compare, ms, ratio, table } from "./lib.mjs";

const encoder = new TextEncoder();

/** Writes `messages` into `buffer` as tagged values; returns the bytes written. */
export function structuredWalk(messages, buffer) {
  const view = new DataView(buffer.buffer);
  const keys = new Map();
  let at = 0;
  const header = (tag, n) => {
    buffer[at] = tag;
    view.setUint32(at + 1, n, true);
    at += 5;
  };
  const string = (text) => {
    const { written } = encoder.encodeInto(text, buffer.subarray(at + 5));
    header(3, written);
    at += written;
  };
  const visit = (value) => {
    if (typeof value === "string") return string(value);
    if (typeof value === "number") {
      buffer[at] = 2;
      view.setFloat64(at + 1, value, true);
      at += 9;
      return;
    }
    if (value === null || typeof value === "boolean") {
      buffer[at++] = value === null ? 0 : value ? 1 : 4;
      return;
    }
    if (Array.isArray(value)) {
      header(5, value.length);
      for (const item of value) visit(item);
      return;
    }
    const names = Object.keys(value);
    header(6, names.length);
    for (const name of names) {
      const known = keys.get(name);
      if (known === undefined) {
        keys.set(name, keys.size);
        string(name);
      } else {
        header(7, known);
      }
      visit(value[name]);
    }
  };
  visit(messages);
  return at;
}

export async function crossing({ opts = {} } = {}) {
  const workloads = [
    ["agent run, 300 steps, 1-5 KB outputs", gen.toOpenAI(gen.agentRun(21, 300).events)],
    ["conversation, 300 turns", gen.toOpenAI(gen.conversation(300, Infinity, { turns: 300, minOutput: 500, maxOutput: 3000 }).events)],
  ];
  const rows = [];
  for (const [name, messages] of workloads) {
    const buffer = new Uint8Array(JSON.stringify(messages).length * 3 + 1024);
    const t = await compare(
      [
        { name: "round trip", fn: () => JSON.parse(JSON.stringify(messages)) },
        { name: "stringify", fn: () => JSON.stringify(messages) },
        { name: "skeleton", fn: () => readSkeleton(messages, 1024) },
        { name: "walk", fn: () => structuredWalk(messages, buffer) },
      ],
      opts,
    );
    const of = (key) => `${ms(t[key])} (${ratio(t[key] / t["round trip"])})`;
    rows.push([name, ms(t["round trip"]), of("stringify"), of("skeleton"), of("walk")]);
  }
  return table(["workload (OpenAI messages)", "round trip ms", "JSON.stringify alone", "readSkeleton (today)", "structured walk"], rows);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  console.log(await crossing());
}

// "Nothing lost" (docs/design.md, "Archive, restore, recall"): `restore(result)` gives the input back, the archive has its shape
// (ids, kinds, locations) and every stub's recall id resolves. Imports the package (the Node
// entry point, initialised on import), unlike helpers.mjs.
import assert from "node:assert/strict";
import { isDeepStrictEqual } from "node:util";
import { restore } from "./unbatched.mjs";
import { restoreMessages, restoreText } from "./helpers.mjs";

/** An archive id: `a` + 12 hex digits (short enough to quote). */
export const ARCHIVE_ID = /^a[0-9a-f]{12}$/;

/** Every `recall: ID` a stub names in `output` (a string, or anything JSON.stringify takes). */
export function recallIds(output) {
  const text = typeof output === "string" ? output : JSON.stringify(output);
  return [...text.matchAll(/recall: (a[0-9a-f]{12})/g)].map((match) => match[1]);
}

/**
 * The archive's shape: unique well-formed ids, known kinds, a location, a string replacement;
 * and every id a stub in the output names is an entry of this archive.
 */
export function assertArchiveShape(result) {
  const kinds = new Set(["tool_result", "tool_input", "media", "thinking", "turn", "run", "session", "repair"]);
  const ids = new Map();
  for (const entry of result.archive) {
    assert.match(entry.id, ARCHIVE_ID, `archive id ${entry.id}`);
    // An id is a function of the content, its kind and its tool call id (SPEC §7): one id twice
    // names the same content, so a recall of it is right either way.
    const same = ids.get(entry.id);
    if (same) {
      assert.equal(entry.kind, same.kind, `archive id ${entry.id} names one kind`);
      assert.ok(isDeepStrictEqual(entry.content, same.content), `archive id ${entry.id} names one content`);
    }
    ids.set(entry.id, entry);
    assert.ok(kinds.has(entry.kind), `archive kind ${entry.kind}`);
    assert.match(entry.location, /^(text|messages)\[\d+/, `archive location ${entry.location}`);
    assert.equal(typeof entry.replacement, "string");
  }
  for (const id of recallIds(result.text ?? result.messages)) {
    assert.ok(ids.has(id), `the stub's recall id ${id} is in the archive`);
  }
}

/**
 * Nothing lost (docs/design.md, "Archive, restore, recall"): `restore(result)` is the input again, deep-equal, and the archive has
 * its shape. A tier that makes one plan (every tier but auto, on valid input) has every entry's
 * location in the input itself, so the input is also rebuilt here independently of `restore`,
 * from the output and the archive by location. auto makes several plans (micro's stubs, thinking,
 * media, digests), each located in the context the plan before it left: `restore` undoes them.
 */
export function assertNothingLost(ctx, result) {
  const input = ctx.text ?? ctx.messages;
  assert.deepEqual(restore(result), input, "restore(result) is the input");
  assertArchiveShape(result);
  if (result.tier === "auto") return;
  if (ctx.text !== undefined) restoreText(ctx.text, result);
  else restoreMessages(ctx.messages, result);
}

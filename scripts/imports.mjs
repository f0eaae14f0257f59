// Shorter import names (scripts/build.mjs, step 2): wasm-bindgen names each JS function the
// module imports `__wbg_<JS name>_<16 hex digits of hash>` (its casts `__wbindgen_generic_<16
// digits>`). The hashes are 1.5 KB that gzip cannot compress (issue 21); in their place the
// import's index, in hex: `__wbg_setTimeout_3c`. The names stay unique, and stay the shape
// js/api.mjs's `track` reads JS names from. The glue's import object is renamed to match.

import { encode, leb } from "./reorder.mjs";
import { expectOnce } from "./glue.mjs";

const HASHED = /_[0-9a-f]{16}$/;

/** `wasm` with shorter import names, and the renames (old name, new name) made. */
export function shortImportNames(wasm) {
  const cursor = { at: 8 };
  const renames = [];
  while (cursor.at < wasm.length) {
    const start = cursor.at;
    const id = wasm[cursor.at++];
    const length = leb(wasm, cursor);
    const end = cursor.at + length;
    if (id !== 2) {
      cursor.at = end;
      continue;
    }
    const count = leb(wasm, cursor);
    const parts = [encode(count)];
    for (let index = 0; index < count; index++) {
      const moduleStart = cursor.at;
      const moduleLength = leb(wasm, cursor);
      cursor.at += moduleLength;
      parts.push(wasm.subarray(moduleStart, cursor.at));
      const nameLength = leb(wasm, cursor);
      const name = wasm.subarray(cursor.at, cursor.at + nameLength).toString();
      cursor.at += nameLength;
      const short = HASHED.test(name) ? name.replace(HASHED, `_${index.toString(16)}`) : name;
      if (short !== name) renames.push([name, short]);
      const bytes = Buffer.from(short);
      parts.push(encode(bytes.length), bytes);
      const descriptor = cursor.at;
      skipDescriptor(wasm, cursor);
      parts.push(wasm.subarray(descriptor, cursor.at));
    }
    const section = Buffer.concat(parts);
    const renamed = Buffer.concat([
      wasm.subarray(0, start),
      Buffer.from([2]),
      encode(section.length),
      section,
      wasm.subarray(end),
    ]);
    return { wasm: renamed, renames };
  }
  return { wasm, renames };
}

/** The glue `glue` with its import object's keys renamed as `renames` says (each key exactly once). */
export function renameGlueImports(glue, renames) {
  for (const [name, short] of renames) {
    glue = expectOnce(glue, `\n        ${name}: function(`, `\n        ${short}: function(`);
  }
  return glue;
}

function skipDescriptor(wasm, cursor) {
  const kind = wasm[cursor.at++];
  if (kind === 0) {
    leb(wasm, cursor);
  } else if (kind === 1 || kind === 2) {
    if (kind === 1) cursor.at++;
    const flags = wasm[cursor.at++];
    leb(wasm, cursor);
    if (flags & 1) leb(wasm, cursor);
  } else if (kind === 3) {
    cursor.at += 2;
  } else {
    cursor.at++;
    leb(wasm, cursor);
  }
}

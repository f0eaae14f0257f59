// Trap recovery in runtimes other than Node's test process, used by reliability-trap.test.mjs:
// forces traps of every kind through an entry point of the test-trap build (target/pkg-trap/) —
// synchronously, and armed inside the async executor while calls are in flight — and checks
// that each is reported as ERR_TC_INSTANCE_TRAPPED and that the next call works.
//   deno run --allow-read reliability-trap-runtime.mjs <entry URL> <test hooks' name: index.mjs>
//   bun reliability-trap-runtime.mjs <entry URL> <test hooks' name: index.mjs>
// print one JSON line; workerd and Chromium import `exercise` (no arguments: nothing runs).

export const KINDS = ["unreachable", "oom", "stack", "recursion", "throw"];

/** Runs the checks on `api` (an entry point's exports) with its test `hooks`; returns a report. */
export async function exercise(api, hooks, runtime, kinds = KINDS) {
  const check = (condition, what) => {
    if (!condition) throw new Error(`${runtime}: ${what}`);
  };
  const pressure = { turnCount: 9, contextPctUsed: 0.9, idleSeconds: 0, sessionComplete: false };
  const text = "[age:9] ```tool_result name=bash\n" + "C".repeat(900) + "\n```\n\n[age:0] now";
  const expected = JSON.stringify(await api.compact({ sessionId: "rt", pressure, text }));

  const causes = {};
  for (const kind of kinds) {
    try {
      hooks.testTrap(kind);
      check(false, `${kind}: no trap`);
    } catch (error) {
      check(error.code === "ERR_TC_INSTANCE_TRAPPED", `${kind}: code ${error.code} (${error.message})`);
      causes[kind] = error.cause?.constructor?.name;
    }
    check(JSON.stringify(await api.compact({ sessionId: "rt", pressure, text })) === expected, `${kind}: output after recovery`);
  }

  // Armed: the 3rd of 10 calls to finish traps inside the executor; the others in flight reject.
  hooks.testArmTrap(3, "unreachable");
  const calls = Array.from({ length: 10 }, (_, index) =>
    api.compact({ sessionId: "rt", pressure, text }, { summarise: () => new Promise((resolve) => setTimeout(() => resolve(`summary ${index}`), 5 * index)) }),
  );
  const settled = await Promise.allSettled(calls);
  const fulfilled = settled.filter((outcome) => outcome.status === "fulfilled").length;
  const trapped = settled.filter((outcome) => outcome.reason?.code === "ERR_TC_INSTANCE_TRAPPED");
  check(fulfilled === 2 && trapped.length === 8, `armed: ${fulfilled} fulfilled, ${trapped.length} trapped`);
  check(trapped.every((outcome) => outcome.reason === trapped[0].reason), "armed: one error for every abandoned call");
  check(JSON.stringify(await api.compact({ sessionId: "rt", pressure, text })) === expected, "armed: output after recovery");

  const { instances, traps, abandoned } = hooks.diagnostics();
  return { runtime, causes, fulfilled, trapped: trapped.length, instances, traps, abandoned };
}

const args = globalThis.Deno ? Deno.args : (globalThis.process?.argv?.slice(2) ?? []);
if (args.length === 2) {
  const [entryUrl, hooksName] = args;
  const registry = new Map();
  globalThis[Symbol.for("tiered-compaction.testing")] = registry;
  const api = await import(entryUrl);
  const runtime = globalThis.Deno ? `deno ${Deno.version.deno}` : globalThis.Bun ? `bun ${Bun.version}` : `node ${process.versions.node}`;
  console.log(JSON.stringify(await exercise(api, registry.get(hooksName), runtime)));
}

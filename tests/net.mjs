// Ports and readiness for the tests that start a server (workerd, a framework's dev server), and
// the package's modules as workerd config entries: one copy, used by tests/runtimes/run.mjs,
// tests/consumers/run.mjs and tests/js/.
import * as net from "node:net";

/** A TCP port on 127.0.0.1 that was free a moment ago (the OS picks it). */
export function freePort() {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

/**
 * Resolves once `port` on 127.0.0.1 accepts a connection; rejects when `server` (a child
 * process, named `name` in the error) exits first or after `seconds`.
 */
export async function waitForPort(port, server, { name = "workerd", seconds = 20 } = {}) {
  const deadline = Date.now() + seconds * 1000;
  while (Date.now() < deadline) {
    if (server.exitCode !== null) throw new Error(`${name} exited with ${server.exitCode}`);
    const open = await new Promise((resolve) => {
      const socket = net.connect(port, "127.0.0.1", () => {
        socket.end();
        resolve(true);
      });
      socket.once("error", () => resolve(false));
    });
    if (open) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${name} did not start listening within ${seconds} s`);
}

/**
 * The package's modules as workerd config entries. Module names are what imports resolve to:
 * "tiered-compaction" is the package's workerd entry point, and its relative imports resolve
 * against that name.
 */
export function workerdPackageModules(pkg) {
  return `    (name = "tiered-compaction", esModule = embed "${pkg}/workerd.mjs"),
    (name = "index.mjs", esModule = embed "${pkg}/index.mjs"),
    (name = "api.mjs", esModule = embed "${pkg}/api.mjs"),
    (name = "host-values.mjs", esModule = embed "${pkg}/host-values.mjs"),
    (name = "surrogates.mjs", esModule = embed "${pkg}/surrogates.mjs"),
    (name = "weights.mjs", esModule = embed "${pkg}/weights.mjs"),
    (name = "web/tiered_compaction.js", esModule = embed "${pkg}/web/tiered_compaction.js"),
    (name = "web/tiered_compaction_bg.wasm", wasm = embed "${pkg}/web/tiered_compaction_bg.wasm"),`;
}

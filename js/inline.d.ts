// tiered-compaction/inline: the package's API (index.d.ts) with the WebAssembly module embedded;
// only where `init()` takes the module from differs.
import type { InitInput } from "./index.js";

export * from "./index.js";

/**
 * Compiles the WebAssembly module embedded in this entry point (no request, no file to serve):
 * await it once before the other exports, as with the browser entry point. Pass a URL, a
 * `Response`, the bytes or a compiled `WebAssembly.Module` to load another copy instead. Under
 * workerd (which compiles no WebAssembly from bytes) this subpath is the workerd entry point, whose
 * module is ready on import: this resolves at once.
 */
export function init(input?: InitInput | Promise<InitInput>): Promise<void>;

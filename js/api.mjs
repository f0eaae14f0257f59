// The public API behind every entry point of the package: each export a thin guard in front of
// the wasm-bindgen glue, and the one place that recovers from a trap. index.mjs (the export list
// every entry point re-exports) imports this file; its CommonJS copy index.cjs gets a generated
// copy of this one (api.cjs), so every runtime (Node ESM and CJS, Deno, Bun, workerd, browsers)
// runs this same code.
//
// index.mjs creates one API with the glue factory (`createGlue`, see scripts/glue.mjs); its
// `initSync` / `init` hand it the compiled WebAssembly.Module with `bind` / `bindAsync` (on
// import in Node, Deno, Bun and workerd; on `init()` in browsers). Calling an export before that
// throws (or, for the promise-returning ones, rejects with) an Error saying to call init() first.
//
// Trap recovery. A wasm instance that traps (`unreachable`, an out-of-bounds access after its
// stack ran out, a failed allocation) or is unwound by an exception thrown through its frames is
// left in an unknown state — in practice every later call into it traps too — so it is never
// entered again. Every entry into an instance passes through `guard` (each export of the
// instance is wrapped before the glue sees it), whether the entry is one of our calls or the
// host's event loop driving the async executor (microtasks, timers, promise reactions), which is
// where most of the work of `compact` runs. On the first exception out of an instance:
//   - the instance is marked dead; its exports never run again (an entry from the event loop
//     returns an inert value instead, so no uncaught exception reaches the host);
//   - every call in flight on it rejects with one Error, code ERR_TC_INSTANCE_TRAPPED, the trap
//     as its `cause` (a synchronous export throws it); none is left pending. Calls the instance
//     had already resolved before it died keep their results;
//   - what it held in the host is given back: its summariser deadline timers are cleared, the
//     summariser requests they guard are aborted (reason: that Error), and its listeners on the
//     host's AbortSignals are removed;
//   - the next call instantiates the module again: fresh memory, fresh glue state.
// Callbacks the host still holds for the dead instance (a summariser's answer still on its way)
// can only reach the dead instance, because each instance has its own copy of the glue.

import { isBinary, isUrl, hostValuePlaceholder, jsonUtf8Length, utf8Length } from "./host-values.mjs";
import { freeWindow, hasLone, mapBody, mapEscapes, mapLone, mapString, unmap, unmapBody } from "./surrogates.mjs";

/** Where tests find each module graph's diagnostics; the package only registers if a test created it. */
const TESTING = Symbol.for("tiered-compaction.testing");

/** What an entry into a dead instance returns: reads as empty/0/false wherever the glue looks. */
const INERT = Object.freeze([]);

/**
 * Set by an entry point that loads the module on import and could not (node.mjs, node.cjs: see
 * js/node-load.mjs): until `init`/`initSync` succeeds, every call throws (or rejects with)
 * `loadFailure(name)` instead of the not-initialised error. One per module graph, as the API is.
 * @type {((name: string) => Error) | null}
 */
let loadFailure = null;

/** @param {(name: string) => Error} failure */
export function reportLoadFailure(failure) {
  loadFailure = failure;
}

/**
 * Where `init()` with no argument loads the module from, set on import by the entry point that
 * has a place for it: browser.mjs and web.cjs `{ url }` (the .wasm file beside the package's
 * JavaScript), inline.mjs `{ embedded }` (its own copy, compiled). Kept out of index.mjs so that
 * the inline entry's modules hold no URL of the .wasm file for a bundler to act on. An embedded
 * copy wins over a URL whichever entry point loaded first: it needs no request. One per module graph.
 * @typedef {{ url: () => URL | string } | { embedded: () => Promise<WebAssembly.Module> }} WasmSource
 * @type {WasmSource | null}
 */
let wasmSource = null;

/** @param {WasmSource} source */
export function setWasmSource(source) {
  if (wasmSource === null || "embedded" in source) wasmSource = source;
}

/** @returns {WasmSource | null} */
export function defaultWasmSource() {
  return wasmSource;
}

/** @param {string} name */
function notInitialised(name) {
  const error = new Error(
    `tiered-compaction: ${name}() was called before the WebAssembly module was initialised; ` +
      "in browsers and workers, await init() once first (the Node, Deno, Bun and workerd entry points need no init)",
  );
  error.code = "ERR_TC_NOT_INITIALISED";
  return error;
}

/** @param {unknown} value */
function describe(value) {
  try {
    if (value instanceof Error) return value.message ? `${value.name}: ${value.message}` : value.name;
    return String(value);
  } catch {
    return "an unprintable value";
  }
}

/** @param {unknown} cause what came out of the instance */
function trapError(cause) {
  const error = new Error(
    `tiered-compaction: the WebAssembly instance trapped (${describe(cause)}); ` +
      "the calls in flight on it were abandoned, and the next call runs on a fresh instance",
    { cause },
  );
  error.code = "ERR_TC_INSTANCE_TRAPPED";
  return error;
}

/**
 * A pressure the binding's `selectTierOf` may take as four arguments: a plain object with exactly
 * the four fields, of the right types. Anything else (and any value the core then refuses) goes
 * through `selectTier`, which reads and checks the object and names what is wrong.
 * @param {unknown} pressure
 */
function isPlainPressure(pressure) {
  if (pressure === null || typeof pressure !== "object" || Object.getPrototypeOf(pressure) !== Object.prototype) return false;
  const keys = Object.keys(pressure);
  return (
    keys.length === 4 &&
    keys.every((key) => key === "turnCount" || key === "contextPctUsed" || key === "idleSeconds" || key === "sessionComplete") &&
    typeof pressure.turnCount === "number" &&
    typeof pressure.contextPctUsed === "number" &&
    typeof pressure.idleSeconds === "number" &&
    typeof pressure.sessionComplete === "boolean"
  );
}

/**
 * 26 random bits in base 36, always 6 digits (four make a nonce: a 52-bit float's base-36 text
 * took ~1 µs). A fixed length keeps every call's placeholders, and so the wasm heap's layout,
 * the same from run to run.
 */
function randomWord() {
  return ((Math.random() * 0x4000000) | 0).toString(36).padStart(6, "0");
}

const SURROGATE = /[\uD800-\uDFFF]/;

/** A child that crosses as a host-value placeholder: binary data or a URL, not a plain object. */
function isHostValue(value) {
  return (
    typeof value === "object" &&
    value !== null &&
    !Array.isArray(value) &&
    Object.getPrototypeOf(value) !== Object.prototype &&
    (isBinary(value) || isUrl(value))
  );
}

/**
 * How the binding reads a message array (binding/src/skeleton.rs, src/api/host_value.rs): one
 * `JSON.stringify` whose replacer
 *   - swaps every string of more than `longUnits` UTF-16 units for a placeholder
 *     `\0{nonce}:{index}`: the binding copies `strings[index]` into wasm memory on its own and
 *     puts it in the placeholder's place, so long texts are neither escaped into the text here
 *     nor unescaped by the parser there;
 *   - swaps binary data (Uint8Array, Buffer, ArrayBuffer) and URL objects for a host-value
 *     placeholder `\0{nonce}#{index}:b:{bytes}:{sha256}:{head}` (head: base64 of its first
 *     bytes, for an image's size) / `...:u:{href}` (`values[index]`):
 *     bytes never cross, and are never read as JSON (a Buffer's `toJSON`, a Uint8Array's
 *     `{"0":137,...}`). They are replaced in their parent, before `toJSON` runs on them.
 * Lone surrogates cross mapped to a window of private-use characters (surrogates.mjs):
 * `base` is the window (0: none needed), `crossing[index]` a long string's mapped text.
 * `exactBytes()` measures the input's JSON size as the core would, without copying it.
 * @param {unknown} messages
 * @param {number} longUnits
 * @param {string} [body] a request body the strings will be written into (`restore`): the window
 *   must be one the body can take too (see surrogates.mjs `mapBody`)
 */
export function readSkeleton(messages, longUnits, body) {
  const nonce = randomWord() + randomWord() + randomWord() + randomWord();
  /** @type {string[]} */
  const strings = [];
  /** @type {unknown[]} */
  const values = [];
  let units = 0;
  let valueBytes = 0;
  /** JSON bytes of every placeholder in the text, for `exactBytes` */
  let markBytes = 0;
  let lone = false;
  const hostValue = (value) => {
    const { placeholder, jsonBytes } = hostValuePlaceholder(value, values.length, nonce);
    values.push(value);
    valueBytes += jsonBytes;
    markBytes += jsonUtf8Length(placeholder);
    return placeholder;
  };
  const replaceChildren = (value) => {
    let copy = null;
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) {
        if (isHostValue(value[i])) {
          copy ??= value.slice();
          copy[i] = hostValue(value[i]);
        }
      }
    } else {
      // Through descriptors: a getter is not called here (JSON.stringify reads each property
      // once; a host value behind a getter reaches the replacer itself, below).
      for (const key in value) {
        const property = Object.getOwnPropertyDescriptor(value, key);
        if (property !== undefined && isHostValue(property.value)) {
          copy ??= { ...value };
          copy[key] = hostValue(property.value);
        }
      }
    }
    return copy ?? value;
  };
  const text = JSON.stringify(messages, (_key, value) => {
    if (typeof value === "object") {
      if (value === null) return value;
      // Bytes or an ArrayBuffer behind a getter (a URL's or a Buffer's `toJSON` has run by now).
      return isHostValue(value) ? hostValue(value) : replaceChildren(value);
    }
    if (typeof value !== "string" || value.length <= longUnits) return value;
    // A one-byte string settles this test at once; a two-byte one is scanned.
    if (SURROGATE.test(value) && hasLone(value)) lone = true;
    const mark = `\0${nonce}:${strings.push(value) - 1}`;
    units += value.length;
    markBytes += jsonUtf8Length(mark);
    return mark;
  });
  if (text === undefined) return { text, strings, values, nonce, units, valueBytes, base: 0, crossing: [] };
  // Short strings' lone surrogates are escapes in the text (`\ud800`); long ones are in `strings`.
  let base = 0;
  let crossed = text;
  /** @type {string[]} */
  const crossing = [];
  // JSON.stringify writes a lone surrogate as a lowercase escape (`\ud800`, ECMA-262
  // UnicodeEscape): one substring search, about half the time of `mayHaveLoneEscapes`' regex.
  if (lone || text.includes("\\ud")) {
    base = typeof body === "string" ? freeWindow([text, ...strings, body], true) : freeWindow([text, ...strings]);
    crossed = mapEscapes(text, base);
    strings.forEach((value, index) => {
      if (hasLone(value)) crossing[index] = mapLone(value, base);
    });
    if (crossed === text && crossing.length === 0) base = 0;
  }
  const exactBytes = () => {
    let bytes = utf8Length(crossed) - markBytes + valueBytes;
    for (const value of strings) bytes += jsonUtf8Length(value);
    return bytes;
  };
  return { text: crossed, strings, values, nonce, units, valueBytes, base, crossing, exactBytes };
}

/** Host helpers the binding imports (scripts/glue.mjs). */
export const bindingHelpers = {
  readSkeleton,
  /** UTF-8 bytes of a string, measured in the host (a refused input is never copied). */
  measureString: utf8Length,
  /** A string as it crosses: `{ text, base }` (lone surrogates mapped, see surrogates.mjs). */
  crossString: mapString,
  /** A request body as it crosses: `{ text, base }`. */
  crossBody: mapBody,
  /** A string the core wrote, its window's characters turned back into lone surrogates. */
  unmapString: unmap,
  /** A body the core wrote from a crossed body, back in the host's code units. */
  unmapBody,
};

/**
 * @param {() => { api: Record<string, Function>, getImports: () => object, finalize: (instance: { exports: object }, module: WebAssembly.Module) => unknown }} createGlue
 * @param {string} entry the name tests find its diagnostics under: index.mjs or index.cjs
 */
export function createApi(createGlue, entry) {
  /** @type {WebAssembly.Module | null} */
  let module = null;
  /** The instance serving calls; null after a trap until the next call opens a new one. */
  let live = null;
  const counts = { instances: 0, traps: 0, abandoned: 0 };

  /** A fresh copy of the glue and the state of the instance it will serve, with its imports. */
  function prepare() {
    const glue = createGlue(bindingHelpers);
    const state = {
      glue: glue.api,
      finalize: glue.finalize,
      memory: null,
      /** wasm-bindgen's table of JS values the instance holds (grows if handles leak). */
      table: null,
      /** Set once: `{ cause, error }`. */
      trap: null,
      /** Entries into this instance now on the stack. */
      depth: 0,
      /** Our own synchronous calls into the glue now on the stack. */
      direct: 0,
      /** `reject` of every promise-returning call in flight. */
      pending: new Set(),
      /** Host resources the instance holds (see `track`), released if it dies. */
      timers: new Map(),
      listeners: new Map(),
      unpaired: null,
    };
    return { state, imports: track(state, glue.getImports()) };
  }

  /** Binds `state`'s glue to `instance` (its start function runs) and counts it. */
  function finish(state, instance) {
    state.memory = instance.exports.memory;
    state.table = instance.exports.__wbindgen_externrefs ?? null;
    state.direct += 1;
    try {
      state.finalize({ exports: guard(state, instance.exports) }, module);
    } finally {
      state.direct -= 1;
    }
    counts.instances += 1;
    return state;
  }

  /** Instantiates `module` synchronously with a fresh copy of the glue. */
  function open() {
    const { state, imports } = prepare();
    return finish(state, new WebAssembly.Instance(module, imports));
  }

  /**
   * Wraps the imports through which an instance takes host resources that outlive a call, so a
   * dead instance can give them back: the summariser's deadline timers (each paired with the
   * AbortController of its summariser request, whose `signal` the binding reads just before
   * arming the timer) and its `abort` listeners on the host's `options.signal`. Without this, a
   * dead instance's timers would keep a Node process alive until `timeoutMs`, a long-lived host
   * signal would keep every dead instance's memory reachable, and summariser requests would run
   * on for nothing. Found by wasm-bindgen's import names (`__wbg_<js name>_<hash>`); an import
   * not found is simply not tracked.
   */
  function track(state, imports) {
    const wrappers = {
      signal: (original) => (controller) => {
        state.unpaired = controller;
        return original(controller);
      },
      setTimeout: (original) => (callback, milliseconds) => {
        const controller = state.unpaired;
        state.unpaired = null;
        const handle = original((...args) => {
          state.timers.delete(handle);
          return callback(...args);
        }, milliseconds);
        state.timers.set(handle, controller);
        return handle;
      },
      clearTimeout: (original) => (handle) => {
        state.timers.delete(handle);
        return original(handle);
      },
      addEventListener: (original) => (target, ...args) => {
        state.listeners.set(args.at(-1), target);
        return original(target, ...args);
      },
      removeEventListener: (original) => (target, ...args) => {
        state.listeners.delete(args.at(-1));
        return original(target, ...args);
      },
    };
    for (const functions of Object.values(imports)) {
      for (const [name, original] of Object.entries(functions)) {
        const jsName = /^__wbg_([A-Za-z]+)_[0-9a-f]+$/.exec(name)?.[1];
        if (jsName !== undefined && Object.hasOwn(wrappers, jsName)) functions[name] = wrappers[jsName](original);
      }
    }
    return imports;
  }

  /** Gives back what a dead instance held (see `track`). */
  function release(state) {
    for (const [handle, controller] of state.timers) {
      clearTimeout(handle);
      try {
        controller?.abort(state.trap.error);
      } catch {
        // A host `abort` listener that throws is the host's business.
      }
    }
    state.timers.clear();
    for (const [listener, target] of state.listeners) {
      try {
        target.removeEventListener("abort", listener);
      } catch {
        // A signal-like object of the host's that cannot remove listeners keeps this one.
      }
    }
    state.listeners.clear();
  }

  /** A copy of `exports` whose functions go through `enter`; memory, tables, globals as they are. */
  function guard(state, exports) {
    const guarded = {};
    for (const [name, value] of Object.entries(exports)) {
      guarded[name] = typeof value === "function" ? (...args) => enter(state, value, args) : value;
    }
    return guarded;
  }

  function enter(state, fn, args) {
    if (state.trap !== null) {
      // Inside a call that is unwinding from the trap (the glue cleaning up): keep unwinding.
      if (state.depth > 0) throw state.trap.cause;
      // A callback of the dead instance, from the host's event loop: do nothing, quietly.
      return INERT;
    }
    state.depth += 1;
    try {
      return fn(...args);
    } catch (thrown) {
      // By design nothing is ever thrown out of an export (errors come back as values), so
      // anything that is means wasm frames were torn down mid-way.
      if (state.trap === null) trapped(state, thrown);
      // Rethrown to the outer entry, or to our own call (`now` / `later` turn it into the trap
      // error); swallowed at the top of an event-loop entry, where the host would see it as an
      // uncaught exception or an unhandled rejection.
      if (state.depth > 1 || state.direct > 0) throw thrown;
      return INERT;
    } finally {
      state.depth -= 1;
    }
  }

  function trapped(state, cause) {
    const error = trapError(cause);
    state.trap = { cause, error };
    counts.traps += 1;
    if (live === state) live = null;
    // After the current job, not inside it (we may be deep in the dead instance's frames, and
    // aborting a summariser's signal runs host code): a call whose promise the instance had
    // already resolved has its reaction queued ahead of this and keeps its result; every other
    // call in flight rejects with `error`.
    queueMicrotask(() => {
      counts.abandoned += state.pending.size;
      for (const reject of state.pending) reject(error);
      state.pending.clear();
      release(state);
    });
  }

  function current(name) {
    if (module === null) throw loadFailure?.(name) ?? notInitialised(name);
    if (live === null) live = open();
    return live;
  }

  /** A synchronous export. */
  function now(name, call) {
    const state = current(name);
    state.direct += 1;
    try {
      return call(state.glue);
    } catch (thrown) {
      throw state.trap !== null ? state.trap.error : thrown;
    } finally {
      state.direct -= 1;
    }
  }

  /** A promise-returning export: settles when the glue's promise does, or when its instance dies. */
  function later(name, call) {
    let state;
    try {
      state = current(name);
    } catch (error) {
      return Promise.reject(error);
    }
    return new Promise((resolve, reject) => {
      state.pending.add(reject);
      const done = () => state.pending.delete(reject);
      let promise;
      state.direct += 1;
      try {
        promise = call(state.glue);
      } catch (thrown) {
        done();
        reject(state.trap !== null ? state.trap.error : thrown);
        return;
      } finally {
        state.direct -= 1;
      }
      promise.then(
        (value) => {
          done();
          resolve(value);
        },
        (error) => {
          done();
          reject(error);
        },
      );
    });
  }

  /** Slots of wasm-bindgen's externref table that hold a value (diagnostics only). */
  const inUse = (table) => {
    let used = 0;
    for (let index = 0; index < table.length; index += 1) if (table.get(index) != null) used += 1;
    return used;
  };

  const registry = globalThis[TESTING];
  if (registry instanceof Map) {
    registry.set(entry, {
      /** Instances opened, traps seen, calls abandoned; the live instance's memory, handles, load. */
      diagnostics: () => ({
        ...counts,
        memoryBytes: live === null ? null : live.memory.buffer.byteLength,
        externrefs: live === null || live.table === null ? null : live.table.length,
        externrefsInUse: live === null || live.table === null ? null : inUse(live.table),
        pending: live === null ? 0 : live.pending.size,
        timers: live === null ? 0 : live.timers.size,
        listeners: live === null ? 0 : live.listeners.size,
      }),
      // Test-trap builds only (cargo feature `test-trap`); elsewhere these throw a TypeError.
      testTrap: (kind) => now("testTrap", (glue) => glue.testTrap(kind)),
      testArmTrap: (calls, kind) => now("testArmTrap", (glue) => glue.testArmTrap(calls, kind)),
    });
  }

  return {
    /** Instantiates the compiled module synchronously (Node, Deno, Bun, workerd, `initSync`). */
    bind(compiled) {
      module = compiled;
      try {
        live = open();
      } catch (error) {
        module = null;
        throw error;
      }
    },
    /** Instantiates the compiled module asynchronously (browsers' `init`). */
    async bindAsync(compiled) {
      const { state, imports } = prepare();
      const instance = await WebAssembly.instantiate(compiled, imports);
      module = compiled;
      live = finish(state, instance);
    },
    isReady: () => module !== null,
    /** The entry point's load failure as `name`'s error (see `reportLoadFailure`), or null. */
    loadFailure: (name) => (module === null ? (loadFailure?.(name) ?? null) : null),
    selectTier: (pressure, policy) =>
      now("selectTier", (glue) =>
        (policy === undefined && isPlainPressure(pressure)
          ? glue.selectTierOf(pressure.turnCount, pressure.contextPctUsed, pressure.idleSeconds, pressure.sessionComplete)
          : undefined) ?? glue.selectTier(pressure, policy),
      ),
    compact: (ctx, options) => later("compact", (glue) => glue.compact(ctx, options)),
    compactWithTier: (tier, ctx, options) =>
      later("compactWithTier", (glue) => glue.compactWithTier(tier, ctx, options)),
    recordTierEvent: (result, step) => now("recordTierEvent", (glue) => glue.recordTierEvent(result, step)),
    runLegacyCompaction: (sessionId, contextText, opts) =>
      later("runLegacyCompaction", (glue) => glue.runLegacyCompaction(sessionId, contextText, opts)),
    compactRequestBody: (body, options) =>
      later("compactRequestBody", (glue) => glue.compactRequestBody(body, options)),
    estimateTokens: (text, options) => now("estimateTokens", (glue) => glue.estimateTokens(text, options)),
    restore: (result) => now("restore", (glue) => glue.restore(result)),
    recallToolDefinition: (format) => now("recallToolDefinition", (glue) => glue.recallToolDefinition(format)),
  };
}

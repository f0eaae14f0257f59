// selectTier's fast path (a plain four-field pressure and no policy: the fields cross as four
// arguments) must answer exactly as the full path (`policy: {}` means the same defaults but
// takes the path that reads and checks the object): the same tier, or the same error.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { selectTier } from "./unbatched.mjs";
import { random } from "../../scripts/samples.mjs";

const outcome = (call) => {
  try {
    return { tier: call() };
  } catch (error) {
    return { name: error.name, message: error.message, code: error.code, path: error.path };
  }
};

const NUMBERS = [0, 1, 2, 3, 0.5, 0.69999, 0.7, 0.71, 1, 1.5, -1, 299, 300, 301, 1e9, 2 ** 53, NaN, Infinity, -0];

describe("selectTier fast path", () => {
  it("agrees with the full path on 5,000 pressures, valid and not", () => {
    const r = random(7);
    const pick = () => NUMBERS[Math.floor(r() * NUMBERS.length)] ?? r() * 400;
    let fast = 0;
    for (let i = 0; i < 5000; i++) {
      const pressure = {
        turnCount: r() < 0.5 ? Math.floor(r() * 12) : pick(),
        contextPctUsed: r() < 0.6 ? r() : pick(),
        idleSeconds: r() < 0.6 ? Math.floor(r() * 600) : pick(),
        sessionComplete: r() < 0.2,
      };
      const viaFast = outcome(() => selectTier(pressure));
      assert.deepEqual(viaFast, outcome(() => selectTier(pressure, {})), JSON.stringify(pressure));
      if (viaFast.tier) fast += 1;
    }
    assert.ok(fast > 2000, `${fast} pressures selected a tier`);
  });

  it("objects it cannot take go the full way: extra or missing fields, wrong types, class instances", () => {
    const base = { turnCount: 4, contextPctUsed: 0.8, idleSeconds: 0, sessionComplete: false };
    class Pressure {
      constructor() {
        Object.assign(this, base);
      }
    }
    for (const pressure of [
      { ...base, extra: 1 },
      { turnCount: 4, contextPctUsed: 0.8, idleSeconds: 0 },
      { ...base, sessionComplete: "no" },
      { ...base, turnCount: "4" },
      new Pressure(),
      Object.assign(Object.create(null), base),
    ]) {
      assert.deepEqual(outcome(() => selectTier(pressure)), outcome(() => selectTier(pressure, {})));
    }
    assert.equal(selectTier(base), "auto");
  });
});

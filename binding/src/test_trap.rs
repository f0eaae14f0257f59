//! Test-only exports (cargo feature `test-trap`, never in default builds; `node scripts/build.mjs
//! --test-trap` builds `target/pkg-trap/` for `tests/js/reliability-trap.test.mjs`) that make the
//! instance trap on purpose, so the JS layer's trap recovery (`js/api.mjs`) can be shown working.
//! Each kind is a way a real instance can die: `unreachable` (a Rust panic with
//! `panic = "abort"`), `oom` (64 MiB blocks until `memory.grow` fails: `handle_alloc_error`),
//! `stack` (large frames run the 1 MiB shadow stack out: `memory access out of bounds`),
//! `recursion` (small frames exhaust the engine's call stack: a `RangeError` in V8), `throw` (a
//! JS exception unwinds the wasm frames without Rust cleanup: not a trap, as unusable).

use std::cell::Cell;
use std::hint::black_box;
use wasm_bindgen::prelude::*;

#[derive(Clone, Copy)]
enum Kind {
    Unreachable,
    Oom,
    Stack,
    Recursion,
    Throw,
}

thread_local! {
    /// A trap armed by `testArmTrap`: how many more settling calls, and which kind.
    static ARMED: Cell<Option<(u32, Kind)>> = const { Cell::new(None) };
}

fn kind(name: &str) -> Result<Kind, JsValue> {
    const KINDS: [(&str, Kind); 5] = [
        ("unreachable", Kind::Unreachable),
        ("oom", Kind::Oom),
        ("stack", Kind::Stack),
        ("recursion", Kind::Recursion),
        ("throw", Kind::Throw),
    ];
    let known = KINDS.iter().find(|(known, _)| *known == name);
    known.map(|(_, kind)| *kind).ok_or_else(|| {
        let expected = "expected unreachable, oom, stack, recursion or throw";
        js_sys::TypeError::new(&format!("testTrap: unknown kind {name:?}; {expected}")).into()
    })
}

/// Traps now, inside this (synchronous) call.
#[wasm_bindgen(js_name = testTrap)]
pub fn test_trap(kind_name: &str) -> Result<(), JsValue> {
    fire(kind(kind_name)?);
    Ok(())
}

/// Arms a trap: the `calls`-th `compact` / `compactWithTier` / `runLegacyCompaction` call from
/// now to finish its work traps inside its own poll of the async executor, just before its
/// promise would settle (so other calls are typically in flight at that moment).
#[wasm_bindgen(js_name = testArmTrap)]
pub fn test_arm_trap(calls: u32, kind_name: &str) -> Result<(), JsValue> {
    let kind = kind(kind_name)?;
    ARMED.with(|armed| armed.set((calls > 0).then_some((calls, kind))));
    Ok(())
}

/// Called by `settle` (test-trap builds only): fires an armed trap when its count is reached.
pub fn on_settle() {
    let due = ARMED.with(|armed| {
        let (calls, kind) = armed.get()?;
        armed.set((calls > 1).then_some((calls - 1, kind)));
        (calls == 1).then_some(kind)
    });
    if let Some(kind) = due {
        fire(kind);
    }
}

fn fire(kind: Kind) {
    match kind {
        Kind::Unreachable => core::arch::wasm32::unreachable(),
        Kind::Oom => loop {
            // Never ends: the allocation that fails aborts (`handle_alloc_error`), which traps.
            let block: Vec<u8> = Vec::with_capacity(64 << 20);
            std::mem::forget(black_box(block));
        },
        Kind::Stack => {
            black_box(big_frames(0));
        }
        Kind::Recursion => {
            black_box(small_frames(0));
        }
        Kind::Throw => wasm_bindgen::throw_str("testTrap: a JS exception thrown through wasm"),
    }
}

#[inline(never)]
fn big_frames(depth: u64) -> u64 {
    if depth == u64::MAX {
        return 0;
    }
    // A frame the optimiser cannot keep in registers: it lives on the shadow stack.
    let frame = black_box([depth as u8; 1024]);
    big_frames(depth + 1).wrapping_add(u64::from(frame[black_box(7)]))
}

#[inline(never)]
fn small_frames(depth: u64) -> u64 {
    if depth == u64::MAX {
        return 0;
    }
    black_box(small_frames(depth + 1)) ^ depth
}

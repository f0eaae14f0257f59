//! What the fuzz targets share: the integration tests' helpers (`tests/common`: the fake
//! summariser, `restore`, the conversation generator's types and renderers), a decoder from fuzz
//! bytes to a generated conversation ([`decode`]), and the invariant checks of `docs/design.md` ([`checks`]),
//! which panic — a crash to libFuzzer — on the first violation.

#[path = "../../tests/common/mod.rs"]
pub mod common;

pub mod checks;
pub mod decode;

use common::{FakeSummariser, Mode};

/// The summariser behaviours a target can pick: none, or one of the fake's modes.
pub const SUMMARISERS: [Option<Mode>; 6] = [
    None,
    Some(Mode::Good),
    Some(Mode::Long),
    Some(Mode::Reject),
    Some(Mode::Empty),
    Some(Mode::NotString),
];

/// A fake summariser for `mode` (`None` → none).
pub fn summariser(mode: Option<Mode>) -> Option<FakeSummariser> {
    mode.map(FakeSummariser::new)
}

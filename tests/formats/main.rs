//! The format adapters' tests. `harness` runs every fixture case under `tests/fixtures/formats/`
//! (a folder per format, a folder per case: its input and what each operation gives); `gemini`
//! and `responses` run every tier on agent runs of those formats. Adding a format is one
//! adapter file, one line in `formats::registry` and a folder of fixtures (`tests/README.md`).

#[path = "../common/mod.rs"]
mod common;
mod gemini;
mod harness;
mod responses;

#[test]
fn fixtures() {
    harness::run();
}

//! `tc-wasm-bindgen WASM --out-dir DIR`: writes what
//! `wasm-bindgen WASM --out-dir DIR --no-typescript --target web` writes (the command wasm-pack runs
//! for scripts/build.mjs's flags), with the same library the wasm-bindgen CLI is a front end of,
//! configured as the CLI configures it for those arguments (its `rmain`, every other flag at its
//! default). It exists because the CLI package also builds a test runner with an HTTP server and
//! client, which triples what `npm start` compiles on a fresh clone; `npm test` checks that its
//! output is byte-identical to wasm-pack's (scripts/wasm-build.mjs --compare).
use std::process::ExitCode;

use wasm_bindgen_cli_support::Bindgen;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.as_slice() {
        [flag] if flag == "--version" => {
            println!("tc-wasm-bindgen {}", env!("CARGO_PKG_VERSION"));
            ExitCode::SUCCESS
        }
        [input, flag, out_dir] if flag == "--out-dir" => match generate(input, out_dir) {
            Ok(()) => ExitCode::SUCCESS,
            Err(error) => {
                eprintln!("error: {error:?}");
                ExitCode::FAILURE
            }
        },
        _ => {
            eprintln!("usage: tc-wasm-bindgen WASM --out-dir DIR   (or --version)");
            ExitCode::from(2)
        }
    }
}

/// The calls of the CLI's `rmain` for `--target web --no-typescript --out-dir DIR`, in its order
/// (no `--out-name`, `--encode-into`, `--no-modules-global` or `--debug-info-url`: not called).
#[allow(deprecated)] // reference_types: the CLI still sets it (to its default, false).
fn generate(input: &str, out_dir: &str) -> anyhow::Result<()> {
    let mut bindgen = Bindgen::new();
    bindgen.web(true)?;
    bindgen
        .input_path(input)
        .nodejs(false)?
        .web(false)?
        .browser(false)?
        .no_modules(false)?
        .debug(false)
        .demangle(true)
        .keep_lld_exports(false)
        .keep_debug(false)
        .split_debug_info(false)
        .remove_name_section(false)
        .remove_producers_section(false)
        .typescript(false)
        .omit_imports(false)
        .omit_default_module_path(false)
        .split_linked_modules(false)
        .js_string_builtins(false)
        .ts_typed_array_buffers(false)
        .reference_types(false)
        .reset_state_function(false)
        .force_enable_abort_handler(false);
    bindgen.generate(out_dir)
}

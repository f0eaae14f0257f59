//! The JS binding: the only code that touches wasm-bindgen / js-sys. STUB: being written.

//! Byte- and character-level machinery the rest of the crate builds on: nothing here knows what
//! a message, a tier or a format is. Each module depends only on the standard library, its
//! crates and other `base` modules.

pub mod base64;
pub mod bytes;
pub mod cut;
pub mod decimal;
pub(crate) mod grapheme;
pub mod hash;
pub(crate) mod json;
pub mod marker;
pub(crate) mod sort;

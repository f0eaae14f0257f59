//! The edge-proxy path: a provider request body as a JSON string in, the same body with its
//! message list compacted out. `scan` checks the body in one pass for `layout`, which finds the
//! list and its elements; `format` tells the list's format; `body` runs the engine and `splice`
//! writes the changed messages into the original bytes, reading and writing through a `source`
//! (the caller's `&str`, or the JS binding's string).

pub mod body;
pub(crate) mod format;
pub(crate) mod layout;
pub mod restore;
pub(crate) mod scan;
pub mod source;
pub mod span;
pub(crate) mod splice;
pub(crate) mod write;

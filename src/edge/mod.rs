//! The edge-proxy path: a provider request body as a JSON string in, the same body with its
//! message list compacted out. `scan` checks and lays out the body in one pass, `elision` reads
//! its messages with long strings known by their facts, `body` runs the engine and splices the
//! changed messages back into the original bytes, reading and writing through a `source` (the
//! caller's `&str`, or the JS binding's string).

pub mod body;
pub(crate) mod elision;
pub mod restore;
pub(crate) mod scan;
pub(crate) mod source;
pub(crate) mod span;
pub(crate) mod write;

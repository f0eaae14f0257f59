//! What detection records of a message: where evidence of a format was found ([`Field`]) and
//! what ([`Seen`]). The adapters declare their evidence in these words; `detect` weighs it.

/// Where in a message evidence was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Field {
    /// A field of the message (`role`, `tool_calls`).
    Named(&'static str),
    /// The `type` of the content part at this index.
    PartType(usize),
}

/// What was seen, as an error message quotes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Seen<'v> {
    /// Words written as they are (`"tool_calls"`, `null`).
    Words(&'static str),
    /// A part type, quoted as JSON would (`"tool_use"`).
    PartType(&'v str),
}

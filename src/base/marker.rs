//! [`Opening`]: how a binding's per-call placeholders begin — a NUL, the call's nonce and a kind
//! character — and the test whether a text mentions one. Shared by the binding's long-string
//! placeholders (`wasm::skeleton`) and the host-value placeholders (`crate::api::host_value`).

/// `\0{nonce}{kind}`: the opening of every placeholder of one kind in one call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Opening(String);

impl Opening {
    /// The opening for `nonce` (letters and digits only) and `kind`.
    pub fn new(nonce: &str, kind: char) -> Self {
        Self(format!("\u{0}{nonce}{kind}"))
    }

    /// The opening's text.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Whether `text` holds this opening anywhere, raw or JSON-escaped (`\u0000`): a text built
    /// from placeholders (joined, serialised) that is not one itself.
    pub fn mentions(&self, text: &str) -> bool {
        // A placeholder brings a NUL, raw or escaped: one byte scan settles most texts before a
        // substring search is set up.
        memchr::memchr2(0, b'\\', text.as_bytes()).is_some() && text.contains(&self.0[1..])
    }
}

//! What is known of a binary value (an image or file the host holds as bytes): its length and
//! the SHA-256 of its bytes. The bytes themselves stay with the host (see
//! [`crate::api::host_value`]); the core measures the value as the base64 text a provider request
//! would carry, and names it by its hash.

/// The facts of a binary value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Binary {
    /// Its length in bytes.
    pub bytes: u64,
    /// The SHA-256 of its bytes, 64 lowercase hex digits.
    pub sha256: String,
    /// An image's size, read from the first bytes the binding sent with the facts.
    pub size: Option<crate::media::header::Size>,
}

impl Binary {
    /// The length of its base64 text: what it is measured and counted by.
    pub fn base64_len(&self) -> u64 {
        crate::base::base64::encoded_len(self.bytes)
    }
}

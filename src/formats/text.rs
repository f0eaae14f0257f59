//! STUB: being written.

use crate::error::Result;
use crate::formats::Applied;
use crate::plan::Edit;
use crate::transcript::Transcript;

/// Reads flat text.
pub fn read(_text: &str) -> Transcript {
    todo!()
}

/// Applies edits to flat text.
pub fn apply(_text: &str, _transcript: &Transcript, _edits: &[Edit]) -> Result<Applied<String>> {
    todo!()
}

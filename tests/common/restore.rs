//! Restores a tier's input from its output and archive, the way a host would: through the
//! library's own `restore`, which must never fail on a result it made.

use tiered_compaction::{ArchiveEntry, ContextData};

/// The input, rebuilt from `output` and `archive`.
pub fn restore(output: &ContextData, archive: &[ArchiveEntry]) -> ContextData {
    tiered_compaction::restore(output, archive).expect("a result's own archive restores")
}

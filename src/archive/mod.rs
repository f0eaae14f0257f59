//! What a tier removed, and the ways back to it: [`restore`] (the input again, from a result and
//! its archive), [`recall`] (one pruned body by the id its stub names) and [`trace`] (the JSONL
//! trace step that records a compaction).

pub mod recall;
pub mod restore;
pub mod trace;

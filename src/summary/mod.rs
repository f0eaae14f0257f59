//! What the summarising tiers (auto, session_memory) hand over and write: the [`summarise`]
//! request and its answer, structural [`digest`]s when there is no summariser, [`must_keep`] (what
//! a summary has to carry verbatim) and the user's [`directives`].

pub mod digest;
pub mod directives;
pub mod must_keep;
pub mod summarise;

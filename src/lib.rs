//! # tiered-compaction
//!
//! Decides, turn by turn, how an LLM agent's context is compacted and how much to spend doing it,
//! and does the compaction. A policy ([`select_tier`]) picks exactly one tier per call from the
//! session's [`BudgetPressure`]; each tier (`tiers/`) plans edits over one internal
//! [`transcript::Transcript`]; format adapters (`formats/`) read the host's messages (OpenAI,
//! Anthropic, AI SDK, flat text) and apply the plan without touching what did not change.
//!
//! Layout: `pressure` → `policy` → `tiers/*` (each with trigger, weight, compact) over
//! `transcript/*`, through `formats/*`; `summarise` (the delegated summariser and its guards),
//! `digest` (structural fallback), `trace` (the JSONL step), `engine` (entry points), `legacy`.
//! This crate's core is plain Rust; `wasm/` is the only code that knows about JavaScript.
// The core has no unsafe code. The binding has one use, allowed where it is (`wasm/text.rs`:
// encoding a large JS string straight into wasm memory).
#![cfg_attr(not(target_arch = "wasm32"), forbid(unsafe_code))]
#![cfg_attr(target_arch = "wasm32", deny(unsafe_code))]
#![warn(missing_docs)]

pub mod base;
pub mod config;
pub mod context;
pub mod digest;
pub mod edge;
pub mod elision;
pub mod engine;
pub mod error;
pub mod formats;
pub mod input;
pub mod legacy;
pub mod limits;
pub mod markers;
pub mod must_keep;
pub mod plan;
pub mod policy;
pub mod pressure;
pub mod recall;
pub mod restore;
pub mod result;
pub mod salient;
pub mod summarise;
pub mod tier;
pub mod tiers;
pub mod tokens;
pub mod trace;
pub mod transcript;
pub mod working;

pub use context::{CompactOptions, ContextInput, FormatChoice, TierContext};
pub use edge::body::compact_request_body;
pub use engine::{compact, compact_owned, compact_with_tier, compact_with_tier_owned};
pub use error::{CompactionError, ErrorKind};
pub use legacy::run_legacy_compaction;
pub use limits::Limits;
pub use policy::{PolicyConfig, Selection, explain_selection, select_tier};
pub use pressure::BudgetPressure;
pub use restore::restore;
pub use result::{ArchiveEntry, ContextData, SummariserUsage, TierResult};
pub use summarise::{Summariser, SummariserFailure, SummaryAnswer, SummaryRequest};
pub use tier::{TIER_COST_WEIGHT, Tier};
pub use tokens::{SeedRule, TokenCounter, estimate_tokens};
pub use trace::record_tier_event;

#[cfg(target_arch = "wasm32")]
mod wasm;

//! # tiered-compaction
//!
//! Decides, turn by turn, how an LLM agent's context is compacted and how much to spend doing it,
//! and does the compaction. A policy ([`select_tier`]) picks exactly one tier per call from the
//! session's [`BudgetPressure`]; each tier (`tiers/`) plans edits over one internal
//! [`transcript::Transcript`]; format adapters (`formats/`, registered once in
//! [`formats::registry`]) read the host's messages (OpenAI Chat Completions and Responses,
//! Anthropic, AI SDK, Gemini, flat text) and apply the plan without touching what did not change. `docs/design.md` in the repository
//! describes the tiers, the invariants and the formats.
//!
//! Layout by role: [`api`] (what a call takes and returns), [`formats`] (adapters), [`repair`],
//! [`transcript`] (the model), [`policy`] (`select_tier` and what it reads), [`tiers`] (one file
//! per tier), [`plan`] (edits, the working copy, the loop's state), [`summary`], [`archive`]
//! (restore, recall, trace), [`engine`] (entry points), [`edge`] (request bodies), and beneath
//! them [`config`], [`tokens`], [`media`], [`salient`] and [`base`]. This crate is plain Rust and
//! knows nothing of JavaScript; the binding crate (`binding/` in the repository) converts JS
//! values, calls it and converts back. `docs/design.md` §2 draws the data flow.
//!
//! ## Glossary
//!
//! - **Step**: one model call: an assistant message and the tool results that answer it (where a
//!   call is stored as several items, the Responses API, its consecutive output items). Ages and
//!   the tail are counted in steps ([`transcript::steps`]).
//! - **Bound message**: one that stays directly before the next one; a range edit takes both or
//!   neither (a Responses `reasoning` item and the item after it).
//! - **Server history**: a Responses request with `previous_response_id` or `conversation`
//!   continues a conversation the provider stores: a result whose call is not in the list answers
//!   a stored call.
//! - **Protected tail**: the newest `keepRecentSteps` steps plus the newest message with user
//!   words; no tier alters it ([`transcript::protect`]).
//! - **User words**: text the user wrote (user messages other than tool results). A **directive**
//!   is user-written text of at most 2,000 characters.
//! - **Stub**: what stands in for a removed body: its first characters, the lines that matter,
//!   its last line, its paths, and a marker naming the archive entry to recall it by
//!   ([`tiers::stub`]).
//! - **Lines that matter**: lines naming an error, exception, failure, panic or traceback
//!   ([`salient`]).
//! - **Archive entry**: what an edit removed, exactly, with where it was and what replaced it;
//!   its id is what a stub names ([`ArchiveEntry`], [`plan::archive_id`]).
//! - **Plan**: a tier's edits over a transcript, applied by a format's adapter ([`plan::Plan`]).
//! - **Working context**: the context while a tier compacts it, borrowed where unchanged
//!   ([`plan::working::Working`]; `Current` is its messages or text as they stand).
//! - **Run**: a stretch of tool calls and results outside protected content, closed under
//!   pairing, that auto replaces by a digest or a summary.
//! - **Digest**: the structural summary written without a model ([`summary::digest`]).
//! - **Skeleton** (binding): the JSON of the host's messages with long strings and host values
//!   replaced by placeholders, read in one crossing; the long strings are copied in on their own
//!   and put back before the core reads the messages.
//! - **Host value**: binary data (an image as bytes) or a URL object that the binding keeps in
//!   the host; the core knows binary data by its length and hash ([`api::host_value`],
//!   [`transcript::binary`]) and counts it as its base64 text.
//! - **Window** (binding): the private-use characters a call's lone UTF-16 surrogates cross as,
//!   one for one, mapped back on the way out (`docs/design.md` §8).
//! - **Rule**: the words of the trigger that selected a tier (`TierResult.reason`).
//! - **Edge path**: [`compact_request_body`], a provider request body in and out as a string.

// The core has no unsafe code (the binding crate has one use, allowed where it is).
#![forbid(unsafe_code)]
#![warn(missing_docs)]

// The documented API: the root re-exports below and these modules' public items.
pub mod api;
pub mod archive;
pub mod config;
pub mod error;
pub mod policy;
pub mod summary;
pub mod tokens;

// Public for the binding crate (binding/), the integration tests, benches and fuzz targets,
// not a stable API: hidden from the documentation.
#[doc(hidden)]
pub mod base;
#[doc(hidden)]
pub mod edge;
#[doc(hidden)]
pub mod engine;
#[doc(hidden)]
pub mod formats;
#[doc(hidden)]
pub mod plan;
#[doc(hidden)]
pub mod repair;
#[doc(hidden)]
pub mod tiers;
#[doc(hidden)]
pub mod transcript;

// Used only inside the core.
mod media;
mod salient;

pub use api::context::{CompactOptions, ContextInput, FormatChoice, TierContext};
pub use api::limits::Limits;
pub use api::result::{ArchiveEntry, ContextData, SummariserUsage, TierResult};
pub use archive::restore::restore;
pub use archive::trace::record_tier_event;
pub use edge::body::{BodyRequest, compact_request_body, compact_request_body_in_loop};
pub use engine::legacy::run_legacy_compaction;
pub use engine::{compact, compact_owned, compact_with_tier, compact_with_tier_owned};
pub use error::{CompactionError, ErrorKind};
pub use policy::pressure::BudgetPressure;
pub use policy::tier::{TIER_COST_WEIGHT, Tier};
pub use policy::{PolicyConfig, Selection, explain_selection, select_tier};
pub use summary::summarise::{Summariser, SummariserFailure, SummaryAnswer, SummaryRequest};
pub use tokens::{SeedRule, TokenCounter, estimate_tokens};

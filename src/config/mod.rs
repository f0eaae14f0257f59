//! Settings: the policy's thresholds ([`PolicyConfig`]), each declared once in one table, and the
//! machinery that reads them from a host's options object and checks them.

mod cache;
mod policy;
mod setting;
mod source;
mod table;

pub use cache::{CacheConfig, DEFAULT_BATCH_TOKENS, MIN_REMAINING_STEPS};
pub use policy::{PolicyConfig, RENAMED};
pub use setting::{FieldSpec, Kind, Setting};
pub use source::{FieldSource, JsonFields, reject_unknown};

//! A `TierResult`'s plain fields as one JSON text for one `JSON.parse` (one boundary call, not
//! one per field; and no setter on `Object.prototype` is called). The host's own or converted
//! values (`messages`, `text`, each entry's `content`) are `null` in their place, set afterwards.

use compaction::api::result::{ArchiveEntry, ContextData, TierResult};
use serde::ser::{Serialize, SerializeMap, Serializer};

/// The plain fields of `result`; `with_context` writes the `messages` / `text` key.
pub struct Plain<'a> {
    /// The result.
    pub result: &'a TierResult,
    /// Whether the context's key is written.
    pub with_context: bool,
}

impl Serialize for Plain<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let result = self.result;
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("tier", result.tier.as_str())?;
        if self.with_context {
            let key = match result.context {
                ContextData::Messages(_) => "messages",
                ContextData::Text(_) => "text",
            };
            map.serialize_entry(key, &())?;
        }
        map.serialize_entry("beforeTokens", &result.before_tokens)?;
        map.serialize_entry("afterTokens", &result.after_tokens)?;
        map.serialize_entry("tokensSaved", &result.tokens_saved)?;
        map.serialize_entry("costEstimate", &result.cost_estimate)?;
        map.serialize_entry("correlationId", &result.correlation_id)?;
        map.serialize_entry("reason", &result.reason)?;
        map.serialize_entry("archive", &Entries(&result.archive))?;
        if let Some(summary) = &result.summary {
            map.serialize_entry("summary", summary)?;
        }
        if result.degraded {
            map.serialize_entry("degraded", &true)?;
        }
        if !result.warnings.is_empty() {
            map.serialize_entry("warnings", &result.warnings)?;
        }
        if let Some(usage) = &result.summariser_usage {
            map.serialize_entry("summariserUsage", usage)?;
        }
        if let Some(cache) = &result.cache {
            map.serialize_entry("cache", cache)?;
        }
        if let Some(state) = &result.state {
            map.serialize_entry("state", state)?;
        }
        map.serialize_entry("format", result.format)?;
        map.end()
    }
}

/// The archive, each entry's `content` left to be set.
struct Entries<'a>(&'a [ArchiveEntry]);

impl Serialize for Entries<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.0.iter().map(Entry))
    }
}

/// An archive entry, its `content` left to be set.
struct Entry<'a>(&'a ArchiveEntry);

impl Serialize for Entry<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(5))?;
        map.serialize_entry("id", &self.0.id)?;
        map.serialize_entry("kind", self.0.kind)?;
        map.serialize_entry("content", &())?;
        map.serialize_entry("location", &self.0.location)?;
        map.serialize_entry("replacement", &self.0.replacement)?;
        map.end()
    }
}

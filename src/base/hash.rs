//! Sets and maps keyed by tool ids, hashed with foldhash instead of the standard SipHash: the
//! pairing checks build several per call, and SipHash was about a tenth of a structural call in
//! wasm. Every table of the crate uses these (serde_json's maps use foldhash too), so SipHash is
//! not linked at all. A fixed seed: these tables are never iterated where order shows, and ids
//! are the host's own data, not an attacker's.

/// A hash set with foldhash.
pub type FastSet<T> = std::collections::HashSet<T, foldhash::fast::FixedState>;

/// A hash map with foldhash.
pub type FastMap<K, V> = std::collections::HashMap<K, V, foldhash::fast::FixedState>;

//! Where the server's documents come from: a small sync trait (so a blocking database client
//! fits behind it) and an in-memory implementation filled by the seeded shapes generator.

use bytes::Bytes;
use jsoncost_shapes::Generator;

/// Why a source could not answer.
#[derive(Debug, thiserror::Error)]
pub enum SourceError {
    /// The backend failed to answer.
    #[error("{source_name}: reading {what} failed: {message}")]
    Backend {
        /// The source, e.g. the store's URL.
        source_name: String,
        /// What was read (a document).
        what: String,
        /// The backend's error.
        message: String,
    },
    /// The backend answered with bytes that are not what was stored.
    #[error("{source_name}: {what} is not valid stored data: {message}")]
    Corrupt {
        /// The source, e.g. the store's URL.
        source_name: String,
        /// What was read (a document).
        what: String,
        /// What is wrong with it.
        message: String,
    },
}

/// The documents the reference API serves, as stored JSON bytes.
///
/// Calls are synchronous; a source whose calls block (a database client) says so with
/// [`ItemSource::is_blocking`] and the server then calls it from the blocking thread pool.
pub trait ItemSource: Send + Sync + 'static {
    /// A short name for errors and reports (`memory`, `redb:///tmp/x.redb`, ...).
    fn name(&self) -> String;
    /// The stored bytes of item `id` (~1.7 KB), or `None` if there is no such item.
    fn item(&self, id: u64) -> Result<Option<Bytes>, SourceError>;
    /// The stored bytes of the first `count` list entries (~760 B each), in order.
    /// `count` never exceeds [`ItemSource::list_len`].
    fn list(&self, count: usize) -> Result<Vec<Bytes>, SourceError>;
    /// How many list entries the source holds.
    fn list_len(&self) -> usize;
    /// True if calls block the thread (I/O); false if they only touch memory.
    fn is_blocking(&self) -> bool {
        false
    }
}

/// Items and list entries generated once and held in memory as serde_json bytes.
pub struct MemorySource {
    items: Vec<Bytes>,
    list: Vec<Bytes>,
}

/// Items ids run `1..=DEFAULT_ITEMS` in the default source.
pub const DEFAULT_ITEMS: u64 = 1000;
/// List entries held by the default source (the largest `count` it serves).
pub const DEFAULT_LIST_LEN: usize = 1000;

impl MemorySource {
    /// Items with ids `1..=items` (`Generator::item`) and list entries with ids `1..=list_len`
    /// (`Generator::list_item`), from two generators seeded with `seed` and `seed + 1`.
    pub fn generate(items: u64, list_len: usize, seed: u64) -> Self {
        let mut g = Generator::new(seed);
        // serde_json cannot fail on these types: no maps with non-string keys, no I/O.
        let items = (1..=items)
            .map(|id| Bytes::from(serde_json::to_vec(&g.item(id)).expect("item serializes")))
            .collect();
        let mut g = Generator::new(seed.wrapping_add(1));
        let list = (1..=list_len as u64)
            .map(|id| Bytes::from(serde_json::to_vec(&g.list_item(id)).expect("list item serializes")))
            .collect();
        MemorySource { items, list }
    }

    /// [`DEFAULT_ITEMS`] items and [`DEFAULT_LIST_LEN`] list entries from `DEFAULT_SEED`.
    pub fn default_data() -> Self {
        Self::generate(DEFAULT_ITEMS, DEFAULT_LIST_LEN, jsoncost_shapes::DEFAULT_SEED)
    }
}

/// Items `1..=count` as (id, serde_json bytes), from a generator seeded with `seed`.
pub fn item_documents(count: u64, seed: u64) -> impl Iterator<Item = (u64, Vec<u8>)> {
    let mut g = Generator::new(seed);
    // serde_json cannot fail on these types: no maps with non-string keys, no I/O.
    (1..=count).map(move |id| (id, serde_json::to_vec(&g.item(id)).expect("an item serializes")))
}

/// List entries `1..=count` as (id, serde_json bytes), from a generator seeded with `seed + 1`.
pub fn list_documents(count: usize, seed: u64) -> impl Iterator<Item = (u64, Vec<u8>)> {
    let mut g = Generator::new(seed.wrapping_add(1));
    (1..=count as u64).map(move |id| (id, serde_json::to_vec(&g.list_item(id)).expect("a list item serializes")))
}

impl ItemSource for MemorySource {
    fn name(&self) -> String {
        "memory".to_string()
    }

    fn item(&self, id: u64) -> Result<Option<Bytes>, SourceError> {
        let index = id.checked_sub(1).and_then(|i| usize::try_from(i).ok());
        Ok(index.and_then(|i| self.items.get(i)).cloned())
    }

    fn list(&self, count: usize) -> Result<Vec<Bytes>, SourceError> {
        Ok(self.list[..count.min(self.list.len())].to_vec())
    }

    fn list_len(&self) -> usize {
        self.list.len()
    }
}

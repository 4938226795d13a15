//! The API's documents in a jsoncost store (redb by default, or any store URL): loaded once
//! with the same generated documents as [`crate::MemorySource`], read raw on every request.

use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

use bytes::Bytes;
use jsoncost_stores::{LoadMarker, OpenOptions, Store, StoreError, StoreKind, ensure_loaded};

use crate::source::{ItemSource, SourceError, item_documents, list_documents};

/// Collection of the items (~1.7 KB each), keyed by the decimal id.
pub const ITEM_COLLECTION: &str = "http_item";
/// Collection of the list entries (~760 B each), keyed by the decimal id.
pub const LIST_COLLECTION: &str = "http_list";

/// What to load into a store for the API.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StoreData {
    /// Items to load (ids from 1).
    pub items: u64,
    /// Entries of the list.
    pub list_len: usize,
    /// The generator's seed.
    pub seed: u64,
}

impl Default for StoreData {
    fn default() -> Self {
        StoreData {
            items: crate::source::DEFAULT_ITEMS,
            list_len: crate::source::DEFAULT_LIST_LEN,
            seed: jsoncost_shapes::DEFAULT_SEED,
        }
    }
}

impl StoreData {
    fn marker(docs: u64, what: &str, seed: u64) -> LoadMarker {
        LoadMarker {
            docs,
            description: format!("http {what} seed={seed:#x} generator=jsoncost-shapes {}", env!("CARGO_PKG_VERSION")),
        }
    }

    /// Loads both collections into `store` unless it already holds them (or `force`).
    pub fn ensure_loaded(&self, store: &mut dyn Store, force: bool) -> Result<(), StoreError> {
        let seed = self.seed;
        ensure_loaded(store, ITEM_COLLECTION, &Self::marker(self.items, "items", seed), force, || {
            item_documents(self.items, seed).map(|(id, doc)| (id.to_string(), doc))
        })?;
        ensure_loaded(
            store,
            LIST_COLLECTION,
            &Self::marker(self.list_len as u64, "list", seed),
            force,
            || list_documents(self.list_len, seed).map(|(id, doc)| (id.to_string(), doc)),
        )?;
        Ok(())
    }
}

/// A pool of open store clients. The `Store` trait is synchronous and takes `&mut self`, so
/// each client serves one read at a time; the server calls this source from its blocking pool.
pub struct StoreSource {
    stores: Vec<Mutex<Box<dyn Store>>>,
    next: AtomicUsize,
    name: String,
    list_len: usize,
}

impl StoreSource {
    /// Opens `clients` clients of the store at `url` (one for redb, whose file one process
    /// opens once), loads `data` if the store does not hold it yet, and serves from them. No
    /// `url`: the default store ([`jsoncost_stores::open_or_default`]); [`ItemSource::name`]
    /// says which file.
    pub fn open(url: Option<&str>, options: &OpenOptions, clients: usize, data: &StoreData) -> Result<Self, StoreError> {
        let mut first = jsoncost_stores::open_or_default(url, options)?;
        data.ensure_loaded(first.as_mut(), false)?;
        let clients = if first.kind() == StoreKind::Redb { 1 } else { clients.max(1) };
        let mut stores = vec![first];
        for _ in 1..clients {
            stores.push(jsoncost_stores::open_or_default(url, options)?);
        }
        Self::from_stores(stores)
    }

    /// Serves from already opened (and loaded) clients of one store.
    pub fn from_stores(mut stores: Vec<Box<dyn Store>>) -> Result<Self, StoreError> {
        let first = stores.first_mut().ok_or_else(|| StoreError::BadUrl {
            url: String::new(),
            reason: "no store client given".into(),
        })?;
        let name = first.describe();
        let list_len = first
            .loaded(LIST_COLLECTION)?
            .ok_or_else(|| StoreError::NotLoaded {
                store: name.clone(),
                collection: LIST_COLLECTION.into(),
            })?
            .docs as usize;
        Ok(StoreSource {
            stores: stores.into_iter().map(Mutex::new).collect(),
            next: AtomicUsize::new(0),
            name,
            list_len,
        })
    }

    /// A free client, else (all busy) the next one in turn, waited for.
    fn client(&self) -> std::sync::MutexGuard<'_, Box<dyn Store>> {
        let start = self.next.fetch_add(1, Relaxed);
        let n = self.stores.len();
        for i in 0..n {
            if let Ok(guard) = self.stores[(start + i) % n].try_lock() {
                return guard;
            }
        }
        // A client poisoned by a panic mid-read is still a usable connection object.
        self.stores[start % n].lock().unwrap_or_else(|e| e.into_inner())
    }

    fn read(&self, store: &mut dyn Store, collection: &str, id: u64) -> Result<Option<Bytes>, SourceError> {
        let mut out = None;
        match store.read_raw(collection, &id.to_string(), &mut |bytes| out = Some(Bytes::copy_from_slice(bytes))) {
            Ok(()) => Ok(out),
            Err(StoreError::NotFound { .. }) => Ok(None),
            Err(e) => Err(SourceError::Backend {
                source_name: self.name.clone(),
                what: format!("{collection} {id}"),
                message: e.to_string(),
            }),
        }
    }
}

impl ItemSource for StoreSource {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn item(&self, id: u64) -> Result<Option<Bytes>, SourceError> {
        let mut store = self.client();
        self.read(store.as_mut(), ITEM_COLLECTION, id)
    }

    fn list(&self, count: usize) -> Result<Vec<Bytes>, SourceError> {
        let mut store = self.client();
        (1..=count.min(self.list_len) as u64)
            .map(|id| {
                self.read(store.as_mut(), LIST_COLLECTION, id)?.ok_or_else(|| SourceError::Corrupt {
                    source_name: self.name.clone(),
                    what: format!("{LIST_COLLECTION} {id}"),
                    message: "missing from a loaded collection".into(),
                })
            })
            .collect()
    }

    fn list_len(&self) -> usize {
        self.list_len
    }

    fn is_blocking(&self) -> bool {
        true
    }
}

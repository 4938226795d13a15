//! Loading: what a collection holds (the load marker), the order documents the store
//! experiment reads, and the idempotent "reuse or (re)load" step.

use std::time::{Duration, Instant};

use jsoncost_shapes::{Generator, order_id};

use crate::error::StoreError;
use crate::store::{LoadMarker, Store};

/// `count` order documents with ids `order_id(0..count)`, generated from `seed` with `lines`
/// lines each (`ORDER_LINES` for `order`, `ORDER_LARGE_LINES` for `order-large`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OrderDocs {
    /// Documents to generate, ids `order_id(0)` to `order_id(count - 1)`.
    pub count: u64,
    /// Lines per order.
    pub lines: usize,
    /// The generator's seed.
    pub seed: u64,
}

impl OrderDocs {
    /// The marker a collection loaded with these documents holds.
    pub fn marker(&self) -> LoadMarker {
        LoadMarker {
            docs: self.count,
            description: format!(
                "orders lines={} seed={:#x} generator=jsoncost-shapes {}",
                self.lines,
                self.seed,
                env!("CARGO_PKG_VERSION")
            ),
        }
    }

    /// The documents as (id, raw JSON), generated lazily.
    pub fn documents(&self) -> impl Iterator<Item = (String, Vec<u8>)> + use<> {
        let mut generator = Generator::new(self.seed);
        let lines = self.lines;
        (0..self.count).map(move |i| {
            let order = generator.order(i, lines);
            let json = serde_json::to_vec(&order).expect("an Order always serializes");
            (order.id, json)
        })
    }

    /// The id of the document at `index`.
    pub fn id(index: u64) -> String {
        order_id(index)
    }
}

/// What [`ensure_loaded`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LoadOutcome {
    /// The collection already held documents with the wanted marker.
    Reused(LoadMarker),
    /// The collection was (re)loaded with this many documents.
    Loaded {
        /// Documents written.
        docs: u64,
        /// How long the load took.
        elapsed: Duration,
    },
}

/// Reuses `collection` when it already holds `marker`'s documents, otherwise (or when `force`)
/// replaces its contents with `docs()`.
pub fn ensure_loaded<I>(
    store: &mut dyn Store,
    collection: &str,
    marker: &LoadMarker,
    force: bool,
    docs: impl FnOnce() -> I,
) -> Result<LoadOutcome, StoreError>
where
    I: Iterator<Item = (String, Vec<u8>)>,
{
    if !force && store.loaded(collection)?.as_ref() == Some(marker) {
        return Ok(LoadOutcome::Reused(marker.clone()));
    }
    let started = Instant::now();
    let mut docs = docs();
    let loaded = store.load(collection, &mut docs, marker)?;
    Ok(LoadOutcome::Loaded {
        docs: loaded,
        elapsed: started.elapsed(),
    })
}

/// Collection names reach key patterns and table names: keep them plain.
pub(crate) fn check_collection(name: &str) -> Result<(), StoreError> {
    let plain = (1..=64).contains(&name.len()) && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
    if plain {
        Ok(())
    } else {
        Err(StoreError::BadCollection { name: name.to_string() })
    }
}

/// The marker a load records: the documents actually written, with the caller's description.
pub(crate) fn written_marker(docs: u64, wanted: &LoadMarker) -> LoadMarker {
    LoadMarker {
        docs,
        description: wanted.description.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn order_docs_are_distinct_and_deterministic() {
        let docs = OrderDocs {
            count: 3,
            lines: 2,
            seed: 7,
        };
        let first: Vec<_> = docs.documents().collect();
        let again: Vec<_> = docs.documents().collect();
        assert_eq!(first, again);
        let ids: Vec<_> = first.iter().map(|(id, _)| id.clone()).collect();
        assert_eq!(ids, vec![OrderDocs::id(0), OrderDocs::id(1), OrderDocs::id(2)]);
        let order: jsoncost_shapes::Order = serde_json::from_slice(&first[1].1).unwrap();
        assert_eq!(order.id, OrderDocs::id(1));
        assert_eq!(order.lines.len(), 2);
        assert_ne!(docs.marker(), OrderDocs { seed: 8, ..docs }.marker());
        assert_eq!(docs.marker().docs, 3);
    }

    #[test]
    fn collection_names_are_checked() {
        assert!(check_collection("order-large_2").is_ok());
        for bad in ["", "a*", "a:b", "a b", "{x}", &"x".repeat(65)] {
            assert!(matches!(check_collection(bad), Err(StoreError::BadCollection { .. })), "{bad:?}");
        }
    }
}

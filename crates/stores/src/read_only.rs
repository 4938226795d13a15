//! A store opened to read a user's own documents ([`crate::Access::ReadOnly`]): only the reads
//! of [`Existing`] documents reach the client; everything that would load, or that reads
//! jsoncost's own tables (which such a store need not have), is refused with
//! [`StoreError::ReadOnly`]. The backends open themselves without writing in this mode too
//! (SQLite read-only, no DDL in PostgreSQL, redb read-only); this wrapper keeps the rest of
//! the trait from reaching them.

use jsoncost_shapes::Order;

use crate::error::StoreError;
use crate::existing::Existing;
use crate::location::StoreKind;
use crate::store::{LoadMarker, Store};

pub(crate) struct ReadOnly(pub(crate) Box<dyn Store>);

impl ReadOnly {
    fn refuse(&self, operation: &str) -> StoreError {
        StoreError::read_only(&self.0.describe(), operation)
    }
}

impl Store for ReadOnly {
    fn kind(&self) -> StoreKind {
        self.0.kind()
    }

    fn describe(&self) -> String {
        self.0.describe()
    }

    fn loaded(&mut self, collection: &str) -> Result<Option<LoadMarker>, StoreError> {
        Err(self.refuse(&format!("reading the load marker of {collection:?}")))
    }

    fn load(&mut self, collection: &str, _: &mut dyn Iterator<Item = (String, Vec<u8>)>, _: &LoadMarker) -> Result<u64, StoreError> {
        Err(self.refuse(&format!("loading {collection:?}")))
    }

    fn read_raw(&mut self, collection: &str, _: &str, _: &mut dyn FnMut(&[u8])) -> Result<(), StoreError> {
        Err(self.refuse(&format!("reading collection {collection:?}")))
    }

    fn read_default(&mut self, collection: &str, _: &str) -> Result<Order, StoreError> {
        Err(self.refuse(&format!("reading collection {collection:?}")))
    }

    fn read_default_dom(&mut self, collection: &str, _: &str) -> Result<Order, StoreError> {
        Err(self.refuse(&format!("reading collection {collection:?}")))
    }

    fn existing_ids(&mut self, at: &Existing, limit: u64) -> Result<Vec<String>, StoreError> {
        self.0.existing_ids(at, limit)
    }

    fn existing_len(&mut self, at: &Existing, id: &str) -> Result<Option<u64>, StoreError> {
        self.0.existing_len(at, id)
    }

    fn read_existing(&mut self, at: &Existing, id: &str, f: &mut dyn FnMut(&[u8])) -> Result<(), StoreError> {
        self.0.read_existing(at, id, f)
    }
}

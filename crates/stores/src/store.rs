//! The contract every store client implements ([`Store`]) and the options it is opened with.

use std::time::Duration;

use jsoncost_shapes::Order;

use crate::error::StoreError;
use crate::existing::Existing;
use crate::location::{PgColumn, StoreKind};

/// A document store, holding one open client or connection.
pub trait Store: Send {
    /// Which store this is (for the row names and the tables' params).
    fn kind(&self) -> StoreKind;

    /// Where the store is, without passwords, e.g. `redis://127.0.0.1:16379`.
    fn describe(&self) -> String;

    /// What `collection` holds, or None when it was never (completely) loaded.
    fn loaded(&mut self, collection: &str) -> Result<Option<LoadMarker>, StoreError>;

    /// Replaces the contents of `collection` with `docs` (id, raw JSON bytes) and records
    /// `marker` with the number of documents actually written, which it returns. The marker is
    /// written last, so an interrupted load reads as not loaded.
    fn load(&mut self, collection: &str, docs: &mut dyn Iterator<Item = (String, Vec<u8>)>, marker: &LoadMarker)
    -> Result<u64, StoreError>;

    /// Reads one document's raw JSON and hands it to `f`, without a copy where the client
    /// allows one (redb's guard borrows a page, Redis's reply buffer, SQLite's column, the
    /// PostgreSQL row buffer; `jsonb` bytes are the server's re-rendered text).
    fn read_raw(&mut self, collection: &str, id: &str, f: &mut dyn FnMut(&[u8])) -> Result<(), StoreError>;

    /// The read a user writes first with the client's own JSON support, typed into an
    /// [`Order`]: PostgreSQL `Json<Order>`, Redis `get::<String>` then `serde_json::from_str`,
    /// SQLite `serde_json::from_str` on the TEXT, redb a copy of the bytes then `from_slice`.
    fn read_default(&mut self, collection: &str, id: &str) -> Result<Order, StoreError>;

    /// As [`Store::read_default`], but through a `serde_json::Value` then `from_value`.
    fn read_default_dom(&mut self, collection: &str, id: &str) -> Result<Order, StoreError>;

    /// The "new client per call" anti-pattern: connects and authenticates afresh, reads one
    /// document as [`Store::read_default`] does, and drops the connection. `None` where the
    /// store has no client to make (the embedded ones and the cluster).
    fn read_with_new_client(&mut self, collection: &str, id: &str) -> Option<Result<Order, StoreError>> {
        let _ = (collection, id);
        None
    }

    /// The fields at `pointers` (RFC 6901) of one document, projected by the server (SQL JSON
    /// operators), each handed to `f` as JSON text with its index. `None` where the store has
    /// no such operators (redb, Redis).
    fn read_projection(
        &mut self,
        collection: &str,
        id: &str,
        pointers: &[String],
        f: &mut dyn FnMut(usize, &[u8]),
    ) -> Option<Result<(), StoreError>> {
        let _ = (collection, id, pointers, f);
        None
    }

    /// Up to `limit` ids of the user's own documents `at` (in the store's order).
    fn existing_ids(&mut self, at: &Existing, limit: u64) -> Result<Vec<String>, StoreError> {
        let _ = limit;
        Err(at.unsupported(&self.describe()))
    }

    /// The size in bytes of one of the user's own documents, where the store tells it without
    /// sending the document (Redis: STRLEN), so one too large to read is never fetched; `None`
    /// where it cannot (the read then shows the size).
    fn existing_len(&mut self, at: &Existing, id: &str) -> Result<Option<u64>, StoreError> {
        let _ = (at, id);
        Ok(None)
    }

    /// Reads one of the user's own documents as raw bytes, as [`Store::read_raw`] does.
    fn read_existing(&mut self, at: &Existing, id: &str, f: &mut dyn FnMut(&[u8])) -> Result<(), StoreError> {
        let _ = (id, f);
        Err(at.unsupported(&self.describe()))
    }
}

/// What a store is opened for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Access {
    /// Loading generated documents and reading them back: jsoncost's own tables are created
    /// (SQLite `docs` and `markers`, in WAL mode; PostgreSQL `jsoncost_docs_*` and
    /// `jsoncost_markers`; the redb file).
    #[default]
    Load,
    /// Reading a user's own documents ([`Existing`]) and nothing else: the store is not
    /// changed in any way and needs only read access (SQLite opened with
    /// `SQLITE_OPEN_READ_ONLY`, no `PRAGMA journal_mode`; no DDL in PostgreSQL, so a role with
    /// only `SELECT` will do; redb opened read-only). Every other call is
    /// [`StoreError::ReadOnly`].
    ReadOnly,
}

/// How to open a store.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OpenOptions {
    /// PostgreSQL only: which table (column type) to read and load.
    pub pg_column: PgColumn,
    /// Loading, or only reading a user's documents.
    pub access: Access,
    /// Bound on connecting to a server (an unreachable one fails within it).
    pub connect_timeout: Duration,
    /// Bound on each request to a server (one that stops answering fails within it).
    pub io_timeout: Duration,
}

impl Default for OpenOptions {
    fn default() -> Self {
        OpenOptions {
            pg_column: PgColumn::default(),
            access: Access::default(),
            connect_timeout: Duration::from_secs(3),
            io_timeout: Duration::from_secs(10),
        }
    }
}

/// Creates the directory a store file goes in.
pub(crate) fn create_parent(path: &std::path::Path) -> Result<(), StoreError> {
    match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => std::fs::create_dir_all(dir).map_err(|source| StoreError::Io {
            operation: "creating directory",
            path: dir.to_path_buf(),
            cause: source,
        }),
        _ => Ok(()),
    }
}

/// What a loaded collection holds: how many documents, generated how. Two loads with equal
/// markers hold the same documents, so a second run can reuse the first one's data.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoadMarker {
    /// Documents loaded.
    pub docs: u64,
    /// Free-form description of the generator and its parameters.
    pub description: String,
}

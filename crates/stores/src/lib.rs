//! One synchronous trait over the stores jsoncost reads documents from: embedded **redb** (the
//! default), **SQLite**, **Redis**, **Redis Cluster** and **PostgreSQL** (`json` or `jsonb`).
//!
//! ```no_run
//! use jsoncost_stores::{OpenOptions, OrderDocs, ensure_loaded, open};
//! # fn main() -> Result<(), jsoncost_stores::StoreError> {
//! let mut store = open("redis://127.0.0.1:16379", &OpenOptions::default())?;
//! let docs = OrderDocs { count: 10_000, lines: jsoncost_shapes::ORDER_LINES, seed: jsoncost_shapes::DEFAULT_SEED };
//! ensure_loaded(store.as_mut(), "order", &docs.marker(), false, || docs.documents())?;
//! store.read_raw("order", &OrderDocs::id(42), &mut |bytes| { let _ = bytes.len(); })?;
//! let order = store.read_default("order", &OrderDocs::id(42))?;
//! # let _ = order; Ok(()) }
//! ```
//!
//! - **URLs** ([`open`]): `redb:PATH`, `sqlite:PATH`, `redis://HOST:PORT`,
//!   `redis+cluster://HOST:PORT,HOST:PORT,...`, `postgres://USER@HOST:PORT/DB` (or
//!   `postgresql://`). [`default_store_url`] is redb under the temp dir.
//! - **One client per store object**, opened once and reused by every read, as the study insists.
//!   The trait is object-safe and synchronous because the engine times sync closures.
//! - **Documents are stored as raw JSON**, keyed by (collection, id). PostgreSQL keeps them in a
//!   `json` table (the input text, returned as is) or a `jsonb` table (re-rendered on every read),
//!   chosen with [`OpenOptions::pg_column`].
//! - **Reading a user's own documents writes nothing** ([`Access::ReadOnly`]): SQLite is opened
//!   read-only with its journal mode untouched, PostgreSQL runs no DDL, redb is opened
//!   read-only; only read access is needed.
//! - **Loads are idempotent**: a load replaces a collection and records a [`LoadMarker`];
//!   [`ensure_loaded`] skips the load when the marker already matches.
//! - **Errors** ([`StoreError`]) carry the URL, collection or id, map to exit codes
//!   ([`StoreError::exit_code`]) and tell a per-document failure from one that ends the run
//!   ([`StoreError::is_document_error`]). Connecting is bounded by
//!   [`OpenOptions::connect_timeout`], every request by [`OpenOptions::io_timeout`].

// Helpers shared by some of the store clients (SQL identifiers, file locks ...) are unused in a
// build that leaves those clients out.
#![cfg_attr(
    not(all(feature = "redb", feature = "sqlite", feature = "redis", feature = "postgres")),
    allow(dead_code, unused_imports)
)]

mod boundary;
mod error;
mod existing;
mod load;
mod location;
mod lock;
#[cfg(feature = "postgres")]
mod postgres_raw;
#[cfg(feature = "postgres")]
mod postgres_store;
mod read_only;
#[cfg(feature = "redb")]
mod redb_store;
#[cfg(feature = "redis")]
mod redis_cluster_store;
#[cfg(feature = "redis")]
mod redis_common;
#[cfg(feature = "redis")]
mod redis_store;
#[cfg(feature = "sqlite")]
mod sqlite_store;

use std::fmt;
use std::path::PathBuf;
use std::str::FromStr;
use std::time::Duration;

use jsoncost_shapes::Order;

pub use error::{SCHEMES, StoreError};
pub use existing::Existing;
pub use load::{LoadMarker, LoadOutcome, OrderDocs, ensure_loaded};
pub use location::{Location, redact};

/// A document store, holding one open client or connection.
pub trait Store: Send {
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

    /// Reads one of the user's own documents as raw bytes, as [`Store::read_raw`] does.
    fn read_existing(&mut self, at: &Existing, id: &str, f: &mut dyn FnMut(&[u8])) -> Result<(), StoreError> {
        let _ = (id, f);
        Err(at.unsupported(&self.describe()))
    }
}

/// Which store a [`Store`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum StoreKind {
    Redb,
    Sqlite,
    Redis,
    RedisCluster,
    Postgres { column: PgColumn },
}

impl StoreKind {
    /// The name tables and result files use: `redb`, `sqlite`, `redis`, `redis-cluster`,
    /// `postgres-json`, `postgres-jsonb`.
    pub fn as_str(self) -> &'static str {
        match self {
            StoreKind::Redb => "redb",
            StoreKind::Sqlite => "sqlite",
            StoreKind::Redis => "redis",
            StoreKind::RedisCluster => "redis-cluster",
            StoreKind::Postgres { column: PgColumn::Json } => "postgres-json",
            StoreKind::Postgres { column: PgColumn::Jsonb } => "postgres-jsonb",
        }
    }
}

impl fmt::Display for StoreKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The PostgreSQL column type documents are kept in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum PgColumn {
    /// Keeps the input text and returns it as is.
    Json,
    /// Stores a parsed binary form and re-renders text on every read.
    #[default]
    Jsonb,
}

impl PgColumn {
    pub fn as_str(self) -> &'static str {
        match self {
            PgColumn::Json => "json",
            PgColumn::Jsonb => "jsonb",
        }
    }
}

impl fmt::Display for PgColumn {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for PgColumn {
    type Err = StoreError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "json" => Ok(PgColumn::Json),
            "jsonb" => Ok(PgColumn::Jsonb),
            other => Err(StoreError::BadName {
                flag: "--pg-column",
                name: other.to_string(),
                reason: "the PostgreSQL column is json or jsonb".to_string(),
            }),
        }
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

/// Opens the store `url` names, connecting now (so an unreachable server fails here). The
/// store, and the open itself, are inside the panic boundary: a client library's panic is a
/// [`StoreError::Panicked`].
pub fn open(url: &str, opts: &OpenOptions) -> Result<Box<dyn Store>, StoreError> {
    let location = Location::parse(url)?;
    let opened = boundary::call(
        &redact(url),
        || "opening the store".to_string(),
        || {
            let _ = opts;
            let not_built = |feature: &'static str| StoreError::NotBuilt { url: redact(url), feature };
            Ok::<Box<dyn Store>, _>(match location {
                #[cfg(feature = "redb")]
                Location::Redb(path) => Box::new(redb_store::RedbStore::open(path, opts.access)?),
                #[cfg(feature = "sqlite")]
                Location::Sqlite(path) => Box::new(sqlite_store::SqliteStore::open(path, opts)?),
                #[cfg(feature = "redis")]
                Location::Redis(url) => Box::new(redis_store::RedisStore::open(&url, opts)?),
                #[cfg(feature = "redis")]
                Location::RedisCluster(nodes) => Box::new(redis_cluster_store::RedisClusterStore::open(&nodes, opts)?),
                #[cfg(feature = "postgres")]
                Location::Postgres(url) => Box::new(postgres_store::PostgresStore::open(&url, opts)?),
                #[allow(unreachable_patterns)]
                other => return Err(not_built(other.feature())),
            })
        },
    )?;
    let opened = match opts.access {
        Access::Load => opened,
        Access::ReadOnly => Box::new(read_only::ReadOnly(opened)),
    };
    Ok(Box::new(boundary::Boundary::new(opened)))
}

/// Files the default store may use: [`default_redb_path`], then `store-2.redb` ... beside it.
pub const DEFAULT_SLOTS: usize = 8;

/// Opens the store `url` names, or the default store when there is none.
///
/// The default is redb at [`default_redb_path`]; when another process has that file open (a
/// `jsoncost serve`, a parallel CI job), the next free file of `store-2.redb` ...
/// `store-8.redb` beside it is used instead: [`Store::describe`] names the file used. Numbered
/// files rather than one per process, because a later run reuses a file's documents (its load
/// marker) where a per-process file would be loaded afresh every time and left behind; and not
/// waiting for the lock, because a `serve` holds it until it is stopped. With every file in use
/// the error is the first file's [`StoreError::Locked`], naming its holder.
pub fn open_or_default(url: Option<&str>, opts: &OpenOptions) -> Result<Box<dyn Store>, StoreError> {
    if let Some(url) = url {
        return open(url, opts);
    }
    let first = default_redb_path();
    let mut busy = None;
    for slot in 1..=DEFAULT_SLOTS {
        let path = if slot == 1 {
            first.clone()
        } else {
            lock::sibling(&first, &slot.to_string())
        };
        match open(&format!("redb:{}", path.display()), opts) {
            Err(e @ StoreError::Locked { .. }) => {
                busy.get_or_insert(e);
            }
            other => return other,
        }
    }
    Err(busy.expect("every slot was tried"))
}

/// Where the default store lives: `<temp dir>/jsoncost/store.redb`.
pub fn default_redb_path() -> PathBuf {
    std::env::temp_dir().join("jsoncost").join("store.redb")
}

/// The default store's URL: redb at [`default_redb_path`].
pub fn default_store_url() -> String {
    format!("redb:{}", default_redb_path().display())
}

/// Creates the directory a store file goes in.
fn create_parent(path: &std::path::Path) -> Result<(), StoreError> {
    match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => std::fs::create_dir_all(dir).map_err(|source| StoreError::Io {
            operation: "creating directory",
            path: dir.to_path_buf(),
            cause: source,
        }),
        _ => Ok(()),
    }
}

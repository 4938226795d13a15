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
//!
//! Layering: cli → experiments (`jsoncost`) → http → report/codecs/stream/stores → engine/shapes.
//! Depends on `jsoncost-shapes` only (the documents it loads); the store experiment (`jsoncost`)
//! and the http server's store-backed source (`jsoncost-http`) read through it.

#![deny(missing_docs)]
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
mod store;

use std::path::PathBuf;

pub use error::StoreError;
pub use existing::Existing;
pub use load::{LoadOutcome, OrderDocs, ensure_loaded};
pub use location::{Location, PgColumn, SCHEMES, StoreKind, redact};
pub use store::{Access, LoadMarker, OpenOptions, Store};

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
            // Each arm its own `Ok`: built without any client, only the last arm is left, and
            // no call after the match is unreachable.
            let store: Result<Box<dyn Store>, StoreError> = match location {
                #[cfg(feature = "redb")]
                Location::Redb(path) => Ok(Box::new(redb_store::RedbStore::open(path, opts.access)?)),
                #[cfg(feature = "sqlite")]
                Location::Sqlite(path) => Ok(Box::new(sqlite_store::SqliteStore::open(path, opts)?)),
                #[cfg(feature = "redis")]
                Location::Redis(url) => Ok(Box::new(redis_store::RedisStore::open(&url, opts)?)),
                #[cfg(feature = "redis")]
                Location::RedisCluster(nodes) => Ok(Box::new(redis_cluster_store::RedisClusterStore::open(&nodes, opts)?)),
                #[cfg(feature = "postgres")]
                Location::Postgres(url) => Ok(Box::new(postgres_store::PostgresStore::open(&url, opts)?)),
                #[allow(unreachable_patterns)]
                other => Err(not_built(other.feature())),
            };
            store
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
    let first = default_redb_path()?;
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

/// Where the default store lives: `store.redb` in this user's private directory under the temp
/// dir ([`jsoncost_engine::private_dir`]: `<temp dir>/jsoncost-<euid>`, 0700, owner-checked), so
/// no other user can plant a link at its name.
pub fn default_redb_path() -> Result<PathBuf, StoreError> {
    Ok(jsoncost_engine::private_dir::dir()?.join("store.redb"))
}

/// The default store's URL: redb at [`default_redb_path`].
pub fn default_store_url() -> Result<String, StoreError> {
    Ok(format!("redb:{}", default_redb_path()?.display()))
}

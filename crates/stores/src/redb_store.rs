//! redb, the embedded default: one table per collection, `&str` id → raw JSON bytes, and a
//! markers table. Each read opens a read transaction, as a service would per request. A user's
//! own file ([`Access::ReadOnly`]) is opened read-only: nothing is created or repaired.

use std::path::{Path, PathBuf};

use jsoncost_shapes::Order;
use redb::{Database, ReadOnlyDatabase, ReadTransaction, ReadableDatabase, ReadableTable, TableDefinition, TableError};

use crate::error::StoreError;
use crate::existing::Existing;
use crate::load::{check_collection, written_marker};
use crate::location::StoreKind;
use crate::store::{Access, LoadMarker, Store, create_parent};

/// Holds one `(docs, description)` per collection. Its name has a ':' so no collection can clash.
const MARKERS: TableDefinition<&str, (u64, &str)> = TableDefinition::new("jsoncost:markers");

fn docs_table(collection: &str) -> TableDefinition<'_, &'static str, &'static [u8]> {
    TableDefinition::new(collection)
}

/// The file, open for loading or only for reading.
enum Db {
    Writable(Database),
    ReadOnly(ReadOnlyDatabase),
}

impl Db {
    fn begin_read(&self) -> Result<ReadTransaction, redb::TransactionError> {
        match self {
            Db::Writable(db) => db.begin_read(),
            Db::ReadOnly(db) => db.begin_read(),
        }
    }
}

pub struct RedbStore {
    db: Db,
    path: PathBuf,
    describe: String,
}

impl RedbStore {
    pub fn open(path: PathBuf, access: Access) -> Result<Self, StoreError> {
        let describe = format!("redb:{}", path.display());
        if access == Access::ReadOnly {
            // An existing file only, read as it is (one that needs a repair is refused).
            if !path.exists() {
                return Err(StoreError::BadUrl {
                    url: describe,
                    reason: format!("{} does not exist", path.display()),
                });
            }
            let db = Database::builder().open_read_only(&path).map_err(|e| open_error(&path, e))?;
            return Ok(RedbStore {
                db: Db::ReadOnly(db),
                path,
                describe,
            });
        }
        create_parent(&path)?;
        // redb trusts its file: a page altered outside redb can make a later read panic
        // (`entered unreachable code` in its b-tree). The check on open verifies every page's
        // checksum first (and repairs what a crash left behind), so a damaged file is an error
        // naming it here. It reads the whole file once per open: a fraction of a second for the
        // default 10,000 documents (an 80 MB file).
        let db = Database::builder()
            .set_check_integrity_on_open(true)
            .create(&path)
            .map_err(|e| open_error(&path, e))?;
        Ok(RedbStore {
            db: Db::Writable(db),
            path,
            describe,
        })
    }

    fn fail(&self, operation: &str, cause: impl std::fmt::Display) -> StoreError {
        StoreError::backend(&self.describe, operation, cause)
    }

    /// Finds the document and hands its bytes (borrowed from redb's page) to `f`.
    fn with_doc<T>(&self, collection: &str, id: &str, f: impl FnOnce(&[u8]) -> T) -> Result<T, StoreError> {
        let txn = self.db.begin_read().map_err(|e| self.fail("beginning a read transaction", e))?;
        let table = match txn.open_table(docs_table(collection)) {
            Ok(table) => table,
            Err(TableError::TableDoesNotExist(_)) => return Err(StoreError::not_loaded(&self.describe, collection)),
            Err(e) => return Err(self.fail(&format!("opening table {collection:?}"), e)),
        };
        match table.get(id).map_err(|e| self.fail(&format!("reading {id:?}"), e))? {
            Some(guard) => Ok(f(guard.value())),
            None => Err(StoreError::not_found(&self.describe, collection, id)),
        }
    }
}

/// What a failed open means for the user: the file is damaged, locked, unreadable, or else.
fn open_error(path: &Path, e: redb::DatabaseError) -> StoreError {
    match e {
        redb::DatabaseError::Storage(redb::StorageError::Io(source)) if source.kind() == std::io::ErrorKind::InvalidData => {
            StoreError::Corrupt {
                path: path.to_path_buf(),
                cause: format!("not a redb database ({source})"),
            }
        }
        redb::DatabaseError::Storage(redb::StorageError::Io(source)) => StoreError::Io {
            operation: "opening redb file",
            path: path.to_path_buf(),
            cause: source,
        },
        redb::DatabaseError::Storage(redb::StorageError::Corrupted(cause)) => StoreError::Corrupt {
            path: path.to_path_buf(),
            cause,
        },
        redb::DatabaseError::DatabaseAlreadyOpen => crate::lock::locked(path),
        other => StoreError::backend(&format!("redb:{}", path.display()), "opening the database", other),
    }
}

impl Store for RedbStore {
    fn kind(&self) -> StoreKind {
        StoreKind::Redb
    }

    fn describe(&self) -> String {
        self.describe.clone()
    }

    fn loaded(&mut self, collection: &str) -> Result<Option<LoadMarker>, StoreError> {
        check_collection(collection)?;
        let txn = self.db.begin_read().map_err(|e| self.fail("beginning a read transaction", e))?;
        let markers = match txn.open_table(MARKERS) {
            Ok(table) => table,
            Err(TableError::TableDoesNotExist(_)) => return Ok(None),
            Err(e) => return Err(self.fail("opening the markers table", e)),
        };
        let marker = markers.get(collection).map_err(|e| self.fail("reading a load marker", e))?;
        Ok(marker.map(|guard| {
            let (docs, description) = guard.value();
            LoadMarker {
                docs,
                description: description.to_string(),
            }
        }))
    }

    fn load(
        &mut self,
        collection: &str,
        docs: &mut dyn Iterator<Item = (String, Vec<u8>)>,
        marker: &LoadMarker,
    ) -> Result<u64, StoreError> {
        check_collection(collection)?;
        // One write transaction: the old contents, the new ones and the marker change together.
        let Db::Writable(db) = &self.db else {
            return Err(StoreError::read_only(&self.describe, &format!("loading {collection:?}")));
        };
        let txn = db.begin_write().map_err(|e| self.fail("beginning a write transaction", e))?;
        let mut count = 0u64;
        {
            txn.delete_table(docs_table(collection))
                .map_err(|e| self.fail(&format!("clearing {collection:?}"), e))?;
            let mut table = txn
                .open_table(docs_table(collection))
                .map_err(|e| self.fail(&format!("creating {collection:?}"), e))?;
            for (id, body) in docs {
                table
                    .insert(id.as_str(), body.as_slice())
                    .map_err(|e| self.fail(&format!("writing {id:?}"), e))?;
                count += 1;
            }
            let mut markers = txn.open_table(MARKERS).map_err(|e| self.fail("opening the markers table", e))?;
            let written = written_marker(count, marker);
            markers
                .insert(collection, (written.docs, written.description.as_str()))
                .map_err(|e| self.fail("writing the load marker", e))?;
        }
        txn.commit().map_err(|e| match e {
            redb::CommitError::Storage(redb::StorageError::Io(source)) => StoreError::Io {
                operation: "writing redb file",
                path: self.path.clone(),
                cause: source,
            },
            other => self.fail("committing the load", other),
        })?;
        Ok(count)
    }

    fn read_raw(&mut self, collection: &str, id: &str, f: &mut dyn FnMut(&[u8])) -> Result<(), StoreError> {
        self.with_doc(collection, id, f)
    }

    fn read_default(&mut self, collection: &str, id: &str) -> Result<Order, StoreError> {
        // What a user writes first: copy the bytes out of the transaction, then parse.
        let bytes = self.with_doc(collection, id, <[u8]>::to_vec)?;
        serde_json::from_slice(&bytes).map_err(|e| StoreError::decode(collection, id, e))
    }

    fn read_default_dom(&mut self, collection: &str, id: &str) -> Result<Order, StoreError> {
        let bytes = self.with_doc(collection, id, <[u8]>::to_vec)?;
        let value: serde_json::Value = serde_json::from_slice(&bytes).map_err(|e| StoreError::decode(collection, id, e))?;
        serde_json::from_value(value).map_err(|e| StoreError::decode(collection, id, e))
    }

    fn existing_ids(&mut self, at: &Existing, limit: u64) -> Result<Vec<String>, StoreError> {
        let Existing::Table { table } = at else {
            return Err(at.unsupported(&self.describe));
        };
        let txn = self.db.begin_read().map_err(|e| self.fail("beginning a read transaction", e))?;
        let t = match txn.open_table(docs_table(table)) {
            Ok(t) => t,
            Err(e @ (TableError::TableDoesNotExist(_) | TableError::TableTypeMismatch { .. })) => {
                return Err(at.bad_documents(
                    &self.describe,
                    format!("{e} (jsoncost reads a table of &str keys and &[u8] values)"),
                ));
            }
            Err(e) => return Err(self.fail(&format!("opening table {table:?}"), e)),
        };
        let mut ids = Vec::new();
        for entry in t
            .iter()
            .map_err(|e| self.fail(&format!("listing {table:?}"), e))?
            .take(limit as usize)
        {
            let (key, _) = entry.map_err(|e| self.fail(&format!("listing {table:?}"), e))?;
            ids.push(key.value().to_string());
        }
        Ok(ids)
    }

    fn read_existing(&mut self, at: &Existing, id: &str, f: &mut dyn FnMut(&[u8])) -> Result<(), StoreError> {
        let Existing::Table { table } = at else {
            return Err(at.unsupported(&self.describe));
        };
        let txn = self.db.begin_read().map_err(|e| self.fail("beginning a read transaction", e))?;
        let t = txn
            .open_table(docs_table(table))
            .map_err(|e| self.fail(&format!("opening table {table:?}"), e))?;
        match t.get(id).map_err(|e| self.fail(&format!("reading {id:?}"), e))? {
            Some(guard) => {
                f(guard.value());
                Ok(())
            }
            None => Err(StoreError::not_found(&self.describe, table, id)),
        }
    }
}

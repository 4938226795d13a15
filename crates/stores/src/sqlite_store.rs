//! SQLite (bundled): one `docs` table with a TEXT body, read through a cached prepared statement.
//! A user's own database ([`Access::ReadOnly`]) is opened read-only and left as it is: no
//! journal-mode change, no tables created.

use std::path::PathBuf;

use jsoncost_shapes::Order;
use rusqlite::types::{ToSqlOutput, ValueRef};
use rusqlite::{Connection, OpenFlags, OptionalExtension, ToSql, params};

use crate::error::StoreError;
use crate::existing::{Existing, Quote, sql_identifier};
use crate::load::{check_collection, written_marker};
use crate::location::StoreKind;
use crate::store::{Access, LoadMarker, OpenOptions, Store, create_parent};

const SCHEMA: &str = "
    CREATE TABLE IF NOT EXISTS docs (collection TEXT NOT NULL, id TEXT NOT NULL, body TEXT NOT NULL, PRIMARY KEY (collection, id));
    CREATE TABLE IF NOT EXISTS markers (collection TEXT PRIMARY KEY, docs INTEGER NOT NULL, description TEXT NOT NULL);
";
const READ: &str = "SELECT body FROM docs WHERE collection = ?1 AND id = ?2";

/// Binds raw bytes as TEXT without checking UTF-8, so a store can hold exactly what was loaded
/// (including a corrupt document, which the default read must then report).
struct Text<'a>(&'a [u8]);

impl ToSql for Text<'_> {
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        Ok(ToSqlOutput::Borrowed(ValueRef::Text(self.0)))
    }
}

pub struct SqliteStore {
    conn: Connection,
    describe: String,
}

impl SqliteStore {
    pub fn open(path: PathBuf, opts: &OpenOptions) -> Result<Self, StoreError> {
        let describe = format!("sqlite:{}", path.display());
        let fail = |operation: &str, e: rusqlite::Error| StoreError::backend(&describe, operation, e);
        let conn = match opts.access {
            Access::Load => {
                create_parent(&path)?;
                Connection::open(&path).map_err(|e| fail("opening the database", e))?
            }
            Access::ReadOnly => {
                // Read-only never creates a file: say which one is missing rather than SQLite's
                // "unable to open database file".
                if !path.exists() {
                    return Err(StoreError::BadUrl {
                        url: describe,
                        reason: format!("{} does not exist", path.display()),
                    });
                }
                let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX | OpenFlags::SQLITE_OPEN_URI;
                Connection::open_with_flags(&path, flags).map_err(|e| fail("opening the database read-only", e))?
            }
        };
        conn.busy_timeout(opts.io_timeout)
            .map_err(|e| fail("setting the busy timeout", e))?;
        if opts.access == Access::Load {
            // WAL + NORMAL: loads commit quickly, reads are unaffected. WAL is a property of the
            // file (it stays), so only jsoncost's own stores get it.
            conn.pragma_update(None, "journal_mode", "WAL")
                .map_err(|e| fail("enabling WAL", e))?;
            conn.pragma_update(None, "synchronous", "NORMAL")
                .map_err(|e| fail("setting synchronous", e))?;
            conn.execute_batch(SCHEMA).map_err(|e| fail("creating the tables", e))?;
        }
        Ok(SqliteStore { conn, describe })
    }

    fn fail(&self, operation: &str, cause: impl std::fmt::Display) -> StoreError {
        StoreError::backend(&self.describe, operation, cause)
    }

    /// A missing table or column the user named is bad input (exit 2), said of the documents.
    fn user_error(&self, at: &Existing, operation: &str, cause: rusqlite::Error) -> StoreError {
        // SQLite's own words, without the statement rusqlite appends ("... in SELECT ...").
        let text = match &cause {
            rusqlite::Error::SqlInputError { msg, .. } => msg.clone(),
            other => other.to_string(),
        };
        if text.starts_with("no such table") || text.starts_with("no such column") {
            at.bad_documents(&self.describe, text)
        } else {
            self.fail(operation, cause)
        }
    }

    /// Runs the cached read statement and hands the body column to `f`; a miss tells a missing
    /// document from a collection that was never loaded.
    fn with_doc<T>(&mut self, collection: &str, id: &str, f: impl FnOnce(ValueRef<'_>) -> T) -> Result<T, StoreError> {
        let found = {
            let mut stmt = self.conn.prepare_cached(READ).map_err(|e| self.fail("preparing the read", e))?;
            stmt.query_row(params![collection, id], |row| Ok(f(row.get_ref(0)?))).optional()
        };
        match found.map_err(|e| self.fail(&format!("reading {id:?}"), e))? {
            Some(value) => Ok(value),
            None if self.loaded(collection)?.is_none() => Err(StoreError::not_loaded(&self.describe, collection)),
            None => Err(StoreError::not_found(&self.describe, collection, id)),
        }
    }

    /// The TEXT column as a `String`, as `row.get::<_, String>` gives a user.
    fn read_text(&mut self, collection: &str, id: &str) -> Result<String, StoreError> {
        let text = self.with_doc(collection, id, |value| value.as_str().map(str::to_owned))?;
        text.map_err(|e| StoreError::decode(collection, id, format!("the body column is not UTF-8 text: {e}")))
    }
}

impl Store for SqliteStore {
    fn kind(&self) -> StoreKind {
        StoreKind::Sqlite
    }

    fn describe(&self) -> String {
        self.describe.clone()
    }

    fn loaded(&mut self, collection: &str) -> Result<Option<LoadMarker>, StoreError> {
        check_collection(collection)?;
        let mut stmt = self
            .conn
            .prepare_cached("SELECT docs, description FROM markers WHERE collection = ?1")
            .map_err(|e| self.fail("preparing", e))?;
        let marker = stmt
            .query_row([collection], |row| {
                Ok(LoadMarker {
                    docs: row.get::<_, i64>(0)? as u64,
                    description: row.get(1)?,
                })
            })
            .optional();
        marker.map_err(|e| self.fail("reading a load marker", e))
    }

    fn load(
        &mut self,
        collection: &str,
        docs: &mut dyn Iterator<Item = (String, Vec<u8>)>,
        marker: &LoadMarker,
    ) -> Result<u64, StoreError> {
        check_collection(collection)?;
        let describe = self.describe.clone();
        let fail = |operation: &str, e: rusqlite::Error| StoreError::backend(&describe, operation, e);
        let txn = self.conn.transaction().map_err(|e| fail("beginning the load", e))?;
        txn.execute("DELETE FROM docs WHERE collection = ?1", [collection])
            .map_err(|e| fail("clearing the collection", e))?;
        let mut count = 0u64;
        {
            let mut insert = txn
                .prepare("INSERT INTO docs (collection, id, body) VALUES (?1, ?2, ?3)")
                .map_err(|e| fail("preparing", e))?;
            for (id, body) in docs {
                insert
                    .execute(params![collection, id, Text(&body)])
                    .map_err(|e| fail(&format!("writing {id:?}"), e))?;
                count += 1;
            }
        }
        let written = written_marker(count, marker);
        txn.execute(
            "INSERT INTO markers (collection, docs, description) VALUES (?1, ?2, ?3)
             ON CONFLICT (collection) DO UPDATE SET docs = excluded.docs, description = excluded.description",
            params![collection, written.docs as i64, written.description],
        )
        .map_err(|e| fail("writing the load marker", e))?;
        txn.commit().map_err(|e| fail("committing the load", e))?;
        Ok(count)
    }

    fn read_raw(&mut self, collection: &str, id: &str, f: &mut dyn FnMut(&[u8])) -> Result<(), StoreError> {
        // The column's bytes as SQLite holds them: no UTF-8 check, no copy.
        let read = self.with_doc(collection, id, |value| match value {
            ValueRef::Text(bytes) | ValueRef::Blob(bytes) => {
                f(bytes);
                Ok(())
            }
            other => Err(other.data_type()),
        })?;
        read.map_err(|held| StoreError::decode(collection, id, format!("the body column holds {held}, not TEXT")))
    }

    fn read_default(&mut self, collection: &str, id: &str) -> Result<Order, StoreError> {
        let text = self.read_text(collection, id)?;
        serde_json::from_str(&text).map_err(|e| StoreError::decode(collection, id, e))
    }

    fn read_default_dom(&mut self, collection: &str, id: &str) -> Result<Order, StoreError> {
        let text = self.read_text(collection, id)?;
        let value: serde_json::Value = serde_json::from_str(&text).map_err(|e| StoreError::decode(collection, id, e))?;
        serde_json::from_value(value).map_err(|e| StoreError::decode(collection, id, e))
    }

    fn read_projection(
        &mut self,
        collection: &str,
        id: &str,
        pointers: &[String],
        f: &mut dyn FnMut(usize, &[u8]),
    ) -> Option<Result<(), StoreError>> {
        Some((|| {
            // `body -> '$."lines"[0]."sku"'`: the value at a path, as JSON text (SQLite 3.38+).
            let fields = pointers
                .iter()
                .map(|p| crate::existing::sqlite_path(p).map(|path| format!("body -> '{}'", path.replace('\'', "''"))))
                .collect::<Result<Vec<_>, _>>()?;
            let sql = format!("SELECT {} FROM docs WHERE collection = ?1 AND id = ?2", fields.join(", "));
            let found = {
                let mut stmt = self
                    .conn
                    .prepare_cached(&sql)
                    .map_err(|e| self.fail("preparing the projection", e))?;
                stmt.query_row(params![collection, id], |row| {
                    for (i, pointer) in pointers.iter().enumerate() {
                        match row.get_ref(i)? {
                            ValueRef::Text(bytes) => f(i, bytes),
                            _ => return Ok(Err(pointer.clone())),
                        }
                    }
                    Ok(Ok(()))
                })
                .optional()
            };
            // SQLite parses the stored text to project it: a document that is not JSON is that
            // document's failure, not the store's.
            let found = match found {
                Err(e) if e.to_string().starts_with("malformed JSON") => return Err(StoreError::decode(collection, id, e)),
                other => other,
            };
            match found.map_err(|e| self.fail(&format!("projecting {id:?}"), e))? {
                Some(Ok(())) => Ok(()),
                Some(Err(pointer)) => Err(StoreError::decode(collection, id, format!("field {pointer} not found"))),
                None => Err(StoreError::not_found(&self.describe, collection, id)),
            }
        })())
    }

    fn existing_ids(&mut self, at: &Existing, limit: u64) -> Result<Vec<String>, StoreError> {
        let (table, key, column) = sql_names(at, &self.describe)?;
        // Rows without a document are not read; naming the column checks it exists, now. The
        // key's type comes along: a row is read back by `key = ?` with the id as text, which no
        // BLOB key matches.
        let sql = format!("SELECT CAST({key} AS TEXT), typeof({key}) FROM {table} WHERE {column} IS NOT NULL LIMIT ?1");
        let listing = format!("listing {}", at.describe());
        let mut stmt = self.conn.prepare(&sql).map_err(|e| self.user_error(at, &listing, e))?;
        let rows = stmt
            .query_map(params![i64::try_from(limit).unwrap_or(i64::MAX)], |row| {
                Ok((row.get_ref(0)?.as_bytes_or_null()?.map(<[u8]>::to_vec), row.get::<_, String>(1)?))
            })
            .and_then(|rows| rows.collect::<Result<Vec<_>, _>>())
            .map_err(|e| self.fail(&listing, e))?;
        let Existing::Rows { key: key_name, .. } = at else {
            return Err(at.unsupported(&self.describe));
        };
        let mut ids = Vec::with_capacity(rows.len());
        for (n, (id, kind)) in rows.into_iter().enumerate() {
            let not_a_key = |held: &str| {
                at.bad_documents(
                    &self.describe,
                    format!(
                        "the key column {key_name} holds {held} (row {} listed); jsoncost reads rows by a text or integer key",
                        n + 1
                    ),
                )
            };
            match (id, kind.as_str()) {
                (None, _) => {}
                (Some(_), "blob") => return Err(not_a_key("a BLOB")),
                (Some(id), _) => ids.push(String::from_utf8(id).map_err(|_| not_a_key("text that is not UTF-8"))?),
            }
        }
        Ok(ids)
    }

    fn read_existing(&mut self, at: &Existing, id: &str, f: &mut dyn FnMut(&[u8])) -> Result<(), StoreError> {
        let (table, key, column) = sql_names(at, &self.describe)?;
        // `key = ?` with the id as text: SQLite converts it to the key column's affinity, so an
        // INTEGER key is looked up by its index as a user's query would be.
        let sql = format!("SELECT {column} FROM {table} WHERE {key} = ?1");
        let found = {
            let mut stmt = self.conn.prepare_cached(&sql).map_err(|e| self.fail("preparing the read", e))?;
            stmt.query_row(params![id], |row| {
                Ok(match row.get_ref(0)? {
                    ValueRef::Text(bytes) | ValueRef::Blob(bytes) => {
                        f(bytes);
                        Ok(())
                    }
                    other => Err(other.data_type()),
                })
            })
            .optional()
        };
        match found.map_err(|e| self.fail(&format!("reading {id:?}"), e))? {
            Some(Ok(())) => Ok(()),
            Some(Err(held)) => Err(StoreError::decode(
                at.name(),
                id,
                format!("the column holds {held}, not TEXT or BLOB"),
            )),
            None => Err(StoreError::not_found(&self.describe, at.name(), id)),
        }
    }
}

/// A row source's table, key and column, checked and quoted.
fn sql_names(at: &Existing, store: &str) -> Result<(String, String, String), StoreError> {
    let Existing::Rows { table, key, column } = at else {
        return Err(at.unsupported(store));
    };
    Ok((
        sql_identifier("--table", table, Quote::Brackets)?,
        sql_identifier("--key-column", key, Quote::Brackets)?,
        sql_identifier("--column", column, Quote::Brackets)?,
    ))
}

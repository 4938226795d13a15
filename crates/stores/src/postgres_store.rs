//! PostgreSQL through tokio-postgres, driven synchronously by a current-thread runtime the store
//! owns (what the `postgres` crate does), so every request can be bounded by the io timeout.
//! Documents live in `jsoncost_docs_json` or `jsoncost_docs_jsonb`; reads use a statement
//! prepared once at open. Opened to read a user's own table ([`Access::ReadOnly`]), it runs no
//! DDL and prepares nothing of its own: a role with only `SELECT` on that table will do.

use std::future::Future;
use std::pin::pin;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use jsoncost_shapes::Order;
use postgres_types::{Json, Type};
use tokio::runtime::Runtime;
use tokio_postgres::binary_copy::BinaryCopyInWriter;
use tokio_postgres::error::Severity;
use tokio_postgres::{Client, Config, NoTls, Statement};

use crate::error::StoreError;
use crate::existing::{Existing, Quote, sql_identifier};
use crate::load::{check_collection, written_marker};
use crate::location::{PgColumn, StoreKind, redact};
use crate::postgres_raw::{DocumentBytes, JsonBytes, JsonParam};
use crate::store::{Access, LoadMarker, OpenOptions, Store};

/// Serialises concurrent schema creation (`CREATE TABLE IF NOT EXISTS` races otherwise).
const SCHEMA: &str = "
    BEGIN;
    SELECT pg_advisory_xact_lock(7236828061538939764);
    CREATE TABLE IF NOT EXISTS jsoncost_docs_json (collection text NOT NULL, id text NOT NULL, body json NOT NULL, PRIMARY KEY (collection, id));
    CREATE TABLE IF NOT EXISTS jsoncost_docs_jsonb (collection text NOT NULL, id text NOT NULL, body jsonb NOT NULL, PRIMARY KEY (collection, id));
    CREATE TABLE IF NOT EXISTS jsoncost_markers (doc_table text NOT NULL, collection text NOT NULL, docs bigint NOT NULL, description text NOT NULL,
                                                 PRIMARY KEY (doc_table, collection));
    COMMIT;
";

/// Why a request failed, before it is given its context.
enum Failure {
    Pg(tokio_postgres::Error),
    Timeout,
}

/// The client, the runtime that drives it, and how to report its failures.
struct Conn {
    rt: Runtime,
    client: Client,
    url: String,
    io_timeout: Duration,
    /// Why the connection task ended, to explain a "connection closed" error.
    connection_error: Arc<Mutex<Option<String>>>,
}

pub struct PostgresStore {
    conn: Conn,
    /// The read of jsoncost's own documents; None when opened read-only (the table may not exist).
    read: Option<Statement>,
    column: PgColumn,
    table: &'static str,
    /// The read of a user's own rows, prepared on first use (`read_existing`).
    existing: Option<(Existing, Statement)>,
    /// The server-side projection of these pointers, prepared on first use.
    projection: Option<(Vec<String>, Statement)>,
    /// What a new client connects with (`read_with_new_client`).
    config: Config,
    opts: OpenOptions,
}

impl PostgresStore {
    pub fn open(url: &str, opts: &OpenOptions) -> Result<Self, StoreError> {
        let shown = redact(url);
        let mut config: Config = url.parse().map_err(|e: tokio_postgres::Error| StoreError::BadUrl {
            url: shown.clone(),
            reason: message(&e),
        })?;
        config.connect_timeout(opts.connect_timeout);
        let unreachable = |cause: String| StoreError::Unreachable {
            url: shown.clone(),
            cause,
            hint: "that PostgreSQL listens at that address, accepts this user without a password prompt and has the database \
                   (for tests: scripts/services.sh start)"
                .to_string(),
        };
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| StoreError::backend(&shown, "starting the client runtime", e))?;
        // connect_timeout bounds each address; the outer bound also covers the startup exchange.
        let limit = opts.connect_timeout + opts.io_timeout;
        let (client, connection) = match rt.block_on(async { tokio::time::timeout(limit, config.connect(NoTls)).await }) {
            Ok(Ok(pair)) => pair,
            Ok(Err(e)) => return Err(unreachable(message(&e))),
            Err(_) => return Err(unreachable(format!("no answer within {limit:?}"))),
        };
        let connection_error = Arc::new(Mutex::new(None));
        let slot = Arc::clone(&connection_error);
        // The current-thread runtime polls the connection whenever the store blocks on a request.
        rt.spawn(async move {
            if let Err(e) = connection.await
                && let Ok(mut slot) = slot.lock()
            {
                *slot = Some(e.to_string());
            }
        });
        let table = match opts.pg_column {
            PgColumn::Json => "jsoncost_docs_json",
            PgColumn::Jsonb => "jsoncost_docs_jsonb",
        };
        let conn = Conn {
            rt,
            client,
            url: shown,
            io_timeout: opts.io_timeout,
            connection_error,
        };
        let read = match opts.access {
            Access::ReadOnly => None,
            Access::Load => {
                conn.run(conn.client.batch_execute(SCHEMA))
                    .map_err(|f| conn.error(f, "creating the tables"))?;
                let sql = format!("SELECT body FROM {table} WHERE collection = $1 AND id = $2");
                let read = conn
                    .run(conn.client.prepare(&sql))
                    .map_err(|f| conn.error(f, "preparing the read"))?;
                Some(read)
            }
        };
        Ok(PostgresStore {
            conn,
            read,
            column: opts.pg_column,
            table,
            existing: None,
            projection: None,
            config,
            opts: opts.clone(),
        })
    }

    /// The row of one document, or why there is none.
    fn fetch(&mut self, collection: &str, id: &str) -> Result<tokio_postgres::Row, StoreError> {
        let conn = &self.conn;
        let Some(read) = &self.read else {
            return Err(StoreError::read_only(&conn.url, &format!("reading collection {collection:?}")));
        };
        let row = conn
            .run(conn.client.query_opt(read, &[&collection, &id]))
            .map_err(|f| conn.error(f, &format!("reading {id:?}")))?;
        match row {
            Some(row) => Ok(row),
            None if self.loaded(collection)?.is_none() => Err(StoreError::not_loaded(&self.conn.url, collection)),
            None => Err(StoreError::not_found(&self.conn.url, collection, id)),
        }
    }
}

impl PostgresStore {
    /// The prepared read of `at`'s rows (its key's type decides how an id is sent).
    fn existing_read(&mut self, at: &Existing) -> Result<Statement, StoreError> {
        if let Some((cached, stmt)) = &self.existing
            && cached == at
        {
            return Ok(stmt.clone());
        }
        let Existing::Rows { table, key, column } = at else {
            return Err(at.unsupported(&self.conn.url));
        };
        let (t, k, c) = (
            sql_identifier("--table", table, Quote::Double)?,
            sql_identifier("--key-column", key, Quote::Double)?,
            sql_identifier("--column", column, Quote::Double)?,
        );
        let conn = &self.conn;
        let stmt = conn
            .run(conn.client.prepare(&format!("SELECT {c} FROM {t} WHERE {k} = $1")))
            .map_err(|f| user_error(conn, at, f, &format!("preparing the read of {}", at.describe())))?;
        let key_type = &stmt.params()[0];
        if !KeyParam::accepts(key_type) {
            return Err(at.bad_documents(
                &conn.url,
                format!("the key column {key} is {key_type}; jsoncost reads rows by a text or integer key"),
            ));
        }
        self.existing = Some((at.clone(), stmt.clone()));
        Ok(stmt)
    }
}

/// An id sent as the key column's type.
enum KeyParam<'a> {
    Text(&'a str),
    Int8(i64),
    Int4(i32),
    Int2(i16),
}

impl<'a> KeyParam<'a> {
    fn accepts(ty: &Type) -> bool {
        [Type::TEXT, Type::VARCHAR, Type::INT8, Type::INT4, Type::INT2].contains(ty)
    }

    /// `id` as `ty`; None when it is not one (no row can have it).
    fn of(ty: &Type, id: &'a str) -> Option<KeyParam<'a>> {
        match *ty {
            Type::INT8 => id.parse().ok().map(KeyParam::Int8),
            Type::INT4 => id.parse().ok().map(KeyParam::Int4),
            Type::INT2 => id.parse().ok().map(KeyParam::Int2),
            _ => Some(KeyParam::Text(id)),
        }
    }

    fn as_sql(&self) -> &(dyn postgres_types::ToSql + Sync) {
        match self {
            KeyParam::Text(v) => v,
            KeyParam::Int8(v) => v,
            KeyParam::Int4(v) => v,
            KeyParam::Int2(v) => v,
        }
    }
}

/// A missing table or column the user named is bad input (exit 2), not the server's failure.
fn user_error(conn: &Conn, at: &Existing, failure: Failure, operation: &str) -> StoreError {
    if let Failure::Pg(e) = &failure
        && let Some(db) = e.as_db_error()
        && [
            tokio_postgres::error::SqlState::UNDEFINED_TABLE,
            tokio_postgres::error::SqlState::UNDEFINED_COLUMN,
        ]
        .contains(db.code())
    {
        return at.bad_documents(&conn.url, db.message());
    }
    conn.error(failure, operation)
}

impl Conn {
    /// Blocks on one request, bounded by the io timeout.
    fn run<T>(&self, request: impl Future<Output = Result<T, tokio_postgres::Error>>) -> Result<T, Failure> {
        self.rt.block_on(bounded(self.io_timeout, request))
    }

    fn error(&self, failure: Failure, operation: &str) -> StoreError {
        match failure {
            Failure::Timeout => StoreError::lost(&self.url, operation, format!("no reply within {:?}", self.io_timeout)),
            Failure::Pg(e) if is_connection_failure(&e) => {
                let mut cause = message(&e);
                if let Some(why) = self.connection_error.lock().ok().and_then(|slot| slot.clone())
                    && !cause.contains(&why)
                {
                    cause = format!("{cause} ({why})");
                }
                StoreError::lost(&self.url, operation, cause)
            }
            Failure::Pg(e) => StoreError::backend(&self.url, operation, message(&e)),
        }
    }
}

/// One request, failing with `Failure::Timeout` when no reply comes within `limit`.
async fn bounded<T>(limit: Duration, request: impl Future<Output = Result<T, tokio_postgres::Error>>) -> Result<T, Failure> {
    match tokio::time::timeout(limit, request).await {
        Ok(result) => result.map_err(Failure::Pg),
        Err(_) => Err(Failure::Timeout),
    }
}

/// The connection is gone: closed, an I/O failure on the socket, or the server ending the
/// session (FATAL/PANIC, e.g. `terminating connection due to administrator command`).
fn is_connection_failure(e: &tokio_postgres::Error) -> bool {
    if e.is_closed() {
        return true;
    }
    if let Some(db) = e.as_db_error() {
        return matches!(db.parsed_severity(), Some(Severity::Fatal | Severity::Panic));
    }
    let mut source = std::error::Error::source(e);
    while let Some(cause) = source {
        if cause.is::<std::io::Error>() {
            return true;
        }
        source = cause.source();
    }
    false
}

/// tokio-postgres prints a server error as just "db error": add the server's own words.
fn message(e: &tokio_postgres::Error) -> String {
    match std::error::Error::source(e) {
        Some(cause) => format!("{e}: {cause}"),
        None => e.to_string(),
    }
}

/// A conversion error's own message (serde's, with line and column), without the wrapper's prefix.
fn conversion_message(e: &tokio_postgres::Error) -> String {
    std::error::Error::source(e).map_or_else(|| e.to_string(), ToString::to_string)
}

impl Store for PostgresStore {
    fn kind(&self) -> StoreKind {
        StoreKind::Postgres { column: self.column }
    }

    fn describe(&self) -> String {
        self.conn.url.clone()
    }

    fn loaded(&mut self, collection: &str) -> Result<Option<LoadMarker>, StoreError> {
        check_collection(collection)?;
        let conn = &self.conn;
        let sql = "SELECT docs, description FROM jsoncost_markers WHERE doc_table = $1 AND collection = $2";
        let row = conn
            .run(conn.client.query_opt(sql, &[&self.table, &collection]))
            .map_err(|f| conn.error(f, "reading a load marker"))?;
        let Some(row) = row else { return Ok(None) };
        let read = |row: &tokio_postgres::Row| -> Result<LoadMarker, tokio_postgres::Error> {
            Ok(LoadMarker {
                docs: row.try_get::<_, i64>(0)? as u64,
                description: row.try_get(1)?,
            })
        };
        read(&row)
            .map(Some)
            .map_err(|e| StoreError::backend(&conn.url, "reading a load marker", e))
    }

    fn load(
        &mut self,
        collection: &str,
        docs: &mut dyn Iterator<Item = (String, Vec<u8>)>,
        marker: &LoadMarker,
    ) -> Result<u64, StoreError> {
        check_collection(collection)?;
        let (table, io_timeout) = (self.table, self.conn.io_timeout);
        let body_type = match self.column {
            PgColumn::Json => Type::JSON,
            PgColumn::Jsonb => Type::JSONB,
        };
        let client = &mut self.conn.client;
        // Each step is bounded by the io timeout; the load as a whole may take longer.
        let loading = async move {
            let txn = bounded(io_timeout, client.transaction()).await?;
            let clear_marker = "DELETE FROM jsoncost_markers WHERE doc_table = $1 AND collection = $2";
            bounded(io_timeout, txn.execute(clear_marker, &[&table, &collection])).await?;
            bounded(
                io_timeout,
                txn.execute(&format!("DELETE FROM {table} WHERE collection = $1"), &[&collection]),
            )
            .await?;
            // Binary COPY: the documents stream in one statement, no round trip per row.
            let sink = bounded(
                io_timeout,
                txn.copy_in(&format!("COPY {table} (collection, id, body) FROM STDIN BINARY")),
            )
            .await?;
            let mut writer = pin!(BinaryCopyInWriter::new(sink, &[Type::TEXT, Type::TEXT, body_type]));
            let mut count = 0u64;
            for (id, body) in docs {
                bounded(io_timeout, writer.as_mut().write(&[&collection, &id, &JsonParam(&body)])).await?;
                count += 1;
            }
            bounded(io_timeout, writer.as_mut().finish()).await?;
            let written = written_marker(count, marker);
            let docs = written.docs as i64;
            let insert = "INSERT INTO jsoncost_markers (doc_table, collection, docs, description) VALUES ($1, $2, $3, $4)";
            bounded(io_timeout, txn.execute(insert, &[&table, &collection, &docs, &written.description])).await?;
            bounded(io_timeout, txn.commit()).await?;
            Ok::<u64, Failure>(count)
        };
        let result = self.conn.rt.block_on(loading);
        result.map_err(|f| self.conn.error(f, &format!("loading collection {collection:?}")))
    }

    fn read_raw(&mut self, collection: &str, id: &str, f: &mut dyn FnMut(&[u8])) -> Result<(), StoreError> {
        let row = self.fetch(collection, id)?;
        let body: JsonBytes = row
            .try_get(0)
            .map_err(|e| StoreError::decode(collection, id, conversion_message(&e)))?;
        f(body.0);
        Ok(())
    }

    fn read_default(&mut self, collection: &str, id: &str) -> Result<Order, StoreError> {
        let row = self.fetch(collection, id)?;
        let Json(order) = row
            .try_get::<_, Json<Order>>(0)
            .map_err(|e| StoreError::decode(collection, id, conversion_message(&e)))?;
        Ok(order)
    }

    fn read_with_new_client(&mut self, collection: &str, id: &str) -> Option<Result<Order, StoreError>> {
        // Connect and authenticate (the startup exchange), an unprepared query (a new client has
        // no statements: tokio-postgres prepares it, a round trip), the client's `Json<T>`, drop.
        let conn = &self.conn;
        let limit = self.opts.connect_timeout + self.opts.io_timeout;
        let sql = format!("SELECT body FROM {} WHERE collection = $1 AND id = $2", self.table);
        let read = conn.rt.block_on(async {
            let (client, connection) = match tokio::time::timeout(limit, self.config.connect(NoTls)).await {
                Ok(Ok(pair)) => pair,
                Ok(Err(e)) => return Err(StoreError::lost(&conn.url, "connecting a new client", message(&e))),
                Err(_) => {
                    return Err(StoreError::lost(
                        &conn.url,
                        "connecting a new client",
                        format!("no answer within {limit:?}"),
                    ));
                }
            };
            let task = tokio::spawn(connection);
            let row = tokio::time::timeout(self.opts.io_timeout, client.query_opt(&sql, &[&collection, &id])).await;
            drop(client);
            let _ = task.await;
            match row {
                Ok(Ok(Some(row))) => row
                    .try_get::<_, Json<Order>>(0)
                    .map(|Json(order)| order)
                    .map_err(|e| StoreError::decode(collection, id, conversion_message(&e))),
                Ok(Ok(None)) => Err(StoreError::not_found(&conn.url, collection, id)),
                Ok(Err(e)) => Err(StoreError::lost(&conn.url, "reading with a new client", message(&e))),
                Err(_) => Err(StoreError::lost(&conn.url, "reading with a new client", "no reply")),
            }
        });
        Some(read)
    }

    fn read_projection(
        &mut self,
        collection: &str,
        id: &str,
        pointers: &[String],
        f: &mut dyn FnMut(usize, &[u8]),
    ) -> Option<Result<(), StoreError>> {
        Some((|| {
            let stmt = match &self.projection {
                Some((cached, stmt)) if cached == pointers => stmt.clone(),
                _ => {
                    // `body #> '{lines,0,sku}'`: the value at a path, as json/jsonb.
                    let fields: Vec<String> = pointers
                        .iter()
                        .map(|p| {
                            let path = crate::existing::pointer_tokens(p)?
                                .iter()
                                .map(|t| format!("\"{}\"", t.replace('\\', "\\\\").replace('"', "\\\"")))
                                .collect::<Vec<_>>()
                                .join(",");
                            Ok(format!("body #> '{{{}}}'", path.replace('\'', "''")))
                        })
                        .collect::<Result<_, StoreError>>()?;
                    let sql = format!("SELECT {} FROM {} WHERE collection = $1 AND id = $2", fields.join(", "), self.table);
                    let conn = &self.conn;
                    let stmt = conn
                        .run(conn.client.prepare(&sql))
                        .map_err(|f| conn.error(f, "preparing the projection"))?;
                    self.projection = Some((pointers.to_vec(), stmt.clone()));
                    stmt
                }
            };
            let conn = &self.conn;
            let row = conn
                .run(conn.client.query_opt(&stmt, &[&collection, &id]))
                .map_err(|f| conn.error(f, &format!("projecting {id:?}")))?
                .ok_or_else(|| StoreError::not_found(&conn.url, collection, id))?;
            for (i, pointer) in pointers.iter().enumerate() {
                let value: Option<JsonBytes> = row
                    .try_get(i)
                    .map_err(|e| StoreError::decode(collection, id, conversion_message(&e)))?;
                let value = value.ok_or_else(|| StoreError::decode(collection, id, format!("field {pointer} not found")))?;
                f(i, value.0);
            }
            Ok(())
        })())
    }

    fn existing_ids(&mut self, at: &Existing, limit: u64) -> Result<Vec<String>, StoreError> {
        let Existing::Rows { table, key, column } = at else {
            return Err(at.unsupported(&self.conn.url));
        };
        let (t, k, c) = (
            sql_identifier("--table", table, Quote::Double)?,
            sql_identifier("--key-column", key, Quote::Double)?,
            sql_identifier("--column", column, Quote::Double)?,
        );
        let conn = &self.conn;
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let rows = conn
            .run(
                conn.client
                    .query(&format!("SELECT {k}::text FROM {t} WHERE {c} IS NOT NULL LIMIT $1"), &[&limit]),
            )
            .map_err(|f| user_error(conn, at, f, &format!("listing {}", at.describe())))?;
        rows.iter()
            .filter_map(|r| r.try_get::<_, Option<String>>(0).transpose())
            .collect::<Result<_, _>>()
            .map_err(|e| StoreError::backend(&conn.url, "listing ids", message(&e)))
    }

    fn read_existing(&mut self, at: &Existing, id: &str, f: &mut dyn FnMut(&[u8])) -> Result<(), StoreError> {
        let stmt = self.existing_read(at)?;
        let Some(key) = KeyParam::of(&stmt.params()[0], id) else {
            return Err(StoreError::not_found(&self.conn.url, at.name(), id));
        };
        let conn = &self.conn;
        let row = conn
            .run(conn.client.query_opt(&stmt, &[key.as_sql()]))
            .map_err(|f| conn.error(f, &format!("reading {id:?}")))?
            .ok_or_else(|| StoreError::not_found(&conn.url, at.name(), id))?;
        let body: DocumentBytes = row
            .try_get(0)
            .map_err(|e| StoreError::decode(at.name(), id, conversion_message(&e)))?;
        f(body.0);
        Ok(())
    }

    fn read_default_dom(&mut self, collection: &str, id: &str) -> Result<Order, StoreError> {
        let row = self.fetch(collection, id)?;
        let Json(value) = row
            .try_get::<_, Json<serde_json::Value>>(0)
            .map_err(|e| StoreError::decode(collection, id, conversion_message(&e)))?;
        serde_json::from_value(value).map_err(|e| StoreError::decode(collection, id, e))
    }
}

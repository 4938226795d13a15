//! Standalone Redis through one synchronous `redis::Connection`.

use jsoncost_shapes::Order;
use redis::{Client, Connection};

use crate::error::StoreError;
use crate::existing::Existing;
use crate::load::{check_collection, written_marker};
use crate::location::{StoreKind, redact};
use crate::redis_common::{Reader, clear_node, delete_marker, load_in_batches, map_error, unreachable, write_marker};
use crate::store::{LoadMarker, OpenOptions, Store};

pub struct RedisStore {
    con: Connection,
    reader: Reader,
    /// What a new client connects with (the URL with its password, unlike `reader.url`).
    url: String,
    opts: OpenOptions,
}

/// Opens a plain connection with both timeouts set; shared with the cluster store, which
/// clears each master through one.
pub(crate) fn connect(url: &str, opts: &OpenOptions) -> Result<Connection, StoreError> {
    let shown = redact(url);
    let client = Client::open(url).map_err(|e| StoreError::BadUrl {
        url: shown.clone(),
        reason: e.to_string(),
    })?;
    let con = client
        .get_connection_with_timeout(opts.connect_timeout)
        .map_err(|e| unreachable(&shown, e))?;
    con.set_read_timeout(Some(opts.io_timeout))
        .map_err(|e| map_error(&shown, "setting the read timeout", e))?;
    con.set_write_timeout(Some(opts.io_timeout))
        .map_err(|e| map_error(&shown, "setting the write timeout", e))?;
    Ok(con)
}

impl RedisStore {
    pub fn open(url: &str, opts: &OpenOptions) -> Result<Self, StoreError> {
        let mut con = connect(url, opts)?;
        let shown = redact(url);
        // A server that accepts the connection but cannot serve (loading, auth) fails here, not mid-run.
        redis::cmd("PING").query::<String>(&mut con).map_err(|e| unreachable(&shown, e))?;
        Ok(RedisStore {
            con,
            reader: Reader::new(shown),
            url: url.to_string(),
            opts: opts.clone(),
        })
    }
}

impl Store for RedisStore {
    fn kind(&self) -> StoreKind {
        StoreKind::Redis
    }

    fn describe(&self) -> String {
        self.reader.url.clone()
    }

    fn loaded(&mut self, collection: &str) -> Result<Option<LoadMarker>, StoreError> {
        check_collection(collection)?;
        self.reader.loaded(&mut self.con, collection)
    }

    fn load(
        &mut self,
        collection: &str,
        docs: &mut dyn Iterator<Item = (String, Vec<u8>)>,
        marker: &LoadMarker,
    ) -> Result<u64, StoreError> {
        check_collection(collection)?;
        let url = self.reader.url.clone();
        delete_marker(&mut self.con, &url, collection)?;
        clear_node(&mut self.con, &url, collection)?;
        // Pipelined SETs: one round trip per batch instead of per document.
        let con = &mut self.con;
        let count = load_in_batches(collection, docs, |batch| {
            let mut pipe = redis::pipe();
            for (key, body) in batch {
                pipe.set(key, body).ignore();
            }
            pipe.exec(con).map_err(|e| map_error(&url, "loading documents", e))
        })?;
        write_marker(&mut self.con, &url, collection, &written_marker(count, marker))?;
        Ok(count)
    }

    fn read_raw(&mut self, collection: &str, id: &str, f: &mut dyn FnMut(&[u8])) -> Result<(), StoreError> {
        self.reader.read_raw(&mut self.con, collection, id, f)
    }

    fn read_default(&mut self, collection: &str, id: &str) -> Result<Order, StoreError> {
        self.reader.read_default(&mut self.con, collection, id)
    }

    fn read_default_dom(&mut self, collection: &str, id: &str) -> Result<Order, StoreError> {
        self.reader.read_default_dom(&mut self.con, collection, id)
    }

    fn read_with_new_client(&mut self, collection: &str, id: &str) -> Option<Result<Order, StoreError>> {
        // What a handler that builds its client per call does: open, connect, GET, parse, drop.
        Some(connect(&self.url, &self.opts).and_then(|mut con| {
            let mut reader = Reader::new(self.reader.url.clone());
            reader.read_default(&mut con, collection, id)
        }))
    }

    fn existing_ids(&mut self, at: &Existing, limit: u64) -> Result<Vec<String>, StoreError> {
        let Existing::Keys { pattern } = at else {
            return Err(at.unsupported(&self.reader.url));
        };
        // SCAN, not KEYS: it does not block the server, and stops once `limit` keys are seen.
        let mut ids = Vec::new();
        let mut cursor = 0u64;
        loop {
            let (next, keys): (u64, Vec<String>) = redis::cmd("SCAN")
                .arg(cursor)
                .arg("MATCH")
                .arg(pattern)
                .arg("COUNT")
                .arg(1000)
                .query(&mut self.con)
                .map_err(|e| map_error(&self.reader.url, &format!("SCAN MATCH {pattern}"), e))?;
            ids.extend(keys);
            cursor = next;
            if cursor == 0 || ids.len() as u64 >= limit {
                break;
            }
        }
        ids.truncate(limit as usize);
        Ok(ids)
    }

    fn existing_len(&mut self, at: &Existing, id: &str) -> Result<Option<u64>, StoreError> {
        if !matches!(at, Existing::Keys { .. }) {
            return Err(at.unsupported(&self.reader.url));
        }
        // A key of another type has no length here: its read says what it holds.
        match redis::cmd("STRLEN").arg(id).query::<u64>(&mut self.con) {
            Ok(len) => Ok(Some(len)),
            Err(e) if e.code() == Some("WRONGTYPE") => Ok(None),
            Err(e) => Err(map_error(&self.reader.url, &format!("STRLEN {id}"), e)),
        }
    }

    fn read_existing(&mut self, at: &Existing, id: &str, f: &mut dyn FnMut(&[u8])) -> Result<(), StoreError> {
        let Existing::Keys { pattern } = at else {
            return Err(at.unsupported(&self.reader.url));
        };
        // A key of another type (a hash, a list) among those the pattern matches is that
        // document's failure, as a string that is not JSON would be.
        let body: Option<Vec<u8>> = match redis::Commands::get(&mut self.con, id) {
            Ok(body) => body,
            Err(e) if e.code() == Some("WRONGTYPE") => {
                let held: String = redis::cmd("TYPE")
                    .arg(id)
                    .query(&mut self.con)
                    .unwrap_or_else(|_| "another type".into());
                return Err(StoreError::Decode {
                    place: "keys",
                    collection: pattern.to_string(),
                    id: id.to_string(),
                    message: format!("the key holds a {held}, not a string"),
                });
            }
            Err(e) => return Err(map_error(&self.reader.url, &format!("GET {id}"), e)),
        };
        match body {
            Some(body) => {
                f(&body);
                Ok(())
            }
            None => Err(StoreError::not_found(&self.reader.url, pattern, id)),
        }
    }
}

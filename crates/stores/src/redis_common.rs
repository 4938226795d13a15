//! What standalone Redis and Redis Cluster share: key names, the reads (the same commands go
//! through either connection), load markers, clearing a node, and error mapping.
//!
//! Keys: `jsoncost:<collection>:<id>` holds a document's raw JSON; the hash
//! `jsoncost-marker:<collection>` holds its load marker (fields `docs`, `description`). No
//! braces, so cluster keys spread over every slot as a real data set's would.

use std::fmt::Write as _;

use jsoncost_shapes::Order;
use redis::{Commands, Connection, ConnectionLike, ErrorKind, RedisError};

use crate::error::StoreError;
use crate::store::LoadMarker;

/// Documents per pipeline during a load: ~1 MB of `order` documents per round trip.
pub(crate) const LOAD_BATCH: usize = 256;
/// Keys per SCAN step and per UNLINK when clearing a collection.
const CLEAR_BATCH: usize = 1000;

pub(crate) fn doc_key(buf: &mut String, collection: &str, id: &str) {
    buf.clear();
    // Writing into a String cannot fail.
    let _ = write!(buf, "jsoncost:{collection}:{id}");
}

/// Feeds `docs` to `send` as (key, body) batches of [`LOAD_BATCH`]: one pipeline round trip per
/// batch instead of per document. Returns how many documents were sent.
pub(crate) fn load_in_batches(
    collection: &str,
    docs: &mut dyn Iterator<Item = (String, Vec<u8>)>,
    mut send: impl FnMut(&[(String, Vec<u8>)]) -> Result<(), StoreError>,
) -> Result<u64, StoreError> {
    let mut batch = Vec::with_capacity(LOAD_BATCH);
    let mut count = 0u64;
    for (id, body) in docs {
        let mut key = String::new();
        doc_key(&mut key, collection, &id);
        batch.push((key, body));
        count += 1;
        if batch.len() == LOAD_BATCH {
            send(&batch)?;
            batch.clear();
        }
    }
    if !batch.is_empty() {
        send(&batch)?;
    }
    Ok(count)
}

pub(crate) fn marker_key(collection: &str) -> String {
    format!("jsoncost-marker:{collection}")
}

/// Connection-level failures (the server went away or stopped answering) end the run; the
/// rest are reported as the server's own errors.
pub(crate) fn map_error(url: &str, operation: &str, e: RedisError) -> StoreError {
    let lost = e.is_io_error()
        || e.is_timeout()
        || e.is_connection_dropped()
        || e.is_unrecoverable_error()
        || e.is_cluster_error()
        || e.kind() == ErrorKind::ClusterConnectionNotFound;
    if lost {
        StoreError::lost(url, operation, cause(&e))
    } else {
        StoreError::backend(url, operation, e)
    }
}

/// The client's error as said to a user: a read or write past its timeout surfaces as the
/// socket's EAGAIN ("Resource temporarily unavailable (os error 11)"), which says "timed out".
fn cause(e: &RedisError) -> String {
    if e.is_timeout() {
        "timed out waiting for an answer".to_string()
    } else {
        e.to_string()
    }
}

pub(crate) fn unreachable(url: &str, e: RedisError) -> StoreError {
    StoreError::Unreachable {
        url: url.to_string(),
        cause: cause(&e),
        hint: "that a Redis server listens at that address and accepts connections (for tests: scripts/services.sh start)".to_string(),
    }
}

/// Reads through any connection: standalone or cluster.
pub(crate) struct Reader {
    pub(crate) url: String,
    key: String,
}

impl Reader {
    pub(crate) fn new(url: String) -> Self {
        Reader {
            url,
            key: String::with_capacity(64),
        }
    }

    pub(crate) fn loaded(&self, con: &mut impl ConnectionLike, collection: &str) -> Result<Option<LoadMarker>, StoreError> {
        let (docs, description): (Option<u64>, Option<String>) = con
            .hmget(marker_key(collection), &["docs", "description"])
            .map_err(|e| map_error(&self.url, "reading a load marker", e))?;
        Ok(docs.zip(description).map(|(docs, description)| LoadMarker { docs, description }))
    }

    /// A missing key: tell a missing document from a collection that was never loaded.
    fn missing(&self, con: &mut impl ConnectionLike, collection: &str, id: &str) -> StoreError {
        match self.loaded(con, collection) {
            Ok(Some(_)) => StoreError::not_found(&self.url, collection, id),
            Ok(None) => StoreError::not_loaded(&self.url, collection),
            Err(e) => e,
        }
    }

    /// `GET` into `Vec<u8>`: the client hands over its reply buffer, no copy.
    pub(crate) fn read_raw(
        &mut self,
        con: &mut impl ConnectionLike,
        collection: &str,
        id: &str,
        f: &mut dyn FnMut(&[u8]),
    ) -> Result<(), StoreError> {
        doc_key(&mut self.key, collection, id);
        let body: Option<Vec<u8>> = con
            .get(&self.key)
            .map_err(|e| map_error(&self.url, &format!("GET {}", self.key), e))?;
        match body {
            Some(body) => {
                f(&body);
                Ok(())
            }
            None => Err(self.missing(con, collection, id)),
        }
    }

    /// `GET` into `String`, as a user writes first (the client checks UTF-8).
    fn read_string(&mut self, con: &mut impl ConnectionLike, collection: &str, id: &str) -> Result<String, StoreError> {
        doc_key(&mut self.key, collection, id);
        let body: Option<String> = con.get(&self.key).map_err(|e| match e.kind() {
            ErrorKind::Parse | ErrorKind::UnexpectedReturnType => StoreError::decode(collection, id, e),
            _ => map_error(&self.url, &format!("GET {}", self.key), e),
        })?;
        body.ok_or_else(|| self.missing(con, collection, id))
    }

    pub(crate) fn read_default(&mut self, con: &mut impl ConnectionLike, collection: &str, id: &str) -> Result<Order, StoreError> {
        let body = self.read_string(con, collection, id)?;
        serde_json::from_str(&body).map_err(|e| StoreError::decode(collection, id, e))
    }

    pub(crate) fn read_default_dom(&mut self, con: &mut impl ConnectionLike, collection: &str, id: &str) -> Result<Order, StoreError> {
        let body = self.read_string(con, collection, id)?;
        let value: serde_json::Value = serde_json::from_str(&body).map_err(|e| StoreError::decode(collection, id, e))?;
        serde_json::from_value(value).map_err(|e| StoreError::decode(collection, id, e))
    }
}

/// Deletes one node's documents of `collection` (SCAN, then pipelined UNLINKs).
pub(crate) fn clear_node(con: &mut Connection, url: &str, collection: &str) -> Result<(), StoreError> {
    let pattern = format!("jsoncost:{collection}:*");
    let keys: Vec<String> = {
        let opts = redis::ScanOptions::default().with_pattern(&pattern).with_count(CLEAR_BATCH);
        let iter = con
            .scan_options::<String>(opts)
            .map_err(|e| map_error(url, &format!("SCAN {pattern}"), e))?;
        iter.collect::<Result<_, _>>()
            .map_err(|e| map_error(url, &format!("SCAN {pattern}"), e))?
    };
    // One key per UNLINK: a cluster node refuses multi-key commands across slots.
    for chunk in keys.chunks(CLEAR_BATCH) {
        let mut pipe = redis::pipe();
        for key in chunk {
            pipe.unlink(key).ignore();
        }
        pipe.exec(con).map_err(|e| map_error(url, "UNLINK", e))?;
    }
    Ok(())
}

/// Records the marker (last step of a load).
pub(crate) fn write_marker(con: &mut impl ConnectionLike, url: &str, collection: &str, marker: &LoadMarker) -> Result<(), StoreError> {
    let fields = [("docs", marker.docs.to_string()), ("description", marker.description.clone())];
    con.hset_multiple::<_, _, _, ()>(marker_key(collection), &fields)
        .map_err(|e| map_error(url, "writing the load marker", e))
}

/// Removes the marker (first step of a load, so an interrupted load reads as not loaded).
pub(crate) fn delete_marker(con: &mut impl ConnectionLike, url: &str, collection: &str) -> Result<(), StoreError> {
    con.del::<_, ()>(marker_key(collection))
        .map_err(|e| map_error(url, "deleting the load marker", e))
}

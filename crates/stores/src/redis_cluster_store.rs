//! Redis Cluster through one synchronous `ClusterConnection`, which routes each key to the
//! master owning its slot.

use jsoncost_shapes::Order;
use redis::cluster::{ClusterClient, ClusterConnection, cluster_pipe};

use crate::error::StoreError;
use crate::load::{check_collection, written_marker};
use crate::location::{StoreKind, redact};
use crate::redis_common::{Reader, clear_node, delete_marker, load_in_batches, map_error, unreachable, write_marker};
use crate::redis_store::connect;
use crate::store::{LoadMarker, OpenOptions, Store};

/// Few, short retries: a dead node must surface as an error within seconds, not minutes.
const RETRIES: u32 = 2;
const MIN_RETRY_WAIT_MS: u64 = 20;
const MAX_RETRY_WAIT_MS: u64 = 200;

pub struct RedisClusterStore {
    con: ClusterConnection,
    reader: Reader,
    opts: OpenOptions,
    /// The first seed node's host, for masters that do not know their own address yet.
    seed_host: String,
}

impl RedisClusterStore {
    pub fn open(nodes: &[String], opts: &OpenOptions) -> Result<Self, StoreError> {
        let shown = format!(
            "redis+cluster://{}",
            nodes
                .iter()
                .map(|n| redact(n).trim_start_matches("redis://").to_string())
                .collect::<Vec<_>>()
                .join(",")
        );
        let client = ClusterClient::builder(nodes.iter().map(String::as_str))
            .connection_timeout(opts.connect_timeout)
            .response_timeout(opts.io_timeout)
            .retries(RETRIES)
            .min_retry_wait(MIN_RETRY_WAIT_MS)
            .max_retry_wait(MAX_RETRY_WAIT_MS)
            .build()
            .map_err(|e| StoreError::BadUrl {
                url: shown.clone(),
                reason: e.to_string(),
            })?;
        let mut con = client.get_connection().map_err(|e| unreachable(&shown, e))?;
        con.set_write_timeout(Some(opts.io_timeout))
            .map_err(|e| map_error(&shown, "setting the write timeout", e))?;
        // Refuse a cluster that cannot serve every slot now rather than mid-run.
        let info: String = redis::cmd("CLUSTER")
            .arg("INFO")
            .query(&mut con)
            .map_err(|e| unreachable(&shown, e))?;
        if !info.lines().any(|line| line.trim() == "cluster_state:ok") {
            return Err(StoreError::Unreachable {
                url: shown,
                cause: "the cluster is not in cluster_state:ok".to_string(),
                hint: "that every master is up and all 16384 slots are assigned (redis-cli --cluster check HOST:PORT)".to_string(),
            });
        }
        let seed_host = seed_host(nodes.first().map_or("", String::as_str));
        Ok(RedisClusterStore {
            con,
            reader: Reader::new(shown),
            opts: opts.clone(),
            seed_host,
        })
    }

    /// The masters' addresses, from `CLUSTER NODES` (`<id> <host:port@cport> <flags> ...`); a
    /// node that never met another one lists itself as `:port`.
    fn masters(&mut self) -> Result<Vec<String>, StoreError> {
        let nodes: String = redis::cmd("CLUSTER")
            .arg("NODES")
            .query(&mut self.con)
            .map_err(|e| map_error(&self.reader.url, "CLUSTER NODES", e))?;
        Ok(nodes
            .lines()
            .filter_map(|line| {
                let mut fields = line.split_whitespace();
                let addr = fields.nth(1)?;
                let flags = fields.next()?;
                let is_master = flags.split(',').any(|f| f == "master") && !flags.contains("fail");
                let addr = addr.split('@').next().unwrap_or(addr);
                is_master.then(|| match addr.strip_prefix(':') {
                    Some(port) => format!("{}:{port}", self.seed_host),
                    None => addr.to_string(),
                })
            })
            .collect())
    }
}

impl Store for RedisClusterStore {
    fn kind(&self) -> StoreKind {
        StoreKind::RedisCluster
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
        // SCAN sees one node's keys: clear each master through a plain connection of its own.
        for master in self.masters()? {
            let node_url = format!("redis://{master}");
            let mut node = connect(&node_url, &self.opts)?;
            clear_node(&mut node, &node_url, collection)?;
        }
        // The cluster pipeline splits each batch by node: one round trip per node per batch.
        let con = &mut self.con;
        let count = load_in_batches(collection, docs, |batch| {
            let mut pipe = cluster_pipe();
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
}

/// `redis://[user@]HOST:PORT` → `HOST`.
fn seed_host(node_url: &str) -> String {
    let authority = node_url.trim_start_matches("redis://");
    let host_port = authority.rsplit_once('@').map_or(authority, |(_, hp)| hp);
    host_port.rsplit_once(':').map_or(host_port, |(host, _)| host).to_string()
}

#[cfg(test)]
mod tests {
    #[test]
    fn seed_host_drops_scheme_user_and_port() {
        assert_eq!(super::seed_host("redis://127.0.0.1:17001"), "127.0.0.1");
        assert_eq!(super::seed_host("redis://:pw@cache.local:7000"), "cache.local");
    }
}

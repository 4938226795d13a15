//! The item cache in front of the source: a real cache, filled on a miss. In process (moka) by
//! default, or Redis ([`CacheConfig::Redis`]) holding each item's stored JSON bytes under a
//! namespaced key. Either way the cache holds the stored bytes; the mode's work (deserialize and
//! serialize again, or pass through) happens per request after it.

use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use redis::aio::{ConnectionManager, ConnectionManagerConfig};

use super::errors::ApiError;
use crate::source::{ItemSource, SourceError};

/// Key prefix of the items in a Redis cache: item 7 is `jsoncost:http:item:7`.
pub const REDIS_KEY_PREFIX: &str = "jsoncost:http:item:";
/// Seconds an item lives in a Redis cache once loaded (so a shared Redis is not left full).
pub const REDIS_TTL_SECS: u64 = 3600;
/// Bound of the startup connection to a Redis cache, including its PING.
pub const REDIS_CONNECT_TIMEOUT: Duration = Duration::from_secs(3);
/// Bound of one cache read or write during a request; past it the request answers 503.
pub const REDIS_OP_TIMEOUT: Duration = Duration::from_secs(2);

/// Which cache `GET /items/{id}` reads through.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum CacheConfig {
    /// In-process moka cache of [`super::ServerConfig::cache_capacity`] entries.
    #[default]
    Memory,
    /// A Redis server (`redis://HOST:PORT[/DB]`), one multiplexed connection that reconnects
    /// on its own. Items are stored under `{key_prefix}{id}` for [`REDIS_TTL_SECS`].
    Redis {
        /// `redis://HOST:PORT[/DB]`.
        url: String,
        /// Prepended to each item's id to make its key.
        key_prefix: String,
    },
}

impl CacheConfig {
    /// Redis at `url` with the default key prefix [`REDIS_KEY_PREFIX`].
    pub fn redis(url: impl Into<String>) -> Self {
        CacheConfig::Redis {
            url: url.into(),
            key_prefix: REDIS_KEY_PREFIX.to_string(),
        }
    }

    /// `memory`, or the Redis URL without its password.
    pub fn describe(&self) -> String {
        match self {
            CacheConfig::Memory => "memory".to_string(),
            CacheConfig::Redis { url, .. } => jsoncost_stores::redact(url),
        }
    }
}

/// Why a `--cache` value was not understood.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid cache {given:?}: expected `memory` or redis://HOST:PORT")]
pub struct CacheParseError {
    /// The value given.
    pub given: String,
}

impl FromStr for CacheConfig {
    type Err = CacheParseError;

    /// `memory` (or `moka`), or a `redis://` URL. The URL itself is checked by
    /// [`super::start`] ([`super::ServerError::CacheUrl`]).
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "memory" | "moka" => Ok(CacheConfig::Memory),
            url if url.starts_with("redis://") => Ok(CacheConfig::redis(url)),
            other => Err(CacheParseError {
                given: jsoncost_stores::redact(other),
            }),
        }
    }
}

/// Calls the source inline if it only touches memory, else on the blocking pool so a database
/// read never stalls a runtime worker.
pub async fn call_source<T, F>(source: &Arc<dyn ItemSource>, f: F) -> Result<T, ApiError>
where
    T: Send + 'static,
    F: FnOnce(&dyn ItemSource) -> Result<T, SourceError> + Send + 'static,
{
    if !source.is_blocking() {
        return Ok(f(source.as_ref())?);
    }
    let source = Arc::clone(source);
    tokio::task::spawn_blocking(move || f(source.as_ref()))
        .await
        .map_err(|e| ApiError::Internal {
            message: format!("source task failed: {e}"),
        })?
        .map_err(ApiError::from)
}

enum Miss {
    NotFound,
    Failed(ApiError),
}

/// Why a Redis cache could not be used at startup.
#[derive(Debug)]
pub enum RedisStartError {
    /// The URL does not parse as a Redis URL.
    Url(String),
    /// No connection, or no PONG, within [`REDIS_CONNECT_TIMEOUT`].
    Unreachable(String),
}

/// One multiplexed connection to the Redis cache.
pub struct RedisCache {
    conn: ConnectionManager,
    /// The URL without its password, for errors.
    shown: String,
    key_prefix: String,
}

impl RedisCache {
    /// Connects and checks the server answers PING, all within [`REDIS_CONNECT_TIMEOUT`].
    /// Must run inside the server's runtime: the connection's tasks are spawned on it.
    pub async fn connect(url: &str, key_prefix: &str) -> Result<Self, RedisStartError> {
        let client = redis::Client::open(url).map_err(|e| RedisStartError::Url(e.to_string()))?;
        // No retries: a request that finds Redis gone waits for one connection attempt (bounded
        // by the connection timeout) and answers 503, and the next request tries again. Retries
        // with a backoff inside each request made every 503 take ~0.3 s with Redis dead, so a
        // load run of 30,000 requests over 10 connections ran for a quarter of an hour.
        let config = ConnectionManagerConfig::new()
            .set_connection_timeout(Some(REDIS_OP_TIMEOUT))
            .set_response_timeout(Some(REDIS_OP_TIMEOUT))
            .set_number_of_retries(0);
        let connect = async {
            let mut conn = ConnectionManager::new_with_config(client, config)
                .await
                .map_err(|e| e.to_string())?;
            let pong: String = redis::cmd("PING").query_async(&mut conn).await.map_err(|e| e.to_string())?;
            if pong != "PONG" {
                return Err(format!("PING answered {pong:?}"));
            }
            Ok(conn)
        };
        let conn = tokio::time::timeout(REDIS_CONNECT_TIMEOUT, connect)
            .await
            .map_err(|_| RedisStartError::Unreachable(format!("no connection and PONG within {REDIS_CONNECT_TIMEOUT:?}")))?
            .map_err(RedisStartError::Unreachable)?;
        Ok(RedisCache {
            conn,
            shown: jsoncost_stores::redact(url),
            key_prefix: key_prefix.to_string(),
        })
    }

    fn unavailable(&self, message: String) -> ApiError {
        ApiError::CacheUnavailable {
            cache: self.shown.clone(),
            message,
        }
    }

    /// Runs one command, bounded by [`REDIS_OP_TIMEOUT`].
    async fn query<T: redis::FromRedisValue>(&self, cmd: &redis::Cmd, what: &str) -> Result<T, ApiError> {
        let mut conn = self.conn.clone();
        match tokio::time::timeout(REDIS_OP_TIMEOUT, cmd.query_async::<T>(&mut conn)).await {
            Ok(Ok(value)) => Ok(value),
            Ok(Err(e)) => Err(self.unavailable(format!("{what}: {e}"))),
            Err(_) => Err(self.unavailable(format!("{what}: no answer within {REDIS_OP_TIMEOUT:?}"))),
        }
    }

    async fn get(&self, id: u64, source: &Arc<dyn ItemSource>) -> Result<Bytes, ApiError> {
        let key = format!("{}{id}", self.key_prefix);
        if let Some(bytes) = self
            .query::<Option<Bytes>>(redis::cmd("GET").arg(&key), &format!("GET {key}"))
            .await?
        {
            return Ok(bytes);
        }
        let bytes = call_source(source, move |s| s.item(id))
            .await?
            .ok_or(ApiError::ItemNotFound { id })?;
        let mut set = redis::cmd("SET");
        set.arg(&key).arg(bytes.as_ref()).arg("EX").arg(REDIS_TTL_SECS);
        self.query::<()>(&set, &format!("SET {key}")).await?;
        Ok(bytes)
    }
}

enum Backend {
    Memory(moka::future::Cache<u64, Bytes>),
    Redis(RedisCache),
}

pub struct ItemCache {
    backend: Backend,
    source: Arc<dyn ItemSource>,
}

impl ItemCache {
    /// An in-process cache of `capacity` entries.
    pub fn new(source: Arc<dyn ItemSource>, capacity: u64) -> Self {
        ItemCache {
            backend: Backend::Memory(moka::future::Cache::new(capacity)),
            source,
        }
    }

    /// A Redis cache over an open connection.
    pub fn redis(source: Arc<dyn ItemSource>, redis: RedisCache) -> Self {
        ItemCache {
            backend: Backend::Redis(redis),
            source,
        }
    }

    /// The stored bytes of item `id`, from the cache or loaded from the source (and stored in
    /// the cache). Unknown ids are not cached. In memory, concurrent misses on one id load it
    /// once; a Redis that fails answers [`ApiError::CacheUnavailable`] (503).
    pub async fn get(&self, id: u64) -> Result<Bytes, ApiError> {
        let cache = match &self.backend {
            Backend::Memory(cache) => cache,
            Backend::Redis(redis) => return redis.get(id, &self.source).await,
        };
        let load = async {
            match call_source(&self.source, move |s| s.item(id)).await {
                Ok(Some(bytes)) => Ok(bytes),
                Ok(None) => Err(Miss::NotFound),
                Err(e) => Err(Miss::Failed(e)),
            }
        };
        cache.try_get_with(id, load).await.map_err(|miss| match &*miss {
            Miss::NotFound => ApiError::ItemNotFound { id },
            // The error is shared by every request that waited on this load, hence by reference.
            Miss::Failed(e) => ApiError::Internal {
                message: format!("loading item {id}: {e}"),
            },
        })
    }
}

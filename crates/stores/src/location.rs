//! Store URLs: which store a URL names, where it is, what kind of store that is, and how to
//! print it without secrets. A backend's URL scheme, cargo feature and kind are all here.

use std::fmt;
use std::path::PathBuf;
use std::str::FromStr;

use crate::error::StoreError;

/// The URL forms [`crate::open`] accepts, for usage messages.
pub const SCHEMES: &str = "redb:PATH, sqlite:PATH, redis://HOST:PORT, redis+cluster://HOST:PORT,HOST:PORT,..., \
                           postgres://USER@HOST:PORT/DB (or postgresql://)";

/// Which store a [`Store`](crate::Store) is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum StoreKind {
    /// Embedded redb, one file.
    Redb,
    /// SQLite, one file.
    Sqlite,
    /// One Redis server.
    Redis,
    /// A Redis Cluster.
    RedisCluster,
    /// PostgreSQL, documents in a column of this type.
    Postgres {
        /// `json` or `jsonb`.
        column: PgColumn,
    },
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
    /// The column type's SQL name: `json`, `jsonb`.
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

/// What a store URL names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Location {
    /// `redb:PATH`: the file.
    Redb(PathBuf),
    /// `sqlite:PATH`: the database file.
    Sqlite(PathBuf),
    /// A `redis://` URL as the redis crate reads it.
    Redis(String),
    /// One `redis://HOST:PORT` URL per seed node.
    RedisCluster(Vec<String>),
    /// A `postgres://` or `postgresql://` URL as tokio-postgres reads it.
    Postgres(String),
}

impl Location {
    /// The cargo feature (of this crate and of `jsoncost`) that builds this store's client.
    pub fn feature(&self) -> &'static str {
        match self {
            Location::Redb(_) => "redb",
            Location::Sqlite(_) => "sqlite",
            Location::Redis(_) | Location::RedisCluster(_) => "redis",
            Location::Postgres(_) => "postgres",
        }
    }

    /// Reads a store URL (one of [`SCHEMES`](crate::SCHEMES)); a bad one is
    /// [`StoreError::UnknownScheme`] or [`StoreError::BadUrl`].
    pub fn parse(url: &str) -> Result<Location, StoreError> {
        let bad = |reason: &str| StoreError::BadUrl {
            url: redact(url),
            reason: reason.to_string(),
        };
        if let Some(path) = url.strip_prefix("redb:") {
            return file_path(path).map(Location::Redb).ok_or_else(|| bad("expected redb:PATH"));
        }
        if let Some(path) = url.strip_prefix("sqlite:") {
            return file_path(path).map(Location::Sqlite).ok_or_else(|| bad("expected sqlite:PATH"));
        }
        if let Some(rest) = url.strip_prefix("redis+cluster://") {
            let (userinfo, hosts) = match rest.rsplit_once('@') {
                Some((user, hosts)) => (format!("{user}@"), hosts),
                None => (String::new(), rest),
            };
            let hosts = hosts.trim_end_matches('/');
            let mut nodes = Vec::new();
            for node in hosts.split(',') {
                let valid_port = node
                    .rsplit_once(':')
                    .is_some_and(|(host, port)| !host.is_empty() && port.parse::<u16>().is_ok());
                if !valid_port {
                    return Err(bad(&format!("cluster node {node:?} is not HOST:PORT")));
                }
                nodes.push(format!("redis://{userinfo}{node}"));
            }
            return Ok(Location::RedisCluster(nodes));
        }
        if url.starts_with("redis://") {
            return Ok(Location::Redis(url.to_string()));
        }
        if url.starts_with("postgres://") || url.starts_with("postgresql://") {
            return Ok(Location::Postgres(url.to_string()));
        }
        Err(StoreError::UnknownScheme {
            url: redact(url),
            schemes: SCHEMES,
        })
    }
}

impl Location {
    /// The kind of store this is, as [`crate::Store::kind`] will say once it is open
    /// (PostgreSQL: with the column type it is opened with).
    pub fn kind(&self, pg_column: PgColumn) -> StoreKind {
        match self {
            Location::Redb(_) => StoreKind::Redb,
            Location::Sqlite(_) => StoreKind::Sqlite,
            Location::Redis(_) => StoreKind::Redis,
            Location::RedisCluster(_) => StoreKind::RedisCluster,
            Location::Postgres(_) => StoreKind::Postgres { column: pg_column },
        }
    }
}

/// `PATH` or `//PATH` (so `redb:///tmp/x.redb` works too); None when empty.
fn file_path(rest: &str) -> Option<PathBuf> {
    let path = rest.strip_prefix("//").unwrap_or(rest);
    (!path.is_empty()).then(|| PathBuf::from(path))
}

/// The URL with any password removed (`redis://:secret@h:1` → `redis://h:1`,
/// `postgres://u:secret@h/db` → `postgres://u@h/db`, `?password=secret` dropped).
pub fn redact(url: &str) -> String {
    let url = match url.split_once('?') {
        Some((base, query)) => {
            let kept: Vec<&str> = query.split('&').filter(|param| !param.starts_with("password=")).collect();
            if kept.is_empty() {
                base.to_string()
            } else {
                format!("{base}?{}", kept.join("&"))
            }
        }
        None => url.to_string(),
    };
    let Some((scheme, rest)) = url.split_once("://") else {
        return url;
    };
    // The last '@' ends the userinfo: passwords may contain '/' or '@'.
    let Some(at) = rest.rfind('@') else {
        return url;
    };
    let (userinfo, host) = (&rest[..at], &rest[at + 1..]);
    match userinfo.split_once(':') {
        Some(("", _password)) => format!("{scheme}://{host}"),
        Some((user, _password)) => format!("{scheme}://{user}@{host}"),
        None => url,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_every_scheme() {
        assert_eq!(Location::parse("redb:/tmp/a.redb").unwrap(), Location::Redb("/tmp/a.redb".into()));
        assert_eq!(Location::parse("redb:///tmp/a.redb").unwrap(), Location::Redb("/tmp/a.redb".into()));
        assert_eq!(Location::parse("sqlite:rel/b.db").unwrap(), Location::Sqlite("rel/b.db".into()));
        assert_eq!(
            Location::parse("redis://127.0.0.1:6379").unwrap(),
            Location::Redis("redis://127.0.0.1:6379".into())
        );
        assert_eq!(
            Location::parse("redis+cluster://127.0.0.1:1,127.0.0.1:2").unwrap(),
            Location::RedisCluster(vec!["redis://127.0.0.1:1".into(), "redis://127.0.0.1:2".into()])
        );
        assert_eq!(
            Location::parse("postgresql://u@h/db").unwrap(),
            Location::Postgres("postgresql://u@h/db".into())
        );
    }

    #[test]
    fn rejects_bad_urls() {
        assert!(matches!(Location::parse("redb:"), Err(StoreError::BadUrl { .. })));
        assert!(matches!(Location::parse("redis+cluster://h:1,h"), Err(StoreError::BadUrl { .. })));
        let err = Location::parse("mongodb://h:27017").unwrap_err();
        assert!(matches!(err, StoreError::UnknownScheme { .. }));
        assert_eq!(err.exit_code(), 2);
        let message = err.to_string();
        for scheme in ["redb:", "sqlite:", "redis://", "redis+cluster://", "postgres://"] {
            assert!(message.contains(scheme), "{message}");
        }
    }

    #[test]
    fn redacts_passwords() {
        assert_eq!(redact("redis://:secret@h:1"), "redis://h:1");
        assert_eq!(redact("postgres://u:se/cret@h:5/db"), "postgres://u@h:5/db");
        assert_eq!(redact("postgres://u@h/db"), "postgres://u@h/db");
        assert_eq!(redact("redb:/tmp/x"), "redb:/tmp/x");
        assert_eq!(
            redact("postgres://u@h/db?password=pw&application_name=a"),
            "postgres://u@h/db?application_name=a"
        );
        assert_eq!(redact("postgres://u@h/db?password=pw"), "postgres://u@h/db");
        assert!(!Location::parse("mongodb://u:pw@h").unwrap_err().to_string().contains("pw"));
    }
}

//! `jsoncost serve`: the reference JSON API alone, until Ctrl-C (for wrk, ab, or another machine's
//! load generator pointed at loopback).

use anyhow::anyhow;
use jsoncost_http::server::{self, ServerConfig};
use jsoncost_http::{ServeMode, StoreData, StoreSource};
use jsoncost_stores::OpenOptions;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use crate::failure::{environment, usage};
use crate::interrupt;
use jsoncost::flags::Mebibytes;

#[derive(Debug, Clone, clap::Args)]
pub struct ServeArgs {
    /// Address to listen on.
    #[arg(long, default_value = "127.0.0.1:8080")]
    pub addr: SocketAddr,
    /// Where items and lists are read (default: the embedded redb store).
    #[arg(long, value_name = "URL")]
    pub store: Option<String>,
    /// The item cache: memory (an in-process moka cache) or redis://HOST:PORT.
    #[arg(long, default_value = "memory", value_name = "memory|URL")]
    pub cache: jsoncost_http::CacheConfig,
    /// Largest POST body accepted, in MiB (over it: 413).
    #[arg(long, value_name = "MIB", default_value_t = Mebibytes::new(128))]
    pub body_limit_mib: Mebibytes,
    /// Seconds a client has to send a request's whole header; a slower connection is closed.
    #[arg(long, value_name = "SECONDS", default_value_t = server::DEFAULT_HEADER_READ_TIMEOUT.as_secs(), value_parser = clap::value_parser!(u64).range(1..=3600))]
    pub header_timeout_secs: u64,
    /// Seconds a POST has to send its whole body once the server reads it; slower: 408, and
    /// the connection is closed.
    #[arg(long, value_name = "SECONDS", default_value_t = server::DEFAULT_BODY_READ_TIMEOUT.as_secs(), value_parser = clap::value_parser!(u64).range(1..=3600))]
    pub body_timeout_secs: u64,
    /// Seconds a response may wait for its client to read any of it; longer, and the
    /// connection is closed (a client that sends requests and never reads holds no memory or
    /// slot beyond this).
    #[arg(long, value_name = "SECONDS", default_value_t = server::DEFAULT_WRITE_TIMEOUT.as_secs(), value_parser = clap::value_parser!(u64).range(1..=3600))]
    pub write_timeout_secs: u64,
    /// Connections served at once; more wait in the listen backlog until one closes.
    #[arg(long, value_name = "N", default_value_t = server::DEFAULT_MAX_CONNECTIONS, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=1_000_000))]
    pub max_connections: usize,
    /// Also serve GET /items/{id} and /items?count=N without a mode prefix, in this mode
    /// (typed/serde_json, typed/sonic-rs, typed/simd-json, passthrough): the API as one build would serve it,
    /// so two servers of different modes are two builds for `ab --http`.
    #[arg(long, value_name = "MODE")]
    pub mode: Option<ServeMode>,
}

pub fn run(args: &ServeArgs) -> anyhow::Result<()> {
    let max_connections = connections_within_the_open_file_limit(args.max_connections)?;
    let source = StoreSource::open(args.store.as_deref(), &OpenOptions::default(), 4, &StoreData::default()).map_err(|e| {
        let code = e.exit_code();
        if code == 3 { environment(anyhow!(e)) } else { usage(anyhow!(e)) }
    })?;
    let url = jsoncost_http::ItemSource::name(&source); // the default store may be another file
    let config = ServerConfig {
        addr: args.addr,
        body_limit: args.body_limit_mib.bytes(),
        cache: args.cache.clone(),
        header_read_timeout: Duration::from_secs(args.header_timeout_secs),
        body_read_timeout: Duration::from_secs(args.body_timeout_secs),
        write_timeout: Duration::from_secs(args.write_timeout_secs),
        max_connections,
        unprefixed: args.mode,
        ..ServerConfig::with_source(Arc::new(source))
    };
    // As `http --cache`: a bad URL exits 2, a cache that does not answer exits 3, both now.
    let srv = server::start(config).map_err(|e| crate::failure::library(jsoncost::http::server_error(e)))?;
    eprintln!(
        "serving on {} (items from {url}, cache {}); Ctrl-C stops",
        srv.url(""),
        args.cache.describe()
    );
    for mode in ServeMode::all() {
        eprintln!("  GET {}   GET {}", srv.url(&mode.item_path(1)), srv.url(&mode.list_path(48)));
    }
    if let Some(mode) = args.mode {
        eprintln!("  GET {}   GET {}   ({mode})", srv.url("/items/1"), srv.url("/items?count=48"));
    }
    eprintln!("  POST {}", srv.url(jsoncost_http::mode::TELEMETRY_PATH));
    while !interrupt::interrupted() {
        std::thread::sleep(Duration::from_millis(100));
    }
    srv.shutdown().map_err(|e| environment(anyhow!(e)))
}

/// `asked` connections, or as many as the open-file limit leaves room for (said on stderr,
/// naming the limit): past it, accepting would fail with "Too many open files" and clients
/// would wait with no word of why. Too few for one connection is an environment error.
fn connections_within_the_open_file_limit(asked: usize) -> anyhow::Result<usize> {
    use jsoncost_http::fds;
    let Err(shortage) = fds::ensure(asked as u64) else {
        return Ok(asked);
    };
    let room = shortage.limit.saturating_sub(fds::open_now() + fds::MARGIN);
    if room == 0 {
        return Err(environment(anyhow!(
            "serve: the open-file limit is {} (ulimit -n): too few to serve one connection (about {} open files needed); raise it",
            shortage.limit,
            fds::open_now() + fds::MARGIN + 1
        )));
    }
    eprintln!(
        "serve: the open-file limit is {} (ulimit -n): serving at most {room} connections at once, not {asked} (--max-connections)",
        shortage.limit
    );
    Ok(room as usize)
}

//! The reference JSON API: axum on its own multi-thread tokio runtime, started and stopped from
//! sync code. Its threads are enrolled with the counting allocator and their CPU clocks are
//! tracked, so a load generator in the same process is never counted as the server's cost.

mod cache;
mod cpu;
mod errors;
mod modes;
mod respond;
mod routes;
mod stats;
pub mod telemetry;
mod write_timeout;

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::Ordering::Relaxed;
use std::time::Duration;

use tokio::sync::oneshot;

pub use cache::{CacheConfig, CacheParseError, REDIS_CONNECT_TIMEOUT, REDIS_KEY_PREFIX, REDIS_OP_TIMEOUT, REDIS_TTL_SECS};
pub use errors::ApiError;
pub use respond::SERVER_NAME;
pub use routes::{DEFAULT_LIST_COUNT, MAX_LIST_COUNT};
pub use telemetry::{FieldStats, TelemetryParse, TelemetrySummary};

use self::stats::ServerStats;
use crate::mode::ServeMode;
use crate::source::{ItemSource, MemorySource};

/// Default POST body limit: 128 MiB.
pub const DEFAULT_BODY_LIMIT: u64 = 128 << 20;
/// Default capacity of the item cache, in entries.
pub const DEFAULT_CACHE_CAPACITY: u64 = 10_000;
/// Default time a client has to send a request's whole header.
pub const DEFAULT_HEADER_READ_TIMEOUT: Duration = Duration::from_secs(10);
/// Default time a client has to send a request's whole body, from when its handler starts
/// reading it (a 128 MiB body on loopback takes well under a second).
pub const DEFAULT_BODY_READ_TIMEOUT: Duration = Duration::from_secs(60);
/// Default time a response may wait for its client to read any of it: past it the connection
/// is closed (a client that sends and never reads cannot hold memory or a slot).
pub const DEFAULT_WRITE_TIMEOUT: Duration = Duration::from_secs(10);
/// Default number of connections served at once (the load generator's `-c` maximum).
pub const DEFAULT_MAX_CONNECTIONS: usize = 10_000;

/// How to start the server.
#[derive(Clone)]
pub struct ServerConfig {
    /// Address to listen on; port 0 picks a free port (see [`RunningServer::addr`]).
    pub addr: SocketAddr,
    /// Runtime worker threads.
    pub worker_threads: usize,
    /// Largest accepted POST body in bytes; larger → 413.
    pub body_limit: u64,
    /// Entries the in-process item cache holds ([`CacheConfig::Memory`]).
    pub cache_capacity: u64,
    /// Which cache `GET /items/{id}` reads through; default: in process (moka).
    pub cache: CacheConfig,
    /// How POST /telemetry parses its body.
    pub telemetry: TelemetryParse,
    /// Where items and list entries come from.
    pub source: Arc<dyn ItemSource>,
    /// A connection that has not sent a request's whole header this long after it began (or
    /// after the previous response) is closed, so idle or slow clients cannot hold descriptors.
    pub header_read_timeout: Duration,
    /// A request whose body has not wholly arrived this long after its handler began reading
    /// it is answered 408 and its connection closed, so a client that never sends the body it
    /// announced cannot hold a connection.
    pub body_read_timeout: Duration,
    /// A connection whose response has had no byte taken by the client this long is closed.
    /// Bound: a connection holds at most one response being written (a list of
    /// [`MAX_LIST_COUNT`] entries, about 1 MB, and hyper's write buffer) for at most this long,
    /// so clients that never read hold at most `max_connections` such responses, each for
    /// this long, and then free their slots.
    pub write_timeout: Duration,
    /// Connections served at once; more wait in the listen backlog until one closes.
    pub max_connections: usize,
    /// Also serve `/items/{id}` and `/items` without a mode prefix, in this mode: the API as
    /// one build of it would serve them (`jsoncost serve --mode`, two servers for `ab --http`).
    pub unprefixed: Option<ServeMode>,
}

impl ServerConfig {
    /// Defaults over `source`: 127.0.0.1 on a free port, one worker per core, 128 MiB limit.
    pub fn with_source(source: Arc<dyn ItemSource>) -> Self {
        ServerConfig {
            addr: SocketAddr::from(([127, 0, 0, 1], 0)),
            worker_threads: std::thread::available_parallelism().map_or(2, |n| n.get()),
            body_limit: DEFAULT_BODY_LIMIT,
            cache_capacity: DEFAULT_CACHE_CAPACITY,
            cache: CacheConfig::Memory,
            telemetry: TelemetryParse::default(),
            source,
            header_read_timeout: DEFAULT_HEADER_READ_TIMEOUT,
            body_read_timeout: DEFAULT_BODY_READ_TIMEOUT,
            write_timeout: DEFAULT_WRITE_TIMEOUT,
            max_connections: DEFAULT_MAX_CONNECTIONS,
            unprefixed: None,
        }
    }
}

impl Default for ServerConfig {
    /// [`ServerConfig::with_source`] over [`MemorySource::default_data`].
    fn default() -> Self {
        Self::with_source(Arc::new(MemorySource::default_data()))
    }
}

/// Why the server could not start, serve or stop.
#[derive(Debug, thiserror::Error)]
pub enum ServerError {
    // The causes' texts are part of these messages, so they are not also `source`s (printing
    // the chain would say them twice).
    /// The server's runtime could not start.
    #[error("starting the server runtime failed: {0}")]
    Runtime(std::io::Error),
    /// Binding the listening socket failed.
    #[error("binding {addr} failed: {cause}")]
    Bind {
        /// The address asked for.
        addr: SocketAddr,
        /// The OS error.
        cause: std::io::Error,
    },
    /// The accept loop failed.
    #[error("the server on {addr} failed: {cause}")]
    Serve {
        /// The server's address.
        addr: SocketAddr,
        /// The OS error.
        cause: std::io::Error,
    },
    /// A graceful stop did not finish in time.
    #[error("the server on {addr} did not stop within {timeout:?}")]
    StopTimeout {
        /// The server's address.
        addr: SocketAddr,
        /// How long it was given.
        timeout: Duration,
    },
    /// The cache URL is not a usable Redis URL (bad input). `url` is shown without a password.
    #[error("invalid cache URL {url}: {reason}")]
    CacheUrl {
        /// The URL, without a password.
        url: String,
        /// Why it cannot be used.
        reason: String,
    },
    /// The Redis cache did not accept a connection or answer PING within
    /// [`REDIS_CONNECT_TIMEOUT`] (environment failure). `url` is shown without a password.
    #[error("cannot connect to the cache at {url}: {message}")]
    CacheUnreachable {
        /// The URL, without a password.
        url: String,
        /// The client's error.
        message: String,
    },
}

/// A started server. Dropping it stops it without waiting; [`RunningServer::shutdown`] stops it
/// gracefully.
pub struct RunningServer {
    addr: SocketAddr,
    runtime: Option<tokio::runtime::Runtime>,
    stop: Option<oneshot::Sender<()>>,
    done: Option<std::sync::mpsc::Receiver<std::io::Result<()>>>,
    stats: Arc<ServerStats>,
}

/// Starts the server on its own runtime and returns once it is listening. Callable from sync
/// code and from inside another runtime.
pub fn start(config: ServerConfig) -> Result<RunningServer, ServerError> {
    let stats = Arc::new(ServerStats::default());
    let (on_start, on_stop) = (Arc::clone(&stats), Arc::clone(&stats));
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(config.worker_threads.max(1))
        .thread_name("jsoncost-server")
        .on_thread_start(move || {
            jsoncost_engine::alloc::enroll_current_thread();
            on_start.cpu.register_current();
        })
        .on_thread_stop(move || on_stop.cpu.retire_current())
        .enable_all()
        .build()
        .map_err(ServerError::Runtime)?;

    // Bound with std so a bind error is reported here, synchronously, with the address.
    let bind = |cause| ServerError::Bind { addr: config.addr, cause };
    let std_listener = std::net::TcpListener::bind(config.addr).map_err(bind)?;
    std_listener.set_nonblocking(true).map_err(bind)?;
    let addr = std_listener.local_addr().map_err(bind)?;
    let listener = {
        let _entered = runtime.enter();
        tokio::net::TcpListener::from_std(std_listener).map_err(bind)?
    };

    let item_cache = match &config.cache {
        CacheConfig::Memory => cache::ItemCache::new(Arc::clone(&config.source), config.cache_capacity),
        CacheConfig::Redis { url, key_prefix } => {
            let redis = match block_on_outside(&runtime, cache::RedisCache::connect(url, key_prefix)) {
                Ok(redis) => redis,
                Err(e) => {
                    // Dropping a runtime may block, which is not allowed inside another runtime.
                    runtime.shutdown_background();
                    return Err(match e {
                        cache::RedisStartError::Url(reason) => ServerError::CacheUrl {
                            url: config.cache.describe(),
                            reason,
                        },
                        cache::RedisStartError::Unreachable(message) => ServerError::CacheUnreachable {
                            url: config.cache.describe(),
                            message,
                        },
                    });
                }
            };
            cache::ItemCache::redis(Arc::clone(&config.source), redis)
        }
    };
    let state = Arc::new(routes::AppState {
        cache: item_cache,
        source: config.source,
        body_limit: config.body_limit,
        body_read_timeout: config.body_read_timeout,
        telemetry: config.telemetry,
        stats: Arc::clone(&stats),
    });
    let app = routes::router(state, config.unprefixed);
    let (stop_tx, stop_rx) = oneshot::channel::<()>();
    let (done_tx, done_rx) = std::sync::mpsc::channel();
    let limits = ConnectionLimits {
        header_read_timeout: config.header_read_timeout,
        write_timeout: config.write_timeout,
        max_connections: config.max_connections.clamp(1, u32::MAX as usize),
    };
    runtime.spawn(async move {
        let _ = done_tx.send(serve(listener, app, limits, stop_rx).await);
    });
    Ok(RunningServer {
        addr,
        runtime: Some(runtime),
        stop: Some(stop_tx),
        done: Some(done_rx),
        stats,
    })
}

#[derive(Clone, Copy)]
struct ConnectionLimits {
    header_read_timeout: Duration,
    write_timeout: Duration,
    max_connections: usize,
}

/// The accept loop (axum's `serve` sets no header-read timer and no connection cap): at most
/// `max_connections` served at once, each closed if a request header takes longer than
/// `header_read_timeout` or a response waits `write_timeout` for its client to read any of it;
/// on `stop`, accepting ends and open connections finish their requests.
async fn serve(
    listener: tokio::net::TcpListener,
    app: axum::Router,
    limits: ConnectionLimits,
    mut stop: oneshot::Receiver<()>,
) -> std::io::Result<()> {
    use hyper_util::rt::{TokioIo, TokioTimer};
    let slots = Arc::new(tokio::sync::Semaphore::new(limits.max_connections));
    let (closing_tx, closing_rx) = tokio::sync::watch::channel(false);
    loop {
        // A slot first: at the cap, new connections wait in the kernel's backlog.
        let slot = tokio::select! {
            _ = &mut stop => break,
            slot = Arc::clone(&slots).acquire_owned() => slot.expect("the semaphore is never closed"),
        };
        let stream = tokio::select! {
            _ = &mut stop => break,
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => stream,
                // Out of descriptors, or a connection reset before it was accepted: the
                // header-read timeout frees descriptors, so wait a little and go on.
                Err(_) => {
                    tokio::time::sleep(Duration::from_millis(20)).await;
                    continue;
                }
            },
        };
        let _ = stream.set_nodelay(true);
        let service = hyper_util::service::TowerToHyperService::new(app.clone());
        let mut closing = closing_rx.clone();
        tokio::spawn(async move {
            let _slot = slot;
            let mut builder = hyper::server::conn::http1::Builder::new();
            // half_close: a client that shuts down its sending side after its request
            // (`shutdown(SHUT_WR)`) still gets the answer.
            builder
                .timer(TokioTimer::new())
                .header_read_timeout(limits.header_read_timeout)
                .half_close(true);
            let stream = write_timeout::WriteTimeout::new(stream, limits.write_timeout);
            let conn = builder.serve_connection(TokioIo::new(stream), service);
            let mut conn = std::pin::pin!(conn);
            tokio::select! {
                _ = conn.as_mut() => return,
                _ = closing.wait_for(|c| *c) => conn.as_mut().graceful_shutdown(),
            }
            let _ = conn.await;
        });
    }
    drop(listener);
    let _ = closing_tx.send(true);
    // Every slot back: every connection has finished (the caller bounds the wait).
    let _all = slots.acquire_many(limits.max_connections as u32).await;
    Ok(())
}

/// Runs `future` to completion on `runtime`, from a helper thread if the caller is itself on a
/// runtime's thread (where `block_on` may not be nested).
fn block_on_outside<F: std::future::Future + Send>(runtime: &tokio::runtime::Runtime, future: F) -> F::Output
where
    F::Output: Send,
{
    if tokio::runtime::Handle::try_current().is_ok() {
        std::thread::scope(|s| {
            s.spawn(|| runtime.block_on(future))
                .join()
                .unwrap_or_else(|p| std::panic::resume_unwind(p))
        })
    } else {
        runtime.block_on(future)
    }
}

impl RunningServer {
    /// The address the server listens on.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// `http://{addr}{path}`.
    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    /// Requests the server has started handling since it started.
    pub fn requests_served(&self) -> u64 {
        self.stats.requests.load(Relaxed)
    }

    /// CPU nanoseconds used by the server's threads since it started (`None` if the platform
    /// has no per-thread CPU clocks).
    pub fn cpu_ns(&self) -> Option<u64> {
        self.stats.cpu.total_ns()
    }

    /// Stops accepting, lets open requests finish (up to `timeout`), then stops the runtime.
    pub fn shutdown_within(mut self, timeout: Duration) -> Result<(), ServerError> {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        let outcome = match self.done.take().map(|done| done.recv_timeout(timeout)) {
            Some(Ok(Err(cause))) => Err(ServerError::Serve { addr: self.addr, cause }),
            Some(Err(std::sync::mpsc::RecvTimeoutError::Timeout)) => Err(ServerError::StopTimeout { addr: self.addr, timeout }),
            _ => Ok(()),
        };
        self.stop_runtime();
        outcome
    }

    /// [`RunningServer::shutdown_within`] five seconds.
    pub fn shutdown(self) -> Result<(), ServerError> {
        self.shutdown_within(Duration::from_secs(5))
    }

    fn stop_runtime(&mut self) {
        if let Some(runtime) = self.runtime.take() {
            // Waiting for worker threads is not allowed inside another runtime.
            if tokio::runtime::Handle::try_current().is_ok() {
                runtime.shutdown_background();
            } else {
                runtime.shutdown_timeout(Duration::from_secs(1));
            }
        }
    }
}

impl Drop for RunningServer {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        self.stop_runtime();
    }
}

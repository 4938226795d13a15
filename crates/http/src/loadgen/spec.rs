//! What a load is (its [`LoadSpec`] and [`Model`]) and why one cannot run ([`LoadError`]):
//! the types every part of the generator reads, kept apart from the code that runs them.

use std::time::Duration;

use bytes::Bytes;

use super::loss::LossRule;

/// How requests are issued.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Model {
    /// `requests` in total; each connection sends its next request when the last is answered.
    Closed {
        /// Requests in total, over all connections.
        requests: u64,
    },
    /// `rate` requests per second for `duration`, on a fixed schedule; latency from the
    /// scheduled send time.
    Open {
        /// Requests per second.
        rate: f64,
        /// How long requests are sent.
        duration: Duration,
    },
}

/// One load run.
#[derive(Debug, Clone)]
pub struct LoadSpec {
    /// `http://host[:port]/path?query`.
    pub url: String,
    /// The request method.
    pub method: http::Method,
    /// Sent with every request (empty for GET).
    pub body: Bytes,
    /// The `Content-Type` header sent with the body, if any.
    pub content_type: Option<String>,
    /// Concurrent keep-alive connections (`-c`).
    pub connections: usize,
    /// Closed or open model, and how much load.
    pub model: Model,
    /// Per-request timeout, from send (or intended send) to the last body byte.
    pub timeout: Duration,
    /// How long a connection may take to open.
    pub connect_timeout: Duration,
    /// Closed model: the wall-time cap of the load, after which it stops with what it has;
    /// `None`: 5 minutes. The open model's is its duration plus the per-request timeout (it
    /// stops sending when the duration ends, then waits for the requests in flight).
    pub time_cap: Option<Duration>,
    /// When the run is given up as lost.
    pub loss: LossRule,
    /// Threads of the generator's own runtime (used by [`run`](super::run)).
    pub threads: usize,
}

/// Default per-request timeout (ab's default).
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);
/// Default connect timeout.
pub const DEFAULT_CONNECT_TIMEOUT: Duration = Duration::from_secs(5);
/// The closed model's wall-time cap when `LoadSpec::time_cap` is `None`.
const CLOSED_TIME_CAP: Duration = Duration::from_secs(300);

impl LoadSpec {
    /// `requests` GETs of `url` over `connections` connections (ab `-n requests -c connections -k`).
    pub fn closed(url: impl Into<String>, requests: u64, connections: usize) -> Self {
        LoadSpec {
            url: url.into(),
            method: http::Method::GET,
            body: Bytes::new(),
            content_type: None,
            connections,
            model: Model::Closed { requests },
            timeout: DEFAULT_TIMEOUT,
            connect_timeout: DEFAULT_CONNECT_TIMEOUT,
            time_cap: None,
            loss: LossRule::default(),
            threads: 1,
        }
    }

    /// GETs of `url` at `rate` per second for `duration` over `connections` connections.
    pub fn open(url: impl Into<String>, rate: f64, duration: Duration, connections: usize) -> Self {
        LoadSpec {
            model: Model::Open { rate, duration },
            ..Self::closed(url, 0, connections)
        }
    }

    /// Sends `body` with `POST` instead.
    pub fn post(mut self, body: Bytes, content_type: &str) -> Self {
        self.method = http::Method::POST;
        self.body = body;
        self.content_type = Some(content_type.to_string());
        self
    }

    /// How long the load may run once the first connection is open.
    pub(super) fn time_cap(&self) -> Duration {
        match self.model {
            Model::Closed { .. } => self.time_cap.unwrap_or(CLOSED_TIME_CAP),
            Model::Open { duration, .. } => duration.saturating_add(self.timeout),
        }
    }

    /// The most wall time [`run`](super::run) takes: the first connection (bounded by the connect timeout),
    /// then the load's cap. A run ends earlier when its requests are done or it is lost.
    pub fn bound(&self) -> Duration {
        self.connect_timeout.saturating_add(self.time_cap())
    }
}

/// Why a load could not run (nothing was measured).
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// The target URL cannot be loaded (not `http://`, no host ...).
    #[error("invalid target URL {url:?}: {reason}")]
    InvalidUrl {
        /// The URL, without its password.
        url: String,
        /// What is wrong with it.
        reason: String,
    },
    /// The load's settings contradict each other or are out of range.
    #[error("invalid load: {reason}")]
    InvalidSpec {
        /// Which setting, and why.
        reason: String,
    },
    /// The target refused (or did not accept) a first connection: nothing was measured.
    // The causes' texts are part of these messages, so they are not also `source`s (printing
    // the chain would say them twice).
    #[error("cannot connect to {url}: {cause}")]
    Unreachable {
        /// The target URL, without its password.
        url: String,
        /// The OS error.
        cause: std::io::Error,
    },
    /// The generator's own runtime could not start.
    #[error("starting the load generator runtime failed: {0}")]
    Runtime(std::io::Error),
}

/// A [`LoadError::InvalidSpec`] saying `reason`.
pub(super) fn invalid(reason: impl Into<String>) -> LoadError {
    LoadError::InvalidSpec { reason: reason.into() }
}

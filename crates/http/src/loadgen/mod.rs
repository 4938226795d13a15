//! jsoncost's load generator: HTTP/1.1 keep-alive connections on hyper's client, a closed model
//! like ab and an open (constant-rate) model like wrk2, latencies in HdrHistogram. Every run is
//! bounded by its request count and by a wall-time cap, and can be cancelled with partial
//! results kept.

mod closed;
mod conn;
mod histogram;
mod loss;
mod open;
mod report;
mod slices;
mod target;
mod worker;

use std::sync::Arc;
use std::sync::atomic::AtomicU64;
use std::time::Duration;

use bytes::Bytes;
use http::HeaderValue;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

pub use histogram::new_histogram;
pub use loss::{DEFAULT_MAX_ERROR_SHARE, Loss, LossRule, MIN_JUDGED, STALL_TIMEOUTS};
pub use report::{ErrorCounts, LoadReport, StopReason};
pub use slices::{
    LostTarget, NoProbe, Rounds, Slice, SliceLength, SliceProbe, SliceRun, SliceSpec, SliceTarget, TargetSlices, run_slices,
    run_slices_async,
};

use conn::{Connection, RequestTemplate};
use histogram::SharedTally;
use target::Target;
use worker::Worker;

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
    /// Threads of the generator's own runtime (used by [`run`]).
    pub threads: usize,
}

/// Default per-request timeout (ab's default).
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);
/// Default connect timeout.
pub const DEFAULT_CONNECT_TIMEOUT: Duration = Duration::from_secs(5);
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
    fn time_cap(&self) -> Duration {
        match self.model {
            Model::Closed { .. } => self.time_cap.unwrap_or(CLOSED_TIME_CAP),
            Model::Open { duration, .. } => duration.saturating_add(self.timeout),
        }
    }

    /// The most wall time [`run`] takes: the first connection (bounded by the connect timeout),
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
        /// The URL.
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
        /// The target URL.
        url: String,
        /// The OS error.
        cause: std::io::Error,
    },
    /// The generator's own runtime could not start.
    #[error("starting the load generator runtime failed: {0}")]
    Runtime(std::io::Error),
}

/// Everything the connections of one run share.
struct Run {
    target: Target,
    template: RequestTemplate,
    timeout: Duration,
    connect_timeout: Duration,
    deadline: Instant,
    /// The caller's cancellation (Ctrl-C).
    cancel: CancellationToken,
    /// Stops every connection: cancelled with `cancel`, or when the run is lost.
    stop: CancellationToken,
    tally: SharedTally,
    /// Open model: slots not sent when the duration ended.
    unsent: AtomicU64,
}

impl Run {
    /// Counts `outcome`; the run stops when it is lost.
    fn record(&self, outcome: histogram::Outcome) {
        if self.tally.record(outcome) {
            self.stop.cancel();
        }
    }

    /// Why the connections were stopped.
    fn stopped_by(&self) -> StopReason {
        if self.cancel.is_cancelled() {
            StopReason::Cancelled
        } else {
            StopReason::Lost
        }
    }
}

fn invalid(reason: impl Into<String>) -> LoadError {
    LoadError::InvalidSpec { reason: reason.into() }
}

/// Runs `spec` on a runtime of its own; blocks until it ends. Callable from sync code, and from
/// inside another runtime (it then runs on a helper thread).
pub fn run(spec: &LoadSpec) -> Result<LoadReport, LoadError> {
    run_cancellable(spec, &CancellationToken::new())
}

/// [`run`], stopping early (with partial results) when `cancel` is cancelled, e.g. from a
/// Ctrl-C handler.
pub fn run_cancellable(spec: &LoadSpec, cancel: &CancellationToken) -> Result<LoadReport, LoadError> {
    let go = || {
        // One thread: a current-thread runtime, where a connection's task and hyper's driver task
        // wake each other without crossing threads (measurably faster than a 1-worker pool).
        let mut builder = if spec.threads <= 1 {
            tokio::runtime::Builder::new_current_thread()
        } else {
            let mut b = tokio::runtime::Builder::new_multi_thread();
            b.worker_threads(spec.threads);
            b
        };
        let runtime = builder
            .thread_name("jsoncost-loadgen")
            .enable_all()
            .build()
            .map_err(LoadError::Runtime)?;
        runtime.block_on(run_async(spec, cancel.clone()))
    };
    if tokio::runtime::Handle::try_current().is_ok() {
        // block_on may not be nested in another runtime's thread.
        std::thread::scope(|s| s.spawn(go).join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
    } else {
        go()
    }
}

/// Runs `spec` on the current tokio runtime.
pub async fn run_async(spec: &LoadSpec, cancel: CancellationToken) -> Result<LoadReport, LoadError> {
    let target = Target::parse(&spec.url)?;
    if spec.connections == 0 {
        return Err(invalid("connections must be at least 1"));
    }
    if spec.timeout.is_zero() || spec.connect_timeout.is_zero() {
        return Err(invalid("timeouts must be above zero"));
    }
    // (connections, planned requests) of the model, checked before anything is sent.
    let (connections, total) = match spec.model {
        Model::Closed { requests: 0 } => return Err(invalid("requests must be at least 1")),
        Model::Closed { requests } => ((spec.connections as u64).min(requests), requests),
        Model::Open { rate, duration } => {
            if !(rate.is_finite() && rate > 0.0) || duration.is_zero() {
                return Err(invalid(format!("rate ({rate}) and duration ({duration:?}) must be above zero")));
            }
            let total = (rate * duration.as_secs_f64()).ceil() as u64;
            ((spec.connections as u64).min(total), total)
        }
    };

    let template = template(&target, &spec.method, &spec.body, spec.content_type.as_deref())?;
    first_connection(&target, &spec.url, spec.connect_timeout).await?;

    let started = Instant::now();
    let stop = cancel.child_token();
    let run = Arc::new(Run {
        target,
        template,
        timeout: spec.timeout,
        connect_timeout: spec.connect_timeout,
        deadline: started + spec.time_cap(),
        cancel,
        stop,
        tally: SharedTally::new(loss::Judge::new(spec.loss, spec.timeout, started)),
        unsent: AtomicU64::new(0),
    });
    let mut workers = Vec::new();
    let next = Arc::new(AtomicU64::new(0));
    for index in 0..connections {
        let (run, next, model) = (Arc::clone(&run), Arc::clone(&next), spec.model);
        workers.push(tokio::spawn(async move {
            let mut worker = Worker::new(&run, Connection::new(&run.target, run.connect_timeout));
            match model {
                Model::Closed { .. } => closed::worker(&mut worker, &next, total, None).await,
                Model::Open { rate, duration } => {
                    let schedule = open::Schedule {
                        start: started,
                        end: started + duration,
                        rate,
                        total,
                    };
                    open::worker(&mut worker, &run, index, connections, &schedule).await
                }
            }
        }));
    }
    let mut stop = StopReason::Completed;
    for w in workers {
        // A worker only ends by returning (it never panics on I/O); a join error means a bug.
        match w.await {
            Ok(reason) => stop = stop.max(reason),
            Err(e) if e.is_panic() => std::panic::resume_unwind(e.into_panic()),
            Err(_) => stop = StopReason::Cancelled,
        }
    }
    let elapsed = started.elapsed();
    let run = Arc::into_inner(run).ok_or_else(|| invalid("internal: a worker outlived the run"))?;
    let unsent = run.unsent.into_inner();
    Ok(load_report(
        &spec.url,
        spec.model,
        spec.connections,
        run.tally.into_inner(),
        elapsed,
        stop,
        unsent,
    ))
}

/// The request every connection of a run sends to `target`.
fn template(target: &Target, method: &http::Method, body: &Bytes, content_type: Option<&str>) -> Result<RequestTemplate, LoadError> {
    let header = |what: &str, v: &str| HeaderValue::from_str(v).map_err(|_| invalid(format!("{what} {v:?} is not a valid header value")));
    Ok(RequestTemplate {
        method: method.clone(),
        body: body.clone(),
        content_type: content_type.map(|ct| header("content type", ct)).transpose()?,
        host: header("host", &target.authority)?,
        uri: target.origin_form.clone(),
    })
}

/// One connection first: a target that refuses it is an environment failure, not a load result.
async fn first_connection(target: &Target, url: &str, timeout: Duration) -> Result<(), LoadError> {
    let sender = conn::connect(target, timeout).await.map_err(|cause| LoadError::Unreachable {
        url: url.to_string(),
        cause,
    })?;
    drop(sender);
    Ok(())
}

/// The report of a run (or a slice) of `spec` from what its tally saw.
fn load_report(
    url: &str,
    model: Model,
    connections: usize,
    t: histogram::Tally,
    elapsed: Duration,
    stop: StopReason,
    unsent: u64,
) -> LoadReport {
    let lost = if stop == StopReason::Lost { t.judge.lost() } else { None };
    LoadReport {
        url: url.to_string(),
        model,
        connections,
        requests: t.requests,
        ok: t.ok,
        errors: t.errors,
        status_codes: t.status_codes,
        latency: t.latency,
        uncorrected_latency: t.uncorrected,
        response_bytes: t.response_bytes,
        elapsed,
        stop,
        lost,
        unsent,
    }
}

/// One request on a fresh connection: (status, body). For checks before a run, not for load.
pub async fn fetch(url: &str, method: http::Method, body: Bytes, timeout: Duration) -> Result<(u16, Bytes), FetchError> {
    use http_body_util::BodyExt;
    let target = Target::parse(url).map_err(|e| FetchError {
        url: url.to_string(),
        message: e.to_string(),
    })?;
    let fail = |message: String| FetchError {
        url: url.to_string(),
        message,
    };
    let exchange = async {
        let mut sender = conn::connect(&target, timeout).await.map_err(|e| fail(format!("connect: {e}")))?;
        let host = HeaderValue::from_str(&target.authority).map_err(|e| fail(e.to_string()))?;
        let template = RequestTemplate {
            method,
            body,
            content_type: None,
            host,
            uri: target.origin_form.clone(),
        };
        let response = sender.send_request(template.build()).await.map_err(|e| fail(e.to_string()))?;
        let status = response.status().as_u16();
        let body = response
            .into_body()
            .collect()
            .await
            .map_err(|e| fail(format!("reading the body: {e}")))?;
        Ok((status, body.to_bytes()))
    };
    tokio::time::timeout(timeout, exchange)
        .await
        .map_err(|_| fail(format!("no response within {timeout:?}")))?
}

/// A [`fetch`] that failed: the URL and why.
#[derive(Debug, thiserror::Error)]
#[error("fetching {url} failed: {message}")]
pub struct FetchError {
    /// The URL requested.
    pub url: String,
    /// What failed (the connect, the timeout, the transport).
    pub message: String,
}

//! jsoncost's load generator: HTTP/1.1 keep-alive connections on hyper's client, a closed model
//! like ab and an open (constant-rate) model like wrk2, latencies in HdrHistogram. Every run is
//! bounded by its request count and by a wall-time cap, and can be cancelled with partial
//! results kept.

mod closed;
mod conn;
mod histogram;
mod loss;
mod open;
mod outcome;
mod report;
mod shared;
mod slices;
mod spec;
mod target;
mod worker;

use std::sync::Arc;
use std::sync::atomic::AtomicU64;
use std::time::Duration;

use bytes::Bytes;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

pub use histogram::new_histogram;
pub use loss::{DEFAULT_MAX_ERROR_SHARE, Loss, LossRule, MIN_JUDGED, STALL_TIMEOUTS};
pub use report::{ErrorCounts, LoadReport, StopReason};
pub use slices::{
    LostTarget, NoProbe, Rounds, Slice, SliceLength, SliceProbe, SliceRun, SliceSpec, SliceTarget, TargetSlices, run_slices,
    run_slices_async,
};
pub use spec::{DEFAULT_CONNECT_TIMEOUT, DEFAULT_TIMEOUT, LoadError, LoadSpec, Model};

use conn::{Connection, first_connection, template};
use histogram::{SharedTally, load_report};
use shared::Run;
use spec::invalid;
use target::Target;
use worker::Worker;

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

/// The largest body [`fetch`] holds: answers checked whole (compared, parsed) are far smaller
/// (a list of 1,000 entries is about 745 KB), and a server announcing or sending an endless
/// body must not grow this process's memory.
pub const FETCH_MAX_BODY: usize = 64 << 20;

/// One request on a fresh connection, with the headers a run's requests carry: (status, body).
/// For checks before a run, not for load. A body over [`FETCH_MAX_BODY`] (announced by its
/// Content-Length, or once that much has arrived) is an error, and no more of it is read.
pub async fn fetch(
    url: &str,
    method: http::Method,
    body: Bytes,
    content_type: Option<&str>,
    timeout: Duration,
) -> Result<(u16, Bytes), FetchError> {
    use http_body_util::BodyExt;
    let fail = |message: String| FetchError::of(url, message);
    let exchange = async {
        let response = send(url, &method, &body, content_type, timeout).await?;
        let status = response.status().as_u16();
        let over = |what: String| fail(format!("{what}, over the {FETCH_MAX_BODY} bytes an answer checked whole may hold"));
        let announced = response
            .headers()
            .get(http::header::CONTENT_LENGTH)
            .and_then(|v| v.to_str().ok()?.parse::<u64>().ok());
        if let Some(len) = announced.filter(|len| *len > FETCH_MAX_BODY as u64) {
            return Err(over(format!("the body is {len} bytes (Content-Length)")));
        }
        let mut body = response.into_body();
        let mut held = bytes::BytesMut::new();
        while let Some(frame) = body.frame().await {
            let frame = frame.map_err(|e| fail(format!("reading the body: {e}")))?;
            if let Some(data) = frame.data_ref() {
                if held.len() + data.len() > FETCH_MAX_BODY {
                    return Err(over("the body goes on".to_string()));
                }
                held.extend_from_slice(data);
            }
        }
        Ok((status, held.freeze()))
    };
    tokio::time::timeout(timeout, exchange)
        .await
        .map_err(|_| fail(format!("no response within {timeout:?}")))?
}

/// One GET of `url` on a fresh connection: its status, once the response's head has arrived.
/// The body is not read (the connection is dropped), so a readiness probe holds none of it.
pub async fn status_of(url: &str, timeout: Duration) -> Result<u16, FetchError> {
    let no_body = Bytes::new();
    let exchange = send(url, &http::Method::GET, &no_body, None, timeout);
    let response = tokio::time::timeout(timeout, exchange)
        .await
        .map_err(|_| FetchError::of(url, format!("no response within {timeout:?}")))??;
    Ok(response.status().as_u16())
}

/// Sends one request to `url` on a fresh connection, with the headers a run's requests carry:
/// the response with its body unread ([`fetch`] and [`status_of`] decide how much of it to take).
async fn send(
    url: &str,
    method: &http::Method,
    body: &Bytes,
    content_type: Option<&str>,
    timeout: Duration,
) -> Result<http::Response<hyper::body::Incoming>, FetchError> {
    let fail = |message: String| FetchError::of(url, message);
    let target = Target::parse(url).map_err(|e| fail(e.to_string()))?;
    let template = template(&target, method, body, content_type).map_err(|e| fail(e.to_string()))?;
    let mut sender = conn::connect(&target, timeout).await.map_err(|e| fail(format!("connect: {e}")))?;
    sender.send_request(template.build()).await.map_err(|e| fail(e.to_string()))
}

impl FetchError {
    /// A failure of a request to `url`, named without its password.
    fn of(url: &str, message: String) -> FetchError {
        FetchError {
            url: jsoncost_stores::redact(url),
            message,
        }
    }
}

/// A [`fetch`] that failed: the URL and why.
#[derive(Debug, thiserror::Error)]
#[error("fetching {url} failed: {message}")]
pub struct FetchError {
    /// The URL requested, without its password.
    pub url: String,
    /// What failed (the connect, the timeout, the transport).
    pub message: String,
}

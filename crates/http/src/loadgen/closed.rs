//! The closed model, as ab runs it: `requests` requests over `connections` connections, each
//! connection sending its next request as soon as the previous one is answered.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use tokio::time::Instant;

use super::report::StopReason;
use super::worker::Worker;

/// One connection's loop: requests while fewer than `requests` were taken from `next` and,
/// with `until`, before that time (a slice of a fixed duration). Returns why it stopped.
pub async fn worker(worker: &mut Worker<'_, '_>, next: &AtomicU64, requests: u64, until: Option<Instant>) -> StopReason {
    while until.is_none_or(|end| Instant::now() < end) && next.fetch_add(1, Relaxed) < requests {
        if let Err(stop) = worker.request_at(Instant::now()).await {
            return stop;
        }
    }
    StopReason::Completed
}

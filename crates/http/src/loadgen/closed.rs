//! The closed model, as ab runs it: `requests` requests over `connections` connections, each
//! connection sending its next request as soon as the previous one is answered.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use tokio::time::Instant;

use super::Run;
use super::report::StopReason;
use super::worker::Worker;

/// One connection's loop. Returns why it stopped.
pub async fn worker(run: &Run, next: &AtomicU64, requests: u64) -> StopReason {
    let mut worker = Worker::new(run);
    while next.fetch_add(1, Relaxed) < requests {
        if let Err(stop) = worker.request_at(Instant::now()).await {
            return stop;
        }
    }
    StopReason::Completed
}

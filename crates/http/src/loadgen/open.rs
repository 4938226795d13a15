//! The open model, as wrk2 runs it: a constant request rate, each connection owning every
//! `connections`-th slot of the schedule. Latency is timed from a request's *intended* send
//! time, so when the server stalls, the requests that should have been sent meanwhile carry the
//! stall in their latency instead of silently not being sent (coordinated omission).

use std::time::Duration;

use tokio::time::Instant;

use super::Run;
use super::report::StopReason;
use super::worker::Worker;

/// The send time of slot `slot` at `rate` requests per second.
fn intended(start: Instant, slot: u64, rate: f64) -> Instant {
    start + Duration::from_secs_f64(slot as f64 / rate)
}

/// Connection `index`'s loop over slots `index, index + connections, ...` below `total`. A
/// connection that is late (its previous request was slow) sends at once.
pub async fn worker(run: &Run, index: u64, connections: u64, total: u64, rate: f64, start: Instant) -> StopReason {
    let mut worker = Worker::new(run);
    for slot in (index..total).step_by(connections as usize) {
        if let Err(stop) = worker.request_at(intended(start, slot, rate)).await {
            return stop;
        }
    }
    StopReason::Completed
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schedule_is_evenly_spaced() {
        let start = Instant::now();
        assert_eq!(intended(start, 0, 100.0), start);
        assert_eq!(intended(start, 250, 100.0) - start, Duration::from_millis(2500));
    }
}

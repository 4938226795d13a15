//! The open model, as wrk2 runs it: a constant request rate, each connection owning every
//! `connections`-th slot of the schedule. Latency is timed from a request's *intended* send
//! time, so when the server stalls, the requests that should have been sent meanwhile carry the
//! stall in their latency instead of silently not being sent (coordinated omission). Sending
//! stops when the duration ends: a connection still busy then leaves its remaining slots unsent
//! and counted, so a rate the target cannot keep up with never stretches the run.

use std::sync::atomic::Ordering::Relaxed;
use std::time::Duration;

use tokio::time::Instant;

use super::report::StopReason;
use super::shared::Run;
use super::worker::Worker;

/// A run's schedule: `total` slots at `rate` per second from `start`, all before `end`.
pub struct Schedule {
    pub start: Instant,
    pub end: Instant,
    pub rate: f64,
    pub total: u64,
}

impl Schedule {
    /// The send time of slot `slot`.
    fn intended(&self, slot: u64) -> Instant {
        self.start + Duration::from_secs_f64(slot as f64 / self.rate)
    }
}

/// Slots `from, from + step, ...` below `total`.
fn remaining(from: u64, step: u64, total: u64) -> u64 {
    total.saturating_sub(from).div_ceil(step)
}

/// Connection `index`'s loop over slots `index, index + connections, ...`. A connection that is
/// late (its previous request was slow) sends at once, until the schedule's end.
pub async fn worker(worker: &mut Worker<'_, '_>, run: &Run, index: u64, connections: u64, schedule: &Schedule) -> StopReason {
    let mut slot = index;
    while slot < schedule.total {
        if Instant::now() >= schedule.end {
            run.unsent.fetch_add(remaining(slot, connections, schedule.total), Relaxed);
            break;
        }
        if let Err(stop) = worker.request_at(schedule.intended(slot)).await {
            return stop;
        }
        slot += connections;
    }
    StopReason::Completed
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schedule_is_evenly_spaced() {
        let start = Instant::now();
        let s = Schedule {
            start,
            end: start + Duration::from_secs(3),
            rate: 100.0,
            total: 300,
        };
        assert_eq!(s.intended(0), start);
        assert_eq!(s.intended(250) - start, Duration::from_millis(2500));
    }

    #[test]
    fn remaining_counts_a_connections_own_slots() {
        assert_eq!(remaining(0, 4, 10), 3); // 0, 4, 8
        assert_eq!(remaining(9, 4, 10), 1);
        assert_eq!(remaining(10, 4, 10), 0);
        assert_eq!(remaining(3, 1, 1_000_000_000_000_000), 999_999_999_999_997);
    }
}

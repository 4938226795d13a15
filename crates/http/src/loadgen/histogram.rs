//! What a run has seen so far: latencies in HdrHistograms plus counters, shared by every
//! connection of a run (one short lock per request; a histogram per connection would cost
//! ~0.3 MB each at 100 connections).

use std::collections::BTreeMap;
use std::sync::Mutex;
use std::time::Duration;

use hdrhistogram::Histogram;

use tokio::time::Instant;

use super::loss::Judge;
use super::outcome::Outcome;
use super::report::{ErrorCounts, LoadReport, StopReason};
use super::spec::Model;

/// Histograms record nanoseconds from 1 µs resolution up to one hour, 3 significant digits.
pub fn new_histogram() -> Histogram<u64> {
    // The bounds are constants that hdrhistogram accepts (low >= 1, high >= 2 * low, sigfig <= 5).
    Histogram::new_with_bounds(1_000, 3_600 * 1_000_000_000, 3).expect("valid histogram bounds")
}

pub struct Tally {
    pub latency: Histogram<u64>,
    pub uncorrected: Histogram<u64>,
    pub requests: u64,
    pub ok: u64,
    pub errors: ErrorCounts,
    pub status_codes: BTreeMap<u16, u64>,
    pub response_bytes: u64,
    /// Whether the run is lost, judged after every request.
    pub judge: Judge,
}

impl Tally {
    pub fn new(judge: Judge) -> Self {
        Tally {
            latency: new_histogram(),
            uncorrected: new_histogram(),
            requests: 0,
            ok: 0,
            errors: ErrorCounts::default(),
            status_codes: BTreeMap::new(),
            response_bytes: 0,
            judge,
        }
    }
}

/// The run's shared tally.
pub struct SharedTally(Mutex<Tally>);

impl SharedTally {
    pub fn new(judge: Judge) -> Self {
        SharedTally(Mutex::new(Tally::new(judge)))
    }

    /// Counts `outcome` and judges the run; true when this outcome lost it.
    pub fn record(&self, outcome: Outcome) -> bool {
        let now = Instant::now();
        let mut t = self.0.lock().unwrap_or_else(|e| e.into_inner());
        t.requests += 1;
        match &outcome {
            Outcome::Response {
                status,
                bytes,
                latency,
                uncorrected,
            } => {
                t.latency.saturating_record(latency.as_nanos().min(u64::MAX as u128) as u64);
                t.uncorrected.saturating_record(uncorrected.as_nanos().min(u64::MAX as u128) as u64);
                t.response_bytes += bytes;
                if (200..300).contains(status) {
                    t.ok += 1;
                } else {
                    t.errors.status += 1;
                    *t.status_codes.entry(*status).or_default() += 1;
                }
            }
            Outcome::Connect => t.errors.connect += 1,
            Outcome::Timeout => t.errors.timeout += 1,
            Outcome::Closed => t.errors.closed += 1,
        }
        let (failed, finished) = (t.errors.total(), t.requests);
        t.judge.judge(&outcome, failed, finished, now)
    }

    pub fn into_inner(self) -> Tally {
        self.0.into_inner().unwrap_or_else(|e| e.into_inner())
    }
}

/// The report of a run (or a slice) of `spec` from what its tally saw.
pub fn load_report(url: &str, model: Model, connections: usize, t: Tally, elapsed: Duration, stop: StopReason, unsent: u64) -> LoadReport {
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

//! The result of one load run.

use std::collections::BTreeMap;
use std::time::Duration;

use hdrhistogram::Histogram;
use serde::Serialize;

use super::loss::Loss;
use super::spec::Model;

/// Failed requests by kind.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct ErrorCounts {
    /// Could not open a connection (refused, unreachable, connect timeout).
    pub connect: u64,
    /// No complete response within the per-request timeout.
    pub timeout: u64,
    /// A response with a status outside 2xx.
    pub status: u64,
    /// The connection closed or broke mid-request (I/O or protocol error).
    pub closed: u64,
}

impl ErrorCounts {
    /// Failed requests of every kind.
    pub fn total(&self) -> u64 {
        self.connect + self.timeout + self.status + self.closed
    }
}

/// Why a run ended. Ordered: of the reasons its connections stopped for, a run ends for the
/// last (a cancelled run is cancelled, whatever else a connection met).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum StopReason {
    /// Every planned request was made.
    Completed,
    /// The wall-time cap was reached first; the results are partial.
    TimeCap,
    /// The run was given up as lost ([`LoadReport::lost`] says why); the results are partial.
    Lost,
    /// The run was cancelled (Ctrl-C); the results are partial.
    Cancelled,
}

/// What a run measured.
#[derive(Debug, Clone)]
pub struct LoadReport {
    /// The URL loaded.
    pub url: String,
    /// The model it was loaded with.
    pub model: Model,
    /// Keep-alive connections used.
    pub connections: usize,
    /// Requests that finished, successfully or not (in-flight requests at a stop are not counted).
    pub requests: u64,
    /// Responses with a 2xx status.
    pub ok: u64,
    /// Failed requests by kind.
    pub errors: ErrorCounts,
    /// Count of each non-2xx status.
    pub status_codes: BTreeMap<u16, u64>,
    /// Latency of every response (any status), in ns. In the open model it runs from the
    /// intended send time (corrected for coordinated omission).
    pub latency: Histogram<u64>,
    /// Latency from the actual send time, in ns (what a closed-loop tool would report).
    pub uncorrected_latency: Histogram<u64>,
    /// Body bytes of all responses.
    pub response_bytes: u64,
    /// Wall time from the first request to the end of the run.
    pub elapsed: Duration,
    /// How the run ended.
    pub stop: StopReason,
    /// Why the run was given up, when it was ([`StopReason::Lost`]; a run whose last planned
    /// request lost it completed, and is not lost).
    pub lost: Option<Loss>,
    /// Open model: requests of the schedule not sent, because every connection was still busy
    /// when the duration ended (the target kept up with less than the rate). Always 0 in the
    /// closed model.
    pub unsent: u64,
}

impl LoadReport {
    /// Responses received, any status.
    pub fn responses(&self) -> u64 {
        self.latency.len()
    }

    /// Successful (2xx) responses per second of wall time.
    pub fn req_per_s(&self) -> f64 {
        let secs = self.elapsed.as_secs_f64();
        if secs > 0.0 { self.ok as f64 / secs } else { 0.0 }
    }

    /// Mean latency in ns, `None` without responses.
    pub fn mean_ns(&self) -> Option<f64> {
        (self.responses() > 0).then(|| self.latency.mean())
    }

    /// The latency at quantile `q` (0.0..=1.0) in ns, `None` without responses.
    pub fn quantile_ns(&self, q: f64) -> Option<u64> {
        (self.responses() > 0).then(|| self.latency.value_at_quantile(q))
    }

    /// The slowest response's latency, ns; `None` without responses.
    pub fn max_ns(&self) -> Option<u64> {
        (self.responses() > 0).then(|| self.latency.max())
    }

    /// The fastest response's latency, ns; `None` without responses.
    pub fn min_ns(&self) -> Option<u64> {
        (self.responses() > 0).then(|| self.latency.min())
    }

    /// Responses with a 5xx status plus failed connects: the server (or what it reads from)
    /// failed, as opposed to a request it refused (4xx) or a load it could not keep up with
    /// (timeouts).
    pub fn server_errors(&self) -> u64 {
        self.status_codes.range(500..600).map(|(_, n)| n).sum::<u64>() + self.errors.connect
    }

    /// The failed requests by kind, each status code on its own: `404×1000`,
    /// `503×410, timeout×3`; empty when none failed.
    pub fn errors_by_kind(&self) -> String {
        let codes = self.status_codes.iter().map(|(code, n)| (code.to_string(), *n));
        let e = self.errors;
        let kinds = [("timeout", e.timeout), ("connect", e.connect), ("closed", e.closed)]
            .into_iter()
            .map(|(k, n)| (k.to_string(), n));
        codes
            .chain(kinds)
            .filter(|(_, n)| *n > 0)
            .map(|(kind, n)| format!("{kind}×{n}"))
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// Adds `other` (a later slice against the same target) to this report: counts, latencies,
    /// wall times and the model's requests or duration summed, so `req_per_s` is over the
    /// slices' own time only.
    pub fn absorb(&mut self, other: &LoadReport) {
        // The load of both: their counts or their durations added.
        self.model = match (self.model, other.model) {
            (Model::Closed { requests: a }, Model::Closed { requests: b }) => Model::Closed {
                requests: a.saturating_add(b),
            },
            (Model::Open { rate, duration: a }, Model::Open { duration: b, .. }) => Model::Open { rate, duration: a + b },
            (model, _) => model,
        };
        self.requests += other.requests;
        self.ok += other.ok;
        let (e, o) = (&mut self.errors, other.errors);
        (e.connect, e.timeout, e.status, e.closed) = (
            e.connect + o.connect,
            e.timeout + o.timeout,
            e.status + o.status,
            e.closed + o.closed,
        );
        for (code, n) in &other.status_codes {
            *self.status_codes.entry(*code).or_default() += n;
        }
        // Histograms of one run share their bounds (`new_histogram`); saturating adds cannot fail.
        let _ = self.latency.add(&other.latency);
        let _ = self.uncorrected_latency.add(&other.uncorrected_latency);
        self.response_bytes += other.response_bytes;
        self.elapsed += other.elapsed;
        self.stop = self.stop.max(other.stop);
        self.lost = self.lost.or(other.lost);
        self.unsent += other.unsent;
    }

    /// Mean body bytes per response, `None` without responses.
    pub fn bytes_per_response(&self) -> Option<f64> {
        (self.responses() > 0).then(|| self.response_bytes as f64 / self.responses() as f64)
    }
}

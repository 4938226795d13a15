//! An http row's load figures ([`crate::Row::http`]): what a load of a server measured beyond the
//! row's common fields (`mean_ns` is the mean latency; `allocated_bytes`/`allocs` the server's
//! per request). The JSON field names are those the figures had when they were `extra` keys, so
//! `HttpFigures::take_from_extra` reads a file written then.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::paired::Interval;

/// An http row's load figures: throughput, latency percentiles, failures and server cost,
/// and how the load ended ([`Row::http`](crate::Row::http)).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct HttpFigures {
    /// Successful responses per second of load (over the row's slices' own time when sliced);
    /// absent on a failed row.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub req_per_s: Option<f64>,
    /// Median latency of successful requests, ns.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub p50_ns: Option<f64>,
    /// 90th percentile latency, ns.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub p90_ns: Option<f64>,
    /// 99th percentile latency, ns.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub p99_ns: Option<f64>,
    /// 99.9th percentile latency, ns.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub p999_ns: Option<f64>,
    /// Slowest successful request, ns.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_ns: Option<f64>,
    /// Failed requests by kind.
    #[serde(default)]
    pub errors: HttpErrors,
    /// Count of each non-2xx status.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub status_codes: BTreeMap<u16, u64>,
    /// Mean body size of a successful response.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bytes_per_response: Option<f64>,
    /// The server's CPU time per request (its threads, or its process from /proc).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server_cpu_ns_per_req: Option<f64>,
    /// Requests finished, successfully or not.
    #[serde(default)]
    pub requests: u64,
    /// How the load ended; absent on rows measured without a load generator.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop: Option<HttpStop>,
    /// Open model: scheduled requests not sent (every connection still busy when time ended).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unsent: Option<u64>,
    /// Why the load was given up, when it was.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lost: Option<HttpLoss>,
    /// Sliced load: the slices the figures are from (one per round; `Row::rounds_ns` holds each
    /// one's wall time per successful request).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub slices: Option<u64>,
    /// Sliced load: p99 latency over the baseline row's, paired slice by slice (99% interval).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub p99_ratio: Option<Interval>,
    /// Sliced load: server CPU per request over the baseline row's, paired slice by slice.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu_ratio: Option<Interval>,
}

/// Failed requests by kind.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct HttpErrors {
    /// Could not open a connection.
    #[serde(default)]
    pub connect: u64,
    /// No complete response within the per-request timeout.
    #[serde(default)]
    pub timeout: u64,
    /// A response with a status outside 2xx.
    #[serde(default)]
    pub status: u64,
    /// The connection closed or broke mid-request.
    #[serde(default)]
    pub closed: u64,
}

impl HttpErrors {
    /// Failed requests of every kind.
    pub fn total(&self) -> u64 {
        self.connect + self.timeout + self.status + self.closed
    }
}

/// Why a load ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum HttpStop {
    /// Every request of the load finished.
    Completed,
    /// The load's time ran out first.
    TimeCap,
    /// Given up by its loss rule ([`HttpLoss`]).
    Lost,
    /// Stopped by a cancel (Ctrl-C).
    Cancelled,
}

/// Why a load was given up as lost.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HttpLoss {
    /// The rule that gave up.
    pub rule: LossKind,
    /// The rule's verdict in words (`20 of 20 requests failed, more than 50%`); empty in files
    /// written before it was recorded.
    #[serde(default)]
    pub message: String,
}

/// The rule by which a load is given up as lost.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LossKind {
    /// Too large a share of the requests failed.
    ErrorShare,
    /// No request finished for too long.
    Stall,
    /// The server answered with 5xx statuses.
    ServerError,
    /// The server's process exited.
    Exited,
}

/// The `extra` keys the figures were written under before they were a typed field.
const LEGACY_KEYS: [&str; 14] = [
    "req_per_s",
    "p50_ns",
    "p90_ns",
    "p99_ns",
    "p999_ns",
    "max_ns",
    "errors",
    "status_codes",
    "bytes_per_response",
    "server_cpu_ns_per_req",
    "requests",
    "stop",
    "unsent",
    "lost",
];

impl HttpFigures {
    /// The figures a file written before they were typed holds in a row's `extra`, taken out of
    /// it; `None` when it holds none (or holds them in a form not understood: they stay).
    pub(crate) fn take_from_extra(extra: &mut Map<String, Value>) -> Option<HttpFigures> {
        let legacy: Map<String, Value> = LEGACY_KEYS
            .iter()
            .filter_map(|k| extra.get(*k).filter(|v| !v.is_null()).map(|v| (k.to_string(), v.clone())))
            .collect();
        if legacy.is_empty() {
            return None;
        }
        let figures = serde_json::from_value(Value::Object(legacy)).ok()?;
        for k in LEGACY_KEYS {
            extra.remove(k);
        }
        Some(figures)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn figures_written_as_extra_keys_read_as_the_typed_field() {
        let mut extra = match serde_json::json!({
            "req_per_s": 500.0, "p99_ns": 2000.0, "max_ns": 9000, "errors": {"connect": 0, "timeout": 3, "status": 410, "closed": 0},
            "status_codes": {"503": 410}, "requests": 1000, "stop": "lost",
            "lost": {"rule": "error_share", "failed": 413, "finished": 1000, "max_share": 0.5},
            "server_cpu_ns_per_req": null, "other": 1
        }) {
            Value::Object(m) => m,
            _ => unreachable!(),
        };
        let f = HttpFigures::take_from_extra(&mut extra).unwrap();
        assert_eq!(f.req_per_s, Some(500.0));
        assert_eq!((f.p99_ns, f.max_ns, f.server_cpu_ns_per_req), (Some(2000.0), Some(9000.0), None));
        assert_eq!(f.errors.total(), 413);
        assert_eq!(f.status_codes, BTreeMap::from([(503, 410)]));
        assert_eq!((f.requests, f.stop), (1000, Some(HttpStop::Lost)));
        assert_eq!(f.lost.as_ref().map(|l| l.rule), Some(LossKind::ErrorShare));
        // What is not a figure stays; the figures' keys are gone.
        assert_eq!(Value::Object(extra), serde_json::json!({"other": 1}));
        // Written again, the field names are the keys they were read from.
        let v = serde_json::to_value(&f).unwrap();
        assert_eq!(v["status_codes"], serde_json::json!({"503": 410}));
        assert_eq!(v["errors"]["status"], 410);
        assert_eq!(serde_json::from_value::<HttpFigures>(v).unwrap(), f);
    }
}

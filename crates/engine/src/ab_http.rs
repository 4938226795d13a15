//! An http A/B table's own record (`ExperimentKind::AbHttp`, [`crate::MeasuredTable::ab_http`]):
//! what `jsoncost ab --http` measured of one request on two servers beyond the rows `base` and
//! `new` (whose [`crate::HttpFigures`] hold req/s, the latency percentiles, errors by kind, CPU
//! per request; [`crate::Row::rss`] the RSS growth; the rows' paired ratios new/base). Here: per
//! server where it ran and was pinned, its latency distribution over the paired slices (the
//! HTML's side-by-side curves, on one axis) and every slice's own figures, from which the three
//! paired verdict figures ([`AbHttpFigure`]) are taken round by round, so `jsoncost report`
//! decides them again from the file exactly as `ab --http` did.

use serde::{Deserialize, Serialize};

/// The quantiles of each server's latency distribution recorded in [`AbHttpSide::latency`].
pub const LATENCY_QUANTILES: [f64; 10] = [0.0, 0.25, 0.5, 0.75, 0.9, 0.95, 0.99, 0.999, 0.9999, 1.0];

/// One request A/B'd on two servers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AbHttpTable {
    /// `GET /items/1`.
    pub request: String,
    /// The threshold (a fraction: 0.05 for 5%) the verdicts were decided with.
    pub threshold: f64,
    /// Rounds both servers completed: the first `rounds` slices of each pair up.
    pub rounds: usize,
    /// The base server.
    pub base: AbHttpSide,
    /// The new server.
    pub new: AbHttpSide,
}

/// One server of the A/B, for one request.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AbHttpSide {
    /// Its command line (started by jsoncost) or URL (started by the user).
    pub server: String,
    /// Its process, when known (started here, or `--base-pid`/`--new-pid`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pid: Option<u32>,
    /// Where it ran: the CPUs it was pinned to, or why not.
    pub placement: Placement,
    /// Its latency distribution over the paired slices (every response of them), at
    /// [`LATENCY_QUANTILES`]; empty without a response.
    pub latency: Vec<LatencyPoint>,
    /// Every slice it ran, in round order: one per complete round, then possibly one of the
    /// round under way when the load stopped.
    pub slices: Vec<AbHttpSlice>,
}

/// Where a server ran relative to the load generator.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum Placement {
    /// Pinned (`sched_setaffinity`) to these CPUs; the load generator to `load_generator`.
    Pinned {
        /// The server's CPUs.
        cpus: Vec<usize>,
        /// The load generator's CPUs.
        load_generator: Vec<usize>,
    },
    /// Not pinned, and why (`--no-pin`, one CPU, a server not started here ...).
    NotPinned {
        /// In words.
        reason: String,
    },
}

/// A point of a latency distribution.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct LatencyPoint {
    /// 0 to 1.
    pub quantile: f64,
    /// The latency at that quantile, in nanoseconds.
    pub ns: f64,
}

/// One slice of load on one server.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AbHttpSlice {
    /// The round it belongs to (from 0).
    pub round: u64,
    /// Requests finished, successfully or not.
    pub requests: u64,
    /// Responses with a 2xx status.
    pub ok: u64,
    /// Wall time per successful request (the inverse of its req/s); absent without a success.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ns_per_request: Option<f64>,
    /// The slice's median latency, in nanoseconds; absent without a success.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub p50_ns: Option<f64>,
    /// The slice's 99th percentile latency, in nanoseconds; absent without a success.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub p99_ns: Option<f64>,
    /// The server's CPU time per request over the slice (from /proc); absent without its PID.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu_ns_per_request: Option<f64>,
    /// The server's RSS growth over the slice (from /proc).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rss_growth_bytes: Option<u64>,
}

/// The figures `ab --http` pairs slice by slice and decides new/base.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AbHttpFigure {
    /// Wall time per successful request: the inverse of req/s.
    TimePerRequest,
    /// The 99th percentile latency of a slice.
    P99Latency,
    /// The server's CPU time (user + system, its children included) per request.
    ServerCpuPerRequest,
}

impl AbHttpFigure {
    /// Every figure, in the verdict table's order.
    pub const ALL: [AbHttpFigure; 3] = [
        AbHttpFigure::TimePerRequest,
        AbHttpFigure::P99Latency,
        AbHttpFigure::ServerCpuPerRequest,
    ];

    /// The row name of the verdict table.
    pub fn label(self) -> &'static str {
        match self {
            AbHttpFigure::TimePerRequest => "time per request",
            AbHttpFigure::P99Latency => "p99 latency",
            AbHttpFigure::ServerCpuPerRequest => "server CPU per request",
        }
    }

    /// The figure of one slice.
    pub fn of(self, slice: &AbHttpSlice) -> Option<f64> {
        match self {
            AbHttpFigure::TimePerRequest => slice.ns_per_request,
            AbHttpFigure::P99Latency => slice.p99_ns,
            AbHttpFigure::ServerCpuPerRequest => slice.cpu_ns_per_request,
        }
    }
}

impl AbHttpSide {
    /// The figure of each of the first `rounds` slices; `None` when one lacks it.
    pub fn rounds(&self, figure: AbHttpFigure, rounds: usize) -> Option<Vec<f64>> {
        self.slices.iter().take(rounds).map(|s| figure.of(s)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table() -> AbHttpTable {
        let slice = |round, ns| AbHttpSlice {
            round,
            requests: 100,
            ok: 100,
            ns_per_request: Some(ns),
            p50_ns: Some(ns * 8.0),
            p99_ns: Some(ns * 20.0),
            cpu_ns_per_request: Some(ns / 2.0),
            rss_growth_bytes: Some(4096),
        };
        AbHttpTable {
            request: "GET /items/1".into(),
            threshold: 0.05,
            rounds: 1,
            base: AbHttpSide {
                server: "srv --port {port}".into(),
                pid: Some(42),
                placement: Placement::Pinned {
                    cpus: vec![1],
                    load_generator: vec![0],
                },
                latency: vec![LatencyPoint {
                    quantile: 0.5,
                    ns: 80_000.0,
                }],
                slices: vec![slice(0, 10_000.0), slice(1, 11_000.0)],
            },
            new: AbHttpSide {
                server: "http://127.0.0.1:8081".into(),
                pid: None,
                placement: Placement::NotPinned {
                    reason: "not started here".into(),
                },
                latency: vec![],
                slices: vec![slice(0, 12_000.0)],
            },
        }
    }

    #[test]
    fn the_record_round_trips_with_its_field_names() {
        let t = table();
        let v = serde_json::to_value(&t).unwrap();
        assert_eq!(
            v["base"]["placement"],
            serde_json::json!({"kind": "pinned", "cpus": [1], "load_generator": [0]})
        );
        assert_eq!(
            v["new"]["placement"],
            serde_json::json!({"kind": "not_pinned", "reason": "not started here"})
        );
        assert_eq!(
            v["base"]["slices"][1],
            serde_json::json!({"round": 1, "requests": 100, "ok": 100, "ns_per_request": 11000.0, "p50_ns": 88000.0,
                "p99_ns": 220000.0, "cpu_ns_per_request": 5500.0, "rss_growth_bytes": 4096})
        );
        assert_eq!(v["base"]["latency"], serde_json::json!([{"quantile": 0.5, "ns": 80000.0}]));
        assert!(v["new"].get("pid").is_none());
        let back: AbHttpTable = serde_json::from_value(v).unwrap();
        assert_eq!(back, t);
        assert_eq!(t.base.rounds(AbHttpFigure::ServerCpuPerRequest, 2), Some(vec![5000.0, 5500.0]));
    }
}

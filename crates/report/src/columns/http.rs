//! http: Mode | Req/s | Mean | p50 | p99 | p99.9 | Server alloc/req | Server peak heap | RSS growth | Server CPU/req | Ratio,
//! plus Errors when any request failed. Mean is the mean latency; allocation is the server's.

use jsoncost_engine::{Experiment, Row};
use serde_json::Value;

use super::{Cell, Spec, error_total, extra, get};
use crate::units;

pub(super) fn columns<'a>(exp: &Experiment) -> Vec<Spec<'a>> {
    let mut specs = vec![
        Spec::new("Mode", Cell::Method),
        Spec::new("Req/s", Cell::Rate(get(|r| extra(r, "req_per_s")))),
        Spec::new("Mean", Cell::Time(get(|r| r.mean_ns))),
        Spec::new("p50", Cell::Time(get(|r| extra(r, "p50_ns")))),
        Spec::new("p99", Cell::Time(get(|r| extra(r, "p99_ns")))),
        Spec::new("p99.9", Cell::Time(get(|r| extra(r, "p999_ns")))),
        Spec::new("Server alloc/req", Cell::Bytes(get(|r| r.allocated_bytes))),
        // The most live heap the server's threads held during the run above its start: with one
        // connection, one request's peak (what buffering a body costs, which allocated bytes hide).
        Spec::new("Server peak heap", Cell::Bytes(get(|r| r.peak_bytes.map(|b| b as f64)))),
        // The process's (server and load generator; the bodies are built before): an upload
        // the server buffers shows here as at least the body.
        Spec::new("RSS growth", Cell::Bytes(get(|r| r.rss.map(|m| m.growth_bytes as f64)))),
        Spec::new("Server CPU/req", Cell::Time(get(|r| extra(r, "server_cpu_ns_per_req")))),
        Spec::new("Ratio", Cell::Ratio(get(|r| r.ratio))),
    ];
    if exp.rows.iter().any(|r| error_total(r).is_some_and(|n| n > 0.0)) {
        specs.push(Spec::new("Errors", Cell::Text(Box::new(errors_cell))));
    }
    specs
}

/// `12 (connect: 2, timeout: 10)`, with failed statuses by code: `413 (503×410, timeout: 3)`;
/// kinds with no errors are left out.
fn errors_cell(row: &Row) -> String {
    let Some(total) = error_total(row) else {
        return units::ABSENT.to_string();
    };
    let counts = |key: &str| -> Vec<(String, f64)> {
        match row.extra.get(key) {
            Some(Value::Object(kinds)) => kinds
                .iter()
                .filter_map(|(kind, n)| n.as_f64().filter(|n| *n > 0.0).map(|n| (kind.clone(), n)))
                .collect(),
            _ => Vec::new(),
        }
    };
    let codes = counts("status_codes");
    let kinds: Vec<String> = counts("errors")
        .into_iter()
        .flat_map(|(kind, n)| {
            if kind == "status" && !codes.is_empty() {
                codes.iter().map(|(code, n)| format!("{code}×{}", units::count(*n))).collect()
            } else {
                vec![format!("{kind}: {}", units::count(n))]
            }
        })
        .collect();
    if kinds.is_empty() {
        units::count(total)
    } else {
        format!("{} ({})", units::count(total), kinds.join(", "))
    }
}

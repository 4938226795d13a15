//! An http result row from a load report and the server's cost.

use jsoncost_engine::Row;
use serde_json::{Value, json};

use crate::cost::ServerCost;
use crate::loadgen::{LoadReport, Model};

/// The row for `method` (e.g. `typed/serde_json`): `mean_ns` is the mean latency, `median_ns`
/// p50, `p95_ns` p95; `allocated_bytes`/`allocs` are the server's per request and `peak_bytes`
/// its peak live heap over the run (all left empty against an external target); `extra` holds `req_per_s, p50_ns, p90_ns, p99_ns, p999_ns,
/// max_ns, errors` (object by kind), `status_codes`, `bytes_per_response`,
/// `server_cpu_ns_per_req`, `requests`, `stop`, and in the open model `unsent`. A run given
/// up as lost, or without a single successful response, is a failed row naming why and its
/// errors by kind and status code, with `errors`, `status_codes`, `requests` (and `lost`,
/// `unsent`) in `extra`.
pub fn http_row(method: &str, report: &LoadReport, cost: Option<&ServerCost>) -> Row {
    let codes: serde_json::Map<String, Value> = report.status_codes.iter().map(|(code, n)| (code.to_string(), json!(n))).collect();
    let kinds = match report.errors_by_kind() {
        kinds if kinds.is_empty() => "none answered".to_string(),
        kinds => kinds,
    };
    if let Some(loss) = report.lost {
        let message = format!("lost after {} requests to {}: {loss} ({kinds})", report.requests, report.url);
        return failed_row(method, report, message);
    }
    if report.ok == 0 {
        let message = format!("no successful response from {}: {} requests, {kinds}", report.url, report.requests);
        return failed_row(method, report, message);
    }
    let mut row = Row::new(method);
    let q = |q: f64| report.quantile_ns(q).map(|v| v as f64);
    row.mean_ns = report.mean_ns();
    row.median_ns = q(0.5);
    row.p95_ns = q(0.95);
    row.min_ns = report.min_ns().map(|v| v as f64);
    row.max_ns = report.max_ns().map(|v| v as f64);
    row.stddev_ns = Some(report.latency.stdev());
    row.iterations = Some(report.requests);
    row.allocated_bytes = cost.and_then(ServerCost::bytes_per_request);
    row.allocs = cost.and_then(ServerCost::allocs_per_request);
    row.peak_bytes = cost.and_then(|c| c.peak_bytes);
    row.rss = cost.and_then(|c| c.rss);
    row.mb_per_s = report.bytes_per_response().map(|b| b * report.req_per_s() / 1e6);

    let extra = [
        ("req_per_s", json!(report.req_per_s())),
        ("p50_ns", json!(q(0.5))),
        ("p90_ns", json!(q(0.9))),
        ("p99_ns", json!(q(0.99))),
        ("p999_ns", json!(q(0.999))),
        ("max_ns", json!(report.max_ns())),
        ("errors", json!(report.errors)),
        ("status_codes", Value::Object(codes)),
        ("bytes_per_response", json!(report.bytes_per_response())),
        ("server_cpu_ns_per_req", json!(cost.and_then(ServerCost::cpu_ns_per_request))),
        ("requests", json!(report.requests)),
        ("stop", json!(report.stop)),
    ];
    row.extra.extend(extra.into_iter().map(|(k, v)| (k.to_string(), v)));
    add_unsent(&mut row, report);
    row
}

/// The open model's unsent requests, in `extra`.
fn add_unsent(row: &mut Row, report: &LoadReport) {
    if matches!(report.model, Model::Open { .. }) {
        row.extra.insert("unsent".into(), json!(report.unsent));
    }
}

/// A failed row for a load run that cannot stand as a measurement (`message` says why), keeping
/// its errors by kind, `status_codes` and `requests` in `extra`, and why it was lost (`lost`)
/// when it was.
pub fn failed_row(method: &str, report: &LoadReport, message: String) -> Row {
    let codes: serde_json::Map<String, Value> = report.status_codes.iter().map(|(code, n)| (code.to_string(), json!(n))).collect();
    let mut row = Row::failed(method, message);
    row.extra.insert("errors".into(), json!(report.errors));
    row.extra.insert("status_codes".into(), Value::Object(codes));
    row.extra.insert("requests".into(), json!(report.requests));
    if let Some(loss) = report.lost {
        row.extra.insert("lost".into(), json!(loss));
    }
    add_unsent(&mut row, report);
    row
}

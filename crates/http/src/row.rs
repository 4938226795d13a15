//! An http result row (design.md section 7) from a load report and the server's cost.

use jsoncost_engine::Row;
use serde_json::{Value, json};

use crate::cost::ServerCost;
use crate::loadgen::LoadReport;

/// The row for `method` (e.g. `typed/serde_json`): `mean_ns` is the mean latency, `median_ns`
/// p50, `p95_ns` p95; `allocated_bytes`/`allocs` are the server's per request and `peak_bytes`
/// its peak live heap over the run (all left empty against an external target); `extra` holds `req_per_s, p50_ns, p90_ns, p99_ns, p999_ns,
/// max_ns, errors` (object by kind), `status_codes`, `bytes_per_response`,
/// `server_cpu_ns_per_req`, `requests`, `stop`. A run without a single successful response is a
/// failed row naming its errors.
pub fn http_row(method: &str, report: &LoadReport, cost: Option<&ServerCost>) -> Row {
    if report.ok == 0 {
        let e = report.errors;
        let message = format!(
            "no successful response from {} ({} requests: {} connect, {} timeout, {} status, {} closed errors)",
            report.url, report.requests, e.connect, e.timeout, e.status, e.closed
        );
        let mut row = Row::failed(method, message);
        row.extra.insert("errors".into(), json!(e));
        return row;
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
    row.mb_per_s = report.bytes_per_response().map(|b| b * report.req_per_s() / 1e6);

    let codes: serde_json::Map<String, Value> = report.status_codes.iter().map(|(code, n)| (code.to_string(), json!(n))).collect();
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
    row
}

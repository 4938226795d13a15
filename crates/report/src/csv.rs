//! CSV: one line per result row, raw numbers (ns, bytes, counts) for spreadsheets and scripts.

use jsoncost_engine::{Experiment, Row, Status};
use serde_json::Value;

use crate::columns::{error_total, http_figure};

const HEADER: [&str; 41] = [
    "experiment",
    "table",
    "params",
    "method",
    "baseline",
    "status",
    "error_message",
    "mean_ns",
    "error_ns",
    "stddev_ns",
    "median_ns",
    "p95_ns",
    "min_ns",
    "max_ns",
    "iterations",
    "ops_per_iteration",
    "outliers_removed",
    "ratio",
    "ratio_sd",
    "allocated_bytes",
    "allocs",
    "alloc_ratio",
    "peak_bytes",
    "mb_per_s",
    "peak_rss_bytes",
    "rss_growth_bytes",
    "req_per_s",
    "p50_ns",
    "p90_ns",
    "p99_ns",
    "p999_ns",
    "latency_max_ns",
    "errors",
    "bytes_per_response",
    "server_cpu_ns_per_req",
    "requests",
    "fidelity",
    "safety_path",
    "safety_case",
    "safety_outcome",
    "safety_agreement",
];

pub(crate) fn render(experiments: &[Experiment]) -> String {
    let mut writer = csv::Writer::from_writer(Vec::new());
    let mut records = vec![HEADER.iter().map(|s| s.to_string()).collect::<Vec<_>>()];
    for exp in experiments {
        let params = Value::Object(exp.params.clone()).to_string();
        records.extend(exp.rows.iter().map(|row| record(exp, &params, row)));
    }
    for record in records {
        // Writing to a Vec cannot fail and every record has the header's length.
        writer.write_record(&record).expect("CSV into memory");
    }
    let bytes = writer.into_inner().expect("CSV into memory");
    // Every field came from a String, so the output is UTF-8.
    String::from_utf8(bytes).expect("CSV of strings is UTF-8")
}

fn record(exp: &Experiment, params: &str, row: &Row) -> Vec<String> {
    let num = |v: Option<f64>| v.map(|x| x.to_string()).unwrap_or_default();
    let int = |v: Option<u64>| v.map(|x| x.to_string()).unwrap_or_default();
    let cell = row.safety.as_ref();
    vec![
        exp.experiment.to_string(),
        exp.table.clone(),
        params.to_string(),
        row.method.clone(),
        row.baseline.to_string(),
        match row.status {
            Status::Ok => "ok",
            Status::Failed => "failed",
        }
        .to_string(),
        row.error_message.clone().unwrap_or_default(),
        num(row.mean_ns),
        num(row.error_ns),
        num(row.stddev_ns),
        num(row.median_ns),
        num(row.p95_ns),
        num(row.min_ns),
        num(row.max_ns),
        int(row.iterations),
        int(row.ops_per_iteration),
        int(row.outliers_removed),
        num(row.ratio),
        num(row.ratio_sd),
        num(row.allocated_bytes),
        num(row.allocs),
        num(row.alloc_ratio),
        int(row.peak_bytes),
        num(row.mb_per_s),
        int(row.rss.map(|m| m.peak_bytes)),
        int(row.rss.map(|m| m.growth_bytes)),
        num(http_figure(row, |h| h.req_per_s)),
        num(http_figure(row, |h| h.p50_ns)),
        num(http_figure(row, |h| h.p90_ns)),
        num(http_figure(row, |h| h.p99_ns)),
        num(http_figure(row, |h| h.p999_ns)),
        num(http_figure(row, |h| h.max_ns)),
        num(error_total(row)),
        num(http_figure(row, |h| h.bytes_per_response)),
        num(http_figure(row, |h| h.server_cpu_ns_per_req)),
        int(row.http.as_ref().map(|h| h.requests)),
        crate::fidelity::cell(row),
        cell.map(|c| c.path.as_str().to_string()).unwrap_or_default(),
        cell.map(|c| c.case.clone()).unwrap_or_default(),
        cell.map(|c| c.outcome.as_str().to_string()).unwrap_or_default(),
        cell.and_then(|c| c.agreement).map(|a| a.as_str().to_string()).unwrap_or_default(),
    ]
}

//! Figures read off a result row beyond its plain fields: the numbers of its `extra` object
//! (http's load figures) and the confidence interval of its mean.

use jsoncost_engine::Row;
use serde_json::Value;

/// A number from a row's `extra` object.
pub(crate) fn extra(row: &Row, key: &str) -> Option<f64> {
    row.extra.get(key).and_then(Value::as_f64)
}

/// How many samples a row's mean and standard deviation come from: the kept samples, else the
/// iterations, else (http) the requests.
pub(crate) fn sample_count(row: &Row) -> Option<usize> {
    if !row.samples_ns.is_empty() {
        return Some(row.samples_ns.len());
    }
    row.iterations
        .map(|n| n as usize)
        .or_else(|| extra(row, "requests").map(|n| n as usize))
}

/// The 99.9% confidence interval of a row's mean: mean ± Error, or when Error is absent, from
/// the standard deviation and the sample count with Student's t.
pub(crate) fn mean_interval(row: &Row) -> Option<(f64, f64)> {
    let m = row.mean_ns?;
    let half = row.error_ns.or_else(|| {
        let sd = row.stddev_ns?;
        let n = sample_count(row)?;
        (n >= 2).then(|| {
            jsoncost_engine::stats::t_quantile_two_sided(jsoncost_engine::stats::CONFIDENCE, (n - 1) as f64) * sd / (n as f64).sqrt()
        })
    })?;
    Some((m - half, m + half))
}

/// The total of an http row's `errors` object (kind → count); `None` when absent.
pub(crate) fn error_total(row: &Row) -> Option<f64> {
    match row.extra.get("errors")? {
        Value::Object(kinds) => Some(kinds.values().filter_map(Value::as_f64).sum()),
        Value::Number(n) => n.as_f64(),
        _ => None,
    }
}

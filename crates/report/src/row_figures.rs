//! Figures read off a result row beyond its plain fields: an http row's load figures and the
//! confidence interval of its mean.

use jsoncost_engine::{HttpFigures, Row};

/// One of an http row's load figures (`None` on other rows).
pub(crate) fn http_figure(row: &Row, figure: impl Fn(&HttpFigures) -> Option<f64>) -> Option<f64> {
    row.http.as_ref().and_then(figure)
}

/// How many samples a row's mean and standard deviation come from: the kept samples, else the
/// iterations, else (http) the requests.
pub(crate) fn sample_count(row: &Row) -> Option<usize> {
    if !row.samples_ns.is_empty() {
        return Some(row.samples_ns.len());
    }
    row.iterations
        .map(|n| n as usize)
        .or_else(|| row.http.as_ref().map(|h| h.requests as usize))
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

/// The total of an http row's failed requests; `None` on other rows.
pub(crate) fn error_total(row: &Row) -> Option<f64> {
    row.http.as_ref().map(|h| h.errors.total() as f64)
}

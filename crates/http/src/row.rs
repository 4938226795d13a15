//! An http result row from a load report and the server's cost.

use jsoncost_engine::paired::{self, PAIRED_CONFIDENCE};
use jsoncost_engine::{HttpErrors, HttpFigures, HttpLoss, HttpStop, LossKind, Row};

use crate::cost::{ServerCost, total_cost};
use crate::loadgen::{LoadReport, Loss, Model, Slice, SliceRun, StopReason};

/// The row for `method` (e.g. `typed/serde_json`): `mean_ns` is the mean latency, `median_ns`
/// p50, `p95_ns` p95; `allocated_bytes`/`allocs` are the server's per request and `peak_bytes`
/// its peak live heap over the run (all left empty against an external target); [`Row::http`]
/// holds req/s, the latency percentiles, errors by kind and status code, bytes per response,
/// the server's CPU per request, the requests, why the load stopped and, in the open model, the
/// requests not sent. A run given up as lost, or without a single successful response, is a
/// failed row naming why and its errors by kind and status code ([`failed_row`]).
pub fn http_row(method: &str, report: &LoadReport, cost: Option<&ServerCost>) -> Row {
    let kinds = match report.errors_by_kind() {
        kinds if kinds.is_empty() => "none answered".to_string(),
        kinds => kinds,
    };
    if let Some(loss) = report.lost {
        let message = format!(
            "lost after {} requests to {}: {loss} ({kinds})",
            report.requests,
            jsoncost_stores::redact(&report.url)
        );
        return failed_row(method, report, message);
    }
    if report.ok == 0 {
        let message = format!(
            "no successful response from {}: {} requests, {kinds}",
            jsoncost_stores::redact(&report.url),
            report.requests
        );
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
    row.http = Some(HttpFigures {
        req_per_s: Some(report.req_per_s()),
        p50_ns: q(0.5),
        p90_ns: q(0.9),
        p99_ns: q(0.99),
        p999_ns: q(0.999),
        max_ns: report.max_ns().map(|v| v as f64),
        bytes_per_response: report.bytes_per_response(),
        server_cpu_ns_per_req: cost.and_then(ServerCost::cpu_ns_per_request),
        ..counts(report)
    });
    row
}

/// What every http row keeps, failed or not: errors, status codes, requests, why it stopped,
/// why it was lost and (open model) the requests not sent.
fn counts(report: &LoadReport) -> HttpFigures {
    let e = report.errors;
    HttpFigures {
        errors: HttpErrors {
            connect: e.connect,
            timeout: e.timeout,
            status: e.status,
            closed: e.closed,
        },
        status_codes: report.status_codes.clone(),
        requests: report.requests,
        stop: Some(match report.stop {
            StopReason::Completed => HttpStop::Completed,
            StopReason::TimeCap => HttpStop::TimeCap,
            StopReason::Lost => HttpStop::Lost,
            StopReason::Cancelled => HttpStop::Cancelled,
        }),
        unsent: matches!(report.model, Model::Open { .. }).then_some(report.unsent),
        lost: report.lost.map(|loss| HttpLoss {
            rule: match loss {
                Loss::ErrorShare { .. } => LossKind::ErrorShare,
                Loss::Stall { .. } => LossKind::Stall,
                Loss::ServerError => LossKind::ServerError,
                Loss::Exited { .. } => LossKind::Exited,
            },
            message: loss.to_string(),
        }),
        ..HttpFigures::default()
    }
}

/// A failed row for a load run that cannot stand as a measurement (`message` says why), keeping
/// its errors by kind and status code, requests, and why it was lost when it was.
pub fn failed_row(method: &str, report: &LoadReport, message: String) -> Row {
    let mut row = Row::failed(method, message);
    row.http = Some(counts(report));
    row
}

/// The rows of a sliced run, one per target in its order: each from its slices of the complete
/// rounds (a lost target's from all of its slices, so its row fails naming why), with the
/// server's cost over the same slices. With two rounds or more, `rounds_ns` holds each round's
/// wall time per successful request (the paired quantity of the Ratio, `Row::paired_ratio_to`)
/// and [`HttpFigures`] the paired p99 and CPU-per-request ratios to the first target.
pub fn sliced_rows(run: &SliceRun<Option<ServerCost>>) -> Vec<Row> {
    let per_slice = |t: usize, f: &dyn Fn(&Slice<Option<ServerCost>>) -> Option<f64>| -> Option<Vec<f64>> {
        run.targets[t].paired(run.rounds).iter().map(f).collect()
    };
    let p99 = |s: &Slice<Option<ServerCost>>| s.report.quantile_ns(0.99).map(|v| v as f64);
    let cpu = |s: &Slice<Option<ServerCost>>| s.server.as_ref().and_then(ServerCost::cpu_ns_per_request);
    let paired_to_first = |t: usize, f: &dyn Fn(&Slice<Option<ServerCost>>) -> Option<f64>| {
        paired::log_ratio(&per_slice(0, f)?, &per_slice(t, f)?, PAIRED_CONFIDENCE)
    };
    let mut rows = Vec::with_capacity(run.targets.len());
    for (t, target) in run.targets.iter().enumerate() {
        let lost_here = run.lost.is_some_and(|l| l.target == t);
        let slices = if lost_here { &target.slices[..] } else { target.paired(run.rounds) };
        let Some(total) = total_report(slices) else {
            rows.push(Row::failed(
                target.name.as_str(),
                "not measured: the run stopped before this target's first timed slice",
            ));
            continue;
        };
        let cost = total_cost(slices.iter().filter_map(|s| s.server.as_ref()));
        let mut row = http_row(&target.name, &total, cost.as_ref());
        if row.is_ok() && run.rounds >= 2 {
            row.rounds_ns = run.rounds_ns(t);
            if let Some(figures) = &mut row.http {
                figures.slices = Some(run.rounds as u64);
                figures.p99_ratio = paired_to_first(t, &p99);
                figures.cpu_ratio = paired_to_first(t, &cpu);
            }
        }
        rows.push(row);
    }
    rows
}

/// `slices`' reports added into one (req/s over the slices' own time).
pub fn total_report<S>(slices: &[Slice<S>]) -> Option<LoadReport> {
    let (first, rest) = slices.split_first()?;
    let mut total = first.report.clone();
    for s in rest {
        total.absorb(&s.report);
    }
    Some(total)
}

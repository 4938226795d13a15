//! http: Mode | Req/s | Mean | p50 | p99 | p99.9 | Server alloc/req | Server peak heap | RSS growth | Server CPU/req | Ratio,
//! plus Errors when any request failed. Mean is the mean latency; allocation is the server's.
//! Charts: requests per second, latency percentiles, the server's allocation per request.

use jsoncost_engine::{Contract, HttpFigures, MeasuredTable, Row};

use super::kind_view::KindView;
use crate::columns::{self, Cell, Spec, get};
use crate::html::charts::{Chart, ChartRow, Segment, Track, value_chart};
use crate::row_figures::{error_total, http_figure};
use crate::units::{self, TimeColumn};
use crate::view::View;

/// `jsoncost http`'s tables.
pub(super) struct Http;

impl KindView for Http {
    fn table(&self, exp: &MeasuredTable) -> View {
        let mut view = columns::table_view(exp, columns(exp));
        if let Some((row, p)) = crate::profile::profiled(exp) {
            let sites = crate::profile::call_site_lines(p);
            if !sites.is_empty() {
                view.notes.push(format!(
                    "Where {}'s server spends its JSON time (share of its samples, direction, call site):",
                    row.method
                ));
                view.notes.extend(sites);
            }
            view.notes.push(crate::profile::counts_what(p));
            if let Some(file) = &p.flamegraph {
                view.notes
                    .push(format!("Flamegraph (JSON frames in blue): {file}, beside results.json."));
            }
        }
        view
    }

    fn html_after_charts(&self, exp: &MeasuredTable) -> String {
        crate::profile::profiled(exp).map_or(String::new(), |(_, p)| crate::html::profile::section(p, &exp.table))
    }

    fn operation(&self) -> (&'static str, &'static str) {
        ("req", "req")
    }

    fn charts(&self, _exp: &MeasuredTable, ok: &[&Row]) -> Vec<Option<Chart>> {
        charts(ok)
    }

    /// The server's CPU per request that is JSON work: the baseline's less what serving the
    /// stored bytes unparsed (the table's `Passthrough` row) costs, from their paired per-slice
    /// CPU ratio; nothing without that interval.
    fn json_share(&self, exp: &MeasuredTable) -> Option<String> {
        if let Some((_, p)) = crate::profile::profiled(exp) {
            return Some(crate::profile::share_sentence(p));
        }
        if !exp.rows.is_empty() && exp.rows.iter().all(|r| r.contract == Some(Contract::Opaque)) {
            return Some(
                "not sampled: add --profile PID (the server's process), or --server-cmd 'CMD {port}' --profile, for the share of its CPU that is JSON and where it goes."
                    .to_string(),
            );
        }
        let base = exp.baseline()?;
        let floor = exp
            .rows
            .iter()
            .find(|r| r.is_ok() && r.contract == Some(Contract::Passthrough) && !r.baseline)?;
        let r = floor.http.as_ref()?.cpu_ratio?;
        let base_cpu = http_figure(base, |h| h.server_cpu_ns_per_req)?;
        let (share, low, high) = (1.0 - r.estimate, 1.0 - r.high, 1.0 - r.low);
        Some(if low <= 0.0 {
            format!(
                "JSON work is within the noise of the server's {} of CPU per request: {} − {} per slice is {} (99% interval {} to {}).",
                units::time(base_cpu),
                base.method,
                floor.method,
                units::percent(share),
                units::percent(low),
                units::percent(high)
            )
        } else {
            format!(
                "JSON is {} of the server's {} of CPU per request ({} less {}, paired per slice; 99% interval {}–{}).",
                units::percent(share),
                units::time(base_cpu),
                base.method,
                floor.method,
                units::percent(low),
                units::percent(high)
            )
        })
    }
}

/// Requests per second, latency percentiles and the server's allocation per request.
pub(super) fn charts(ok: &[&Row]) -> Vec<Option<Chart>> {
    vec![
        value_chart(
            "req-per-s",
            "Requests per second",
            ok,
            |r| http_figure(r, |h| h.req_per_s),
            |v| format!("{} req/s", units::rate(v)),
        ),
        latency_chart(ok),
        value_chart(
            "allocated",
            "Server allocation per request",
            ok,
            |r| r.allocated_bytes,
            units::bytes,
        ),
    ]
}

pub(super) fn columns<'a>(exp: &MeasuredTable) -> Vec<Spec<'a>> {
    let mut specs = vec![
        Spec::new("Mode", Cell::Method),
        Spec::new("Req/s", Cell::Rate(get(|r| http_figure(r, |h| h.req_per_s)))),
        Spec::new("Mean", Cell::Time(get(|r| r.mean_ns))),
        Spec::new("p50", Cell::Time(get(|r| http_figure(r, |h| h.p50_ns)))),
        Spec::new("p99", Cell::Time(get(|r| http_figure(r, |h| h.p99_ns)))),
        Spec::new("p99.9", Cell::Time(get(|r| http_figure(r, |h| h.p999_ns)))),
        Spec::new("Server alloc/req", Cell::Bytes(get(|r| r.allocated_bytes))),
        // The most live heap the server's threads held during the run above its start: with one
        // connection, one request's peak (what buffering a body costs, which allocated bytes hide).
        Spec::new("Server peak heap", Cell::Bytes(get(|r| r.peak_bytes.map(|b| b as f64)))),
        // The process's (server and load generator; the bodies are built before): an upload
        // the server buffers shows here as at least the body.
        Spec::new("RSS growth", Cell::Bytes(get(|r| r.rss.map(|m| m.growth_bytes as f64)))),
        Spec::new("Server CPU/req", Cell::Time(get(|r| http_figure(r, |h| h.server_cpu_ns_per_req)))),
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
    let Some(figures) = &row.http else {
        return units::count(total);
    };
    let e = figures.errors;
    let kinds: Vec<String> = [
        ("status", e.status),
        ("connect", e.connect),
        ("timeout", e.timeout),
        ("closed", e.closed),
    ]
    .into_iter()
    .filter(|(_, n)| *n > 0)
    .flat_map(|(kind, n)| {
        if kind == "status" && !figures.status_codes.is_empty() {
            figures
                .status_codes
                .iter()
                .map(|(code, n)| format!("{code}×{}", units::count(*n as f64)))
                .collect()
        } else {
            vec![format!("{kind}: {}", units::count(n as f64))]
        }
    })
    .collect();
    if kinds.is_empty() {
        units::count(total)
    } else {
        format!("{} ({})", units::count(total), kinds.join(", "))
    }
}

type Figure = fn(&HttpFigures) -> Option<f64>;

const PERCENTILES: [(&str, Figure); 4] = [
    ("p50", |h| h.p50_ns),
    ("p90", |h| h.p90_ns),
    ("p99", |h| h.p99_ns),
    ("p99.9", |h| h.p999_ns),
];

fn latency_chart(ok: &[&Row]) -> Option<Chart> {
    let col = TimeColumn::fit(
        ok.iter()
            .flat_map(|r| PERCENTILES.iter().filter_map(|(_, figure)| http_figure(r, figure))),
    );
    let rows: Vec<ChartRow> = ok
        .iter()
        .filter_map(|r| {
            let tracks: Vec<Track> = PERCENTILES
                .iter()
                .filter_map(|(name, figure)| {
                    let v = http_figure(r, figure)?;
                    Some(Track {
                        sub_label: Some(name.to_string()),
                        segments: vec![Segment { value: v, class: "" }],
                        error: None,
                        text: Some(col.format(v)),
                        tooltip: format!("{} {name}: {}", r.method, col.format(v)),
                    })
                })
                .collect();
            let mean = r.mean_ns.map(|m| format!("mean {}", col.format(m))).unwrap_or_default();
            (!tracks.is_empty()).then(|| ChartRow {
                label: r.method.clone(),
                value_text: mean,
                tracks,
            })
        })
        .collect();
    (!rows.is_empty()).then(|| Chart {
        kind: "latency",
        title: "Latency percentiles".to_string(),
        rows,
        legend: Vec::new(),
        reference: None,
    })
}

//! One experiment's section of the HTML report: its table, summary and charts.

use std::fmt::Write;

use jsoncost_engine::{Experiment, ExperimentKind as Kind, FLOOR, HttpFigures, Row};

use super::charts::{Chart, ChartRow, Segment, Track};
use super::esc;
use crate::columns::floor_mean_ns;
use crate::row_figures::http_figure;
use crate::units::{self, TimeColumn};
use crate::view::{Align, Line, NO_MESSAGE, View};

pub(super) fn render(exp: &Experiment, id: &str) -> String {
    if exp.experiment == Kind::Safety {
        return super::safety::section(exp, id);
    }
    let view = View::of(exp);
    let mut out = format!(
        "<section class=\"experiment\" id=\"{}\">\n<h2>{}</h2>\n",
        esc(id),
        esc(&view.heading)
    );
    if !view.params.is_empty() {
        let _ = writeln!(out, "<p class=\"params\">{}</p>", esc(&view.params));
    }
    out.push_str(&table(exp, &view));
    if !view.notes.is_empty() {
        out.push_str("<ul class=\"notes\">\n");
        for n in &view.notes {
            let _ = writeln!(out, "<li>{}</li>", esc(n));
        }
        out.push_str("</ul>\n");
    }
    if !view.summary.is_empty() {
        out.push_str("<ul class=\"summary\">\n");
        for s in &view.summary {
            let _ = writeln!(out, "<li>{}</li>", esc(s));
        }
        out.push_str("</ul>\n");
    }
    let charts = charts(exp);
    if !charts.is_empty() {
        out.push_str("<div class=\"charts\">\n");
        for c in charts {
            out.push_str(&c.render());
        }
        out.push_str("</div>\n");
    }
    out.push_str(&super::http_ab::section(exp));
    out.push_str("</section>\n");
    out
}

fn table(exp: &Experiment, view: &View) -> String {
    let mut out = String::from("<div class=\"table-wrap\">\n<table>\n<thead><tr>");
    for c in &view.columns {
        let class = if c.align == Align::Right { " class=\"num\"" } else { "" };
        let _ = write!(out, "<th scope=\"col\"{class}>{}</th>", esc(c.name));
    }
    out.push_str("</tr></thead>\n<tbody>\n");
    // View lines follow the experiment's rows one for one.
    for (line, row) in view.lines.iter().zip(&exp.rows) {
        let tag = if row.baseline { " <span class=\"tag\">baseline</span>" } else { "" };
        match line {
            Line::Ok(cells) => {
                let class = if row.baseline { " class=\"baseline\"" } else { "" };
                let _ = write!(out, "<tr{class}>");
                for (i, (cell, col)) in cells.iter().zip(&view.columns).enumerate() {
                    if i == 0 {
                        let _ = write!(out, "<th scope=\"row\">{}{tag}</th>", esc(cell));
                    } else if col.align == Align::Right {
                        let _ = write!(out, "<td class=\"num\">{}</td>", esc(cell));
                    } else {
                        let _ = write!(out, "<td>{}</td>", esc(cell));
                    }
                }
                out.push_str("</tr>\n");
            }
            Line::Failed { method, message } => {
                let _ = writeln!(
                    out,
                    "<tr class=\"failed\"><th scope=\"row\">{}{tag}</th><td class=\"msg\" colspan=\"{}\">failed: {}</td></tr>",
                    esc(method),
                    view.columns.len().saturating_sub(1).max(1),
                    esc(if message.trim().is_empty() { NO_MESSAGE } else { message.trim() })
                );
            }
        }
    }
    out.push_str("</tbody>\n</table>\n</div>\n");
    out
}

fn charts(exp: &Experiment) -> Vec<Chart> {
    let ok: Vec<&Row> = exp.rows.iter().filter(|r| r.is_ok()).collect();
    let per = match exp.experiment {
        Kind::Stream => "run",
        Kind::Http | Kind::HttpAb => "request",
        Kind::Store => "read",
        Kind::Micro => "operation",
        Kind::Safety => return Vec::new(),
    };
    let charts = match exp.experiment {
        Kind::Http | Kind::HttpAb => vec![
            value_chart(
                "req-per-s",
                "Requests per second",
                &ok,
                |r| http_figure(r, |h| h.req_per_s),
                |v| format!("{} req/s", units::rate(v)),
            ),
            latency_chart(&ok),
            value_chart(
                "allocated",
                "Server allocation per request",
                &ok,
                |r| r.allocated_bytes,
                units::bytes,
            ),
        ],
        kind => {
            let mut charts = vec![
                mean_chart(exp, &ok, per),
                value_chart(
                    "allocated",
                    &format!("Allocated per {per}"),
                    &ok,
                    |r| r.allocated_bytes,
                    units::bytes,
                ),
            ];
            if kind == Kind::Store {
                charts.push(split_chart(exp, &ok));
            }
            if kind == Kind::Stream {
                charts.push(value_chart(
                    "peak",
                    "Peak heap per run",
                    &ok,
                    |r| r.peak_bytes.map(|b| b as f64),
                    units::bytes,
                ));
            }
            charts
        }
    };
    charts.into_iter().flatten().collect()
}

fn mean_chart(exp: &Experiment, ok: &[&Row], per: &str) -> Option<Chart> {
    let timed: Vec<&Row> = ok.iter().copied().filter(|r| r.mean_ns.is_some()).collect();
    let col = TimeColumn::fit(timed.iter().filter_map(|r| r.mean_ns));
    // The errors in the means' unit (one unit per table).
    let error_col = TimeColumn::fit_in(col.unit, timed.iter().filter_map(|r| r.error_ns));
    let rows: Vec<ChartRow> = timed
        .iter()
        .filter_map(|r| {
            let mean = r.mean_ns?;
            let text = match r.error_ns {
                Some(e) => format!("{} ± {}", col.format(mean), error_col.format(e)),
                None => col.format(mean),
            };
            let mut track = Track::single(mean, format!("{}: {text}", r.method));
            track.error = r.error_ns;
            Some(ChartRow {
                label: r.method.clone(),
                value_text: text,
                tracks: vec![track],
            })
        })
        .collect();
    let reference = exp
        .baseline()
        .filter(|b| b.is_ok())
        .and_then(|b| b.mean_ns)
        .map(|m| (m, "baseline mean"));
    (!rows.is_empty()).then(|| Chart {
        kind: "mean",
        title: format!("Mean time per {per} (± 99.9% confidence)"),
        rows,
        legend: Vec::new(),
        reference,
    })
}

fn value_chart(
    kind: &'static str,
    title: &str,
    ok: &[&Row],
    get: impl Fn(&Row) -> Option<f64>,
    text: impl Fn(f64) -> String,
) -> Option<Chart> {
    let rows: Vec<ChartRow> = ok
        .iter()
        .filter_map(|r| {
            let v = get(r)?;
            let t = text(v);
            Some(ChartRow {
                label: r.method.clone(),
                tracks: vec![Track::single(v, format!("{}: {t}", r.method))],
                value_text: t,
            })
        })
        .collect();
    (!rows.is_empty()).then(|| Chart {
        kind,
        title: title.to_string(),
        rows,
        legend: Vec::new(),
        reference: None,
    })
}

/// Each read split into the floor (bytes read and discarded) and the JSON work above it.
fn split_chart(exp: &Experiment, ok: &[&Row]) -> Option<Chart> {
    let floor = floor_mean_ns(exp)?;
    let col = TimeColumn::fit(ok.iter().filter_map(|r| r.mean_ns).chain([floor]));
    let rows: Vec<ChartRow> = ok
        .iter()
        .filter_map(|r| {
            let mean = r.mean_ns?;
            let base = floor.min(mean);
            let json = (mean - floor).max(0.0);
            let text = if r.method == FLOOR {
                format!("{}, no JSON", col.format(mean))
            } else {
                format!("{} JSON of {}", col.format(json), col.format(mean))
            };
            let track = Track {
                sub_label: None,
                segments: vec![
                    Segment {
                        value: base,
                        class: "floor",
                    },
                    Segment {
                        value: json,
                        class: "json",
                    },
                ],
                error: None,
                text: None,
                tooltip: format!("{}: {text}", r.method),
            };
            Some(ChartRow {
                label: r.method.clone(),
                value_text: text,
                tracks: vec![track],
            })
        })
        .collect();
    (!rows.is_empty()).then(|| Chart {
        kind: "split",
        title: "Each read: floor and JSON work".to_string(),
        rows,
        legend: vec![("floor", "floor (read, body discarded)"), ("json", "JSON work")],
        reference: None,
    })
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

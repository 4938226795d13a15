//! The end of an http A/B table's section: where each server ran, the two servers' latency
//! distributions and their time per request slice by slice (each a line chart with both servers
//! on one pair of axes), and the verdicts over the paired figures (`crate::ab_http`).

use std::fmt::Write;

use jsoncost_engine::{AbHttpSide, AbHttpTable, MeasuredTable, Placement};

use super::curves::{LineChart, Point, Series};
use super::escape::esc;
use crate::units::TimeColumn;

/// The x position of quantile `q` on a "nines" scale (p90 at 1, p99 at 2, p99.9 at 3 ...),
/// with the maximum drawn at [`MAX_AT`]: the tail, where two servers differ, gets the room.
fn nines(q: f64) -> f64 {
    if q >= 1.0 { MAX_AT } else { -(1.0 - q).log10() }
}

const MAX_AT: f64 = 4.5;

/// Labelled quantiles (p99.99 has its point, not a label: it would touch max's).
const TICKS: [(f64, &str); 5] = [(0.5, "p50"), (0.9, "p90"), (0.99, "p99"), (0.999, "p99.9"), (1.0, "max")];

/// `p99.9`, `max`, `min`.
fn quantile_name(q: f64) -> String {
    match q {
        q if q <= 0.0 => "min".to_string(),
        q if q >= 1.0 => "max".to_string(),
        q => {
            let pct = format!("{:.2}", q * 100.0);
            format!("p{}", pct.trim_end_matches('0').trim_end_matches('.'))
        }
    }
}

fn sides(t: &AbHttpTable) -> [(&'static str, &AbHttpSide); 2] {
    [("base", &t.base), ("new", &t.new)]
}

/// One line per server, named and classed by its side, with the points `points` draws from it.
fn both_series(t: &AbHttpTable, points: impl Fn(&'static str, &AbHttpSide) -> Vec<Point>) -> Vec<Series> {
    sides(t)
        .into_iter()
        .map(|(name, side)| Series {
            name: name.to_string(),
            class: name,
            points: points(name, side),
        })
        .collect()
}

fn latency_chart(t: &AbHttpTable) -> LineChart {
    let all = sides(t).into_iter().flat_map(|(_, s)| s.latency.iter().map(|p| p.ns));
    let col = TimeColumn::fit(all);
    LineChart {
        kind: "latency-distribution",
        title: "Latency distribution, base and new".to_string(),
        x_max: MAX_AT,
        x_ticks: TICKS.iter().map(|(q, name)| (nines(*q), name.to_string())).collect(),
        series: both_series(t, |name, side| {
            side.latency
                .iter()
                .map(|p| Point {
                    x: nines(p.quantile),
                    y: p.ns,
                    tooltip: format!("{name} {}: {}", quantile_name(p.quantile), col.format(p.ns)),
                })
                .collect()
        }),
    }
}

fn slices_chart(t: &AbHttpTable) -> LineChart {
    let all = sides(t)
        .into_iter()
        .flat_map(|(_, s)| s.slices.iter().filter_map(|x| x.ns_per_request));
    let col = TimeColumn::fit(all);
    let last = sides(t).into_iter().map(|(_, s)| s.slices.len()).max().unwrap_or(0);
    LineChart {
        kind: "slices",
        title: "Time per request, slice by slice".to_string(),
        // x is the round from 0, labelled from 1 for the reader; a single round still gets a width.
        x_max: last.saturating_sub(1).max(1) as f64,
        x_ticks: [1, last.max(1)].iter().map(|r| ((*r - 1) as f64, format!("round {r}"))).collect(),
        series: both_series(t, |name, side| {
            side.slices
                .iter()
                .filter_map(|s| {
                    let ns = s.ns_per_request?;
                    Some(Point {
                        x: s.round as f64,
                        y: ns,
                        tooltip: format!("{name} round {}: {} per request", s.round + 1, col.format(ns)),
                    })
                })
                .collect()
        }),
    }
}

/// `base: ./old-server --listen … (PID 4242), pinned to CPU 1 (load generator: CPU 0)`.
fn placement_line(name: &str, side: &AbHttpSide) -> String {
    let pid = side.pid.map(|p| format!(" (PID {p})")).unwrap_or_default();
    let cpus = |c: &[usize]| {
        let list = c.iter().map(|c| c.to_string()).collect::<Vec<_>>().join(",");
        if c.len() == 1 {
            format!("CPU {list}")
        } else {
            format!("CPUs {list}")
        }
    };
    let where_ = match &side.placement {
        Placement::Pinned { cpus: c, load_generator } => {
            format!("pinned to {} (load generator: {})", cpus(c), cpus(load_generator))
        }
        Placement::NotPinned { reason } => format!("not pinned: {reason}"),
    };
    format!("{name}: {}{pid}, {where_}", side.server)
}

/// The http A/B part of `exp`'s section; empty on any other table.
pub(crate) fn section(exp: &MeasuredTable) -> String {
    let Some(t) = &exp.ab_http else { return String::new() };
    let mut out = String::from("<ul class=\"notes servers\">\n");
    for (name, side) in sides(t) {
        let _ = writeln!(out, "<li>{}</li>", esc(&placement_line(name, side)));
    }
    out.push_str("</ul>\n<div class=\"charts side-by-side\">\n");
    for chart in [latency_chart(t), slices_chart(t)] {
        out.extend(chart.render());
    }
    out.push_str("</div>\n");
    if let Some(comparison) = crate::ab_http::comparison([exp]) {
        out.push_str("<h3>Verdicts, new/base paired slice by slice</h3>\n");
        out.push_str(&super::verdicts::body(&comparison.verdicts()));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantiles_are_named_and_placed_by_their_nines() {
        assert_eq!(
            [0.0, 0.5, 0.999, 0.9999, 1.0].map(quantile_name),
            ["min", "p50", "p99.9", "p99.99", "max"].map(String::from)
        );
        assert_eq!(nines(0.0), 0.0);
        assert!((nines(0.99) - 2.0).abs() < 1e-12);
        assert_eq!(nines(1.0), MAX_AT);
    }
}

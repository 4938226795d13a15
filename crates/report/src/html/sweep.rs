//! The report's size sweeps: per sweep, time per operation against size on log axes, one line
//! per row followed (the baseline and each rung's contenders), the crossovers marked where a row's
//! verdict against the baseline changes between two sizes; then the size × row grid and the
//! crossover sentences. Plain SVG, no script.

use std::fmt::Write;

use super::escape::{esc, slug};
use crate::advisor::JUDGE;
use crate::sweep::{self, Sweep};
use crate::units;
use jsoncost_engine::{ExperimentKind, Results};

/// viewBox size; the chart scales to its container.
const W: f64 = 520.0;
const H: f64 = 260.0;
const LEFT: f64 = 64.0;
const RIGHT: f64 = 16.0;
const TOP: f64 = 12.0;
const BOTTOM: f64 = 24.0;
/// Line colours, one per row in order (the baseline first); more rows reuse them.
const CLASSES: [&str; 6] = ["s0", "s1", "s2", "s3", "s4", "s5"];

/// The anchor of a sweep's section.
pub(super) fn id(s: &Sweep<'_>) -> String {
    id_of(s.experiment, &s.key())
}

/// The anchor of the sweep `key` (`order/deserialize`) of `experiment`.
pub(super) fn id_of(experiment: ExperimentKind, key: &str) -> String {
    format!("sizes-{experiment}-{}", slug(key))
}

/// Every sweep's section, in the order the sweeps ran; empty without one.
pub(super) fn section(results: &Results) -> String {
    let sweeps = sweep::sweeps(results, &JUDGE);
    let mut out = String::new();
    for s in &sweeps {
        let _ = writeln!(
            out,
            "<section class=\"sweep\" id=\"{}\">\n<h2>Sizes: {}: {}</h2>",
            esc(&id(s)),
            esc(s.experiment.as_str()),
            esc(&s.title())
        );
        out.push_str(&chart(s));
        out.push_str(&grid(s));
        if !s.crossings.is_empty() {
            out.push_str("<ul class=\"crossovers\">\n");
            for c in &s.crossings {
                let _ = writeln!(out, "<li>{}.</li>", esc(&c.sentence));
            }
            out.push_str("</ul>\n");
        }
        out.push_str("</section>\n");
    }
    out
}

fn grid(s: &Sweep<'_>) -> String {
    let (header, lines) = sweep::grid(s, &JUDGE);
    let mut out = String::from("<div class=\"table-wrap\"><table class=\"sweep-grid\"><thead><tr>");
    for h in &header {
        let _ = write!(out, "<th>{}</th>", esc(h));
    }
    out.push_str("</tr></thead><tbody>\n");
    for l in lines {
        out.push_str("<tr>");
        for c in l {
            let _ = write!(out, "<td>{}</td>", esc(&c));
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</tbody></table></div>\n<p class=\"params\">Mean per operation; in brackets its time over the baseline's, with the 99% interval where paired.</p>\n");
    out
}

/// The chart: x the document's bytes, y the mean time per operation, both log10.
pub(super) fn chart(s: &Sweep<'_>) -> String {
    let charted = s.charted();
    // (x bytes, y ns) per row per size; None where the row has no time there.
    let series: Vec<Vec<Option<(f64, f64)>>> = charted
        .iter()
        .map(|m| {
            s.points
                .iter()
                .map(|p| {
                    p.table
                        .rows
                        .iter()
                        .find(|r| r.method == *m && r.is_ok())
                        .and_then(|r| r.mean_ns)
                        .filter(|y| *y > 0.0 && p.bytes > 0.0)
                        .map(|y| (p.bytes, y))
                })
                .collect()
        })
        .collect();
    let ys: Vec<f64> = series.iter().flatten().flatten().map(|(_, y)| *y).collect();
    let xs: Vec<f64> = s.points.iter().map(|p| p.bytes).filter(|b| *b > 0.0).collect();
    if ys.is_empty() || xs.is_empty() {
        return String::new();
    }
    let (mut x0, mut x1) = (log(min(&xs)), log(max(&xs)));
    let (mut y0, mut y1) = (log(min(&ys)), log(max(&ys)));
    if x1 - x0 < 1e-9 {
        x0 -= 0.5;
        x1 += 0.5;
    }
    if y1 - y0 < 1e-9 {
        y0 -= 0.5;
        y1 += 0.5;
    }
    // A little room above and below the lines.
    let pad = (y1 - y0) * 0.05;
    let (y0, y1) = (y0 - pad, y1 + pad);
    let (pw, ph) = (W - LEFT - RIGHT, H - TOP - BOTTOM);
    let x = |b: f64| LEFT + (log(b) - x0) / (x1 - x0) * pw;
    let y = |ns: f64| TOP + ph - (log(ns) - y0) / (y1 - y0) * ph;

    let title = format!("{}: time per operation against size (log axes)", s.title());
    let mut out = format!("<figure class=\"chart-box sweep-chart\">\n<figcaption>{}", esc(&title));
    out.push_str("<span class=\"legend\">");
    for (i, m) in charted.iter().enumerate() {
        let _ = write!(
            out,
            "<span class=\"entry\"><span class=\"key {}\"></span>{}</span>",
            CLASSES[i % CLASSES.len()],
            esc(m)
        );
    }
    if s.crossings.iter().any(|c| !c.changes().is_empty()) {
        out.push_str("<span class=\"entry\"><span class=\"key ref\"></span>crossover</span>");
    }
    out.push_str("</span></figcaption>\n");
    let _ = writeln!(
        out,
        "<svg class=\"chart line\" data-chart=\"size-sweep\" data-series=\"{}\" viewBox=\"0 0 {} {}\" role=\"img\" aria-label=\"{}\">",
        charted.len(),
        n(W),
        n(H),
        esc(&title)
    );
    // y: every power of ten in range, else the ends.
    let mut ticks: Vec<f64> = (y0.ceil() as i32..=y1.floor() as i32).map(|e| 10f64.powi(e)).collect();
    if ticks.len() < 2 {
        ticks = vec![10f64.powf(y0 + pad), 10f64.powf(y1 - pad)];
    }
    for v in ticks {
        let _ = writeln!(
            out,
            "<line class=\"grid\" x1=\"{}\" x2=\"{}\" y1=\"{gy}\" y2=\"{gy}\"/>\n<text class=\"sub\" x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>",
            n(LEFT),
            n(W - RIGHT),
            n(LEFT - 4.0),
            n(y(v) + 4.0),
            esc(&units::time(v)),
            gy = n(y(v)),
        );
    }
    for p in &s.points {
        let at = x(p.bytes);
        let anchor = if at <= LEFT + 1.0 {
            "start"
        } else if at >= W - RIGHT - 1.0 {
            "end"
        } else {
            "middle"
        };
        let _ = writeln!(
            out,
            "<text class=\"sub\" x=\"{}\" y=\"{}\" text-anchor=\"{anchor}\">{}</text>",
            n(at),
            n(H - 6.0),
            esc(&p.label)
        );
    }
    // Crossovers: between the two sizes where a row's verdict changes, on that row's line.
    for (ci, c) in s.crossings.iter().enumerate() {
        let class = CLASSES[(ci + 1) % CLASSES.len()];
        let line = &series[ci + 1];
        for (i, j) in c.changes() {
            let (Some(a), Some(b)) = (line[i], line[j]) else {
                continue;
            };
            let mid_x = (log(a.0) + log(b.0)) / 2.0;
            let mid_y = (log(a.1) + log(b.1)) / 2.0;
            let (cx, cy) = (x(10f64.powf(mid_x)), y(10f64.powf(mid_y)));
            let what = format!(
                "{}: {} at {}, {} at {}",
                c.method,
                c.verdicts[i].word(),
                s.points[i].label,
                c.verdicts[j].word(),
                s.points[j].label
            );
            let _ = writeln!(
                out,
                "<line class=\"crossover\" data-row=\"{m}\" x1=\"{cx}\" x2=\"{cx}\" y1=\"{}\" y2=\"{}\"><title>{t}</title></line>\n<circle class=\"crossover {class}\" data-row=\"{m}\" cx=\"{cx}\" cy=\"{}\" r=\"5\"><title>{t}</title></circle>",
                n(TOP),
                n(TOP + ph),
                n(cy),
                m = esc(&c.method),
                cx = n(cx),
                t = esc(&what),
            );
        }
    }
    for (i, (m, points)) in charted.iter().zip(&series).enumerate() {
        let class = CLASSES[i % CLASSES.len()];
        let coords: Vec<String> = points
            .iter()
            .flatten()
            .map(|(b, ns)| format!("{},{}", n(x(*b)), n(y(*ns))))
            .collect();
        let _ = writeln!(
            out,
            "<polyline class=\"line {class}\" data-series=\"{}\" points=\"{}\"/>",
            esc(m),
            coords.join(" ")
        );
        for (p, at) in s.points.iter().zip(points) {
            let Some((b, ns)) = at else { continue };
            let ratio = if i == 0 {
                String::from("baseline")
            } else {
                match sweep::ratio(p.table, &s.baseline, m, &JUDGE) {
                    Some(r) => format!(
                        "{}× the baseline (99% interval {}–{})",
                        units::ratio(r.estimate),
                        units::ratio(r.low),
                        units::ratio(r.high)
                    ),
                    None => "no paired interval".to_string(),
                }
            };
            let _ = writeln!(
                out,
                "<circle class=\"pt {class}\" data-series=\"{}\" cx=\"{}\" cy=\"{}\" r=\"2.5\"><title>{}: {} at {}, {ratio}</title></circle>",
                esc(m),
                n(x(*b)),
                n(y(*ns)),
                esc(m),
                esc(&units::time(*ns)),
                esc(&p.label)
            );
        }
    }
    out.push_str("</svg>\n</figure>\n");
    out
}

fn log(v: f64) -> f64 {
    v.log10()
}

fn min(v: &[f64]) -> f64 {
    v.iter().copied().fold(f64::INFINITY, f64::min)
}

fn max(v: &[f64]) -> f64 {
    v.iter().copied().fold(f64::NEG_INFINITY, f64::max)
}

/// A coordinate with at most two decimals and no trailing zeros.
fn n(v: f64) -> String {
    let v = if v.is_finite() { (v * 100.0).round() / 100.0 } else { 0.0 };
    let s = format!("{v:.2}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

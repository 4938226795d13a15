//! Line charts as plain SVG strings: several series on one pair of axes (an http A/B's two
//! servers), so their curves are read against the same scale. Every series is a
//! `<polyline data-series="NAME">` and every point a `<circle>` carrying its value as a tooltip.

use std::fmt::Write;

use super::escape::esc;
use crate::units;

/// viewBox size; the chart scales to its container.
const W: f64 = 360.0;
const H: f64 = 200.0;
/// Room left of the plot for the y labels, below it for the x labels.
const LEFT: f64 = 64.0;
const BOTTOM: f64 = 22.0;
const TOP: f64 = 10.0;
const RIGHT: f64 = 12.0;

/// One point: x in the chart's x unit, y in ns, and its tooltip.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Point {
    pub x: f64,
    pub y: f64,
    pub tooltip: String,
}

/// One line.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Series {
    /// `base`, `new`: the legend's name and `data-series`.
    pub name: String,
    /// Its CSS class (colour).
    pub class: &'static str,
    pub points: Vec<Point>,
}

/// A line chart of times (y from 0 to the largest point) over an x range.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct LineChart {
    /// `data-chart`.
    pub kind: &'static str,
    pub title: String,
    /// The x axis's range.
    pub x_max: f64,
    /// Labelled x positions.
    pub x_ticks: Vec<(f64, String)>,
    pub series: Vec<Series>,
}

impl LineChart {
    /// The chart as a `<figure>` with its caption, legend and SVG; `None` without a point.
    pub(crate) fn render(&self) -> Option<String> {
        let points = || self.series.iter().flat_map(|s| &s.points);
        let y_max = points().map(|p| p.y).filter(|y| y.is_finite()).fold(0.0_f64, f64::max);
        if points().next().is_none() || y_max <= 0.0 || self.x_max <= 0.0 {
            return None;
        }
        let (plot_w, plot_h) = (W - LEFT - RIGHT, H - TOP - BOTTOM);
        let x = |v: f64| LEFT + (v.clamp(0.0, self.x_max) / self.x_max) * plot_w;
        let y = |v: f64| TOP + plot_h - (v.clamp(0.0, y_max) / y_max) * plot_h;

        let mut out = format!("<figure class=\"chart-box\">\n<figcaption>{}", esc(&self.title));
        out.push_str("<span class=\"legend\">");
        for s in &self.series {
            let _ = write!(out, "<span class=\"key {}\"></span>{}", s.class, esc(&s.name));
        }
        out.push_str("</span></figcaption>\n");
        let _ = writeln!(
            out,
            "<svg class=\"chart line\" data-chart=\"{}\" data-series=\"{}\" viewBox=\"0 0 {} {}\" role=\"img\" aria-label=\"{}\">",
            self.kind,
            self.series.len(),
            n(W),
            n(H),
            esc(&self.title)
        );
        // The y axis: 0, half and the maximum, each with a grid line.
        for v in [0.0, y_max / 2.0, y_max] {
            let _ = writeln!(
                out,
                "<line class=\"grid\" x1=\"{x1}\" x2=\"{x2}\" y1=\"{gy}\" y2=\"{gy}\"/>\n<text class=\"sub\" x=\"{tx}\" y=\"{ty}\" text-anchor=\"end\">{label}</text>",
                x1 = n(LEFT),
                x2 = n(W - RIGHT),
                gy = n(y(v)),
                tx = n(LEFT - 4.0),
                ty = n(y(v) + 4.0),
                label = esc(&units::time(v))
            );
        }
        for (v, label) in &self.x_ticks {
            // Labels at either end stay inside the plot's width.
            let anchor = match x(*v) {
                at if at <= LEFT => "start",
                at if at >= W - RIGHT => "end",
                _ => "middle",
            };
            let _ = writeln!(
                out,
                "<text class=\"sub\" x=\"{}\" y=\"{}\" text-anchor=\"{anchor}\">{}</text>",
                n(x(*v)),
                n(H - 6.0),
                esc(label)
            );
        }
        for s in &self.series {
            let line: Vec<String> = s.points.iter().map(|p| format!("{},{}", n(x(p.x)), n(y(p.y)))).collect();
            let _ = writeln!(
                out,
                "<polyline class=\"line {}\" data-series=\"{}\" points=\"{}\"/>",
                s.class,
                esc(&s.name),
                line.join(" ")
            );
            for p in &s.points {
                let _ = writeln!(
                    out,
                    "<circle class=\"pt {}\" cx=\"{}\" cy=\"{}\" r=\"2.5\"><title>{}</title></circle>",
                    s.class,
                    n(x(p.x)),
                    n(y(p.y)),
                    esc(&p.tooltip)
                );
            }
        }
        out.push_str("</svg>\n</figure>\n");
        Some(out)
    }
}

/// A coordinate with at most two decimals and no trailing zeros.
fn n(v: f64) -> String {
    let v = if v.is_finite() { (v * 100.0).round() / 100.0 } else { 0.0 };
    let s = format!("{v:.2}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_series_share_the_axes() {
        let point = |x: f64, y: f64| Point {
            x,
            y,
            tooltip: format!("{x}: {y}"),
        };
        let chart = LineChart {
            kind: "latency-curve",
            title: "Latency <curve>".into(),
            x_max: 2.0,
            x_ticks: vec![(1.0, "p90".into())],
            series: vec![
                Series {
                    name: "base".into(),
                    class: "base",
                    points: vec![point(0.0, 1000.0), point(2.0, 2000.0)],
                },
                Series {
                    name: "new".into(),
                    class: "new",
                    points: vec![point(0.0, 500.0), point(2.0, 4000.0)],
                },
            ],
        };
        let html = chart.render().unwrap();
        // y runs 0–4000 ns over 168 px from y = 178; x 0–2 over 284 px from x = 64.
        assert!(
            html.contains("<polyline class=\"line base\" data-series=\"base\" points=\"64,136 348,94\"/>"),
            "{html}"
        );
        assert!(
            html.contains("<polyline class=\"line new\" data-series=\"new\" points=\"64,157 348,10\"/>"),
            "{html}"
        );
        assert!(html.contains("<circle class=\"pt new\" cx=\"348\" cy=\"10\" r=\"2.5\"><title>2: 4000</title></circle>"));
        assert!(html.contains("<text class=\"sub\" x=\"206\" y=\"194\" text-anchor=\"middle\">p90</text>"));
        assert!(html.contains("aria-label=\"Latency &lt;curve&gt;\""));
        assert!(html.contains("<span class=\"key base\"></span>base<span class=\"key new\"></span>new"));
        let empty = LineChart { series: vec![], ..chart };
        assert_eq!(empty.render(), None);
    }
}

//! Horizontal bar charts as plain SVG strings: one row per strategy (its name above its bars),
//! so long method names never squeeze the bars and the chart scales down to a phone.
//! Every bar carries `class="bar…"` and every chart `data-bars` with its bar count.

use std::fmt::Write;

use jsoncost_engine::{MeasuredTable, Row};

use super::escape::esc;
use crate::units::TimeColumn;

/// viewBox width; the chart scales to its container.
const W: f64 = 360.0;
const PAD: f64 = 8.0;
const LABEL_H: f64 = 18.0;
const TRACK_H: f64 = 14.0;
const TRACK_GAP: f64 = 4.0;
const ROW_GAP: f64 = 10.0;
/// Room left of the bars for a track's own label (p50, p99, ...).
const SUB_W: f64 = 40.0;
/// Room right of the bars for a track's own value.
const TEXT_W: f64 = 64.0;
/// Longer row labels are cut (the full name is in the tooltip).
const LABEL_CHARS: usize = 28;

/// One segment of a bar: its length in the chart's unit and its CSS class.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Segment {
    pub value: f64,
    pub class: &'static str,
}

/// One bar: a single segment, or several stacked.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Track {
    pub sub_label: Option<String>,
    pub segments: Vec<Segment>,
    /// Half-width of an error bar around the bar's end.
    pub error: Option<f64>,
    pub text: Option<String>,
    pub tooltip: String,
}

impl Track {
    pub(crate) fn single(value: f64, tooltip: String) -> Track {
        Track {
            sub_label: None,
            segments: vec![Segment { value, class: "" }],
            error: None,
            text: None,
            tooltip,
        }
    }

    fn total(&self) -> f64 {
        self.segments.iter().map(|s| s.value.max(0.0)).sum()
    }
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ChartRow {
    pub label: String,
    pub value_text: String,
    pub tracks: Vec<Track>,
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Chart {
    /// `data-chart`: mean, allocated, split, peak, req-per-s, latency.
    pub kind: &'static str,
    pub title: String,
    pub rows: Vec<ChartRow>,
    /// (CSS class, name) of each segment kind, for stacked charts.
    pub legend: Vec<(&'static str, &'static str)>,
    /// A dashed line at this value (the baseline's), with its caption.
    pub reference: Option<(f64, &'static str)>,
}

impl Chart {
    pub(crate) fn bar_count(&self) -> usize {
        self.rows.iter().map(|r| r.tracks.len()).sum()
    }

    /// The chart as a `<figure>` with its caption and SVG.
    pub(crate) fn render(&self) -> String {
        let mut out = format!("<figure class=\"chart-box\">\n<figcaption>{}", esc(&self.title));
        if !self.legend.is_empty() {
            out.push_str("<span class=\"legend\">");
            for (class, name) in &self.legend {
                let _ = write!(out, "<span class=\"key {class}\"></span>{}", esc(name));
            }
            out.push_str("</span>");
        }
        if let Some((_, caption)) = self.reference {
            let _ = write!(out, "<span class=\"legend\"><span class=\"key ref\"></span>{}</span>", esc(caption));
        }
        out.push_str("</figcaption>\n");
        out.push_str(&self.svg());
        out.push_str("</figure>\n");
        out
    }

    fn svg(&self) -> String {
        let tracks = || self.rows.iter().flat_map(|r| &r.tracks);
        let has_sub = tracks().any(|t| t.sub_label.is_some());
        let has_text = tracks().any(|t| t.text.is_some());
        let x0 = PAD + if has_sub { SUB_W } else { 0.0 };
        let span = W - PAD - x0 - if has_text { TEXT_W } else { 0.0 };
        let max = tracks()
            .map(|t| t.total() + t.error.unwrap_or(0.0).max(0.0))
            .chain(self.reference.map(|(v, _)| v))
            .filter(|v| v.is_finite())
            .fold(0.0_f64, f64::max);
        let x = |v: f64| if max > 0.0 { x0 + (v.max(0.0) / max) * span } else { x0 };

        let mut body = String::new();
        // Drawn last, over the bars.
        let mut refs = String::new();
        let mut y = PAD;
        for row in &self.rows {
            let label = cut(&row.label, LABEL_CHARS);
            let _ = writeln!(
                body,
                "<text class=\"label\" x=\"{}\" y=\"{}\">{}</text>",
                n(PAD),
                n(y + 13.0),
                esc(&label)
            );
            let _ = writeln!(
                body,
                "<text class=\"value\" x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>",
                n(W - PAD),
                n(y + 13.0),
                esc(&row.value_text)
            );
            y += LABEL_H;
            for track in &row.tracks {
                let mid = y + TRACK_H / 2.0;
                // The reference crosses each bar, not the text lines between them.
                if let Some((v, _)) = self.reference {
                    let _ = writeln!(
                        refs,
                        "<line class=\"ref\" x1=\"{0}\" x2=\"{0}\" y1=\"{1}\" y2=\"{2}\"/>",
                        n(x(v)),
                        n(y - 2.0),
                        n(y + TRACK_H + 2.0)
                    );
                }
                if let Some(sub) = &track.sub_label {
                    let _ = writeln!(
                        body,
                        "<text class=\"sub\" x=\"{}\" y=\"{}\">{}</text>",
                        n(PAD),
                        n(mid + 4.0),
                        esc(sub)
                    );
                }
                let tooltip = format!("<title>{}</title>", esc(&track.tooltip));
                if let [seg] = track.segments.as_slice() {
                    let class = if seg.class.is_empty() {
                        "bar".to_string()
                    } else {
                        format!("bar {}", seg.class)
                    };
                    let _ = writeln!(
                        body,
                        "<rect class=\"{class}\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\">{tooltip}</rect>",
                        n(x0),
                        n(y),
                        n(x(seg.value) - x0),
                        n(TRACK_H)
                    );
                } else {
                    let _ = writeln!(body, "<g class=\"bar stack\">{tooltip}");
                    let mut start = 0.0;
                    for seg in &track.segments {
                        let end = start + seg.value.max(0.0);
                        let _ = writeln!(
                            body,
                            "<rect class=\"seg {}\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"/>",
                            seg.class,
                            n(x(start)),
                            n(y),
                            n(x(end) - x(start)),
                            n(TRACK_H)
                        );
                        start = end;
                    }
                    body.push_str("</g>\n");
                }
                let end = track.total();
                if let Some(err) = track.error.filter(|e| *e > 0.0) {
                    let (lo, hi) = (x(end - err), x(end + err));
                    let (top, bottom) = (y + 2.0, y + TRACK_H - 2.0);
                    let _ = writeln!(
                        body,
                        "<path class=\"err\" d=\"M{lo} {mid}H{hi}M{lo} {top}V{bottom}M{hi} {top}V{bottom}\"/>",
                        lo = n(lo),
                        hi = n(hi),
                        mid = n(mid),
                        top = n(top),
                        bottom = n(bottom)
                    );
                }
                if let Some(text) = &track.text {
                    let tx = x(end + track.error.unwrap_or(0.0).max(0.0)) + 4.0;
                    let _ = writeln!(
                        body,
                        "<text class=\"value\" x=\"{}\" y=\"{}\">{}</text>",
                        n(tx),
                        n(mid + 4.0),
                        esc(text)
                    );
                }
                y += TRACK_H + TRACK_GAP;
            }
            y += ROW_GAP - TRACK_GAP;
        }
        let height = y + PAD - ROW_GAP;
        let mut out = format!(
            "<svg class=\"chart\" data-chart=\"{}\" data-bars=\"{}\" viewBox=\"0 0 {} {}\" role=\"img\" aria-label=\"{}\">\n",
            self.kind,
            self.bar_count(),
            n(W),
            n(height),
            esc(&self.title)
        );
        out.push_str(&body);
        out.push_str(&refs);
        out.push_str("</svg>\n");
        out
    }
}

/// A coordinate with at most two decimals and no trailing zeros.
/// Each row's mean time per `per` with its Error, the baseline's mean as the reference line.
pub(crate) fn mean_chart(exp: &MeasuredTable, ok: &[&Row], per: &str) -> Option<Chart> {
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

/// One bar per row: `get`'s figure, written by `text`.
pub(crate) fn value_chart(
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

fn n(v: f64) -> String {
    let v = if v.is_finite() { (v * 100.0).round() / 100.0 } else { 0.0 };
    let s = format!("{v:.2}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

fn cut(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        text.to_string()
    } else {
        let mut s: String = text.chars().take(max - 1).collect();
        s.push('…');
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chart(tracks: Vec<Track>) -> Chart {
        Chart {
            kind: "mean",
            title: "Mean <time>".to_string(),
            rows: vec![ChartRow {
                label: "a/b".to_string(),
                value_text: "1 & 2".to_string(),
                tracks,
            }],
            legend: Vec::new(),
            reference: None,
        }
    }

    #[test]
    fn a_single_bar_spans_the_width_at_the_maximum() {
        let svg = chart(vec![Track::single(10.0, "ten".to_string())]).svg();
        assert_eq!(
            svg,
            "<svg class=\"chart\" data-chart=\"mean\" data-bars=\"1\" viewBox=\"0 0 360 48\" role=\"img\" aria-label=\"Mean &lt;time&gt;\">\n\
             <text class=\"label\" x=\"8\" y=\"21\">a/b</text>\n\
             <text class=\"value\" x=\"352\" y=\"21\" text-anchor=\"end\">1 &amp; 2</text>\n\
             <rect class=\"bar\" x=\"8\" y=\"26\" width=\"344\" height=\"14\"><title>ten</title></rect>\n\
             </svg>\n"
        );
    }

    #[test]
    fn stacked_bars_are_one_bar_of_segments_and_errors_widen_the_scale() {
        let stacked = Track {
            sub_label: None,
            segments: vec![
                Segment {
                    value: 3.0,
                    class: "floor",
                },
                Segment { value: 1.0, class: "json" },
            ],
            error: Some(1.0),
            text: None,
            tooltip: "t".to_string(),
        };
        let c = chart(vec![stacked]);
        assert_eq!(c.bar_count(), 1);
        let svg = c.svg();
        // Scale max is 4 + 1: the floor segment is 3/5 of 344 wide.
        assert!(
            svg.contains("<rect class=\"seg floor\" x=\"8\" y=\"26\" width=\"206.4\" height=\"14\"/>"),
            "{svg}"
        );
        assert!(
            svg.contains("<rect class=\"seg json\" x=\"214.4\" y=\"26\" width=\"68.8\" height=\"14\"/>"),
            "{svg}"
        );
        assert!(
            svg.contains("<path class=\"err\" d=\"M214.4 33H352M214.4 28V38M352 28V38\"/>"),
            "{svg}"
        );
        assert_eq!(svg.matches("class=\"bar").count(), 1);
    }

    #[test]
    fn zero_and_negative_values_draw_empty_bars_not_invalid_ones() {
        let svg = chart(vec![Track::single(0.0, String::new()), Track::single(-5.0, String::new())]).svg();
        assert_eq!(svg.matches("width=\"0\"").count(), 2, "{svg}");
        assert!(!svg.contains("width=\"-"));
    }

    #[test]
    fn coordinates_are_short() {
        assert_eq!(n(12.0), "12");
        assert_eq!(n(12.345), "12.35");
        assert_eq!(n(12.5), "12.5");
        assert_eq!(n(f64::NAN), "0");
        assert_eq!(cut("abcdef", 4), "abc…");
    }
}

//! The report's opening: the headline verdict, one chart of where each headline table's time
//! goes (the baseline and every step of its ladder, as a share of the baseline; the floor and
//! the JSON work apart where the table has a floor), then every table's verdict as a ladder.

use std::fmt::Write;

use jsoncost_engine::{FLOOR, MeasuredTable, Results, Row};

use super::charts::{Chart, ChartRow, Segment, Track};
use super::escape::esc;
use crate::advice::{Advice, AdviceKind};
use crate::answer;

/// The verdict section: `advice` is the run's, `ids` the table sections' anchors.
pub(super) fn section(results: &Results, advice: &[Advice], ids: &[String]) -> String {
    let mut out = format!(
        "<section id=\"verdict\">\n<h2>{}</h2>\n<p class=\"params\">{} {}</p>\n",
        esc(answer::HEADLINE),
        esc(&answer::legend()),
        esc(answer::RULE)
    );
    let headline = answer::headline_tables(advice);
    for a in &headline {
        let sweep_id;
        let id = if a.kind == AdviceKind::SizeSweep {
            sweep_id = super::sweep::id_of(a.experiment, &a.table);
            Some(sweep_id.as_str())
        } else {
            table_id(results, a, ids)
        };
        out.push_str(&ladder(a, id, where_the_time_goes(results, a)));
    }
    let rest = advice.len().saturating_sub(headline.len());
    if rest > 0 {
        let _ = writeln!(
            out,
            "<p class=\"params\">{rest} more verdicts (every table's, in full) are in <a href=\"#advice\">{}</a>, after the tables.</p>",
            esc(crate::advice::TITLE)
        );
    }
    out.push_str("</section>\n");
    out
}

/// The anchor of `a`'s table section.
fn table_id<'i>(results: &Results, a: &Advice, ids: &'i [String]) -> Option<&'i str> {
    results
        .experiments
        .iter()
        .position(|e| e.kind == a.experiment && e.table == a.table)
        .and_then(|i| ids.get(i))
        .map(String::as_str)
}

/// One table's verdict: its title (a link to its table), then a row per rung beside the chart
/// of where its time goes.
fn ladder(a: &Advice, id: Option<&str>, chart: Option<Chart>) -> String {
    let title = esc(&answer::title(a));
    let heading = match id {
        Some(id) => format!("<a href=\"#{}\">{title}</a>", esc(id)),
        None => title,
    };
    let class = advice_class(a.kind);
    let mut out =
        format!("<div class=\"verdict {class}\">\n<h3>{heading}</h3>\n<div class=\"verdict-body\">\n<table class=\"ladder\"><tbody>\n");
    for line in answer::lines(a, false) {
        let _ = writeln!(out, "<tr><th>{}</th><td>{}</td></tr>", esc(&line.label), esc(&line.text));
    }
    out.push_str("</tbody></table>\n");
    if let Some(chart) = chart {
        out.push_str(&chart.render());
    }
    out.push_str("</div>\n</div>\n");
    out
}

/// Time per operation of a headline table's baseline and ladder steps, as a share of the
/// baseline's, with the floor's part apart where the table has one.
fn where_the_time_goes(results: &Results, a: &Advice) -> Option<Chart> {
    let exp = results.experiments.iter().find(|e| e.kind == a.experiment && e.table == a.table)?;
    // A chart of the baseline alone says nothing the line under it does not.
    if a.ladder.iter().all(|s| s.method.is_none()) {
        return None;
    }
    let base = row(exp, &a.baseline).filter(|r| r.mean_ns.is_some_and(|m| m > 0.0))?;
    let floor = if exp.kind.traits().floor {
        row(exp, FLOOR).and_then(|r| r.mean_ns)
    } else {
        None
    };
    let base_ns = base.mean_ns?;
    let steps = a
        .ladder
        .iter()
        .filter_map(|s| Some((s.effort.as_str(), row(exp, s.method.as_deref()?)?)));
    let mut rows = Vec::new();
    for (rung, r) in std::iter::once(("baseline", base)).chain(steps) {
        let Some(mean) = r.mean_ns else { continue };
        let share = mean / base_ns * 100.0;
        let segments = match floor {
            Some(f) => {
                let f = (f / base_ns * 100.0).min(share);
                vec![
                    Segment { value: f, class: "floor" },
                    Segment {
                        value: share - f,
                        class: "json",
                    },
                ]
            }
            None => vec![Segment { value: share, class: "" }],
        };
        let text = format!("{share:.0}%");
        rows.push(ChartRow {
            label: format!("{rung}: {}", r.method),
            value_text: text.clone(),
            tracks: vec![Track {
                sub_label: None,
                segments,
                error: None,
                text: None,
                tooltip: format!("{rung} {}: {text} of the baseline's time", r.method),
            }],
        });
    }
    let legend = if floor.is_some() {
        vec![("floor", "floor: the read, no JSON"), ("json", "JSON work")]
    } else {
        Vec::new()
    };
    Some(Chart {
        kind: "verdict",
        title: "Time, % of the baseline".to_string(),
        rows,
        legend,
        reference: Some((100.0, "baseline")),
    })
}

/// The CSS class of an advice of `kind`, in the verdict and the full advice alike.
pub(super) fn advice_class(kind: AdviceKind) -> &'static str {
    match kind {
        AdviceKind::Recommend => "recommend",
        AdviceKind::KeepBaseline => "keep",
        AdviceKind::NoMeasurableDifference => "same",
        AdviceKind::NotComparable => "none",
        AdviceKind::AllocatorChange => "allocator",
        AdviceKind::SizeSweep => "sizes",
    }
}

fn row<'e>(exp: &'e MeasuredTable, method: &str) -> Option<&'e Row> {
    exp.rows.iter().find(|r| r.method == method)
}

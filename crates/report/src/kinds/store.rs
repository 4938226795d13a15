//! store: the micro columns plus `JSON µs` and `JSON share` ((mean − floor) / mean) against the
//! table's `floor` row (raw bytes read and discarded). On an interleaved table they come from
//! the row's per-round difference to the floor (`Row::above_floor_ns`): a difference whose 99%
//! interval reaches 0 reads "noise", never a negative share. A sequential table (or an older
//! file) gives mean − floor mean. Charts: the micro ones per read, and each read split into
//! the floor and the JSON work; a recommendation adds the JSON work above the floor.

use jsoncost_engine::{FLOOR, MeasuredTable, Row, Summary};

use super::kind_view::KindView;
use super::micro;
use crate::columns::{self, Cell, Spec};
use crate::html::charts::{Chart, ChartRow, Segment, Track, mean_chart, value_chart};
use crate::units::{self, ABSENT, TimeColumn};
use crate::view::View;

/// `jsoncost store`'s tables.
pub(super) struct Store;

impl KindView for Store {
    fn table(&self, exp: &MeasuredTable) -> View {
        columns::table_view(exp, columns(exp))
    }

    fn operation(&self) -> (&'static str, &'static str) {
        ("read", "reads")
    }

    fn charts(&self, exp: &MeasuredTable, ok: &[&Row]) -> Vec<Option<Chart>> {
        vec![
            mean_chart(exp, ok, "read"),
            value_chart("allocated", "Allocated per read", ok, |r| r.allocated_bytes, units::bytes),
            split_chart(exp, ok),
        ]
    }

    fn recommendation_note(&self, exp: &MeasuredTable, _base: &Row, best: &Row) -> String {
        floor_text(exp, best)
    }
}

/// Shown where a row's time above the floor cannot be told from the noise.
const NOISE: &str = "noise";

/// Mean of the table's ok `floor` row.
fn floor_mean_ns(exp: &MeasuredTable) -> Option<f64> {
    exp.rows.iter().find(|r| r.method == FLOOR && r.is_ok()).and_then(|r| r.mean_ns)
}

/// Time above the floor, ns.
fn json_ns(row: &Row, floor: Option<f64>) -> Option<f64> {
    Some(row.mean_ns? - floor?)
}

/// A row's time above the floor: paired (`None` inside when within the noise) or unpaired.
fn above(row: &Row, floor: Option<f64>) -> Option<Option<f64>> {
    match row.above_floor_ns {
        Some(i) if i.low <= 0.0 => Some(None),
        Some(i) => Some(Some(i.estimate)),
        None => json_ns(row, floor).map(Some),
    }
}

fn columns<'a>(exp: &MeasuredTable) -> Vec<Spec<'a>> {
    let floor = floor_mean_ns(exp);
    let floor_rounds: Vec<f64> = exp
        .rows
        .iter()
        .find(|r| r.method == FLOOR && r.is_ok())
        .map(|r| r.rounds_ns.clone())
        .unwrap_or_default();
    let mut specs = micro::columns();
    specs.push(Spec::new(
        "JSON µs",
        Cell::Label(Box::new(move |r| match above(r, floor) {
            Some(Some(ns)) => units::fixed(ns / 1e3, 2),
            Some(None) => NOISE.to_string(),
            None => ABSENT.to_string(),
        })),
    ));
    specs.push(Spec::new(
        "JSON share",
        Cell::Label(Box::new(move |r| match (above(r, floor), r.mean_ns.filter(|m| *m > 0.0)) {
            // Paired: the difference over the row's time in the same rounds.
            (Some(Some(_)), _) if r.above_floor_ns.is_some() => {
                units::opt(jsoncost_engine::paired::share_above(&floor_rounds, &r.rounds_ns), units::percent)
            }
            (Some(Some(ns)), Some(mean)) => units::percent(ns / mean),
            (Some(None), _) => NOISE.to_string(),
            _ => ABSENT.to_string(),
        })),
    ));
    specs
}

/// Each read split into the floor (bytes read and discarded) and the JSON work above it.
fn split_chart(exp: &MeasuredTable, ok: &[&Row]) -> Option<Chart> {
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

/// The store table's JSON work above the floor, from its summary (computed with the table).
fn floor_text(exp: &MeasuredTable, best: &Row) -> String {
    let Some(s) = exp.summary.as_ref().and_then(Summary::store) else {
        return String::new();
    };
    // The best row's own time above the floor: paired per round when the table was interleaved.
    let best_above = match best.above_floor_ns {
        Some(i) if i.low <= 0.0 => "within the noise".to_string(),
        Some(i) => units::time(i.estimate),
        None => units::time((best.mean_ns.unwrap_or(f64::INFINITY) - s.floor_ns).max(0.0)),
    };
    if s.within_noise() {
        return format!(
            " JSON work above the floor: within the noise of the {} read with {} (the per-round difference's 99% interval reaches 0), {} with {}.",
            units::time(s.read_ns),
            s.baseline,
            best_above,
            best.method
        );
    }
    format!(
        " JSON work above the floor: {} of {} ({}) with {}, {} with {}.",
        units::time(s.json_ns),
        units::time(s.read_ns),
        units::percent(s.json_share),
        s.baseline,
        best_above,
        best.method
    )
}

//! stream: one row is one whole run over the body, so there are no per-operation columns.
//! Method | Mean | Error | Median | Ratio | MB/s | Allocated | Allocs | Peak heap | RSS growth | Peak RSS;
//! charts of the mean, the allocation and the peak heap per run; the advice names a body.

use jsoncost_engine::{Contract, MeasuredTable, Row};

use super::kind_view::KindView;
use crate::columns::{self, Cell, Spec, get};
use crate::html::charts::{Chart, mean_chart, value_chart};
use crate::units;
use crate::view::View;

/// `jsoncost stream`'s tables.
pub(super) struct Stream;

impl KindView for Stream {
    fn table(&self, exp: &MeasuredTable) -> View {
        columns::table_view(exp, columns())
    }

    fn operation(&self) -> (&'static str, &'static str) {
        ("body", "bodies")
    }

    fn charts(&self, exp: &MeasuredTable, ok: &[&Row]) -> Vec<Option<Chart>> {
        vec![
            mean_chart(exp, ok, "run"),
            value_chart("allocated", "Allocated per run", ok, |r| r.allocated_bytes, units::bytes),
            value_chart("peak", "Peak heap per run", ok, |r| r.peak_bytes.map(|b| b as f64), units::bytes),
        ]
    }

    fn recommendation_note(&self, _exp: &MeasuredTable, base: &Row, best: &Row) -> String {
        match (base.peak_bytes, best.peak_bytes) {
            (Some(b), Some(c)) => {
                format!(
                    " Peak heap: {} with {}, {} with {}.",
                    units::bytes(b as f64),
                    base.method,
                    units::bytes(c as f64),
                    best.method
                )
            }
            _ => String::new(),
        }
    }

    /// The table's buffered typed row (`buffered-typed/<lib>`, the element type's whole document
    /// decoded at once, delivering typed values): the baseline the `incremental-typed/*` rows of
    /// the same type are weighed against, as the DOM rows are against `buffered/serde_json`.
    fn second_baseline<'e>(&self, exp: &'e MeasuredTable) -> Option<&'e Row> {
        let typed = |r: &&Row| r.is_ok() && r.mean_ns.is_some() && r.contract == Some(Contract::TypedValue);
        // serde_json's, as the table's own baseline is, when there is one. Only a `buffered-typed/*`
        // row: a table whose own baseline already delivers typed values (the telemetry table's
        // `buffered/serde_json`) is advised once, against it.
        let buffered: Vec<&Row> = exp
            .rows
            .iter()
            .filter(typed)
            .filter(|r| r.strategy.style() == "buffered-typed")
            .collect();
        buffered
            .iter()
            .find(|r| r.strategy.library() == Some("serde_json"))
            .or(buffered.first())
            .copied()
    }
}

pub(super) fn columns<'a>() -> Vec<Spec<'a>> {
    vec![
        Spec::new("Method", Cell::Method),
        Spec::new("Mean", Cell::Time(get(|r| r.mean_ns))),
        Spec::new("Error", Cell::Time(get(|r| r.error_ns))),
        Spec::new("Median", Cell::Time(get(|r| r.median_ns))),
        Spec::new("Ratio", Cell::Ratio(get(|r| r.ratio))),
        Spec::new("MB/s", Cell::Fixed(1, get(|r| r.mb_per_s))),
        Spec::new("Allocated", Cell::Bytes(get(|r| r.allocated_bytes))),
        Spec::new("Allocs", Cell::Count(get(|r| r.allocs))),
        Spec::new("Peak heap", Cell::Bytes(get(|r| r.peak_bytes.map(|b| b as f64)))),
        // Above the RSS the row's run started at, the heap trimmed first: the row's own.
        Spec::new("RSS growth", Cell::Bytes(get(|r| r.rss.map(|m| m.growth_bytes as f64)))),
        Spec::new("Peak RSS", Cell::Bytes(get(|r| r.rss.map(|m| m.peak_bytes as f64)))),
    ]
}

//! micro: Method | Mean | Error | StdDev | Median | Ratio | RatioSD | Allocated | Allocs/op | Alloc Ratio | MB/s;
//! charts of the mean and the allocation per operation.

use jsoncost_engine::{MeasuredTable, Row};

use super::kind_view::KindView;
use crate::columns::{self, Cell, Spec, get};
use crate::html::charts::{Chart, mean_chart, value_chart};
use crate::units;
use crate::view::View;

/// `jsoncost micro`'s tables.
pub(super) struct Micro;

impl KindView for Micro {
    fn table(&self, exp: &MeasuredTable) -> View {
        columns::table_view(exp, columns())
    }

    fn operation(&self) -> (&'static str, &'static str) {
        ("operation", "operations")
    }

    fn charts(&self, exp: &MeasuredTable, ok: &[&Row]) -> Vec<Option<Chart>> {
        vec![
            mean_chart(exp, ok, "operation"),
            value_chart("allocated", "Allocated per operation", ok, |r| r.allocated_bytes, units::bytes),
        ]
    }
}

pub(super) fn columns<'a>() -> Vec<Spec<'a>> {
    vec![
        Spec::new("Method", Cell::Method),
        Spec::new("Mean", Cell::Time(get(|r| r.mean_ns))),
        Spec::new("Error", Cell::Time(get(|r| r.error_ns))),
        Spec::new("StdDev", Cell::Time(get(|r| r.stddev_ns))),
        Spec::new("Median", Cell::Time(get(|r| r.median_ns))),
        Spec::new("Ratio", Cell::Ratio(get(|r| r.ratio))),
        Spec::new("RatioSD", Cell::Ratio(get(|r| r.ratio_sd))),
        Spec::new("Allocated", Cell::Bytes(get(|r| r.allocated_bytes))),
        Spec::new("Allocs/op", Cell::Count(get(|r| r.allocs))),
        Spec::new("Alloc Ratio", Cell::Ratio(get(|r| r.alloc_ratio))),
        Spec::new("MB/s", Cell::Fixed(1, get(|r| r.mb_per_s))),
    ]
}

//! store: the micro columns plus `JSON µs` (mean − floor mean) and `JSON share`
//! ((mean − floor) / mean), from the table's `floor` row (raw bytes read and discarded).

use jsoncost_engine::{Experiment, Row};

use super::{Cell, Spec, micro};

/// The method name of the store experiment's no-JSON reference row.
pub(crate) const FLOOR: &str = "floor";

/// Mean of the table's ok `floor` row.
pub(crate) fn floor_mean_ns(exp: &Experiment) -> Option<f64> {
    exp.rows.iter().find(|r| r.method == FLOOR && r.is_ok()).and_then(|r| r.mean_ns)
}

/// Time above the floor, ns.
fn json_ns(row: &Row, floor: Option<f64>) -> Option<f64> {
    Some(row.mean_ns? - floor?)
}

pub(super) fn columns<'a>(exp: &Experiment) -> Vec<Spec<'a>> {
    let floor = floor_mean_ns(exp);
    let mut specs = micro::columns();
    specs.push(Spec::new(
        "JSON µs",
        Cell::Fixed(2, Box::new(move |r| json_ns(r, floor).map(|ns| ns / 1e3))),
    ));
    specs.push(Spec::new(
        "JSON share",
        Cell::Percent(Box::new(move |r| {
            let mean = r.mean_ns.filter(|m| *m > 0.0)?;
            Some(json_ns(r, floor)? / mean)
        })),
    ));
    specs
}

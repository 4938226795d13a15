//! store: the micro columns plus `JSON µs` and `JSON share` ((mean − floor) / mean) against the
//! table's `floor` row (raw bytes read and discarded). On an interleaved table they come from
//! the row's per-round difference to the floor (`Row::above_floor_ns`): a difference whose 99%
//! interval reaches 0 reads "noise", never a negative share. A sequential table (or an older
//! file) gives mean − floor mean.

use jsoncost_engine::{Experiment, FLOOR, Row};

use super::{Cell, Spec, micro};
use crate::units::{self, ABSENT};

/// Shown where a row's time above the floor cannot be told from the noise.
pub(crate) const NOISE: &str = "noise";

/// Mean of the table's ok `floor` row.
pub(crate) fn floor_mean_ns(exp: &Experiment) -> Option<f64> {
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

pub(super) fn columns<'a>(exp: &Experiment) -> Vec<Spec<'a>> {
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

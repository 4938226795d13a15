//! JSON output: the results model itself, pretty printed.

use jsoncost_engine::{AllocatorComparison, MeasuredTable, Results};
use serde::Serialize;

use crate::ab::AbComparison;
use crate::advice::Advice;
use crate::compare::Comparison;
use crate::export::Exporter;

/// JSON: the model itself (results.json's, the advice's, a comparison's), printed once at the
/// end of a run.
pub(crate) struct Json;

impl Exporter for Json {
    fn name(&self) -> &'static str {
        "json"
    }

    fn prints_each_table(&self) -> bool {
        false
    }

    fn results(&self, results: &Results, _color: bool) -> String {
        pretty(results)
    }

    fn experiment(&self, exp: &MeasuredTable, _note: Option<&str>, _color: bool) -> String {
        pretty(exp)
    }

    fn advice(&self, advice: &[Advice]) -> String {
        pretty(&advice)
    }

    fn allocator_tables(&self, comparisons: &[AllocatorComparison]) -> String {
        pretty(&comparisons)
    }

    fn allocator_run(&self, results: &Results) -> String {
        pretty(results)
    }

    fn comparison(&self, comparison: &Comparison) -> String {
        pretty(comparison)
    }

    fn ab(&self, comparison: &AbComparison) -> String {
        pretty(comparison)
    }

    /// One object: `results` (the results file, as `--out` writes it) and `comparison` (what
    /// `ab --format json` prints).
    fn ab_http(&self, results: &Results, comparison: &AbComparison, _color: bool) -> String {
        pretty(&AbHttpDocument { results, comparison })
    }
}

/// `ab --http`'s one JSON document.
#[derive(Serialize)]
struct AbHttpDocument<'a> {
    results: &'a Results,
    comparison: &'a AbComparison,
}

/// Pretty JSON with a final newline.
pub(crate) fn pretty<T: Serialize>(value: &T) -> String {
    // The model has only string map keys and serde_json writes non-finite floats as null, so
    // serialisation cannot fail.
    let mut out = serde_json::to_string_pretty(value).expect("the result model always serialises");
    out.push('\n');
    out
}

//! github-action-benchmark's custom format, `customSmallerIsBetter`
//! (github.com/benchmark-action/github-action-benchmark): an array of `{name, unit, value,
//! range?, extra?}`, one entry per row and figure, named
//! `<experiment> <table> <method> - <figure>`, so each figure is a chart of its own: time (ns
//! per operation, the range its Error), instructions per operation (`--measure counts`),
//! estimated cycles, allocated bytes.

use jsoncost_engine::{AllocatorComparison, MeasuredTable, Results};
use serde::Serialize;

use crate::ab::AbComparison;
use crate::advice::Advice;
use crate::compare::Comparison;
use crate::export::Exporter;
use crate::format::bmf::{benchmark_name, history_rows};
use crate::format::json::pretty;

/// One entry of the array.
#[derive(Serialize)]
struct Entry {
    name: String,
    unit: &'static str,
    value: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    range: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    extra: Option<String>,
}

/// The custom JSON array, printed once at the end of a run.
pub(crate) struct GithubActionBenchmark;

impl Exporter for GithubActionBenchmark {
    fn name(&self) -> &'static str {
        "github-action-benchmark"
    }

    fn prints_each_table(&self) -> bool {
        false
    }

    fn results(&self, results: &Results, _color: bool) -> String {
        pretty(&entries(&results.experiments))
    }

    fn experiment(&self, exp: &MeasuredTable, _note: Option<&str>, _color: bool) -> String {
        pretty(&entries(std::slice::from_ref(exp)))
    }

    /// Advice is no metric: an empty array.
    fn advice(&self, _advice: &[Advice]) -> String {
        pretty(&Vec::<Entry>::new())
    }

    /// Allocator tables are no metric of one build: an empty array.
    fn allocator_tables(&self, _comparisons: &[AllocatorComparison]) -> String {
        pretty(&Vec::<Entry>::new())
    }

    fn allocator_run(&self, results: &Results) -> String {
        self.results(results, false)
    }

    /// The new file's times of every row compared.
    fn comparison(&self, comparison: &Comparison) -> String {
        let entries: Vec<Entry> = comparison
            .rows
            .iter()
            .map(|r| Entry {
                name: format!("{} {} {} - time", r.experiment, r.table, r.method),
                unit: "ns",
                value: r.new_mean_ns,
                range: None,
                extra: None,
            })
            .collect();
        pretty(&entries)
    }

    /// `ab` pairs two builds: no one build's metrics. Its verdicts as JSON (`--format json`).
    fn ab(&self, comparison: &AbComparison) -> String {
        pretty(comparison)
    }
}

fn entries(experiments: &[MeasuredTable]) -> Vec<Entry> {
    let mut out = Vec::new();
    for (exp, row) in history_rows(experiments) {
        let name = benchmark_name(exp, row);
        let mut push = |figure: &str, unit: &'static str, value: Option<f64>, range: Option<String>, extra: Option<String>| {
            if let Some(value) = value {
                out.push(Entry {
                    name: format!("{name} - {figure}"),
                    unit,
                    value,
                    range,
                    extra,
                });
            }
        };
        let iterations = match (row.iterations, row.ops_per_iteration) {
            (Some(i), Some(o)) => Some(format!("{i} iterations of {o} operations")),
            _ => None,
        };
        push("time", "ns", row.mean_ns, row.error_ns.map(|e| format!("± {e}")), iterations);
        if let Some(c) = &row.counts {
            let counted = Some(format!("{} operations under Callgrind, {}", c.ops, c.target_cpu));
            push("instructions", "instructions/op", Some(c.instructions), None, counted);
            push("estimated cycles", "cycles/op", c.estimated_cycles, None, None);
        }
        push("allocated", "bytes/op", row.allocated_bytes, None, None);
    }
    out
}

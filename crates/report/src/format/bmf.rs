//! Bencher Metric Format (BMF, bencher.dev/docs/reference/bencher-metric-format): one object
//! per benchmark (`<experiment> <table> <method>`), one per measure in it, for `bencher run
//! --adapter json`. Measures by slug: `latency` (Bencher's own, ns: the mean with its Error as
//! bounds), and, created by Bencher on first sight, `instructions`, `l1-misses`, `ll-misses`,
//! `estimated-cycles` (per operation, `--measure counts`), `allocated-bytes` and
//! `allocations` (per operation).

use jsoncost_engine::{AllocatorComparison, MeasuredTable, Results, Row};
use serde_json::{Map, Value, json};

use crate::ab::AbComparison;
use crate::advice::Advice;
use crate::compare::Comparison;
use crate::export::Exporter;
use crate::format::json::pretty;

/// BMF JSON, printed once at the end of a run.
pub(crate) struct Bmf;

impl Exporter for Bmf {
    fn name(&self) -> &'static str {
        "bmf"
    }

    fn prints_each_table(&self) -> bool {
        false
    }

    fn results(&self, results: &Results, _color: bool) -> String {
        pretty(&document(&results.experiments))
    }

    fn experiment(&self, exp: &MeasuredTable, _note: Option<&str>, _color: bool) -> String {
        pretty(&document(std::slice::from_ref(exp)))
    }

    /// Advice is no metric: an empty document.
    fn advice(&self, _advice: &[Advice]) -> String {
        pretty(&Map::new())
    }

    /// Allocator tables are no metric of one build: an empty document.
    fn allocator_tables(&self, _comparisons: &[AllocatorComparison]) -> String {
        pretty(&Map::new())
    }

    fn allocator_run(&self, results: &Results) -> String {
        self.results(results, false)
    }

    /// The new file's figures of every row compared (history keeps one build at a time).
    fn comparison(&self, comparison: &Comparison) -> String {
        let mut out = Map::new();
        for r in &comparison.rows {
            let mut measures = Map::new();
            measures.insert("latency".into(), json!({ "value": r.new_mean_ns }));
            if let Some(c) = r.instructions {
                measures.insert("instructions".into(), json!({ "value": c.new }));
            }
            if let Some(b) = r.new_allocated_bytes {
                measures.insert("allocated-bytes".into(), json!({ "value": b }));
            }
            if let Some(a) = r.new_allocs {
                measures.insert("allocations".into(), json!({ "value": a }));
            }
            out.insert(format!("{} {} {}", r.experiment, r.table, r.method), Value::Object(measures));
        }
        pretty(&out)
    }

    /// `ab` pairs two builds: no one build's metrics. Its verdicts as JSON (`--format json`).
    fn ab(&self, comparison: &AbComparison) -> String {
        pretty(comparison)
    }
}

/// The rows a history keeps: measured (ok) rows of compared kinds (not safety's findings).
pub(crate) fn history_rows(experiments: &[MeasuredTable]) -> impl Iterator<Item = (&MeasuredTable, &Row)> {
    experiments
        .iter()
        .filter(|e| e.kind.traits().compared)
        .flat_map(|e| e.rows.iter().filter(|r| r.is_ok()).map(move |r| (e, r)))
}

/// A row's benchmark name: unique in a results file (`compare` matches rows by the same).
pub(crate) fn benchmark_name(exp: &MeasuredTable, row: &Row) -> String {
    format!("{} {} {}", exp.kind, exp.table, row.method)
}

fn document(experiments: &[MeasuredTable]) -> Map<String, Value> {
    let mut out = Map::new();
    for (exp, row) in history_rows(experiments) {
        let mut measures = Map::new();
        if let Some(mean) = row.mean_ns {
            let mut latency = Map::new();
            latency.insert("value".into(), json!(mean));
            if let Some(e) = row.error_ns {
                latency.insert("lower_value".into(), json!((mean - e).max(0.0)));
                latency.insert("upper_value".into(), json!(mean + e));
            }
            measures.insert("latency".into(), Value::Object(latency));
        }
        if let Some(c) = &row.counts {
            measures.insert("instructions".into(), json!({ "value": c.instructions }));
            let cache = [
                ("l1-misses", c.l1_misses),
                ("ll-misses", c.ll_misses),
                ("estimated-cycles", c.estimated_cycles),
            ];
            for (slug, v) in cache {
                if let Some(v) = v {
                    measures.insert(slug.into(), json!({ "value": v }));
                }
            }
        }
        if let Some(b) = row.allocated_bytes {
            measures.insert("allocated-bytes".into(), json!({ "value": b }));
        }
        if let Some(a) = row.allocs {
            measures.insert("allocations".into(), json!({ "value": a }));
        }
        if !measures.is_empty() {
            out.insert(benchmark_name(exp, row), Value::Object(measures));
        }
    }
    out
}

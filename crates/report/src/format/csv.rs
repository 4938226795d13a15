//! CSV: one line per result row, raw numbers (ns, bytes, counts) for spreadsheets and scripts.

use jsoncost_engine::{AllocatorComparison, MeasuredTable, Results, Row, Status};
use serde_json::Value;

use crate::ab::AbComparison;
use crate::advice::{ALTERNATIVE_KEY, Advice};
use crate::compare::{Comparison, Reason};
use crate::export::Exporter;
use crate::row_figures::{error_total, http_figure};

/// CSV: the rows only, printed once at the end of a run.
pub(crate) struct Csv;

impl Exporter for Csv {
    fn name(&self) -> &'static str {
        "csv"
    }

    fn prints_each_table(&self) -> bool {
        false
    }

    fn results(&self, results: &Results, _color: bool) -> String {
        render(&results.experiments)
    }

    fn experiment(&self, exp: &MeasuredTable, _note: Option<&str>, _color: bool) -> String {
        render(std::slice::from_ref(exp))
    }

    /// One record per advice, and one per "if you only need ..." option (kind
    /// [`ALTERNATIVE_KEY`]).
    fn advice(&self, advice: &[Advice]) -> String {
        let mut records = vec![["experiment", "table", "kind", "baseline", "candidate", "text"].map(String::from)];
        for a in advice {
            records.push([
                a.experiment.to_string(),
                a.table.clone(),
                a.kind.key().to_string(),
                a.baseline.clone(),
                a.candidate.clone().unwrap_or_default(),
                a.text.clone(),
            ]);
            // The ladder, a record per rung: `step_<rung>`, the step taken (empty for none) and
            // its line, weighed against the step below (the baseline column).
            for step in &a.ladder {
                records.push([
                    a.experiment.to_string(),
                    a.table.clone(),
                    format!("step_{}", step.effort),
                    step.over.clone(),
                    step.method.clone().unwrap_or_default(),
                    step.text.clone(),
                ]);
            }
            for alt in &a.alternatives {
                records.push([
                    a.experiment.to_string(),
                    a.table.clone(),
                    ALTERNATIVE_KEY.to_string(),
                    a.baseline.clone(),
                    alt.method.clone(),
                    alt.text.clone(),
                ]);
            }
        }
        write(records)
    }

    fn allocator_tables(&self, comparisons: &[AllocatorComparison]) -> String {
        allocator_rows(comparisons)
    }

    fn allocator_run(&self, results: &Results) -> String {
        allocator_rows(&results.allocators)
    }

    fn comparison(&self, comparison: &Comparison) -> String {
        comparison_rows(comparison)
    }

    fn ab(&self, comparison: &AbComparison) -> String {
        ab_rows(comparison)
    }

    /// The verdict table alone, as `ab --format csv` prints it: one header, one table. The
    /// per-server rows have other columns; they are in the results file (`--out`, and
    /// `jsoncost report FILE --format csv`).
    fn ab_http(&self, _results: &Results, comparison: &AbComparison, _color: bool) -> String {
        ab_rows(comparison)
    }
}

/// Records as CSV text.
fn write<R: IntoIterator<Item = S>, S: AsRef<[u8]>>(records: impl IntoIterator<Item = R>) -> String {
    let mut writer = csv::Writer::from_writer(Vec::new());
    for record in records {
        // Writing to a Vec cannot fail, and every record has its header's length.
        writer.write_record(record).expect("CSV into memory");
    }
    let bytes = writer.into_inner().expect("CSV into memory");
    // Every field came from a String, so the output is UTF-8.
    String::from_utf8(bytes).expect("CSV of strings is UTF-8")
}

/// A field of an optional number: empty when absent.
fn num(v: Option<f64>) -> String {
    v.map(|x| x.to_string()).unwrap_or_default()
}

const HEADER: [&str; 45] = [
    "experiment",
    "table",
    "params",
    "method",
    "baseline",
    "status",
    "error_message",
    "mean_ns",
    "error_ns",
    "stddev_ns",
    "median_ns",
    "p95_ns",
    "min_ns",
    "max_ns",
    "iterations",
    "ops_per_iteration",
    "outliers_removed",
    "ratio",
    "ratio_sd",
    "allocated_bytes",
    "allocs",
    "alloc_ratio",
    "peak_bytes",
    "mb_per_s",
    "peak_rss_bytes",
    "rss_growth_bytes",
    "req_per_s",
    "p50_ns",
    "p90_ns",
    "p99_ns",
    "p999_ns",
    "latency_max_ns",
    "errors",
    "bytes_per_response",
    "server_cpu_ns_per_req",
    "requests",
    "fidelity",
    "safety_path",
    "safety_case",
    "safety_outcome",
    "safety_agreement",
    "instructions_per_op",
    "l1_misses_per_op",
    "ll_misses_per_op",
    "estimated_cycles_per_op",
];

fn render(experiments: &[MeasuredTable]) -> String {
    let mut records = vec![HEADER.iter().map(|s| s.to_string()).collect::<Vec<_>>()];
    for exp in experiments {
        let params = Value::Object(exp.params.clone()).to_string();
        records.extend(exp.rows.iter().map(|row| record(exp, &params, row)));
    }
    write(records)
}

fn record(exp: &MeasuredTable, params: &str, row: &Row) -> Vec<String> {
    let int = |v: Option<u64>| v.map(|x| x.to_string()).unwrap_or_default();
    let cell = row.safety.as_ref();
    let counts = row.counts.as_ref();
    vec![
        exp.kind.to_string(),
        exp.table.clone(),
        params.to_string(),
        row.method.clone(),
        row.baseline.to_string(),
        match row.status {
            Status::Ok => "ok",
            Status::Failed => "failed",
        }
        .to_string(),
        row.error_message.clone().unwrap_or_default(),
        num(row.mean_ns),
        num(row.error_ns),
        num(row.stddev_ns),
        num(row.median_ns),
        num(row.p95_ns),
        num(row.min_ns),
        num(row.max_ns),
        int(row.iterations),
        int(row.ops_per_iteration),
        int(row.outliers_removed),
        num(row.ratio),
        num(row.ratio_sd),
        num(row.allocated_bytes),
        num(row.allocs),
        num(row.alloc_ratio),
        int(row.peak_bytes),
        num(row.mb_per_s),
        int(row.rss.map(|m| m.peak_bytes)),
        int(row.rss.map(|m| m.growth_bytes)),
        num(http_figure(row, |h| h.req_per_s)),
        num(http_figure(row, |h| h.p50_ns)),
        num(http_figure(row, |h| h.p90_ns)),
        num(http_figure(row, |h| h.p99_ns)),
        num(http_figure(row, |h| h.p999_ns)),
        num(http_figure(row, |h| h.max_ns)),
        num(error_total(row)),
        num(http_figure(row, |h| h.bytes_per_response)),
        num(http_figure(row, |h| h.server_cpu_ns_per_req)),
        int(row.http.as_ref().map(|h| h.requests)),
        crate::fidelity::cell(row),
        cell.map(|c| c.path.as_str().to_string()).unwrap_or_default(),
        cell.map(|c| c.case.clone()).unwrap_or_default(),
        cell.map(|c| c.outcome.as_str().to_string()).unwrap_or_default(),
        cell.and_then(|c| c.agreement).map(|a| a.as_str().to_string()).unwrap_or_default(),
        num(counts.map(|c| c.instructions)),
        num(counts.and_then(|c| c.l1_misses)),
        num(counts.and_then(|c| c.ll_misses)),
        num(counts.and_then(|c| c.estimated_cycles)),
    ]
}

/// `compare`'s rows, and the rows lost in new (no times, a verdict saying which).
fn comparison_rows(c: &Comparison) -> String {
    let header = [
        "experiment",
        "table",
        "method",
        "base_mean_ns",
        "new_mean_ns",
        "time_change",
        "table_shift",
        "own_change",
        "resolution",
        "verdict",
        "base_allocated_bytes",
        "new_allocated_bytes",
        "base_allocs",
        "new_allocs",
        "allocation_grew",
        "regression",
        "base_instructions_per_op",
        "new_instructions_per_op",
        "instructions_change",
        "instructions_grew",
    ];
    let mut records = vec![header.map(String::from).to_vec()];
    for r in &c.rows {
        let counts = r.instructions;
        records.push(vec![
            r.experiment.to_string(),
            r.table.clone(),
            r.method.clone(),
            r.base_mean_ns.to_string(),
            r.new_mean_ns.to_string(),
            r.time_change.to_string(),
            r.table_shift.to_string(),
            r.own_change.to_string(),
            num(r.resolution.map(|x| x.half_width)),
            r.verdict.key().to_string(),
            num(r.base_allocated_bytes),
            num(r.new_allocated_bytes),
            num(r.base_allocs),
            num(r.new_allocs),
            r.allocation_grew.to_string(),
            r.regression().to_string(),
            num(counts.map(|c| c.base)),
            num(counts.map(|c| c.new)),
            num(counts.map(|c| c.change)),
            counts.map(|c| c.grew.to_string()).unwrap_or_default(),
        ]);
    }
    for n in c.lost() {
        let verdict = match n.reason {
            Reason::Failed { .. } => "failed_in_new",
            _ => "missing_from_new",
        };
        let mut record = vec![n.experiment.to_string(), n.table.clone(), n.method.clone().unwrap_or_default()];
        record.extend(["", "", "", "", "", ""].map(String::from));
        record.push(verdict.to_string());
        record.extend(["", "", "", "", ""].map(String::from));
        record.push((!c.allow_missing).to_string());
        record.extend(["", "", "", ""].map(String::from));
        records.push(record);
    }
    write(records)
}

/// `ab`'s rows.
fn ab_rows(c: &AbComparison) -> String {
    let header = [
        "experiment",
        "table",
        "method",
        "base_mean_ns",
        "new_mean_ns",
        "ratio",
        "ratio_low",
        "ratio_high",
        "pairs",
        "signed_rank_p",
        "verdict",
        "base_allocated_bytes",
        "new_allocated_bytes",
        "allocation_grew",
        "regression",
    ];
    let mut records = vec![header.map(String::from).to_vec()];
    for r in &c.rows {
        records.push(vec![
            r.experiment.to_string(),
            r.table.clone(),
            r.method.clone(),
            r.base_mean_ns.to_string(),
            r.new_mean_ns.to_string(),
            r.ratio.estimate.to_string(),
            r.ratio.low.to_string(),
            r.ratio.high.to_string(),
            r.ratio.n.to_string(),
            num(r.signed_rank_p),
            r.verdict.key().to_string(),
            num(r.base_allocated_bytes),
            num(r.new_allocated_bytes),
            r.allocation_grew.to_string(),
            r.regression().to_string(),
        ]);
    }
    write(records)
}

/// The allocator tables' rows.
fn allocator_rows(comparisons: &[AllocatorComparison]) -> String {
    let header = [
        "base",
        "allocator",
        "experiment",
        "table",
        "method",
        "base_mean_ns",
        "mean_ns",
        "ratio",
        "ratio_low",
        "ratio_high",
        "pairs",
        "base_allocated_bytes",
        "allocated_bytes",
        "base_allocs",
        "allocs",
        "base_peak_rss_bytes",
        "peak_rss_bytes",
    ];
    let mut records = vec![header.map(String::from).to_vec()];
    for c in comparisons {
        for r in &c.rows {
            records.push(vec![
                c.base.to_string(),
                c.allocator.to_string(),
                r.experiment.to_string(),
                r.table.clone(),
                r.method.clone(),
                r.base_mean_ns.to_string(),
                r.mean_ns.to_string(),
                r.ratio.estimate.to_string(),
                r.ratio.low.to_string(),
                r.ratio.high.to_string(),
                r.ratio.n.to_string(),
                num(r.base_allocated_bytes),
                num(r.allocated_bytes),
                num(r.base_allocs),
                num(r.allocs),
                num(r.base_peak_rss_bytes.map(|b| b as f64)),
                num(r.peak_rss_bytes.map(|b| b as f64)),
            ]);
        }
    }
    write(records)
}

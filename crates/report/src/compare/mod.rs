//! `compare`: two results files row by row, with a verdict per row and a regression gate.
//!
//! Rows match by (experiment, table, method). Two runs minutes apart carry whatever the
//! machine did in between, and most of that moves a whole table alike (another tenant, the
//! virtual CPU's speed of the moment: every row of a table 40–70% apart, measured between two
//! runs of one build). So time is judged from what the files hold, in three steps:
//! 1. **The table's shift** ([`spread`]): the median of its rows' log changes (a table of fewer
//!    than three rows takes its experiment's). Unpaired runs cannot tell it from a change of
//!    every row, so it is reported under the comparison and never flagged (`jsoncost ab` pairs
//!    builds round by round).
//! 2. **A row's own change**: its change beyond its table's shift.
//! 3. **What the files resolve** for the row ([`Resolution`]), the largest of: its own
//!    intervals (the two runs' paired ratio intervals where its table was interleaved, else
//!    their Errors, in quadrature); the runs' own spread, the far-out fences (Tukey, k = 3, as
//!    the paired statistics drop hiccups) of every row's own change in its experiment, once
//!    there are [`SPREAD_MIN_ROWS`] of them, so that one changed row stands out of the others
//!    (with `--base-run`, the own changes of each more run of the base build against the
//!    base count too: pure noise); and the largest own change a base run showed on that row.
//!
//! A row is slower (a regression) or faster when its own change lies beyond the threshold by
//! more than what the files resolve (the whole band `own ± resolution` is beyond it), within
//! noise when the whole band lies within the threshold, and "unresolvable" at the threshold
//! when the band straddles it: the files cannot say whether the row moved by that much, and
//! the verdict names the figure that limits them. This is stricter than `ab`'s rule (an
//! interval beyond half the threshold): a resolution here bounds the noise of runs minutes
//! apart, and a gate that fails the same build teaches its readers to ignore it. Allocation is
//! deterministic: any growth of bytes or of allocations per operation fails the gate. Rows
//! that cannot be compared are listed; a row that was ok in the base and failed or is missing
//! in the new file fails the gate too (a correctness break, a crashed or a filtered run must
//! not pass), unless the comparison allows missing rows.
//!
//! **Counts** (`--measure counts`): where both files counted a row, it is gated on its
//! instructions per operation instead of its time: a count repeats across processes and
//! machines of one CPU level, so a small threshold ([`DEFAULT_COUNT_THRESHOLD`]) holds with no
//! noise band. Its time verdict is still shown, as advice only. Allocation is gated as ever.

mod drift;
mod pairs;
pub(crate) mod render;
pub mod spread;

pub use drift::Drift;
pub use pairs::{NotCompared, Reason, Side};
pub use spread::{CompareVerdict, Limit, Resolution, SPREAD_MIN_ROWS, TableShift};

use jsoncost_engine::{ExperimentKind, Results, RowMeasure};
use serde::Serialize;

use pairs::matched;

/// Allocation growth per operation below this is not counted: per-operation bytes are a total
/// divided by the operation count, so a one-time allocation amortised over different counts
/// moves them by a fraction of a byte. One whole byte (or allocation) more per operation
/// always counts.
pub const ALLOCATION_TOLERANCE_BYTES: f64 = 0.5;

/// For http rows the bytes are the server's per request under concurrent load: connection
/// setup, buffer growth and the runtime's own work are shared out over requests differently
/// each run (a few bytes either way on the same build), so only growth beyond this share of the
/// baseline counts there.
pub const HTTP_ALLOCATION_TOLERANCE: f64 = 0.01;

/// Whether an allocation figure grew beyond what counts on `kind`'s rows (rows under load:
/// [`HTTP_ALLOCATION_TOLERANCE`]).
pub fn allocation_grew(kind: ExperimentKind, base: Option<f64>, new: Option<f64>) -> bool {
    match (base, new) {
        (Some(b), Some(n)) if kind.traits().row == RowMeasure::Request => {
            n - b >= ALLOCATION_TOLERANCE_BYTES.max(b * HTTP_ALLOCATION_TOLERANCE)
        }
        (Some(b), Some(n)) => n - b >= ALLOCATION_TOLERANCE_BYTES,
        _ => false,
    }
}

/// The default threshold on instructions per operation: counts under Callgrind repeat to far
/// better than 1% from one process to the next, so 1% more is a change of the code's work.
pub const DEFAULT_COUNT_THRESHOLD: f64 = 0.01;

/// A row's instructions per operation in both files.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct CountChange {
    /// Base's instructions per operation.
    pub base: f64,
    /// New's instructions per operation.
    pub new: f64,
    /// (new − base) / base.
    pub change: f64,
    /// More than the count threshold: a regression.
    pub grew: bool,
}

impl CountChange {
    /// Both rows' instructions per operation, when both were counted.
    pub(crate) fn of(base: Option<&jsoncost_engine::Counts>, new: Option<&jsoncost_engine::Counts>, threshold: f64) -> Option<Self> {
        let (base, new) = (base?.instructions, new?.instructions);
        let change = if base > 0.0 { new / base - 1.0 } else { 0.0 };
        Some(CountChange {
            base,
            new,
            change,
            grew: change > threshold,
        })
    }
}

/// One row present and timed in both files.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RowChange {
    /// The row's experiment.
    pub experiment: ExperimentKind,
    /// The row's table.
    pub table: String,
    /// The row's strategy.
    pub method: String,
    /// Base's mean, ns.
    pub base_mean_ns: f64,
    /// New's mean, ns.
    pub new_mean_ns: f64,
    /// (new − base) / base.
    pub time_change: f64,
    /// How much its table moved as a whole (the median of its rows' changes).
    pub table_shift: f64,
    /// The row's change beyond its table's shift: `(1 + time_change) / (1 + table_shift) − 1`.
    pub own_change: f64,
    /// The smallest own change the files can tell from the runs' noise on this row; `None`
    /// when they hold no spread to judge by (then the threshold alone decides).
    pub resolution: Option<Resolution>,
    /// Slower, faster, within noise or unresolvable.
    pub verdict: CompareVerdict,
    /// Base's bytes allocated per operation.
    pub base_allocated_bytes: Option<f64>,
    /// New's bytes allocated per operation.
    pub new_allocated_bytes: Option<f64>,
    /// Base's allocations per operation.
    pub base_allocs: Option<f64>,
    /// New's allocations per operation.
    pub new_allocs: Option<f64>,
    /// More bytes or more allocations per operation (exact figures, so any growth counts).
    pub allocation_grew: bool,
    /// Instructions per operation, when both files counted the row: then the gate reads them,
    /// and the time verdict is advice.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub instructions: Option<CountChange>,
}

impl RowChange {
    /// The row got slower (its verdict is [`CompareVerdict::Slower`]).
    pub fn time_regression(&self) -> bool {
        self.verdict == CompareVerdict::Slower
    }

    /// More instructions per operation than the count threshold allows.
    pub fn count_regression(&self) -> bool {
        self.instructions.is_some_and(|c| c.grew)
    }

    /// More instructions (where counted; else slower), or allocating more.
    pub fn regression(&self) -> bool {
        let work = match self.instructions {
            Some(c) => c.grew,
            None => self.time_regression(),
        };
        work || self.allocation_grew
    }

    /// New minus base allocated bytes per operation, when both are known.
    pub fn allocation_change(&self) -> Option<f64> {
        Some(self.new_allocated_bytes? - self.base_allocated_bytes?)
    }

    /// The verdict in words; an unresolvable row says at what threshold and why, e.g.
    /// "unresolvable at 5.0%: the runs' own spread is ±8.2%".
    pub fn verdict_text(&self, threshold: f64) -> String {
        match (self.verdict, &self.resolution) {
            (CompareVerdict::Unresolvable, Some(r)) => format!("unresolvable at {}: {}", crate::units::percent(threshold), r.why()),
            (v, _) => v.to_string(),
        }
    }
}

/// The outcome of `compare`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Comparison {
    /// Smallest relative time change that counts (0.05 = 5%).
    pub threshold: f64,
    /// Smallest relative change of instructions per operation that counts, where both files
    /// counted a row.
    pub count_threshold: f64,
    /// Every row timed in both files.
    pub rows: Vec<RowChange>,
    /// Tables that moved as a whole by more than the threshold: reported, not flagged.
    pub table_shifts: Vec<TableShift>,
    /// Rows and tables that could not be compared, and why.
    pub not_compared: Vec<NotCompared>,
    /// Rows ok in base that failed or are missing in new are accepted (`--allow-missing`).
    pub allow_missing: bool,
    /// How much runs of the base build differ, when several were given (`--base-run`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub drift: Option<Drift>,
    /// How the two files differ in build ([`crate::build_difference::note`]), named before
    /// any shift is put down to drift.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub build_difference: Option<String>,
}

impl Comparison {
    /// The note on what an unpaired comparison cannot tell apart, with the measured drift.
    pub fn unpaired_note(&self) -> String {
        drift::note(self.drift.as_ref(), self.threshold)
    }

    /// The rows' instruction verdicts at `threshold` (a fraction) instead of
    /// [`DEFAULT_COUNT_THRESHOLD`].
    pub fn with_count_threshold(mut self, threshold: f64) -> Self {
        self.count_threshold = threshold;
        for c in self.rows.iter_mut().filter_map(|r| r.instructions.as_mut()) {
            c.grew = c.change > threshold;
        }
        self
    }

    /// Whether any row was compared on its counts.
    pub fn counted(&self) -> bool {
        self.rows.iter().any(|r| r.instructions.is_some())
    }

    /// Accepts (or not) rows that were ok in base and failed or are missing in new.
    pub fn allowing_missing(mut self, allow: bool) -> Self {
        self.allow_missing = allow;
        self
    }

    /// True when a row got slower beyond the threshold and what the files resolve, or
    /// allocates more, or (unless allowed) a row ok in base failed or is missing in new.
    pub fn has_regression(&self) -> bool {
        self.rows.iter().any(RowChange::regression) || (!self.allow_missing && self.lost_rows() > 0)
    }

    /// The entries that lose rows ok in base.
    pub fn lost(&self) -> impl Iterator<Item = &NotCompared> {
        self.not_compared.iter().filter(|n| n.lost > 0)
    }

    /// How many rows ok in base failed or are missing in new.
    pub fn lost_rows(&self) -> usize {
        self.lost().map(|n| n.lost).sum()
    }

    /// The rows that are regressions ([`RowChange::regression`]).
    pub fn regressions(&self) -> impl Iterator<Item = &RowChange> {
        self.rows.iter().filter(|r| r.regression())
    }
}

/// Checks that `results` (read from `path`) can be compared: no row holds a negative time,
/// size or count, no ok row lacks a time (null or 0), and no (experiment, table, method) appears twice (rows match by it, so a
/// second one would be silently ignored). Safety tables hold findings and are not compared.
pub fn check_rows(path: &std::path::Path, results: &Results) -> Result<(), crate::error::ReportError> {
    let mut seen = std::collections::HashSet::new();
    for e in results.experiments.iter().filter(|e| e.kind.traits().compared) {
        for r in &e.rows {
            let bad = |why: String| crate::error::ReportError::BadRow {
                path: path.to_path_buf(),
                experiment: e.kind.as_str().to_string(),
                table: e.table.clone(),
                method: r.method.clone(),
                why,
            };
            if !seen.insert((e.kind, e.table.as_str(), r.method.as_str())) {
                return Err(bad("the row appears twice".to_string()));
            }
            let figures = [
                ("mean_ns", r.mean_ns),
                ("error_ns", r.error_ns),
                ("stddev_ns", r.stddev_ns),
                ("median_ns", r.median_ns),
                ("min_ns", r.min_ns),
                ("max_ns", r.max_ns),
                ("allocated_bytes", r.allocated_bytes),
                ("allocs", r.allocs),
            ];
            for (name, value) in figures {
                if let Some(v) = value.filter(|v| *v < 0.0) {
                    return Err(bad(format!("{name} is {v}, below 0")));
                }
            }
            // A measured row has a time: an ok row without one (or of 0 ns) is nothing a run
            // writes, and would pass the gate unjudged.
            if r.is_ok() {
                match r.mean_ns {
                    None => return Err(bad("it is ok but its mean_ns is null".to_string())),
                    Some(0.0) => return Err(bad("it is ok but its mean_ns is 0".to_string())),
                    _ => {}
                }
            }
            if let Some(v) = r.samples_ns.iter().chain(&r.rounds_ns).find(|v| **v < 0.0) {
                return Err(bad(format!("a sample is {v} ns, below 0")));
            }
        }
    }
    Ok(())
}

/// Compares `new` against `base`; `threshold` is a fraction (0.05 for 5%).
pub fn compare(base: &Results, new: &Results, threshold: f64) -> Comparison {
    compare_with_runs(base, new, &[], threshold)
}

/// [`compare`], with `base_runs`: more runs of the base build, whose differences from `base`
/// say how far runs of one build move on this machine (`--base-run`).
pub fn compare_with_runs(base: &Results, new: &Results, base_runs: &[&Results], threshold: f64) -> Comparison {
    let (pairs, not_compared) = matched(base, new);
    let moved = spread::Moves::of(&pairs);
    let runs: Vec<spread::Moves> = base_runs.iter().map(|run| spread::Moves::of(&matched(base, run).0)).collect();
    let judge = spread::Judge::new(&moved, &runs, threshold);
    let rows = pairs
        .iter()
        .zip(&moved.rows)
        .map(|(p, m)| {
            let (verdict, resolution) = judge.verdict(m);
            RowChange {
                experiment: p.exp.kind,
                table: p.exp.table.clone(),
                method: p.base.method.clone(),
                base_mean_ns: p.base_mean,
                new_mean_ns: p.other_mean,
                time_change: m.change.exp_m1(),
                table_shift: m.shift.exp_m1(),
                own_change: m.own.exp_m1(),
                resolution,
                verdict,
                base_allocated_bytes: p.base.allocated_bytes,
                new_allocated_bytes: p.other.allocated_bytes,
                base_allocs: p.base.allocs,
                new_allocs: p.other.allocs,
                allocation_grew: allocation_grew(p.exp.kind, p.base.allocated_bytes, p.other.allocated_bytes)
                    || allocation_grew(p.exp.kind, p.base.allocs, p.other.allocs),
                instructions: CountChange::of(p.base.counts.as_ref(), p.other.counts.as_ref(), DEFAULT_COUNT_THRESHOLD),
            }
        })
        .collect();
    let mut all_runs: Vec<&Results> = vec![base];
    all_runs.extend(base_runs);
    Comparison {
        threshold,
        count_threshold: DEFAULT_COUNT_THRESHOLD,
        rows,
        table_shifts: judge.table_shifts(&moved),
        not_compared,
        allow_missing: false,
        drift: Drift::of(&all_runs),
        build_difference: crate::build_difference::note(&base.machine, &new.machine, "files", ["base", "new"]),
    }
}

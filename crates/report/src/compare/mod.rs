//! `compare`: two results files row by row, with a verdict per row and a regression gate.
//!
//! Rows match by (experiment, table, method). Time is judged as criterion does: the change is
//! real when Welch's t-test on the two rows' (mean, standard deviation, sample count) gives
//! p < 0.05 AND the change exceeds the threshold. Allocation is deterministic, so any growth
//! fails the gate. Rows that cannot be compared are listed; a row that was ok in the base and
//! failed or is missing in the new file fails the gate too (a correctness break, a crashed or a
//! filtered run must not pass), unless the comparison allows missing rows.

mod drift;
mod render;

pub use drift::Drift;

use std::fmt;

use jsoncost_engine::stats::welch_p_value;
use jsoncost_engine::{Experiment, ExperimentKind, Results, Row};
use serde::Serialize;

use crate::columns::sample_count;

/// Significance level of the Welch test.
pub const SIGNIFICANCE: f64 = 0.05;

/// Allocation growth per operation below this is not counted: per-operation bytes are a total
/// divided by the operation count, so a one-time allocation amortised over different counts
/// moves them by a fraction of a byte. One whole byte more per operation always counts.
pub const ALLOCATION_TOLERANCE_BYTES: f64 = 0.5;

/// For http rows the bytes are the server's per request under concurrent load: connection
/// setup, buffer growth and the runtime's own work are shared out over requests differently
/// each run (a few bytes either way on the same build), so only growth beyond this share of the
/// baseline counts there.
pub const HTTP_ALLOCATION_TOLERANCE: f64 = 0.01;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    Faster,
    Slower,
    WithinNoise,
}

impl Verdict {
    /// The machine-readable name used in JSON and CSV.
    pub fn key(self) -> &'static str {
        match self {
            Verdict::Faster => "faster",
            Verdict::Slower => "slower",
            Verdict::WithinNoise => "within_noise",
        }
    }
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Verdict::Faster => "faster",
            Verdict::Slower => "slower",
            Verdict::WithinNoise => "within noise",
        })
    }
}

/// One row present and timed in both files.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RowChange {
    pub experiment: ExperimentKind,
    pub table: String,
    pub method: String,
    pub base_mean_ns: f64,
    pub new_mean_ns: f64,
    /// (new − base) / base.
    pub time_change: f64,
    /// Welch's two-sided p-value; `None` when a row lacks a spread or sample count, and then the
    /// threshold alone decides.
    pub p_value: Option<f64>,
    pub verdict: Verdict,
    pub base_allocated_bytes: Option<f64>,
    pub new_allocated_bytes: Option<f64>,
    pub allocation_grew: bool,
}

impl RowChange {
    pub fn time_regression(&self) -> bool {
        self.verdict == Verdict::Slower
    }

    pub fn regression(&self) -> bool {
        self.time_regression() || self.allocation_grew
    }

    /// New minus base allocated bytes per operation, when both are known.
    pub fn allocation_change(&self) -> Option<f64> {
        Some(self.new_allocated_bytes? - self.base_allocated_bytes?)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Side {
    Base,
    New,
    Both,
}

impl fmt::Display for Side {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Side::Base => "base",
            Side::New => "new",
            Side::Both => "both",
        })
    }
}

/// Why a row or table was not compared.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Reason {
    /// Missing from the new file.
    OnlyInBase,
    /// Unknown to the base file.
    OnlyInNew,
    /// The table was measured with other params (e.g. another payload): its times do not compare.
    ParamsDiffer {
        base: String,
        new: String,
    },
    Failed {
        side: Side,
        message: String,
    },
    NoTiming {
        side: Side,
    },
    /// `ab`: fewer than two pairs (a row timed one strategy after another pairs once per run).
    TooFewPairs {
        pairs: usize,
    },
}

impl fmt::Display for Reason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Reason::OnlyInBase => f.write_str("only in base (missing from new)"),
            Reason::OnlyInNew => f.write_str("only in new (unknown to base)"),
            Reason::ParamsDiffer { base, new } => write!(f, "params differ: base {base}; new {new}"),
            Reason::Failed { side: Side::Both, message } => write!(f, "failed in both: {message}"),
            Reason::Failed { side, message } => write!(f, "failed in {side}: {message}"),
            Reason::NoTiming { side } => write!(f, "no mean time in {side}"),
            Reason::TooFewPairs { pairs } => write!(
                f,
                "{pairs} pair only: a table measured one strategy after another pairs once per run (give ab --runs 5 or more)"
            ),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NotCompared {
    pub experiment: ExperimentKind,
    pub table: String,
    /// `None` when the whole table is concerned.
    pub method: Option<String>,
    pub reason: Reason,
    /// Rows ok in the base that this entry loses (failed or missing in new): 0 or 1 for a row,
    /// the table's ok rows for a whole table. Any makes the gate fail unless missing rows are
    /// allowed.
    pub lost: usize,
}

/// The outcome of `compare`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Comparison {
    /// Smallest relative time change that counts (0.05 = 5%).
    pub threshold: f64,
    pub rows: Vec<RowChange>,
    pub not_compared: Vec<NotCompared>,
    /// Rows ok in base that failed or are missing in new are accepted (`--allow-missing`).
    pub allow_missing: bool,
    /// How much runs of the base build differ, when several were given (`--base-run`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub drift: Option<Drift>,
}

impl Comparison {
    /// Records the drift between several runs of the base build (for the unpaired note).
    pub fn with_drift(mut self, drift: Option<Drift>) -> Self {
        self.drift = drift;
        self
    }

    /// The note on what an unpaired comparison cannot tell apart, with the measured drift.
    pub fn unpaired_note(&self) -> String {
        drift::note(self.drift.as_ref(), self.threshold)
    }

    /// Accepts (or not) rows that were ok in base and failed or are missing in new.
    pub fn allowing_missing(mut self, allow: bool) -> Self {
        self.allow_missing = allow;
        self
    }

    /// True when a row got significantly slower beyond the threshold or allocates more, or
    /// (unless allowed) a row ok in base failed or is missing in new.
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

    pub fn regressions(&self) -> impl Iterator<Item = &RowChange> {
        self.rows.iter().filter(|r| r.regression())
    }
}

/// Checks that `results` (read from `path`) can be compared: no row holds a negative time,
/// size or count, and no (experiment, table, method) appears twice (rows match by it, so a
/// second one would be silently ignored). Safety tables hold findings and are not compared.
pub fn check_rows(path: &std::path::Path, results: &Results) -> Result<(), crate::ReportError> {
    let mut seen = std::collections::HashSet::new();
    for e in results.experiments.iter().filter(|e| e.experiment != ExperimentKind::Safety) {
        for r in &e.rows {
            let bad = |why: String| crate::ReportError::BadRow {
                path: path.to_path_buf(),
                experiment: e.experiment.as_str().to_string(),
                table: e.table.clone(),
                method: r.method.clone(),
                why,
            };
            if !seen.insert((e.experiment, e.table.as_str(), r.method.as_str())) {
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
            if let Some(v) = r.samples_ns.iter().chain(&r.rounds_ns).find(|v| **v < 0.0) {
                return Err(bad(format!("a sample is {v} ns, below 0")));
            }
        }
    }
    Ok(())
}

/// Compares `new` against `base`; `threshold` is a fraction (0.05 for 5%).
pub fn compare(base: &Results, new: &Results, threshold: f64) -> Comparison {
    let mut rows = Vec::new();
    let mut not_compared = Vec::new();
    let skip = |e: &Experiment, method: Option<&str>, reason: Reason, lost: usize| NotCompared {
        experiment: e.experiment,
        table: e.table.clone(),
        method: method.map(String::from),
        reason,
        lost,
    };
    // Safety tables hold findings (a case per row), not timings to regress on.
    for b in base.experiments.iter().filter(|e| e.experiment != ExperimentKind::Safety) {
        let Some(n) = find(new, b) else {
            let ok = b.rows.iter().filter(|r| r.is_ok()).count();
            not_compared.push(skip(b, None, Reason::OnlyInBase, ok));
            continue;
        };
        if b.params != n.params {
            // Measured differently (another payload, another load): the user chose to compare
            // unlike runs, which is listed but loses nothing.
            let p = |e: &Experiment| serde_json::Value::Object(e.params.clone()).to_string();
            not_compared.push(skip(b, None, Reason::ParamsDiffer { base: p(b), new: p(n) }, 0));
            continue;
        }
        for br in &b.rows {
            let Some(nr) = n.rows.iter().find(|r| r.method == br.method) else {
                not_compared.push(skip(b, Some(&br.method), Reason::OnlyInBase, usize::from(br.is_ok())));
                continue;
            };
            match compare_rows(b, br, nr, threshold) {
                Ok(change) => rows.push(change),
                Err(reason) => {
                    let lost = usize::from(matches!(reason, Reason::Failed { side: Side::New, .. }));
                    not_compared.push(skip(b, Some(&br.method), reason, lost));
                }
            }
        }
        for nr in n.rows.iter().filter(|nr| !b.rows.iter().any(|br| br.method == nr.method)) {
            not_compared.push(skip(n, Some(&nr.method), Reason::OnlyInNew, 0));
        }
    }
    for n in new
        .experiments
        .iter()
        .filter(|n| n.experiment != ExperimentKind::Safety && find(base, n).is_none())
    {
        not_compared.push(skip(n, None, Reason::OnlyInNew, 0));
    }
    Comparison {
        threshold,
        rows,
        not_compared,
        allow_missing: false,
        drift: None,
    }
}

fn find<'a>(results: &'a Results, e: &Experiment) -> Option<&'a Experiment> {
    results
        .experiments
        .iter()
        .find(|x| x.experiment == e.experiment && x.table == e.table)
}

fn compare_rows(exp: &Experiment, base: &Row, new: &Row, threshold: f64) -> Result<RowChange, Reason> {
    let message = |r: &Row| r.error_message.clone().unwrap_or_default();
    match (base.is_ok(), new.is_ok()) {
        (false, false) => {
            return Err(Reason::Failed {
                side: Side::Both,
                message: message(new),
            });
        }
        (false, true) => {
            return Err(Reason::Failed {
                side: Side::Base,
                message: message(base),
            });
        }
        (true, false) => {
            return Err(Reason::Failed {
                side: Side::New,
                message: message(new),
            });
        }
        (true, true) => {}
    }
    let (bm, nm) = match (base.mean_ns, new.mean_ns) {
        (Some(b), Some(n)) => (b, n),
        (None, None) => return Err(Reason::NoTiming { side: Side::Both }),
        (None, _) => return Err(Reason::NoTiming { side: Side::Base }),
        (_, None) => return Err(Reason::NoTiming { side: Side::New }),
    };
    let time_change = if bm > 0.0 {
        (nm - bm) / bm
    } else if nm == bm {
        0.0
    } else {
        f64::INFINITY
    };
    let p_value = welch(base, new);
    let significant = p_value.is_none_or(|p| p < SIGNIFICANCE) && time_change.abs() > threshold;
    let verdict = match (significant, time_change < 0.0) {
        (false, _) => Verdict::WithinNoise,
        (true, true) => Verdict::Faster,
        (true, false) => Verdict::Slower,
    };
    let allocation_grew = match (base.allocated_bytes, new.allocated_bytes) {
        (Some(b), Some(n)) if exp.experiment == ExperimentKind::Http => {
            n - b >= ALLOCATION_TOLERANCE_BYTES.max(b * HTTP_ALLOCATION_TOLERANCE)
        }
        (Some(b), Some(n)) => n - b >= ALLOCATION_TOLERANCE_BYTES,
        _ => false,
    };
    Ok(RowChange {
        experiment: exp.experiment,
        table: exp.table.clone(),
        method: base.method.clone(),
        base_mean_ns: bm,
        new_mean_ns: nm,
        time_change,
        p_value,
        verdict,
        base_allocated_bytes: base.allocated_bytes,
        new_allocated_bytes: new.allocated_bytes,
        allocation_grew,
    })
}

fn welch(base: &Row, new: &Row) -> Option<f64> {
    welch_p_value(
        base.mean_ns?,
        base.stddev_ns?,
        sample_count(base)?,
        new.mean_ns?,
        new.stddev_ns?,
        sample_count(new)?,
    )
}

//! `ab`: a paired A/B comparison of two builds. Both programs run at once in lockstep
//! (`engine::lockstep`): only one works at any moment, they take turns before every timed
//! iteration (ABBA), with the same seed and payloads, and the conductor fixes every
//! interleaved table's round count. An interleaved row then pairs round by round: base's
//! iteration and new's are milliseconds apart, so the machine's state of that moment lands on
//! both. Rows measured one strategy after another (and programs that did not join the
//! lockstep) pair once per run, by their means, over `--runs` runs in ABBA order.
//!
//! Per row: the ratio is the geometric mean of the paired ratios `new / base` with the paired
//! Student-t 99% interval of the mean log ratio (`engine::paired::log_ratio`), plus Wilcoxon's
//! signed-rank p of the log ratios (a check that assumes no normality). The gate, with `m`
//! half the threshold (the margin):
//! - **slower** (a regression): the whole interval lies above `1 + m`: new is slower, for sure,
//!   by more than half the threshold, so a change of the threshold's size is caught once the
//!   interval is narrower than `m` each way, and a real but smaller one (another code layout
//!   moves some rows by 2–3%) is not;
//! - **faster**: the interval lies below `1 − m`;
//! - **small change**: real (the interval excludes 1) and the ratio within `1 ± m`;
//! - **no change**: the interval holds 1 and the ratio is within `1 ± m`;
//! - **inconclusive**: the ratio is beyond `1 ± m` but its interval reaches inside the margin:
//!   more rounds would tell. It does not fail the gate; the summary names it.
//!
//! Allocation is deterministic: growth of the mean per-run allocation beyond `compare`'s
//! tolerance fails the gate as in `compare`.

use std::fmt;

use jsoncost_engine::paired::{self, Interval, PAIRED_CONFIDENCE};
use jsoncost_engine::{ExperimentKind, OtherCpu, Results, Row};
use serde::Serialize;

use crate::compare::{ALLOCATION_TOLERANCE_BYTES, NotCompared, Reason, Side};

/// `ab`'s and `alloc`'s default `--threshold`: 5%, so a row is called on once its interval lies
/// beyond 2.5%.
pub const DEFAULT_THRESHOLD: f64 = 0.05;
use crate::units;
use crate::verdicts::Verdicts;
use crate::view::Align;

/// The two results files of one run of both programs.
#[derive(Debug, Clone)]
pub struct Run {
    /// Base's results.
    pub base: Results,
    /// New's results.
    pub new: Results,
    /// Both programs ran in lockstep (`engine::lockstep`): an interleaved row's rounds pair
    /// one by one (`Row::rounds_ns`). Otherwise each row pairs once, by its means.
    pub lockstep: bool,
    /// Other programs' use of the pair's CPU, where `/proc` tells.
    pub other_cpu: Option<OtherCpu>,
}

/// The pairs `(base, new)` of a row in one run: its rounds in lockstep (as many as both have),
/// else its means.
fn pairs_of(run: &Run, b: &Row, n: &Row, bm: f64, nm: f64) -> Vec<(f64, f64)> {
    let common = b.rounds_ns.len().min(n.rounds_ns.len());
    if run.lockstep && common >= 2 {
        b.rounds_ns.iter().zip(&n.rounds_ns).map(|(x, y)| (*x, *y)).collect()
    } else {
        vec![(bm, nm)]
    }
}

/// What `ab` concludes for one row's time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum AbVerdict {
    /// New is slower: the whole 99% interval lies above 1 + threshold / 2.
    Slower,
    /// New is faster: the whole 99% interval lies below 1 − threshold / 2.
    Faster,
    /// Real (the interval excludes 1), but smaller than half the threshold.
    SmallChange,
    /// The interval holds 1.
    NoChange,
    /// The ratio is beyond half the threshold, but its interval is not.
    Inconclusive,
    /// Not judged: other programs' work took the CPU from the two (see [`OtherCpu`]).
    Busy,
    /// Slower or faster in the first pair of processes, but not in a second pair measured to
    /// confirm it ([`AbComparison::confirm`]): what one pair of processes differs by, not the
    /// build.
    Unconfirmed,
}

impl AbVerdict {
    /// Slower or faster: the verdicts a second pair of processes must confirm.
    pub fn is_change(self) -> bool {
        matches!(self, AbVerdict::Slower | AbVerdict::Faster)
    }

    /// The name the JSON and CSV outputs use (its serde name).
    pub fn key(self) -> &'static str {
        match self {
            AbVerdict::Slower => "slower",
            AbVerdict::Faster => "faster",
            AbVerdict::SmallChange => "small_change",
            AbVerdict::NoChange => "no_change",
            AbVerdict::Inconclusive => "inconclusive",
            AbVerdict::Busy => "busy",
            AbVerdict::Unconfirmed => "unconfirmed",
        }
    }
}

impl fmt::Display for AbVerdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            AbVerdict::Slower => "slower",
            AbVerdict::Faster => "faster",
            AbVerdict::SmallChange => "small change",
            AbVerdict::NoChange => "no change",
            AbVerdict::Inconclusive => "inconclusive",
            AbVerdict::Busy => "busy: not judged",
            AbVerdict::Unconfirmed => "not confirmed",
        })
    }
}

/// One row timed in both programs, with at least two pairs.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AbRow {
    /// The experiment of the row's table.
    pub experiment: ExperimentKind,
    /// The row's table.
    pub table: String,
    /// The row's strategy.
    pub method: String,
    /// Mean of each side's times over the pairs, ns.
    pub base_mean_ns: f64,
    /// New's mean, ns.
    pub new_mean_ns: f64,
    /// `new / base` per pair: estimate and 99% interval, and the pairs it used.
    pub ratio: Interval,
    /// Wilcoxon signed-rank two-sided p of the per-round log ratios.
    pub signed_rank_p: Option<f64>,
    /// The time's verdict.
    pub verdict: AbVerdict,
    /// Base's bytes allocated per operation.
    pub base_allocated_bytes: Option<f64>,
    /// New's bytes allocated per operation.
    pub new_allocated_bytes: Option<f64>,
    /// New allocates more per operation (see [`crate::compare::allocation_grew`]).
    pub allocation_grew: bool,
    /// Both programs' instructions per operation (`--measure counts`, the first run's: counts
    /// repeat from run to run), beside the time; more than
    /// [`crate::compare::DEFAULT_COUNT_THRESHOLD`] fails the gate.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub instructions: Option<crate::compare::CountChange>,
    /// The ratio a second pair of processes measured, for a row the first called slower or
    /// faster ([`AbComparison::confirm`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub confirmation: Option<Interval>,
}

impl AbRow {
    /// Slower, allocating more, or (counted) more instructions.
    pub fn regression(&self) -> bool {
        self.verdict == AbVerdict::Slower || self.allocation_grew || self.instructions.is_some_and(|c| c.grew)
    }
}

/// The outcome of `ab`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AbComparison {
    /// Smallest relative time change that counts (0.05 = 5%).
    pub threshold: f64,
    /// Runs of both programs.
    pub runs: usize,
    /// What was paired: two programs' rows, or two servers' load slices (`ab --http`).
    pub subject: AbSubject,
    /// Every run was in lockstep (interleaved rows paired round by round).
    pub lockstep: bool,
    /// The run in which other programs used the pair's CPU most (None where that was not
    /// read). Past its limit no row's time is judged (allocation still is): see [`Self::busy`].
    pub other_cpu: Option<OtherCpu>,
    /// The CPU both programs were pinned to.
    pub cpu: Option<usize>,
    /// Every row paired in both programs.
    pub rows: Vec<AbRow>,
    /// Rows and tables that could not be paired, and why.
    pub not_compared: Vec<NotCompared>,
    /// Rows ok in base that failed or are missing in new in some round are accepted.
    pub allow_missing: bool,
    /// Runs whose time was set aside because other programs used the pair's CPU past the
    /// limit; the other runs are judged. When every run is set aside no time is judged.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub set_aside: Vec<OtherCpu>,
    /// The confidence of each row's interval: [`PAIRED_CONFIDENCE`] for all the rows together
    /// (Šidák: `0.99^(1/rows)` each), so a comparison of many rows of one build calls none
    /// changed at that confidence, not one in a hundred.
    pub row_confidence: f64,
    /// With one run, the spread of the rows' ratios across the comparison (a robust standard
    /// deviation of their logs), taken as the process-to-process variation one run's rounds
    /// cannot show and added to each row's interval; `None` with several runs or few rows.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub process_spread: Option<f64>,
    /// How the two programs differ in build ([`crate::build_difference::note`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub build_difference: Option<String>,
    /// Runs of a second pair of processes that measured the rows the first called slower or
    /// faster ([`AbComparison::confirm`]); `None` when none was needed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub confirmation_runs: Option<usize>,
}

/// Whether a second pair's `estimate` of a row sees the change a first pair called `verdict`:
/// beyond half the threshold, on the same side.
fn sees_the_same_change(verdict: AbVerdict, estimate: f64, threshold: f64) -> bool {
    let margin = threshold / 2.0;
    match verdict {
        AbVerdict::Slower => estimate >= 1.0 + margin,
        AbVerdict::Faster => estimate <= 1.0 - margin,
        _ => false,
    }
}

/// Runs from which each row's interval holds the variation between processes (the runs' own
/// ratios); with fewer, a row called slower or faster is measured again by a second pair of
/// processes before it counts ([`AbComparison::needs_confirmation`]).
pub const RUNS_WITHOUT_CONFIRMATION: usize = 3;

/// What an A/B paired: its summary says how the pairs were made.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case", tag = "kind")]
pub enum AbSubject {
    /// Two jsoncost programs (`ab`, a bench's `--ab`), rows paired round by round.
    Programs,
    /// Two servers under load (`ab --http`): a slice of each per round, in a shuffled order.
    Servers {
        /// Rounds of slices each server got.
        rounds: usize,
    },
}

impl AbComparison {
    /// Says the pairs are two servers' load slices over `rounds` rounds (`ab --http`).
    pub fn of_servers(mut self, rounds: usize) -> Self {
        self.subject = AbSubject::Servers { rounds };
        self
    }

    /// Says which CPU both programs were pinned to.
    pub fn on_cpu(mut self, cpu: Option<usize>) -> Self {
        self.cpu = cpu;
        self
    }

    /// Accepts (or not) rows ok in base that failed or are missing in new, as `compare` does.
    pub fn allowing_missing(mut self, allow: bool) -> Self {
        self.allow_missing = allow;
        self
    }

    /// A row got slower (paired, beyond half the threshold) or allocates more, or (unless
    /// allowed) a row ok in base failed or is missing in new.
    pub fn has_regression(&self) -> bool {
        self.rows.iter().any(AbRow::regression) || (!self.allow_missing && self.lost_rows() > 0)
    }

    /// How many rows ok in base failed or are missing in new in some round.
    pub fn lost_rows(&self) -> usize {
        self.not_compared.iter().map(|n| n.lost).sum()
    }

    /// The rows that are regressions ([`AbRow::regression`]).
    pub fn regressions(&self) -> impl Iterator<Item = &AbRow> {
        self.rows.iter().filter(|r| r.regression())
    }

    /// Rows whose time was called slower or faster.
    pub fn flagged(&self) -> impl Iterator<Item = &AbRow> {
        self.rows.iter().filter(|r| r.verdict.is_change())
    }

    /// Whether a second pair of processes should measure again before the flagged rows count:
    /// two programs (not servers) over fewer than [`RUNS_WITHOUT_CONFIRMATION`] runs, some row
    /// called slower or faster. Why: two processes of one binary can differ steadily on a row
    /// or two (memory placement), which one run's rounds cannot tell from the build; a fresh
    /// pair draws that difference anew, a build's change repeats (docs/measurements.md).
    pub fn needs_confirmation(&self) -> bool {
        self.subject == AbSubject::Programs
            && self.runs < RUNS_WITHOUT_CONFIRMATION
            && self.confirmation_runs.is_none()
            && self.flagged().next().is_some()
    }

    /// Keeps a flagged row's verdict only when `second` (another pair of processes, the same
    /// programs and arguments) sees the change too: its ratio's estimate beyond half the
    /// threshold on the same side. Otherwise the row is [`AbVerdict::Unconfirmed`] (or
    /// [`AbVerdict::Busy`] when the second pair's time could not be judged). The first pair's
    /// interval decided; the second need not be decisive on its own, which would lose real
    /// changes near the margin. Allocation and instruction counts are exact and need no second
    /// opinion; unflagged rows keep theirs.
    pub fn confirm(mut self, second: &AbComparison) -> Self {
        let second_busy = second.busy().is_some();
        for row in self.rows.iter_mut().filter(|r| r.verdict.is_change()) {
            let again = second
                .rows
                .iter()
                .find(|s| s.experiment == row.experiment && s.table == row.table && s.method == row.method);
            row.confirmation = again.map(|s| s.ratio);
            if second_busy {
                row.verdict = AbVerdict::Busy;
            } else if !again.is_some_and(|s| sees_the_same_change(row.verdict, s.ratio.estimate, self.threshold)) {
                row.verdict = AbVerdict::Unconfirmed;
            }
        }
        if second_busy {
            self.other_cpu = second.other_cpu;
            self.set_aside.clear();
        }
        self.confirmation_runs = Some(second.runs);
        self
    }

    /// What the second pair of processes found: "2 rows called slower or faster were measured
    /// again by a second pair of processes (1 run): 1 confirmed".
    fn confirmation_note(&self) -> Option<String> {
        let runs = self.confirmation_runs?;
        // The rows the first pair flagged: measured again, or unconfirmed for want of a pairing.
        let rows = self
            .rows
            .iter()
            .filter(|r| r.confirmation.is_some() || r.verdict == AbVerdict::Unconfirmed)
            .count();
        let confirmed = self
            .rows
            .iter()
            .filter(|r| r.confirmation.is_some() && r.verdict.is_change())
            .count();
        let unconfirmed: Vec<String> = self
            .rows
            .iter()
            .filter(|r| r.verdict == AbVerdict::Unconfirmed)
            .map(|r| {
                format!(
                    "{} {} {} ({:.3}, then {})",
                    r.experiment,
                    r.table,
                    r.method,
                    r.ratio.estimate,
                    r.confirmation.map_or("not measured".to_string(), |c| format!("{:.3}", c.estimate))
                )
            })
            .collect();
        Some(format!(
            "{rows} row{} called slower or faster measured again by a second pair of processes ({runs} run{}): {} confirmed{}",
            if rows == 1 { "" } else { "s" },
            if runs == 1 { "" } else { "s" },
            confirmed,
            if unconfirmed.is_empty() {
                String::new()
            } else {
                format!(
                    ", not confirmed (what one pair of processes differs by): {}",
                    unconfirmed.join("; ")
                )
            }
        ))
    }
}

/// Why no row's time was judged.
pub fn busy_note(busy: &OtherCpu) -> String {
    format!(
        "the machine was busy: in run {} other programs used the CPU the two ran on for {} of the time the two did, over the {} \
         a pairing holds to (another program's work lands on one side of a pair and not on the other, and does not even out); \
         run again when the machine is quiet",
        busy.run,
        units::percent(busy.share),
        units::percent(busy.limit)
    )
}

/// How much other programs used the pair's CPU when that stayed under its limit.
pub fn other_cpu_note(other: &OtherCpu) -> String {
    format!(
        "Other programs used the CPU the two ran on for at most {} of the time the two did (run {}; a pairing is trusted up to {}).",
        units::percent(other.share),
        other.run,
        units::percent(other.limit)
    )
}

/// A confidence as a percentage with the digits that tell it from its neighbours: 99%,
/// 99.91%, 99.9915%.
fn confidence(c: f64) -> String {
    let miss = (1.0 - c).max(1e-12);
    let digits = (-miss.log10()).ceil().max(2.0) as usize - 1;
    let text = format!("{:.*}", digits.saturating_sub(1), c * 100.0);
    let text = if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        text
    };
    format!("{text}%")
}

/// The verdict of a paired ratio at `threshold` (a fraction).
pub fn verdict(ratio: &Interval, threshold: f64) -> AbVerdict {
    let margin = threshold / 2.0;
    if ratio.low > 1.0 + margin {
        AbVerdict::Slower
    } else if ratio.high < 1.0 - margin {
        AbVerdict::Faster
    } else if (ratio.estimate - 1.0).abs() >= margin {
        AbVerdict::Inconclusive
    } else if ratio.contains(1.0) {
        AbVerdict::NoChange
    } else {
        AbVerdict::SmallChange
    }
}

fn find_row<'a>(results: &'a Results, kind: ExperimentKind, table: &str, method: &str) -> Option<&'a Row> {
    results
        .experiments
        .iter()
        .find(|e| e.kind == kind && e.table == table)?
        .rows
        .iter()
        .find(|r| r.method == method)
}

fn mean(xs: &[f64]) -> f64 {
    xs.iter().sum::<f64>() / xs.len() as f64
}

/// Whether one run's intervals are widened by the rows' spread (`judge`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RowSpread {
    /// Widened: most rows are expected not to change (two builds of one program, `ab`).
    Widen,
    /// Not widened: a change may move most rows by different amounts (another allocator, a
    /// build lever), so their spread is not noise; one run's intervals then hold no
    /// process-to-process variation (`--runs` 3 or more measures it).
    Keep,
}

/// Decides every row of the runs' base files (rows only the new program has are listed as
/// not compared). `threshold` is a fraction (0.05 for 5%).
pub fn ab(runs: &[Run], threshold: f64) -> AbComparison {
    ab_with(runs, threshold, RowSpread::Widen)
}

/// [`ab`], saying whether one run's intervals are widened by the rows' spread.
pub fn ab_with(runs: &[Run], threshold: f64, spread: RowSpread) -> AbComparison {
    let is_busy = |r: &Run| r.other_cpu.is_some_and(|o| o.busy());
    // Judge time on the clean runs; when every run was busy, on none (allocation on all).
    let clean: Vec<bool> = runs.iter().map(|r| !is_busy(r)).collect();
    let judged_runs = clean.iter().filter(|c| **c).count();
    let mut out = AbComparison {
        threshold,
        runs: runs.len(),
        subject: AbSubject::Programs,
        lockstep: !runs.is_empty() && runs.iter().all(|r| r.lockstep),
        other_cpu: runs.iter().filter_map(|r| r.other_cpu).max_by(|a, b| a.share.total_cmp(&b.share)),
        cpu: None,
        rows: Vec::new(),
        not_compared: Vec::new(),
        allow_missing: false,
        set_aside: if judged_runs > 0 {
            runs.iter().filter(|r| is_busy(r)).filter_map(|r| r.other_cpu).collect()
        } else {
            Vec::new()
        },
        row_confidence: PAIRED_CONFIDENCE,
        process_spread: None,
        build_difference: None,
        confirmation_runs: None,
    };
    let Some(first) = runs.first() else { return out };
    out.build_difference = crate::build_difference::note(&first.base.machine, &first.new.machine, "programs", ["base", "new"]);
    let mut pending: Vec<Pending> = Vec::new();
    let skip = |kind: ExperimentKind, table: &str, method: Option<&str>, reason: Reason, lost: usize| NotCompared {
        experiment: kind,
        table: table.to_string(),
        method: method.map(String::from),
        reason,
        lost,
    };
    for exp in &first.base.experiments {
        let (kind, table) = (exp.kind, exp.table.as_str());
        let params_differ = runs.iter().find_map(|r| {
            let b = r.base.experiments.iter().find(|e| e.kind == kind && e.table == table)?;
            let n = r.new.experiments.iter().find(|e| e.kind == kind && e.table == table)?;
            let p = |e: &jsoncost_engine::MeasuredTable| serde_json::Value::Object(e.params.clone()).to_string();
            (b.params != n.params).then(|| Reason::ParamsDiffer { base: p(b), new: p(n) })
        });
        if let Some(reason) = params_differ {
            out.not_compared.push(skip(kind, table, None, reason, 0));
            continue;
        }
        for row in &exp.rows {
            let method = row.method.as_str();
            let (mut base_ns, mut new_ns, mut base_alloc, mut new_alloc) = (vec![], vec![], vec![], vec![]);
            // Each lockstep run's own ratio (from its rounds), for the between-runs interval.
            let mut run_ratios = Vec::new();
            let mut first_reason = None;
            // A round in which the row was ok in base and failed or is missing in new.
            let mut lost = None;
            for (r, &judged) in runs.iter().zip(&clean) {
                let pair = (find_row(&r.base, kind, table, method), find_row(&r.new, kind, table, method));
                let reason = match pair {
                    (Some(_), None) => Some(Reason::OnlyInBase),
                    (None, _) => Some(Reason::Failed {
                        side: Side::Base,
                        message: "missing from one round's base results".into(),
                    }),
                    (Some(b), Some(n)) => match (b.is_ok(), n.is_ok(), b.mean_ns, n.mean_ns) {
                        (true, true, Some(bm), Some(nm)) if bm > 0.0 && nm > 0.0 => {
                            // A busy run's time is set aside (while some run was clean); its allocation counts.
                            if judged || judged_runs == 0 {
                                let pairs = pairs_of(r, b, n, bm, nm);
                                let (xs, ys): (Vec<f64>, Vec<f64>) = pairs.iter().copied().unzip();
                                if pairs.len() >= 2 {
                                    run_ratios.extend(paired::log_ratio(&xs, &ys, PAIRED_CONFIDENCE).map(|i| i.estimate));
                                }
                                base_ns.extend(xs);
                                new_ns.extend(ys);
                            }
                            base_alloc.extend(b.allocated_bytes);
                            new_alloc.extend(n.allocated_bytes);
                            None
                        }
                        (false, _, _, _) | (_, false, _, _) => Some(Reason::Failed {
                            side: match (b.is_ok(), n.is_ok()) {
                                (false, false) => Side::Both,
                                (false, true) => Side::Base,
                                _ => Side::New,
                            },
                            message: if n.is_ok() { &b.error_message } else { &n.error_message }
                                .clone()
                                .unwrap_or_default(),
                        }),
                        (_, _, None, _) => Some(Reason::NoTiming { side: Side::Base }),
                        _ => Some(Reason::NoTiming { side: Side::New }),
                    },
                };
                let base_ok = pair.0.is_some_and(Row::is_ok);
                if base_ok && lost.is_none() && matches!(reason, Some(Reason::OnlyInBase | Reason::Failed { side: Side::New, .. })) {
                    lost = reason.clone();
                }
                if first_reason.is_none() {
                    first_reason = reason;
                }
            }
            if let Some(reason) = lost {
                out.not_compared.push(skip(kind, table, Some(method), reason, 1));
                continue;
            }
            // Several lockstep runs: the interval comes from the runs' own ratios, so it holds
            // what differs from one process to the next (measured: up to ±10% on rows that
            // build large DOMs, the same binary on both sides, pinned and without address
            // randomisation; physical page placement is the likely cause and nothing a program
            // controls). One run's rounds cannot show that variation.
            let timed_runs = if judged_runs > 0 { judged_runs } else { runs.len() };
            let between_runs = run_ratios.len() >= 2 && run_ratios.len() == timed_runs;
            let ones = vec![1.0; if between_runs { run_ratios.len() } else { 0 }];
            let (pair_base, pair_new) = if between_runs {
                (ones, run_ratios)
            } else {
                (base_ns.clone(), new_ns.clone())
            };
            if paired::log_ratio(&pair_base, &pair_new, PAIRED_CONFIDENCE).is_none() {
                let reason = first_reason.unwrap_or(Reason::TooFewPairs { pairs: base_ns.len() });
                out.not_compared.push(skip(kind, table, Some(method), reason, 0));
                continue;
            }
            let logs = paired::log_ratios(&pair_base, &pair_new).unwrap_or_default();
            let (base_allocated_bytes, new_allocated_bytes) = (
                (!base_alloc.is_empty()).then(|| mean(&base_alloc)),
                (!new_alloc.is_empty()).then(|| mean(&new_alloc)),
            );
            let allocation_grew = crate::compare::allocation_grew(kind, base_allocated_bytes, new_allocated_bytes);
            let instructions = crate::compare::CountChange::of(
                find_row(&first.base, kind, table, method).and_then(|r| r.counts.as_ref()),
                find_row(&first.new, kind, table, method).and_then(|r| r.counts.as_ref()),
                crate::compare::DEFAULT_COUNT_THRESHOLD,
            );
            pending.push(Pending {
                pairs: (pair_base, pair_new),
                row: AbRow {
                    experiment: kind,
                    table: table.to_string(),
                    method: method.to_string(),
                    base_mean_ns: mean(&base_ns),
                    new_mean_ns: mean(&new_ns),
                    verdict: AbVerdict::NoChange,
                    ratio: Interval {
                        estimate: 1.0,
                        low: 1.0,
                        high: 1.0,
                        n: 0,
                    },
                    signed_rank_p: paired::signed_rank(&logs).map(|s| s.p),
                    base_allocated_bytes,
                    new_allocated_bytes,
                    allocation_grew,
                    instructions,
                    confirmation: None,
                },
            });
        }
    }
    judge(&mut out, pending, judged_runs == 1 && spread == RowSpread::Widen);
    // Tables only the new program measured.
    for exp in &first.new.experiments {
        if !first.base.experiments.iter().any(|e| e.kind == exp.kind && e.table == exp.table) {
            out.not_compared.push(skip(exp.kind, &exp.table, None, Reason::OnlyInNew, 0));
        }
    }
    out
}

/// A row paired and not yet judged: the family's size sets every row's confidence.
struct Pending {
    /// The pairs its interval comes from: rounds or means (base, new), or runs' ratios (1, r).
    pairs: (Vec<f64>, Vec<f64>),
    row: AbRow,
}

/// Fewest rows whose spread stands for one run's process-to-process variation.
pub const PROCESS_SPREAD_MIN_ROWS: usize = 10;

/// Each row's interval at the family's confidence (Šidák over the rows), widened with one run
/// by the rows' spread, and its verdict. Why: one run's interval comes from its rounds, which
/// share one pair of processes, and two processes of one binary differ steadily on some rows
/// (memory placement: measured up to 9% on rows building large DOMs). Over a hundred rows, a
/// 99% interval each calls about one row changed by chance, and a process-level difference
/// calls more (the same binary against itself: "1 slower, 8 faster", 7 of them one table).
/// Most rows of a comparison do not change, so the spread of their log ratios about the
/// median (1.4826 × MAD) estimates that variation; it is added in quadrature at the family's
/// quantile. Several runs measure it directly (each row's runs' ratios).
fn judge(out: &mut AbComparison, pending: Vec<Pending>, one_run: bool) {
    let m = pending.len().max(1);
    out.row_confidence = PAIRED_CONFIDENCE.powf(1.0 / m as f64);
    let intervals: Vec<Interval> = pending
        .iter()
        .map(|p| paired::log_ratio(&p.pairs.0, &p.pairs.1, out.row_confidence).expect("checked with the same pairs"))
        .collect();
    if one_run && intervals.len() >= PROCESS_SPREAD_MIN_ROWS {
        let mut logs: Vec<f64> = intervals.iter().map(|i| i.estimate.ln()).collect();
        logs.sort_by(f64::total_cmp);
        let median = jsoncost_engine::stats::percentile_sorted(&logs, 0.5);
        let mut deviations: Vec<f64> = logs.iter().map(|l| (l - median).abs()).collect();
        deviations.sort_by(f64::total_cmp);
        out.process_spread = Some(1.4826 * jsoncost_engine::stats::percentile_sorted(&deviations, 0.5));
    }
    let z = jsoncost_engine::stats::normal_quantile_two_sided(out.row_confidence);
    let busy = out.busy().is_some();
    for (p, mut ratio) in pending.into_iter().zip(intervals) {
        if let Some(spread) = out.process_spread {
            let centre = ratio.estimate.ln();
            let half = (ratio.high.ln() - centre).max(centre - ratio.low.ln());
            let widened = (half.powi(2) + (z * spread).powi(2)).sqrt();
            ratio.low = (centre - widened).exp();
            ratio.high = (centre + widened).exp();
        }
        let mut row = p.row;
        row.verdict = if busy { AbVerdict::Busy } else { verdict(&ratio, out.threshold) };
        row.ratio = ratio;
        out.rows.push(row);
    }
}

const COLUMNS: [(&str, Align); 11] = [
    ("Table", Align::Left),
    ("Method", Align::Left),
    ("Base", Align::Right),
    ("New", Align::Right),
    ("Ratio", Align::Right),
    ("99% interval", Align::Right),
    ("p (signed-rank)", Align::Right),
    ("Pairs", Align::Right),
    ("Verdict", Align::Left),
    ("Alloc change", Align::Right),
    ("Gate", Align::Left),
];

/// [`COLUMNS`] with both programs' instructions per operation beside the time, when counted.
const COUNTED_COLUMNS: [(&str, Align); 14] = [
    ("Table", Align::Left),
    ("Method", Align::Left),
    ("Base", Align::Right),
    ("New", Align::Right),
    ("Ratio", Align::Right),
    ("99% interval", Align::Right),
    ("p (signed-rank)", Align::Right),
    ("Pairs", Align::Right),
    ("Verdict", Align::Left),
    ("Alloc change", Align::Right),
    ("Instr/op base", Align::Right),
    ("Instr/op new", Align::Right),
    ("Instr change", Align::Right),
    ("Gate", Align::Left),
];

fn cells(r: &AbRow) -> Vec<String> {
    let alloc = match (r.base_allocated_bytes, r.new_allocated_bytes) {
        (Some(b), Some(n)) => {
            let d = n - b;
            if d.abs() < ALLOCATION_TOLERANCE_BYTES {
                "0 B".to_string()
            } else {
                format!("{}{}", if d > 0.0 { "+" } else { "-" }, units::bytes(d.abs()))
            }
        }
        _ => units::ABSENT.to_string(),
    };
    vec![
        format!("{} {}", r.experiment, r.table),
        r.method.clone(),
        units::time(r.base_mean_ns),
        units::time(r.new_mean_ns),
        format!("{:.3}", r.ratio.estimate),
        format!("{:.3}–{:.3}", r.ratio.low, r.ratio.high),
        units::opt(r.signed_rank_p, |p| format!("{p:.3}")),
        r.ratio.n.to_string(),
        r.verdict.to_string(),
        alloc,
        gate(r),
    ]
}

/// [`cells`] with the instruction columns before the gate.
fn counted_cells(r: &AbRow) -> Vec<String> {
    let mut cells = cells(r);
    let gate = cells.pop().unwrap_or_default();
    cells.extend(crate::compare::render::count_cells(r.instructions));
    cells.push(gate);
    cells
}

/// The gate's outcome for one row: `ok`, or `FAIL` and why.
pub(crate) fn gate(r: &AbRow) -> String {
    let why: Vec<&str> = [
        (r.verdict == AbVerdict::Slower, "time"),
        (r.allocation_grew, "allocation"),
        (r.instructions.is_some_and(|c| c.grew), "instructions"),
    ]
    .into_iter()
    .filter_map(|(failed, what)| failed.then_some(what))
    .collect();
    if why.is_empty() {
        "ok".to_string()
    } else {
        format!("FAIL ({})", why.join(", "))
    }
}

impl AbComparison {
    /// Which runs' time was set aside, and why: "run 3 set aside: other programs used the CPU
    /// the two ran on for 10.8% of their time, over the 5.0% limit; judged on the 4 clean runs".
    pub fn set_aside_note(&self) -> String {
        let runs: Vec<String> = self.set_aside.iter().map(|o| o.run.to_string()).collect();
        let worst = self.set_aside.iter().map(|o| o.share).fold(0.0, f64::max);
        let limit = self.set_aside.first().map_or(0.0, |o| o.limit);
        format!(
            "run{} {} set aside: other programs used the CPU the two ran on for up to {} of their time, over the {} limit; \
             time judged on the {} clean run{}",
            if runs.len() == 1 { "" } else { "s" },
            runs.join(", "),
            units::percent(worst),
            units::percent(limit),
            self.runs - self.set_aside.len(),
            if self.runs - self.set_aside.len() == 1 { "" } else { "s" }
        )
    }

    /// The busiest run's other work, when it is past its limit and no run was clean (then no
    /// row's time is judged).
    pub fn busy(&self) -> Option<&OtherCpu> {
        self.other_cpu.as_ref().filter(|w| w.busy() && self.set_aside.is_empty())
    }

    /// One sentence: the gate's outcome, its rule and what was compared.
    pub fn summary(&self) -> String {
        let count = |v| self.rows.iter().filter(|r| r.verdict == v).count();
        let pinned = self.cpu.map(|c| format!(" on CPU {c}")).unwrap_or_default();
        let pairing = if let AbSubject::Servers { rounds } = self.subject {
            format!("paired slice by slice over {rounds} rounds of both servers, each round in a shuffled order{pinned}")
        } else if self.lockstep && self.runs == 1 {
            format!(
                "in lockstep{pinned}, paired round by round over 1 run of both programs (an interval from one run's rounds holds no process-to-process variation: --runs 5 for rows that allocate much)"
            )
        } else if self.lockstep {
            format!("in lockstep{pinned}, each row's interval from the ratios of its {} runs", self.runs)
        } else {
            format!("paired over {} ABBA runs{pinned}", self.runs)
        };
        let waited = match &self.other_cpu {
            Some(other) if !other.busy() => format!(
                " (other programs using their CPU for at most {} of their time)",
                units::percent(other.share)
            ),
            _ if !self.set_aside.is_empty() => format!(" ({})", self.set_aside_note()),
            _ => String::new(),
        };
        let spread = self.process_spread.map_or(String::new(), |s| {
            format!(
                ", widened by the rows' spread (±{}) for what one run's processes differ",
                units::percent(s.exp_m1())
            )
        });
        let settings = format!(
            "{pairing}{waited}, threshold {}: a row fails when its interval of new/base lies above 1 + {} \
             ({} for the {} rows together: {} each{spread})",
            units::percent(self.threshold),
            units::percent(self.threshold / 2.0),
            confidence(PAIRED_CONFIDENCE),
            self.rows.len(),
            confidence(self.row_confidence),
        );
        let mut tally = format!(
            "{} compared: {} slower, {} faster, {} small change, {} no change, {} inconclusive; {} not compared",
            self.rows.len(),
            count(AbVerdict::Slower),
            count(AbVerdict::Faster),
            count(AbVerdict::SmallChange),
            count(AbVerdict::NoChange),
            count(AbVerdict::Inconclusive),
            self.not_compared.len()
        );
        let unclear: Vec<String> = self
            .rows
            .iter()
            .filter(|r| r.verdict == AbVerdict::Inconclusive)
            .map(|r| format!("{} {} {}", r.experiment, r.table, r.method))
            .collect();
        if !unclear.is_empty() {
            tally = format!("{tally}; inconclusive (give more --rounds): {}", unclear.join("; "));
        }
        if let Some(note) = self.confirmation_note() {
            tally = format!("{tally}; {note}");
        }
        let mut regressions: Vec<String> = self
            .regressions()
            .map(|r| format!("{} {} {} ({})", r.experiment, r.table, r.method, gate(r)))
            .collect();
        let lost: Vec<String> = self
            .not_compared
            .iter()
            .filter(|n| n.lost > 0)
            .map(|n| format!("{} {} {} ({})", n.experiment, n.table, n.method.as_deref().unwrap_or(""), n.reason))
            .collect();
        let tally = match (lost.is_empty(), self.allow_missing) {
            (true, _) => tally,
            (false, true) => format!("{tally}; allowed by --allow-missing: {}", lost.join("; ")),
            (false, false) => {
                regressions.extend(lost);
                tally
            }
        };
        if let Some(busy) = self.busy() {
            let verdict = if regressions.is_empty() {
                "No allocation regression".to_string()
            } else {
                format!(
                    "Regression in {} of {}: {}",
                    regressions.len(),
                    self.rows.len() + self.lost_rows(),
                    regressions.join("; ")
                )
            };
            format!("{verdict}; time not judged ({settings}): {}. {tally}.", busy_note(busy))
        } else if regressions.is_empty() {
            format!("No regression ({settings}). {tally}.")
        } else {
            format!(
                "Regression in {} of {} ({settings}): {}. {tally}.",
                regressions.len(),
                self.rows.len() + self.lost_rows(),
                regressions.join("; ")
            )
        }
    }

    /// The verdicts every format lays out.
    pub(crate) fn verdicts(&self) -> Verdicts<'static> {
        Verdicts {
            command: "ab",
            columns: if self.rows.iter().any(|r| r.instructions.is_some()) {
                &COUNTED_COLUMNS
            } else {
                &COLUMNS
            },
            rows: if self.rows.iter().any(|r| r.instructions.is_some()) {
                self.rows.iter().map(counted_cells).collect()
            } else {
                self.rows.iter().map(cells).collect()
            },
            not_compared: self
                .not_compared
                .iter()
                .map(|n| match &n.method {
                    Some(m) => format!("{} {} {}: {}", n.experiment, n.table, m, n.reason),
                    None => format!("{} {}: {}", n.experiment, n.table, n.reason),
                })
                .collect(),
            summary: self.summary(),
            regression: self.has_regression(),
            note: self.build_difference.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use jsoncost_engine::{Machine, MeasuredTable};

    fn results(rows: &[(&str, f64)]) -> Results {
        let mut e = MeasuredTable::new(ExperimentKind::Micro, "data/deserialize");
        for (m, ns) in rows {
            let mut r = Row::new(*m);
            r.mean_ns = Some(*ns);
            r.allocated_bytes = Some(40.0);
            e.rows.push(r);
        }
        Results {
            schema_version: 1,
            jsoncost_version: "0.1.0".into(),
            machine: Machine {
                cpu: "test".into(),
                cores: 2,
                os: "linux".into(),
                rustc: "1.95.0".into(),
                target_features: vec![],
                ..Machine::default()
            },
            started_at: "2026-12-01T00:00:00Z".into(),
            quick: false,
            interrupted: false,
            rates: Default::default(),
            experiments: vec![e],
            allocators: Vec::new(),
        }
    }

    /// Runs (not in lockstep) between which the machine drifts by up to ±15%, alike for both
    /// sides of a run; `slow` is new's extra cost on row "b".
    fn rounds(slow: f64) -> Vec<Run> {
        let drift = [1.0, 1.15, 0.9, 1.05, 0.95, 1.1, 0.85, 1.0, 1.12, 0.93];
        let wobble = [1.0, 1.004, 0.997, 1.002, 0.999, 1.003, 0.998, 1.001, 0.996, 1.0];
        drift
            .iter()
            .zip(wobble)
            .map(|(d, w)| Run {
                base: results(&[("a", 100.0 * d), ("b", 200.0 * d)]),
                new: results(&[("a", 100.0 * d * w), ("b", 200.0 * d * w * slow)]),
                lockstep: false,
                other_cpu: None,
            })
            .collect()
    }

    #[test]
    fn a_five_percent_slowdown_under_drift_is_flagged_on_its_row_only() {
        let c = ab(&rounds(1.05), 0.05);
        assert!(c.has_regression());
        let flagged: Vec<&str> = c.regressions().map(|r| r.method.as_str()).collect();
        assert_eq!(flagged, ["b"]);
        let b = c.rows.iter().find(|r| r.method == "b").unwrap();
        assert!((b.ratio.estimate - 1.05).abs() < 0.002, "{:?}", b.ratio);
        assert_eq!(b.ratio.n, 10);
        // All ten log ratios are above 0: the exact signed-rank p is 2/1024.
        assert_eq!(b.signed_rank_p, Some(2.0 / 1024.0));
        assert_eq!(c.rows.iter().find(|r| r.method == "a").unwrap().verdict, AbVerdict::NoChange);
        assert!(
            crate::Format::Markdown
                .exporter()
                .ab(&c)
                .starts_with("### jsoncost ab: **Regression**")
        );
    }

    #[test]
    fn the_same_build_under_the_same_drift_passes() {
        let c = ab(&rounds(1.0), 0.05);
        assert!(!c.has_regression(), "{}", c.summary());
        assert!(c.summary().starts_with("No regression (paired over 10 ABBA runs, threshold 5.0%"));
    }

    #[test]
    fn the_verdict_needs_a_real_change_of_half_the_threshold() {
        let i = |estimate, low, high| Interval {
            estimate,
            low,
            high,
            n: 10,
        };
        assert_eq!(verdict(&i(1.05, 1.03, 1.07), 0.05), AbVerdict::Slower);
        assert_eq!(verdict(&i(1.03, 1.01, 1.05), 0.05), AbVerdict::Inconclusive);
        assert_eq!(verdict(&i(1.02, 1.01, 1.03), 0.05), AbVerdict::SmallChange);
        assert_eq!(verdict(&i(1.06, 0.99, 1.13), 0.05), AbVerdict::Inconclusive);
        assert_eq!(verdict(&i(1.01, 0.99, 1.03), 0.05), AbVerdict::NoChange);
        assert_eq!(verdict(&i(0.95, 0.93, 0.97), 0.05), AbVerdict::Faster);
        assert_eq!(verdict(&i(0.97, 0.95, 0.99), 0.05), AbVerdict::Inconclusive);
    }

    /// One lockstep run of 30 rounds in which the machine switches between two speeds 1.8×
    /// apart every few rounds (alike for both sides of a round), with a ±0.5% wobble of new's
    /// own; row "b" of new costs `slow` times more; row "seq" was timed sequentially.
    fn lockstep_run(slow: f64) -> Run {
        let speed = |k: usize| if (k / 4) % 2 == 1 { 1.8 } else { 1.0 };
        let wobble = |k: usize| 1.0 + 0.005 * ((k * 7 % 5) as f64 - 2.0) / 2.0;
        let side = |new: bool| {
            let mut r = results(&[("a", 100.0), ("b", 200.0), ("seq", 300.0)]);
            for (row, cost) in r.experiments[0].rows.iter_mut().zip([100.0, 200.0, 0.0]) {
                if cost == 0.0 {
                    continue;
                }
                row.rounds_ns = (0..30)
                    .map(|k| {
                        let own = if new {
                            wobble(k) * if row.method == "b" { slow } else { 1.0 }
                        } else {
                            1.0
                        };
                        cost * speed(k) * own
                    })
                    .collect();
                row.mean_ns = Some(mean(&row.rounds_ns));
            }
            r
        };
        Run {
            base: side(false),
            new: side(true),
            lockstep: true,
            other_cpu: Some(OtherCpu {
                run: 1,
                share: 0.006,
                limit: 0.05,
            }),
        }
    }

    #[test]
    fn a_row_flagged_by_one_pair_of_processes_counts_only_when_a_second_pair_agrees() {
        let first = ab(&[lockstep_run(1.3)], 0.05);
        assert_eq!(first.regressions().map(|r| r.method.as_str()).collect::<Vec<_>>(), ["b"]);
        assert!(first.needs_confirmation());
        // Several runs hold the variation between processes: no second pair.
        assert!(!ab(&[lockstep_run(1.3), lockstep_run(1.3), lockstep_run(1.3)], 0.05).needs_confirmation());
        assert!(!ab(&[lockstep_run(1.0)], 0.05).needs_confirmation());

        // The second pair does not see it: what the first pair differed by, not the build.
        let c = first.clone().confirm(&ab(&[lockstep_run(1.0)], 0.05));
        assert!(!c.has_regression(), "{}", c.summary());
        assert!(!c.needs_confirmation());
        let b = c.rows.iter().find(|r| r.method == "b").unwrap();
        assert_eq!(b.verdict, AbVerdict::Unconfirmed);
        assert!((b.confirmation.unwrap().estimate - 1.0).abs() < 0.01, "{:?}", b.confirmation);
        assert_eq!(c.confirmation_runs, Some(1));
        assert!(
            c.summary().ends_with(
                "; 1 row called slower or faster measured again by a second pair of processes (1 run): \
                 0 confirmed, not confirmed (what one pair of processes differs by): micro data/deserialize b (1.300, then 1.000)."
            ),
            "{}",
            c.summary()
        );
        assert!(crate::Format::Table.exporter().ab(&c).contains("not confirmed"));
        assert!(crate::Format::Json.exporter().ab(&c).contains("\"verdict\": \"unconfirmed\""));

        // The second pair sees the change without being decisive alone: confirmed.
        let mut noisy = ab(&[lockstep_run(1.3)], 0.05);
        for r in &mut noisy.rows {
            r.ratio = Interval {
                estimate: 1.033,
                low: 1.01,
                high: 1.06,
                n: 30,
            };
            r.verdict = verdict(&r.ratio, 0.05);
        }
        assert_eq!(noisy.rows[1].verdict, AbVerdict::Inconclusive);
        let c = first.clone().confirm(&noisy);
        assert_eq!(c.regressions().map(|r| r.method.as_str()).collect::<Vec<_>>(), ["b"]);
        // Under half the threshold it does not.
        for r in &mut noisy.rows {
            r.ratio.estimate = 1.02;
        }
        assert!(!first.clone().confirm(&noisy).has_regression());

        // It repeats: a change of the build.
        let c = first.clone().confirm(&ab(&[lockstep_run(1.3)], 0.05));
        assert_eq!(c.regressions().map(|r| r.method.as_str()).collect::<Vec<_>>(), ["b"]);
        assert!(c.summary().contains("(1 run): 1 confirmed."), "{}", c.summary());

        // The second pair's time could not be judged: neither confirmed nor cleared.
        let mut busy = lockstep_run(1.3);
        busy.other_cpu = Some(OtherCpu {
            run: 2,
            share: 0.4,
            limit: 0.05,
        });
        let c = first.confirm(&ab(&[busy], 0.05));
        assert_eq!(c.rows.iter().find(|r| r.method == "b").unwrap().verdict, AbVerdict::Busy);
        assert!(c.busy().is_some_and(|b| b.run == 2));
        assert!(!c.has_regression());
    }

    #[test]
    fn a_run_beside_other_work_past_the_limit_judges_no_time_but_still_allocation() {
        let mut busy = lockstep_run(1.3);
        busy.other_cpu = Some(OtherCpu {
            run: 1,
            share: 1.07,
            limit: 0.05,
        });
        let mut more_alloc = busy.clone();
        more_alloc.new.experiments[0].rows[0].allocated_bytes = Some(4096.0);
        let mut also_busy = busy.clone();
        also_busy.other_cpu = Some(OtherCpu {
            run: 2,
            share: 0.5,
            limit: 0.05,
        });
        let c = ab(&[busy.clone(), also_busy], 0.05);
        assert_eq!(
            c.other_cpu,
            Some(OtherCpu {
                run: 1,
                share: 1.07,
                limit: 0.05,
            })
        );
        assert!(c.rows.iter().all(|r| r.verdict == AbVerdict::Busy), "{:?}", c.rows);
        assert!(!c.has_regression());
        assert_eq!(
            c.summary().split(". ").next().unwrap(),
            "No allocation regression; time not judged (in lockstep, each row's interval from the ratios of its 2 runs, threshold 5.0%: \
             a row fails when its interval of new/base lies above 1 + 2.5% (99% for the 3 rows together: 99.7% each)): the machine \
             was busy: in run 1 other programs used the \
             CPU the two ran on for 107.0% of the time the two did, over the 5.0% a pairing holds to (another program's work lands on \
             one side of a pair and not on the other, and does not even out); run again when the machine is quiet"
        );
        assert!(crate::Format::Table.exporter().ab(&c).contains("busy: not judged"));
        // Allocation is exact, whatever the machine did.
        let c = ab(&[more_alloc], 0.05);
        assert_eq!(c.regressions().map(|r| r.method.as_str()).collect::<Vec<_>>(), ["a"]);
        assert!(
            c.summary()
                .starts_with("Regression in 1 of 2: micro data/deserialize a (FAIL (allocation)); time not judged"),
            "{}",
            c.summary()
        );
        // Under the limit on both sides, rows are judged as ever; the limit is the run's own.
        assert!(ab(&[lockstep_run(1.3)], 0.05).busy().is_none());
        let mut waited_within_a_higher_limit = lockstep_run(1.3);
        waited_within_a_higher_limit.other_cpu = Some(OtherCpu {
            run: 1,
            share: 1.07,
            limit: 2.0,
        });
        let c = ab(&[waited_within_a_higher_limit], 0.05);
        assert!(c.busy().is_none());
        assert_eq!(c.regressions().map(|r| r.method.as_str()).collect::<Vec<_>>(), ["b"]);
    }

    #[test]
    fn in_lockstep_rows_pair_round_by_round_through_speed_switches() {
        let c = ab(&[lockstep_run(1.05)], 0.05);
        assert!(c.lockstep);
        let flagged: Vec<&str> = c.regressions().map(|r| r.method.as_str()).collect();
        assert_eq!(flagged, ["b"], "{}", c.summary());
        let b = c.rows.iter().find(|r| r.method == "b").unwrap();
        assert_eq!(b.ratio.n, 30);
        assert!((b.ratio.estimate - 1.05).abs() < 0.003, "{:?}", b.ratio);
        let same = ab(&[lockstep_run(1.0)], 0.05);
        assert!(!same.has_regression(), "{}", same.summary());
        assert!(
            same.summary()
                .starts_with("No regression (in lockstep, paired round by round over 1 run of both programs")
        );
        // The sequential row has one pair per run: not compared, and it says what to do.
        let seq = same.not_compared.iter().find(|n| n.method.as_deref() == Some("seq")).unwrap();
        assert_eq!(seq.reason, Reason::TooFewPairs { pairs: 1 });
        assert!(seq.reason.to_string().contains("--runs 5"));
        // Several lockstep runs: the interval is the runs' (n = runs), so a run-to-run
        // difference the rounds of one run cannot show widens it.
        let runs: Vec<Run> = (0..5).map(|_| lockstep_run(1.05)).collect();
        let c = ab(&runs, 0.05);
        let b = c.rows.iter().find(|r| r.method == "b").unwrap();
        assert_eq!(b.ratio.n, 5);
        assert!((b.ratio.estimate - 1.05).abs() < 0.003, "{:?}", b.ratio);
        assert!(c.summary().contains("each row's interval from the ratios of its 5 runs"));
        let mut shifted: Vec<Run> = (0..5).map(|_| lockstep_run(1.0)).collect();
        for (run, shift) in shifted.iter_mut().zip([1.06, 0.95, 1.04, 0.97, 1.08]) {
            for row in &mut run.new.experiments[0].rows {
                row.rounds_ns.iter_mut().for_each(|x| *x *= shift);
            }
        }
        let one = ab(&shifted[..1], 0.05);
        assert_eq!(one.rows.iter().find(|r| r.method == "a").unwrap().verdict, AbVerdict::Slower);
        let five = ab(&shifted, 0.05);
        assert_eq!(five.rows.iter().find(|r| r.method == "a").unwrap().verdict, AbVerdict::NoChange);
        // Without the lockstep the same files pair only by their means: one pair.
        let mut unpaired = lockstep_run(1.05);
        unpaired.lockstep = false;
        assert!(ab(&[unpaired], 0.05).rows.is_empty());
    }

    #[test]
    fn a_busy_run_is_set_aside_and_the_clean_runs_are_judged() {
        let mut runs: Vec<Run> = (0..5).map(|_| lockstep_run(1.05)).collect();
        for (k, run) in runs.iter_mut().enumerate() {
            run.other_cpu = Some(OtherCpu {
                run: k + 1,
                share: if k == 2 { 0.108 } else { 0.004 },
                limit: 0.05,
            });
        }
        // The busy run's rounds are made wild: were they judged, row "a" would move.
        for row in &mut runs[2].new.experiments[0].rows {
            row.rounds_ns.iter_mut().for_each(|x| *x *= 1.4);
        }
        let c = ab(&runs, 0.05);
        assert!(c.busy().is_none());
        assert_eq!(c.set_aside.iter().map(|o| o.run).collect::<Vec<_>>(), [3]);
        let verdicts: Vec<(&str, AbVerdict, usize)> = c.rows.iter().map(|r| (r.method.as_str(), r.verdict, r.ratio.n)).collect();
        // "a" differs by new's steady wobble (under 0.5%), "seq" pairs by its runs' means.
        assert_eq!(
            verdicts,
            [
                ("a", AbVerdict::SmallChange, 4),
                ("b", AbVerdict::Slower, 4),
                ("seq", AbVerdict::NoChange, 4)
            ]
        );
        assert_eq!(
            c.summary().split(". ").next().unwrap(),
            "Regression in 1 of 3 (in lockstep, each row's interval from the ratios of its 5 runs (run 3 set aside: other programs \
             used the CPU the two ran on for up to 10.8% of their time, over the 5.0% limit; time judged on the 4 clean runs), \
             threshold 5.0%: a row fails when its interval of new/base lies above 1 + 2.5% (99% for the 3 rows together: 99.7% \
             each)): micro data/deserialize b (FAIL (time))"
        );
    }

    /// One lockstep run of the same binary on both sides: 40 rows, each with a steady offset
    /// of its own between the two processes (up to ±3%, as memory placement gives) and a small
    /// round-to-round wobble; `slow` multiplies row 7 of new.
    fn same_binary(slow: f64) -> Run {
        let rows: Vec<(String, f64)> = (0..40).map(|i| (format!("r{i:02}"), 100.0 + i as f64)).collect();
        let names: Vec<(&str, f64)> = rows.iter().map(|(n, ns)| (n.as_str(), *ns)).collect();
        let side = |new: bool| {
            let mut r = results(&names);
            for (i, row) in r.experiments[0].rows.iter_mut().enumerate() {
                let offset = if new { 1.0 + 0.03 * (i as f64 * 1.7).sin() } else { 1.0 };
                let own = if new && i == 7 { slow } else { 1.0 };
                row.rounds_ns = (0..30)
                    .map(|k| row.mean_ns.unwrap() * offset * own * (1.0 + 0.003 * ((k * 7 + i) % 5) as f64 / 4.0))
                    .collect();
                row.mean_ns = Some(mean(&row.rounds_ns));
            }
            r
        };
        Run {
            base: side(false),
            new: side(true),
            lockstep: true,
            other_cpu: None,
        }
    }

    #[test]
    fn the_same_binary_in_one_run_is_not_called_changed_and_a_real_change_still_is() {
        let c = ab(&[same_binary(1.0)], 0.05);
        let count = |c: &AbComparison, v| c.rows.iter().filter(|r| r.verdict == v).count();
        assert_eq!(
            (count(&c, AbVerdict::Slower), count(&c, AbVerdict::Faster)),
            (0, 0),
            "{}",
            c.summary()
        );
        assert!(!c.has_regression());
        // Each row judged alone at 99% from its rounds, the steady offsets read as changes.
        let run = same_binary(1.0);
        let alone = run.base.experiments[0]
            .rows
            .iter()
            .zip(&run.new.experiments[0].rows)
            .filter(|(b, n)| {
                let i = paired::log_ratio(&b.rounds_ns, &n.rounds_ns, PAIRED_CONFIDENCE).unwrap();
                matches!(verdict(&i, 0.05), AbVerdict::Slower | AbVerdict::Faster)
            })
            .count();
        assert_eq!(alone, 15);
        assert_eq!(c.row_confidence, 0.99f64.powf(1.0 / 40.0));
        let spread = c.process_spread.unwrap();
        assert!((0.030..0.031).contains(&spread), "{spread}");
        assert!(
            c.summary()
                .contains("(99% for the 40 rows together: 99.97% each, widened by the rows' spread (±3.1%)"),
            "{}",
            c.summary()
        );
        // A 20% change of one row stands out of that spread.
        let slow = ab(&[same_binary(1.2)], 0.05);
        assert_eq!(slow.regressions().map(|r| r.method.as_str()).collect::<Vec<_>>(), ["r07"]);
    }

    #[test]
    fn confidences_show_the_digits_that_tell_them_apart() {
        assert_eq!(confidence(0.99), "99%");
        assert_eq!(confidence(0.99f64.sqrt()), "99.5%");
        assert_eq!(confidence(0.99f64.powf(1.0 / 118.0)), "99.991%");
    }

    #[test]
    fn a_row_missing_or_failed_in_rounds_is_listed_not_compared() {
        let mut rs = rounds(1.0);
        for r in &mut rs {
            r.new.experiments[0].rows[1] = Row::failed("b", "boom");
        }
        let c = ab(&rs, 0.05);
        assert_eq!(c.rows.len(), 1);
        assert_eq!(c.not_compared.len(), 1);
        assert_eq!(c.not_compared[0].reason.to_string(), "failed in new: boom");
        // A row ok in base that the new build fails is a regression, as in compare.
        assert!(c.has_regression());
        assert!(!c.allowing_missing(true).has_regression());
    }
}

//! What two runs' files can resolve: each row's change split into its table's shift and its own
//! change, and the spreads that say how large an own change must be to be a finding. All
//! figures are log changes (`ln(new / base)`), so a shift and an own change add up.

use std::collections::HashMap;
use std::fmt;

use jsoncost_engine::ExperimentKind;
use jsoncost_engine::stats::percentile_sorted;
use serde::Serialize;

use super::pairs::Pair;
use crate::row_figures::mean_interval;
use crate::units;

/// Rows an experiment needs in a comparison before their spread says what the runs resolve
/// (quartiles of fewer say little).
pub const SPREAD_MIN_ROWS: usize = 8;

/// What `compare` concludes for one row's time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CompareVerdict {
    /// Its own change lies wholly below `-threshold`, beyond what the files resolve.
    Faster,
    /// Its own change lies wholly above the threshold, beyond what the files resolve: a
    /// regression.
    Slower,
    /// Its own change lies wholly within the threshold.
    WithinNoise,
    /// The files resolve less than the threshold for this row: a change of the threshold's
    /// size could not be told from the runs' own spread.
    Unresolvable,
}

impl CompareVerdict {
    /// The machine-readable name used in JSON and CSV.
    pub fn key(self) -> &'static str {
        match self {
            CompareVerdict::Faster => "faster",
            CompareVerdict::Slower => "slower",
            CompareVerdict::WithinNoise => "within_noise",
            CompareVerdict::Unresolvable => "unresolvable",
        }
    }
}

impl fmt::Display for CompareVerdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            CompareVerdict::Faster => "faster",
            CompareVerdict::Slower => "slower",
            CompareVerdict::WithinNoise => "within noise",
            CompareVerdict::Unresolvable => "unresolvable",
        })
    }
}

/// Rows a table needs for its own median to be its shift; a smaller one takes its experiment's.
pub const SHIFT_MIN_ROWS: usize = 3;

/// Tukey's far-out fences: the rule the paired statistics drop hiccups by.
const FAR_OUT: f64 = 3.0;

/// What limits the smallest change the files resolve for a row.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Limit {
    /// The row's own intervals in the two runs, in quadrature.
    OwnIntervals,
    /// How far every row of its experiment moved beyond its table's shift between the runs
    /// (the far-out fences of those own changes: base against new, and against each more run
    /// of the base build).
    RunsSpread,
    /// How far this row moved beyond its table's shift in a run of the base build
    /// (`--base-run`).
    BaseRuns,
}

/// The smallest own change of a row the files can tell from the runs' noise.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Resolution {
    /// As a share of the row's time (0.08 = ±8%).
    pub half_width: f64,
    /// Which figure sets the resolution.
    pub limit: Limit,
}

impl Resolution {
    /// Why the files resolve no finer, e.g. "the runs' own spread is ±8.2%".
    pub fn why(&self) -> String {
        let pm = format!("±{}", units::percent(self.half_width));
        match self.limit {
            Limit::OwnIntervals => format!("its own intervals are {pm}"),
            Limit::RunsSpread => format!("the runs' own spread is {pm}"),
            Limit::BaseRuns => format!("runs of the base build differ by {pm} on it"),
        }
    }
}

/// A table that moved as a whole by more than the threshold: every row alike, which unpaired
/// runs cannot tell from the machine's drift.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TableShift {
    /// The table's experiment.
    pub experiment: ExperimentKind,
    /// The table.
    pub table: String,
    /// The median change of its rows.
    pub shift: f64,
    /// Rows the median is over.
    pub rows: usize,
    /// The most runs of the base build moved it (`--base-run`).
    pub base_runs_max: Option<f64>,
}

/// One row's change between two runs.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Move {
    pub kind: ExperimentKind,
    pub table: String,
    pub method: String,
    /// `ln(new / base)`.
    pub change: f64,
    /// Its table's shift (the median change of the table's rows, or of its experiment's).
    pub shift: f64,
    /// `change − shift`.
    pub own: f64,
    /// Half the interval of `own` from the rows' own intervals; `None` when a row has none.
    pub interval: Option<f64>,
}

/// Every matched row's change between two runs, with the tables' shifts.
pub(crate) struct Moves {
    pub rows: Vec<Move>,
    /// (experiment, table) → (shift, rows it is the median of).
    tables: HashMap<(ExperimentKind, String), (f64, usize)>,
}

fn median(values: &[f64]) -> f64 {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    percentile_sorted(&sorted, 0.5)
}

/// The larger distance of Tukey's far-out fences from 0 (log changes); `None` for fewer than
/// [`SPREAD_MIN_ROWS`] values.
fn far_out_fence(values: &[f64]) -> Option<f64> {
    if values.len() < SPREAD_MIN_ROWS {
        return None;
    }
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let (q1, q3) = (percentile_sorted(&sorted, 0.25), percentile_sorted(&sorted, 0.75));
    let iqr = q3 - q1;
    Some((q3 + FAR_OUT * iqr).max(-(q1 - FAR_OUT * iqr)).max(0.0))
}

/// Half the log interval of a row's own change from its two runs: the paired ratio intervals
/// where both tables were interleaved (drift shared by a round is out of them), else the 99.9%
/// intervals of the means, in quadrature.
fn own_interval(p: &Pair<'_>) -> Option<f64> {
    let paired = |r: &jsoncost_engine::Row| r.ratio_interval.filter(|i| i.low > 0.0).map(|i| (i.high / i.low).ln() / 2.0);
    if p.interleaved
        && let (Some(b), Some(n)) = (paired(p.base), paired(p.other))
    {
        return Some(b.hypot(n));
    }
    let relative = |r: &jsoncost_engine::Row, mean: f64| mean_interval(r).map(|(lo, hi)| (hi - lo) / 2.0 / mean);
    Some(relative(p.base, p.base_mean)?.hypot(relative(p.other, p.other_mean)?))
}

impl Moves {
    pub fn of(pairs: &[Pair<'_>]) -> Moves {
        let change = |p: &Pair<'_>| {
            if p.base_mean == p.other_mean {
                0.0
            } else {
                (p.other_mean / p.base_mean).ln()
            }
        };
        let changes: Vec<f64> = pairs.iter().map(change).collect();
        let of_kind = |kind: ExperimentKind| -> Vec<f64> {
            pairs
                .iter()
                .zip(&changes)
                .filter(|(p, _)| p.exp.kind == kind)
                .map(|(_, c)| *c)
                .collect()
        };
        let mut tables: HashMap<(ExperimentKind, String), (f64, usize)> = HashMap::new();
        for p in pairs {
            let key = (p.exp.kind, p.exp.table.clone());
            if tables.contains_key(&key) {
                continue;
            }
            let own: Vec<f64> = pairs
                .iter()
                .zip(&changes)
                .filter(|(q, _)| q.exp.kind == key.0 && q.exp.table == key.1)
                .map(|(_, c)| *c)
                .collect();
            let kind = of_kind(key.0);
            let shift = if own.len() >= SHIFT_MIN_ROWS {
                (median(&own), own.len())
            } else if kind.len() >= SHIFT_MIN_ROWS {
                (median(&kind), kind.len())
            } else {
                (0.0, 0)
            };
            tables.insert(key, shift);
        }
        let rows = pairs
            .iter()
            .zip(&changes)
            .map(|(p, &change)| {
                let (shift, _) = tables[&(p.exp.kind, p.exp.table.clone())];
                Move {
                    kind: p.exp.kind,
                    table: p.exp.table.clone(),
                    method: p.base.method.clone(),
                    change,
                    shift,
                    own: change - shift,
                    interval: own_interval(p),
                }
            })
            .collect();
        Moves { rows, tables }
    }
}

/// Decides rows from what the files resolve.
pub(crate) struct Judge {
    threshold: f64,
    /// Per experiment: the far-out fence of the rows' own changes, between the two runs and
    /// between the base and each more run of the base build, pooled.
    runs_spread: HashMap<ExperimentKind, f64>,
    /// Per row: the largest own change a base run showed.
    base_row: HashMap<(ExperimentKind, String, String), f64>,
    /// Per table: the largest shift a base run showed.
    base_table: HashMap<(ExperimentKind, String), f64>,
}

impl Judge {
    /// `moved`: base against new; `runs`: base against each more run of the base build.
    pub fn new(moved: &Moves, runs: &[Moves], threshold: f64) -> Judge {
        let mut pooled: HashMap<ExperimentKind, Vec<f64>> = HashMap::new();
        let mut base_row: HashMap<(ExperimentKind, String, String), f64> = HashMap::new();
        let mut base_table: HashMap<(ExperimentKind, String), f64> = HashMap::new();
        for m in &moved.rows {
            pooled.entry(m.kind).or_default().push(m.own);
        }
        for run in runs {
            for m in &run.rows {
                pooled.entry(m.kind).or_default().push(m.own);
                let row = base_row.entry((m.kind, m.table.clone(), m.method.clone())).or_default();
                *row = row.max(m.own.abs());
            }
            for (key, (shift, n)) in &run.tables {
                if *n > 0 {
                    let t = base_table.entry(key.clone()).or_default();
                    *t = t.max(shift.abs());
                }
            }
        }
        Judge {
            threshold: threshold.ln_1p(),
            runs_spread: pooled
                .into_iter()
                .filter_map(|(kind, own)| Some((kind, far_out_fence(&own)?)))
                .collect(),
            base_row,
            base_table,
        }
    }

    /// The row's verdict and what the files resolve for it.
    pub fn verdict(&self, m: &Move) -> (CompareVerdict, Option<Resolution>) {
        let limits = [
            (m.interval, Limit::OwnIntervals),
            (self.runs_spread.get(&m.kind).copied(), Limit::RunsSpread),
            (
                self.base_row.get(&(m.kind, m.table.clone(), m.method.clone())).copied(),
                Limit::BaseRuns,
            ),
        ];
        let widest = limits
            .into_iter()
            .filter_map(|(w, limit)| Some((w?, limit)))
            .max_by(|a, b| a.0.total_cmp(&b.0));
        // The own change with what the files cannot resolve either side of it: slower or
        // faster when all of it lies beyond the threshold, within noise when all of it lies
        // within, unresolvable when it straddles the threshold.
        let resolves = widest.map_or(0.0, |(w, _)| w);
        let verdict = if m.own - resolves > self.threshold {
            CompareVerdict::Slower
        } else if m.own + resolves < -self.threshold {
            CompareVerdict::Faster
        } else if m.own.abs() + resolves > self.threshold {
            CompareVerdict::Unresolvable
        } else {
            CompareVerdict::WithinNoise
        };
        let resolution = widest.map(|(w, limit)| Resolution {
            half_width: w.exp_m1(),
            limit,
        });
        (verdict, resolution)
    }

    /// The tables (of at least [`SHIFT_MIN_ROWS`] rows) that moved as a whole by more than
    /// the threshold, in the order their rows came.
    pub fn table_shifts(&self, moved: &Moves) -> Vec<TableShift> {
        let mut out: Vec<TableShift> = Vec::new();
        for m in &moved.rows {
            let key = (m.kind, m.table.clone());
            let (shift, rows) = moved.tables[&key];
            let own_rows = moved.rows.iter().filter(|r| r.kind == m.kind && r.table == m.table).count();
            if own_rows < SHIFT_MIN_ROWS
                || shift.abs() <= self.threshold
                || out.iter().any(|t| t.experiment == m.kind && t.table == m.table)
            {
                continue;
            }
            out.push(TableShift {
                experiment: m.kind,
                table: m.table.clone(),
                shift: shift.exp_m1(),
                rows,
                base_runs_max: self.base_table.get(&key).map(|s| s.exp_m1()),
            });
        }
        out
    }
}

impl TableShift {
    /// "micro data/deserialize moved +12.0% as a whole (the median of its 14 rows; ...)".
    pub fn note(&self) -> String {
        let sign = if self.shift > 0.0 { "+" } else { "" };
        let base = self.base_runs_max.map_or(String::new(), |m| {
            format!("; runs of the base build moved it by up to {}", units::percent(m))
        });
        format!(
            "{} {} moved {sign}{} as a whole (the median of its {} rows{base}): unpaired runs cannot tell that from the machine's drift, so its rows are judged by their change beyond it",
            self.experiment,
            self.table,
            units::percent(self.shift),
            self.rows
        )
    }
}

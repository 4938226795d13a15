//! Matching two results files: the rows timed in both ([`Pair`]) and those that cannot be
//! compared, with why ([`NotCompared`], [`Reason`]).

use std::fmt;

use jsoncost_engine::{ExperimentKind, MeasuredTable, Results, Row};
use serde::Serialize;

/// Which file a failure or a missing timing is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Side {
    /// The base file.
    Base,
    /// The new file.
    New,
    /// Both.
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
        /// The base table's params, as JSON.
        base: String,
        /// The new table's params, as JSON.
        new: String,
    },
    /// The row failed in one file or both.
    Failed {
        /// Where.
        side: Side,
        /// The failure's message (new's when both failed).
        message: String,
    },
    /// The row has no mean time (or 0 against a non-zero) in one file or both.
    NoTiming {
        /// Where.
        side: Side,
    },
    /// `ab`: fewer than two pairs (a row timed one strategy after another pairs once per run).
    TooFewPairs {
        /// Pairs there were.
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

/// A row or a table left out of a comparison, and why.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NotCompared {
    /// The table's experiment.
    pub experiment: ExperimentKind,
    /// The table.
    pub table: String,
    /// `None` when the whole table is concerned.
    pub method: Option<String>,
    /// Why it was left out.
    pub reason: Reason,
    /// Rows ok in the base that this entry loses (failed or missing in new): 0 or 1 for a row,
    /// the table's ok rows for a whole table. Any makes the gate fail unless missing rows are
    /// allowed.
    pub lost: usize,
}

/// A row ok and timed in both files.
pub(crate) struct Pair<'a> {
    /// The base file's table.
    pub exp: &'a MeasuredTable,
    pub base: &'a Row,
    pub other: &'a Row,
    pub base_mean: f64,
    pub other_mean: f64,
    /// Both tables were measured in interleaved rounds (the rows' ratios are paired).
    pub interleaved: bool,
}

/// The rows of `base` matched in `other` and timed in both, and those that could not be
/// compared (with the rows ok in base that `other` loses).
pub(crate) fn matched<'a>(base: &'a Results, other: &'a Results) -> (Vec<Pair<'a>>, Vec<NotCompared>) {
    let mut pairs = Vec::new();
    let mut not_compared = Vec::new();
    let skip = |e: &MeasuredTable, method: Option<&str>, reason: Reason, lost: usize| NotCompared {
        experiment: e.kind,
        table: e.table.clone(),
        method: method.map(String::from),
        reason,
        lost,
    };
    // Tables of findings (safety: a case per row) hold no timings to regress on.
    for b in base.experiments.iter().filter(|e| e.kind.traits().compared) {
        let Some(n) = find(other, b) else {
            let ok = b.rows.iter().filter(|r| r.is_ok()).count();
            not_compared.push(skip(b, None, Reason::OnlyInBase, ok));
            continue;
        };
        if b.params != n.params {
            // Measured differently (another payload, another load): the user chose to compare
            // unlike runs, which is listed but loses nothing.
            let p = |e: &MeasuredTable| serde_json::Value::Object(e.params.clone()).to_string();
            not_compared.push(skip(b, None, Reason::ParamsDiffer { base: p(b), new: p(n) }, 0));
            continue;
        }
        let interleaved = b.schedule == jsoncost_engine::Schedule::Interleaved && n.schedule == b.schedule;
        for br in &b.rows {
            let Some(nr) = n.rows.iter().find(|r| r.method == br.method) else {
                not_compared.push(skip(b, Some(&br.method), Reason::OnlyInBase, usize::from(br.is_ok())));
                continue;
            };
            match timed_in_both(br, nr) {
                Ok((base_mean, other_mean)) => pairs.push(Pair {
                    exp: b,
                    base: br,
                    other: nr,
                    base_mean,
                    other_mean,
                    interleaved,
                }),
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
    for n in other
        .experiments
        .iter()
        .filter(|n| n.kind.traits().compared && find(base, n).is_none())
    {
        not_compared.push(skip(n, None, Reason::OnlyInNew, 0));
    }
    (pairs, not_compared)
}

fn find<'a>(results: &'a Results, e: &MeasuredTable) -> Option<&'a MeasuredTable> {
    results.experiments.iter().find(|x| x.kind == e.kind && x.table == e.table)
}

/// Both rows' mean times, or why they cannot be compared. A mean of 0 (a row too fast for the
/// clock) has no relative change: it compares only with another 0 (no change).
fn timed_in_both(base: &Row, new: &Row) -> Result<(f64, f64), Reason> {
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
    match (base.mean_ns, new.mean_ns) {
        (Some(b), Some(n)) if (b > 0.0 && n > 0.0) || b == n => Ok((b, n)),
        (Some(b), Some(_)) => Err(Reason::NoTiming {
            side: if b > 0.0 { Side::New } else { Side::Base },
        }),
        (None, None) => Err(Reason::NoTiming { side: Side::Both }),
        (None, _) => Err(Reason::NoTiming { side: Side::Base }),
        (_, None) => Err(Reason::NoTiming { side: Side::New }),
    }
}

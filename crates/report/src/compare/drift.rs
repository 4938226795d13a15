//! How much runs of the same build differ on this machine: the drift an unpaired comparison
//! cannot tell from a change, measured from several results files of one build (`--base-run`).

use jsoncost_engine::Results;
use jsoncost_engine::stats::percentile_sorted;
use serde::Serialize;

use super::pairs::matched;
use super::spread::Moves;
use crate::units;

/// How far runs of one build moved against the first of them: per row beyond its table's
/// shift (its largest over the runs), and whole tables.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Drift {
    /// Runs of the base build compared (the first and each `--base-run`).
    pub runs: usize,
    /// Rows compared over the runs.
    pub rows: usize,
    /// Median over the rows of each row's largest own change.
    pub median: f64,
    /// The largest row's.
    pub max: f64,
    /// The largest shift of a whole table.
    pub table_max: f64,
}

impl Drift {
    /// The drift of `runs` (at least two) of one build; `None` when no row is timed in the
    /// first and another.
    pub fn of(runs: &[&Results]) -> Option<Drift> {
        let (first, rest) = runs.split_first()?;
        let mut per_row: Vec<((String, String, String), f64)> = Vec::new();
        let mut table_max: f64 = 0.0;
        for run in rest {
            let moves = Moves::of(&matched(first, run).0);
            for m in &moves.rows {
                let key = (m.kind.to_string(), m.table.clone(), m.method.clone());
                match per_row.iter_mut().find(|(k, _)| *k == key) {
                    Some((_, largest)) => *largest = largest.max(m.own.abs()),
                    None => per_row.push((key, m.own.abs())),
                }
                table_max = table_max.max(m.shift.abs());
            }
        }
        if per_row.is_empty() {
            return None;
        }
        let mut spreads: Vec<f64> = per_row.into_iter().map(|(_, s)| s.exp_m1()).collect();
        spreads.sort_by(f64::total_cmp);
        Some(Drift {
            runs: runs.len(),
            rows: spreads.len(),
            median: percentile_sorted(&spreads, 0.5),
            max: spreads[spreads.len() - 1],
            table_max: table_max.exp_m1(),
        })
    }
}

/// The note every `compare` prints: unpaired runs carry the machine's drift between them.
pub fn note(drift: Option<&Drift>, threshold: f64) -> String {
    let head = "Unpaired comparison: BASE and NEW ran at different times, so whatever the machine did in between reads as change; \
                a row is judged by its change beyond its table's shift, against what the files resolve.";
    match drift {
        Some(d) => format!(
            "{head} {} runs of the base build differ per row by a median {} and up to {} beyond their tables' shifts, \
             and moved whole tables by up to {}{}; jsoncost ab pairs two builds round by round instead.",
            d.runs,
            units::percent(d.median),
            units::percent(d.max),
            units::percent(d.table_max),
            if d.max >= threshold {
                format!(", more than the {} threshold on some rows", units::percent(threshold))
            } else {
                String::new()
            }
        ),
        None => format!(
            "{head} On a shared machine two runs of one build can differ by more than a few percent: measure it with --base-run \
             (more runs of the base build), or let jsoncost ab pair the builds round by round."
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use jsoncost_engine::{ExperimentKind, Machine, MeasuredTable, Row};

    fn run(means: &[f64]) -> Results {
        let mut e = MeasuredTable::new(ExperimentKind::Micro, "t");
        for (i, ns) in means.iter().enumerate() {
            let mut r = Row::new(format!("m{i}"));
            r.mean_ns = Some(*ns);
            e.rows.push(r);
        }
        Results {
            schema_version: 1,
            jsoncost_version: "0.1.0".into(),
            machine: Machine {
                cpu: "c".into(),
                cores: 2,
                os: "linux".into(),
                rustc: "1".into(),
                target_features: vec![],
                ..Machine::default()
            },
            started_at: "2026-01-01T00:00:00Z".into(),
            quick: false,
            interrupted: false,
            rates: Default::default(),
            experiments: vec![e],
            allocators: Vec::new(),
        }
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-12
    }

    #[test]
    fn drift_is_each_rows_move_beyond_its_tables_shift_between_runs_of_one_build() {
        // The second run: the whole table 20% slower, m3 5% more than that. The third: the table
        // as it was, m0 10% faster than the rest.
        let r1 = run(&[100.0, 200.0, 300.0, 400.0]);
        let r2 = run(&[120.0, 240.0, 360.0, 480.0 * 1.05]);
        let r3 = run(&[90.0, 200.0, 300.0, 400.0]);
        let d = Drift::of(&[&r1, &r2, &r3]).unwrap();
        assert_eq!((d.runs, d.rows), (3, 4));
        // Table shifts: 20% (median of four rows of which three moved 20%), and 0%.
        assert!(close(d.table_max, 0.2), "{d:?}");
        // Own moves: m3 5% (run 2), m0 ln(0.9) (run 3), the others 0: median of 0, 0, 5%, 11.1%.
        let m0 = (1.0 / 0.9f64.ln().exp()) - 1.0;
        assert!(close(d.max, m0), "{d:?}");
        assert!(close(d.median, 0.025), "{d:?}");
        assert_eq!(Drift::of(&[&r1]), None);
        assert!(
            note(Some(&d), 0.05).contains(
                "3 runs of the base build differ per row by a median 2.5% and up to 11.1% beyond their tables' shifts, \
                 and moved whole tables by up to 20.0%, more than the 5.0% threshold on some rows"
            ),
            "{}",
            note(Some(&d), 0.05)
        );
    }
}

//! How much two runs of the same build differ on this machine: the drift an unpaired
//! comparison cannot tell from a change. Measured from several results files of one build.

use jsoncost_engine::Results;
use serde::Serialize;

use crate::units;

/// Per-row spread between runs of one build: `max / min − 1` of each row's mean time over the
/// runs, for every row ok and timed in all of them.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Drift {
    pub runs: usize,
    pub rows: usize,
    /// Median over the rows.
    pub median: f64,
    /// The largest row's.
    pub max: f64,
}

impl Drift {
    /// The drift of `runs` (at least two) of one build; `None` when no row is in all of them.
    pub fn of(runs: &[&Results]) -> Option<Drift> {
        let (first, rest) = runs.split_first()?;
        if rest.is_empty() {
            return None;
        }
        let mut spreads: Vec<f64> = Vec::new();
        for exp in &first.experiments {
            for row in exp.rows.iter().filter(|r| r.is_ok()) {
                let means: Option<Vec<f64>> = runs
                    .iter()
                    .map(|r| {
                        r.experiments
                            .iter()
                            .find(|e| e.experiment == exp.experiment && e.table == exp.table)?
                            .rows
                            .iter()
                            .find(|x| x.method == row.method && x.is_ok())?
                            .mean_ns
                            .filter(|m| *m > 0.0)
                    })
                    .collect();
                if let Some(means) = means {
                    let lo = means.iter().copied().fold(f64::INFINITY, f64::min);
                    let hi = means.iter().copied().fold(0.0, f64::max);
                    spreads.push(hi / lo - 1.0);
                }
            }
        }
        if spreads.is_empty() {
            return None;
        }
        spreads.sort_by(f64::total_cmp);
        Some(Drift {
            runs: runs.len(),
            rows: spreads.len(),
            median: jsoncost_engine::stats::percentile_sorted(&spreads, 0.5),
            max: spreads[spreads.len() - 1],
        })
    }
}

/// The note every `compare` prints: unpaired runs carry the machine's drift between them.
pub fn note(drift: Option<&Drift>, threshold: f64) -> String {
    let head = "Unpaired comparison: BASE and NEW ran at different times, so whatever the machine did in between reads as change.";
    match drift {
        Some(d) => format!(
            "{head} {} runs of the base build differ per row by a median {} and up to {}{}; jsoncost ab pairs two builds round by round instead.",
            d.runs,
            units::percent(d.median),
            units::percent(d.max),
            if d.max >= threshold {
                format!(
                    ", more than the {} threshold: changes that size can be drift",
                    units::percent(threshold)
                )
            } else {
                String::new()
            }
        ),
        None => format!(
            "{head} On a shared machine two runs of one build can differ by more than a few percent: measure it with --base-run (more runs of the base build), use a larger threshold, or let jsoncost ab pair the builds round by round."
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use jsoncost_engine::{Experiment, ExperimentKind, Machine, Row};

    fn run(a: f64, b: f64) -> Results {
        let mut e = Experiment::new(ExperimentKind::Micro, "t");
        for (m, ns) in [("a", a), ("b", b)] {
            let mut r = Row::new(m);
            r.mean_ns = Some(ns);
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

    #[test]
    fn drift_is_the_per_row_spread_between_runs_of_one_build() {
        let (r1, r2, r3) = (run(100.0, 200.0), run(110.0, 200.0), run(105.0, 240.0));
        let d = Drift::of(&[&r1, &r2, &r3]).unwrap();
        // a: 110/100 − 1 = 10%; b: 240/200 − 1 = 20%.
        assert_eq!((d.runs, d.rows), (3, 2));
        assert!((d.median - 0.15).abs() < 1e-12 && (d.max - 0.2).abs() < 1e-12);
        assert_eq!(Drift::of(&[&r1]), None);
        assert!(
            note(Some(&d), 0.05)
                .contains("3 runs of the base build differ per row by a median 15.0% and up to 20.0%, more than the 5.0% threshold")
        );
    }
}

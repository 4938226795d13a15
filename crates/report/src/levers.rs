//! A build lever's verdict (`jsoncost levers`): the default build and the lever's build paired
//! in lockstep ([`crate::ab::ab`]), said in the words of the "answer first" ladder — a lever is
//! a *build* rung: no code changes, the program is built another way — with what it changes
//! in the output (the gate's fidelity of each row in both builds) and what shipping it costs.

use jsoncost_engine::{Fidelity, Results, Row};

use crate::ab::{AbComparison, AbRow, AbVerdict, Run};
use crate::fidelity::{member_order, number_phrases};

/// How one row's output differs between the default build and the lever's, as the gate saw it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FidelityChange {
    /// `experiment table method`.
    pub row: String,
    /// In words: "its inexact floats: 5 of 31 numbers 1 ulp off gone".
    pub change: String,
}

fn rows(results: &Results) -> impl Iterator<Item = (String, &Row)> {
    results
        .experiments
        .iter()
        .flat_map(|e| e.rows.iter().map(move |r| (format!("{} {} {}", e.kind, e.table, r.method), r)))
}

fn exact() -> Fidelity {
    Fidelity::default()
}

/// What the gate saw differently on each row of the first run: fidelity that changed, a row
/// that now reads its input or no longer does.
pub fn fidelity_changes(run: &Run) -> Vec<FidelityChange> {
    let mut out = Vec::new();
    for (name, base) in rows(&run.base) {
        let Some((_, new)) = rows(&run.new).find(|(n, _)| *n == name) else {
            continue;
        };
        let change = match (base.is_ok(), new.is_ok()) {
            (true, false) => Some(format!("now fails the gate: {}", new.error_message.clone().unwrap_or_default())),
            (false, true) => Some(format!(
                "now passes the gate (it failed: {})",
                base.error_message.clone().unwrap_or_default()
            )),
            (false, false) => None,
            (true, true) => {
                let (b, n) = (
                    base.fidelity.clone().unwrap_or_else(exact),
                    new.fidelity.clone().unwrap_or_else(exact),
                );
                // The cause names the default build's configuration: not part of the change.
                let numbers = |f: &Fidelity| (!f.is_exact()).then(|| number_phrases(&Fidelity { cause: None, ..f.clone() }, false));
                let changes: Vec<String> = [change_of(numbers(&b), numbers(&n)), change_of(member_order(&b), member_order(&n))]
                    .into_iter()
                    .flatten()
                    .collect();
                (!changes.is_empty()).then(|| changes.join("; "))
            }
        };
        if let Some(change) = change {
            out.push(FidelityChange { row: name, change });
        }
    }
    out
}

/// One aspect of the gate's view (the numbers, the members' order) from the default build's
/// difference `base` to the lever's `new` (`None`: faithful in that aspect), in words.
fn change_of(base: Option<String>, new: Option<String>) -> Option<String> {
    match (base, new) {
        (Some(b), None) => Some(format!("its {b} gone")),
        (None, Some(n)) => Some(format!("now {n}")),
        (Some(b), Some(n)) if b != n => Some(format!("{b} → {n}")),
        _ => None,
    }
}

/// The library of `row`'s strategy, from the first run's base results (`None`: a row of no
/// library, such as a store's floor).
fn library_of<'r>(runs: &'r [Run], row: &AbRow) -> Option<&'r str> {
    let run = runs.first()?;
    let table = run
        .base
        .experiments
        .iter()
        .find(|e| e.kind == row.experiment && e.table == row.table)?;
    table.rows.iter().find(|r| r.method == row.method)?.strategy.library()
}

/// The verdict of `lever` (its text, what kind of change, what shipping it costs) from the
/// paired comparison of the default build (base) and the lever's build (new). `touches`: the
/// crate the lever changes (a feature's or a version's), whose rows judge it; rows of other
/// libraries that moved are named apart, as the rebuilt binary's code layout.
pub fn verdict(lever: &str, kind: &str, ships: &str, touches: Option<&str>, runs: &[Run], c: &AbComparison) -> String {
    let pct = |r: f64| format!("{:+.1}%", (r - 1.0) * 100.0);
    let named = |rows: &[&AbRow]| -> String {
        let mut rows = rows.to_vec();
        rows.sort_by(|a, b| (a.ratio.estimate.ln().abs()).total_cmp(&b.ratio.estimate.ln().abs()).reverse());
        rows.iter()
            .take(3)
            .map(|r| {
                format!(
                    "{} {} {} {} ({} to {})",
                    r.experiment,
                    r.table,
                    r.method,
                    pct(r.ratio.estimate),
                    pct(r.ratio.low),
                    pct(r.ratio.high)
                )
            })
            .collect::<Vec<_>>()
            .join("; ")
    };
    let moved = |v: AbVerdict| -> (Vec<&AbRow>, Vec<&AbRow>) {
        c.rows
            .iter()
            .filter(|r| r.verdict == v)
            .partition(|r| touches.is_none_or(|krate| library_of(runs, r) == Some(krate)))
    };
    let ((faster, faster_elsewhere), (slower, slower_elsewhere)) = (moved(AbVerdict::Faster), moved(AbVerdict::Slower));
    let elsewhere: Vec<&AbRow> = faster_elsewhere.into_iter().chain(slower_elsewhere).collect();
    let time = if c.busy().is_some() {
        "time not judged (the machine was busy)".to_string()
    } else {
        let mut parts = Vec::new();
        if faster.is_empty() && slower.is_empty() {
            parts.push(format!(
                "no {}row's time changed beyond ±{} ({} rows)",
                touches.map(|k| format!("{k} ")).unwrap_or_default(),
                crate::units::percent(c.threshold / 2.0),
                c.rows.len()
            ));
        }
        if !faster.is_empty() {
            parts.push(format!(
                "saves time on {} of {} rows: {}",
                faster.len(),
                c.rows.len(),
                named(&faster)
            ));
        }
        if !slower.is_empty() {
            parts.push(format!(
                "costs time on {} of {} rows: {}",
                slower.len(),
                c.rows.len(),
                named(&slower)
            ));
        }
        if let (Some(krate), false) = (touches, elsewhere.is_empty()) {
            parts.push(format!(
                "{} row{} of other libraries than {krate} moved too ({}): the rebuilt binary lays out all its code anew, \
                 so judge the lever by {krate}'s rows and its output",
                elsewhere.len(),
                if elsewhere.len() == 1 { "" } else { "s" },
                named(&elsewhere)
            ));
        }
        parts.join("; ")
    };
    let fidelity = runs.first().map(fidelity_changes).unwrap_or_default();
    let output = if fidelity.is_empty() {
        "the output is the same as the default build's".to_string()
    } else {
        format!(
            "the output changes: {}",
            fidelity
                .iter()
                .map(|f| format!("{}: {}", f.row, f.change))
                .collect::<Vec<_>>()
                .join("; ")
        )
    };
    format!("{lever} (build rung: {kind}, no code change): {time}; {output}. Shipping it: {ships}.")
}

#[cfg(test)]
mod tests {
    use super::*;
    use jsoncost_engine::{ExperimentKind, Interval, Machine, MeasuredTable, StrategyId};

    fn results(fidelity: Option<Fidelity>, failed: bool) -> Results {
        let mut e = MeasuredTable::new(ExperimentKind::Micro, "canada/deserialize");
        let mut r = Row::new(StrategyId::new("typed", "serde_json"));
        r.mean_ns = Some(100.0);
        r.fidelity = fidelity;
        e.rows.push(r);
        e.rows.push(if failed {
            Row::failed("dom/serde_json", "number out of range at line 1 column 6")
        } else {
            let mut r = Row::new("dom/serde_json");
            r.mean_ns = Some(50.0);
            r
        });
        Results {
            schema_version: 1,
            jsoncost_version: "0.1.0".into(),
            machine: Machine::default(),
            started_at: "2026-12-05T00:00:00Z".into(),
            quick: true,
            interrupted: false,
            rates: Default::default(),
            experiments: vec![e],
            allocators: Vec::new(),
        }
    }

    fn inexact() -> Fidelity {
        Fidelity {
            numbers: 31,
            floats_inexact: 5,
            max_ulps: 1,
            cause: Some("serde_json without float_roundtrip".into()),
            ..Fidelity::default()
        }
    }

    #[test]
    fn a_lever_that_keeps_the_input_s_member_order_says_so_apart_from_the_numbers() {
        // preserve_order: serde_json's DOM writes the members as the input has them, and the
        // 1-ulp floats (another feature's) stay as they were.
        let written = |reordered| Fidelity {
            objects: 3,
            objects_reordered: reordered,
            ..inexact()
        };
        let run = Run {
            base: results(Some(written(2)), false),
            new: results(Some(written(0)), false),
            lockstep: true,
            other_cpu: None,
        };
        assert_eq!(
            fidelity_changes(&run),
            [FidelityChange {
                row: "micro canada/deserialize typed/serde_json".into(),
                change: "its members in another order than the input's: 2 of 3 objects gone".into(),
            }]
        );
        let back = Run {
            base: run.new.clone(),
            new: results(
                Some(Fidelity {
                    floats_inexact: 0,
                    max_ulps: 0,
                    ..written(2)
                }),
                false,
            ),
            ..run
        };
        assert_eq!(
            fidelity_changes(&back)[0].change,
            "its inexact floats: 5 of 31 numbers 1 ulp off gone; now members in another order than the input's: 2 of 3 objects"
        );
    }

    #[test]
    fn the_lever_says_what_it_changes_in_the_output_and_what_it_costs() {
        let run = Run {
            base: results(Some(inexact()), true),
            new: results(
                Some(Fidelity {
                    numbers: 31,
                    ..Fidelity::default()
                }),
                false,
            ),
            lockstep: true,
            other_cpu: None,
        };
        assert_eq!(
            fidelity_changes(&run),
            [
                FidelityChange {
                    row: "micro canada/deserialize typed/serde_json".into(),
                    change: "its inexact floats: 5 of 31 numbers 1 ulp off gone".into(),
                },
                FidelityChange {
                    row: "micro canada/deserialize dom/serde_json".into(),
                    change: "now passes the gate (it failed: number out of range at line 1 column 6)".into(),
                },
            ]
        );
        let mut c = crate::ab::ab(std::slice::from_ref(&run), 0.05);
        c.rows = vec![crate::ab::AbRow {
            experiment: ExperimentKind::Micro,
            table: "canada/deserialize".into(),
            method: "typed/serde_json".into(),
            base_mean_ns: 100.0,
            new_mean_ns: 118.0,
            ratio: Interval {
                estimate: 1.18,
                low: 1.12,
                high: 1.25,
                n: 30,
            },
            signed_rank_p: None,
            verdict: AbVerdict::Slower,
            base_allocated_bytes: None,
            new_allocated_bytes: None,
            allocation_grew: false,
            instructions: None,
            confirmation: None,
        }];
        assert_eq!(
            verdict(
                "serde_json/float_roundtrip",
                "a cargo feature",
                "nothing beyond the build",
                Some("serde_json"),
                std::slice::from_ref(&run),
                &c
            ),
            "serde_json/float_roundtrip (build rung: a cargo feature, no code change): costs time on 1 of 1 rows: micro \
             canada/deserialize typed/serde_json +18.0% (+12.0% to +25.0%); the output changes: micro canada/deserialize \
             typed/serde_json: its inexact floats: 5 of 31 numbers 1 ulp off gone; micro canada/deserialize dom/serde_json: \
             now passes the gate (it failed: number out of range at line 1 column 6). Shipping it: nothing beyond the build."
        );
        // A row of another library that moved is named apart: the feature does not judge it.
        let mut other = c.rows[0].clone();
        other.method = "typed/sonic-rs".into();
        other.ratio = Interval {
            estimate: 0.86,
            low: 0.85,
            high: 0.87,
            n: 30,
        };
        other.verdict = AbVerdict::Faster;
        c.rows.push(other);
        let mut with_sonic = run.clone();
        for side in [&mut with_sonic.base, &mut with_sonic.new] {
            side.experiments[0].rows.push(Row::new(StrategyId::new("typed", "sonic-rs")));
        }
        let said = verdict(
            "serde_json/preserve_order",
            "a cargo feature",
            "-",
            Some("serde_json"),
            &[with_sonic.clone()],
            &c,
        );
        assert!(
            said.contains(
                "costs time on 1 of 2 rows: micro canada/deserialize typed/serde_json +18.0% (+12.0% to +25.0%); 1 row of \
                 other libraries than serde_json moved too (micro canada/deserialize typed/sonic-rs -14.0% (-15.0% to -13.0%)): \
                 the rebuilt binary lays out all its code anew, so judge the lever by serde_json's rows and its output;"
            ),
            "{said}"
        );
        // A change of the whole build (LTO) is judged by every row.
        let said = verdict("lto", "link-time optimisation", "-", None, &[with_sonic], &c);
        assert!(
            said.contains("saves time on 1 of 2 rows: micro canada/deserialize typed/sonic-rs -14.0%"),
            "{said}"
        );
    }
}

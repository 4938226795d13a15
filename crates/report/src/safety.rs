//! The safety experiment's tables: a library's corpus table is drawn as a matrix of cases ×
//! parse paths (one glance shows what crashes, rejects or accepts what), a suite table as its
//! conformance counts and the files that break their prefix's promise. Every renderer uses the
//! same [`View`]; the HTML report colours the matrix and puts each cell's message, time and
//! peak heap in its tooltip.

use std::fmt::Write;

use jsoncost_engine::MeasuredTable;
use jsoncost_engine::Row;
use jsoncost_engine::safety::{Agreement, Expectation, SafetyCell, SafetyOutcome, SafetyPath};

use crate::units::{self, ABSENT};
use crate::view::{Align, Column, Line, View, heading, params};

/// The legend under every matrix.
const LEGEND: &str = "Cells: accepted (the value serde_json gives), accepted ≈ (numbers changed as noted), accepted ≠ (a different value), accepted ! (the exact reference, serde_json::Value's rules, rejects this input), accepted ? (not compared: the note says why), rejected, CRASHED, TIMED OUT; time is the parse's in the child; \"-\": the library has no such path or the path does not apply.";

/// Longest suite disagreement list shown in a table (the rest are counted).
const SUITE_LINES: usize = 40;

/// A suite table (one library over a JSONTestSuite-style directory): the one kind of safety
/// table that carries conformance counts.
pub(crate) fn is_suite(exp: &MeasuredTable) -> bool {
    matches!(exp.summary, Some(jsoncost_engine::Summary::Conformance(_)))
}

/// The paths present, in their fixed order, and the cases in the order the rows first name them.
/// A case and its row on each listed path (`None`: the path has no row for it).
pub(crate) type CaseLine<'a> = (&'a str, Vec<Option<&'a Row>>);

pub(crate) fn matrix(exp: &MeasuredTable) -> (Vec<SafetyPath>, Vec<CaseLine<'_>>) {
    let cells: Vec<(&Row, &SafetyCell)> = exp.rows.iter().filter_map(|r| r.safety.as_ref().map(|c| (r, c))).collect();
    let paths: Vec<SafetyPath> = SafetyPath::ALL
        .into_iter()
        .filter(|p| cells.iter().any(|(_, c)| c.path == *p))
        .collect();
    let mut cases: Vec<CaseLine<'_>> = Vec::new();
    for (row, cell) in &cells {
        let i = match cases.iter().position(|(name, _)| *name == cell.case) {
            Some(i) => i,
            None => {
                cases.push((cell.case.as_str(), vec![None; paths.len()]));
                cases.len() - 1
            }
        };
        let j = paths.iter().position(|p| *p == cell.path).expect("a path listed above");
        cases[i].1[j] = Some(row);
    }
    (paths, cases)
}

/// A cell's outcome in a word or two.
pub(crate) fn outcome_text(row: &Row) -> String {
    let Some(cell) = &row.safety else { return ABSENT.to_string() };
    match cell.outcome {
        SafetyOutcome::Accepted => match cell.agreement {
            Some(Agreement::Same) | None => "accepted".into(),
            Some(Agreement::SameNumbersChanged) => "accepted ≈".into(),
            Some(Agreement::Differs) => "accepted ≠".into(),
            Some(Agreement::SerdeJsonRejects) => "accepted !".into(),
            Some(Agreement::NotCompared) => "accepted ?".into(),
        },
        SafetyOutcome::Rejected => "rejected".into(),
        SafetyOutcome::Crashed => match &cell.crash {
            Some(cause) => format!("CRASHED: {}", cause.label()),
            None => "CRASHED".into(),
        },
        SafetyOutcome::TimedOut => "TIMED OUT".into(),
    }
}

pub(crate) fn time_text(row: &Row) -> String {
    row.mean_ns.map(units::time).unwrap_or_default()
}

/// The cell's full story: outcome, message, agreement, time and peak heap.
pub(crate) fn detail(row: &Row) -> String {
    let Some(cell) = &row.safety else { return String::new() };
    let mut s = format!("{} {}: {}", cell.path, cell.case, cell.outcome.as_str());
    if let Some(m) = &row.error_message {
        let _ = write!(s, ": {m}");
    }
    if let (Some(a), Some(m)) = (cell.agreement, &cell.agreement_message) {
        let _ = write!(s, "; {}: {m}", a.as_str());
    }
    let _ = write!(s, " ({}", time_text(row));
    if let Some(p) = row.peak_bytes {
        let _ = write!(s, ", peak heap {}", units::bytes(p as f64));
    }
    s.push(')');
    s
}

/// Cells worth a sentence under the matrix: crashes, time-outs, values that are not serde_json's.
fn noteworthy(row: &Row) -> bool {
    row.safety.as_ref().is_some_and(|c| {
        matches!(c.outcome, SafetyOutcome::Crashed | SafetyOutcome::TimedOut) || matches!(c.agreement, Some(a) if a != Agreement::Same)
    })
}

pub(crate) fn view(exp: &MeasuredTable) -> View {
    if is_suite(exp) {
        return suite_view(exp);
    }
    let (paths, cases) = matrix(exp);
    let mut columns = vec![Column {
        name: "Case",
        align: Align::Left,
    }];
    columns.extend(paths.iter().map(|p| Column {
        name: p.as_str(),
        align: Align::Left,
    }));
    let lines = cases
        .iter()
        .map(|(case, rows)| {
            let mut cells = vec![case.to_string()];
            cells.extend(rows.iter().map(|r| match r {
                None => ABSENT.to_string(),
                Some(r) => format!("{} {}", outcome_text(r), time_text(r)),
            }));
            Line::Ok(cells)
        })
        .collect();
    let mut notes: Vec<String> = exp.rows.iter().filter(|r| noteworthy(r)).map(detail).collect();
    notes.push(LEGEND.to_string());
    View {
        heading: heading(exp),
        params: params(exp),
        columns,
        lines,
        notes,
        summary: vec![counts(exp)],
    }
}

/// "sonic-rs: 57 runs: 2 crashed, 0 timed out, 30 rejected, 25 accepted (1 not as serde_json)."
fn counts(exp: &MeasuredTable) -> String {
    let cells: Vec<&SafetyCell> = exp.rows.iter().filter_map(|r| r.safety.as_ref()).collect();
    let n = |o: SafetyOutcome| cells.iter().filter(|c| c.outcome == o).count();
    let accepted = |f: &dyn Fn(Agreement) -> bool| {
        cells
            .iter()
            .filter(|c| c.outcome == SafetyOutcome::Accepted && c.agreement.is_some_and(f))
            .count()
    };
    let unlike = accepted(&|a| !matches!(a, Agreement::Same | Agreement::NotCompared));
    let unchecked = accepted(&|a| a == Agreement::NotCompared);
    format!(
        "{}: {} runs: {} crashed, {} timed out, {} rejected, {} accepted ({} not as serde_json{}).",
        exp.table,
        cells.len(),
        n(SafetyOutcome::Crashed),
        n(SafetyOutcome::TimedOut),
        n(SafetyOutcome::Rejected),
        n(SafetyOutcome::Accepted),
        unlike,
        if unchecked > 0 {
            format!(", {unchecked} not compared")
        } else {
            String::new()
        }
    )
}

/// A suite table's rows whose outcome breaks the promise of their file's prefix, or crashed or
/// timed out, in the table's order (the suite view lists the first [`SUITE_LINES`]).
pub(crate) fn breaking(exp: &MeasuredTable) -> Vec<&Row> {
    exp.rows
        .iter()
        .filter(|r| {
            r.safety.as_ref().is_some_and(|c| {
                let o = c.outcome;
                match Expectation::of_file_name(&c.case) {
                    Some(Expectation::Accept) => o != SafetyOutcome::Accepted,
                    Some(Expectation::Reject) => o != SafetyOutcome::Rejected,
                    _ => matches!(o, SafetyOutcome::Crashed | SafetyOutcome::TimedOut),
                }
            })
        })
        .collect()
}

/// How a cell reads at a glance (the HTML report colours it so).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Shade {
    /// Crashed or timed out.
    Crash,
    /// Accepted, as a different value or one the reference rejects.
    Differs,
    /// Accepted with numbers changed, or not compared.
    Changed,
    /// Accepted, the reference's value.
    Accepted,
    Rejected,
}

/// A finding's [`Shade`]; `None` for a row that is not a finding.
pub(crate) fn shade(row: &Row) -> Option<Shade> {
    let cell = row.safety.as_ref()?;
    Some(match cell.outcome {
        SafetyOutcome::Crashed | SafetyOutcome::TimedOut => Shade::Crash,
        SafetyOutcome::Rejected => Shade::Rejected,
        SafetyOutcome::Accepted => match cell.agreement {
            Some(Agreement::Differs | Agreement::SerdeJsonRejects) => Shade::Differs,
            Some(Agreement::SameNumbersChanged | Agreement::NotCompared) => Shade::Changed,
            Some(Agreement::Same) | None => Shade::Accepted,
        },
    })
}

fn suite_view(exp: &MeasuredTable) -> View {
    let columns = vec![
        Column {
            name: "File",
            align: Align::Left,
        },
        Column {
            name: "Expected",
            align: Align::Left,
        },
        Column {
            name: "Outcome",
            align: Align::Left,
        },
        Column {
            name: "Message",
            align: Align::Left,
        },
    ];
    let breaking = breaking(exp);
    if breaking.is_empty() {
        let none = Line::Ok(vec!["(no file disagrees)".into(), String::new(), String::new(), String::new()]);
        return View {
            heading: heading(exp),
            params: params(exp),
            columns,
            lines: vec![none],
            notes: Vec::new(),
            summary: exp.summary.as_ref().map(crate::summary::sentences).unwrap_or_default(),
        };
    }
    let lines = breaking
        .iter()
        .take(SUITE_LINES)
        .map(|r| {
            let c = r.safety.as_ref().expect("filtered on safety");
            let expected = match Expectation::of_file_name(&c.case) {
                Some(Expectation::Accept) => "accept",
                Some(Expectation::Reject) => "reject",
                _ => "either",
            };
            Line::Ok(vec![
                c.case.clone(),
                expected.to_string(),
                outcome_text(r),
                r.error_message.clone().unwrap_or_default(),
            ])
        })
        .collect();
    let mut notes = Vec::new();
    if breaking.len() > SUITE_LINES {
        notes.push(format!(
            "{} more files disagree (all are in results.json and the CSV).",
            breaking.len() - SUITE_LINES
        ));
    }
    View {
        heading: heading(exp),
        params: params(exp),
        columns,
        lines,
        notes,
        summary: exp.summary.as_ref().map(crate::summary::sentences).unwrap_or_default(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use jsoncost_engine::ExperimentKind;

    fn row(path: SafetyPath, case: &str, outcome: SafetyOutcome, agreement: Option<Agreement>, message: Option<&str>) -> Row {
        let mut r = Row::new(format!("{path}/sonic-rs"));
        r.mean_ns = Some(1_500.0);
        r.peak_bytes = Some(2048);
        r.error_message = message.map(String::from);
        r.safety = Some(SafetyCell {
            library: "sonic-rs".into(),
            path,
            case: case.into(),
            outcome,
            crash: (outcome == SafetyOutcome::Crashed).then_some(jsoncost_engine::safety::CrashCause::StackOverflow),
            agreement,
            agreement_message: agreement.map(|_| "1 -0 read as 0".into()),
        });
        r
    }

    #[test]
    fn a_library_table_is_a_matrix_of_cases_by_paths() {
        let mut exp = MeasuredTable::new(ExperimentKind::Safety, "sonic-rs");
        exp.rows = vec![
            row(
                SafetyPath::Dom,
                "deep",
                SafetyOutcome::Crashed,
                None,
                Some("SIGABRT (stack overflow)"),
            ),
            row(SafetyPath::Incremental, "deep", SafetyOutcome::Rejected, None, Some("too deep")),
            row(
                SafetyPath::Dom,
                "zero",
                SafetyOutcome::Accepted,
                Some(Agreement::SameNumbersChanged),
                None,
            ),
        ];
        let v = view(&exp);
        assert_eq!(v.columns.iter().map(|c| c.name).collect::<Vec<_>>(), ["Case", "dom", "incremental"]);
        assert_eq!(
            v.text_cells(),
            vec![
                vec![
                    "deep".to_string(),
                    "CRASHED: stack overflow 1.500 µs".into(),
                    "rejected 1.500 µs".into()
                ],
                vec!["zero".to_string(), "accepted ≈ 1.500 µs".into(), "-".into()],
            ]
        );
        assert_eq!(
            v.notes[0],
            "dom deep: crashed: SIGABRT (stack overflow) (1.500 µs, peak heap 2.00 KB)"
        );
        assert_eq!(
            v.notes[1],
            "dom zero: accepted; numbers changed: 1 -0 read as 0 (1.500 µs, peak heap 2.00 KB)"
        );
        assert_eq!(
            v.summary,
            ["sonic-rs: 3 runs: 1 crashed, 0 timed out, 1 rejected, 1 accepted (1 not as serde_json)."]
        );
        let html = crate::Format::Html.exporter().experiment(&exp, None, false);
        assert!(html.contains("<td class=\"s-crash\" title=\"dom deep: crashed: SIGABRT (stack overflow) (1.500 µs, peak heap 2.00 KB)\">CRASHED: stack overflow <small>1.500 µs</small></td>"), "{html}");
        assert!(html.contains("<td class=\"absent\">-</td>"));
    }
}

//! A table's [`View`] built from a column set (each kind's columns are in its file of
//! [`crate::kinds`]).

mod spec;

use jsoncost_engine::{MeasuredTable, Row};

pub(crate) use spec::{Cell, Spec, get};

use crate::units::TimeUnit;
use crate::view::{Column, Line, View, heading, params};
use spec::Fitted;

/// `exp` in the columns `specs`: one line per row (a failed row's message instead of its
/// cells), the fidelity notes and the summary's sentences.
pub(crate) fn table_view(exp: &MeasuredTable, mut specs: Vec<Spec<'_>>) -> View {
    specs.extend(counts_columns(exp));
    let ok: Vec<&Row> = exp.rows.iter().filter(|r| r.is_ok()).collect();
    let unit = TimeUnit::for_table(ok.iter().filter_map(|r| r.mean_ns));
    let fitted: Vec<Fitted> = specs.iter().map(|s| s.fit(&ok, unit)).collect();
    let lines = exp
        .rows
        .iter()
        .map(|row| {
            if row.is_ok() {
                Line::Ok(specs.iter().zip(&fitted).map(|(s, f)| s.cell(row, f)).collect())
            } else {
                Line::Failed {
                    method: row.method.clone(),
                    message: row.error_message.clone().unwrap_or_default(),
                }
            }
        })
        .collect();
    View {
        heading: heading(exp),
        params: params(exp),
        columns: specs
            .iter()
            .map(|s| Column {
                name: s.name,
                align: s.align(),
            })
            .collect(),
        lines,
        notes: crate::fidelity::notes(exp)
            .into_iter()
            .chain(exp.run_queue_wait.as_ref().map(crate::notes::run_queue_wait))
            .collect(),
        summary: exp.summary.as_ref().map(crate::summary::sentences).unwrap_or_default(),
    }
}

/// The counts' own columns (`--measure counts`), after every time and allocation column of any
/// kind's table and never mixed with them: only where a row was counted, the cache columns only
/// where the cache simulation ran.
fn counts_columns<'a>(exp: &MeasuredTable) -> Vec<Spec<'a>> {
    let counted: Vec<&jsoncost_engine::Counts> = exp.rows.iter().filter_map(|r| r.counts.as_ref()).collect();
    if counted.is_empty() {
        return Vec::new();
    }
    // A stream row's count is of one whole run, not of an operation.
    let whole_run = exp.kind.traits().row == jsoncost_engine::RowMeasure::WholeRun;
    let per = |op: &'static str, run: &'static str| if whole_run { run } else { op };
    let mut specs = vec![Spec::new(
        per("Instr/op", "Instr/run"),
        Cell::Fixed(1, get(|r| r.counts.as_ref().map(|c| c.instructions))),
    )];
    if counted.iter().any(|c| c.l1_misses.is_some()) {
        specs.extend([
            Spec::new(
                per("L1 miss/op", "L1 miss/run"),
                Cell::Fixed(2, get(|r| r.counts.as_ref().and_then(|c| c.l1_misses))),
            ),
            Spec::new(
                per("LL miss/op", "LL miss/run"),
                Cell::Fixed(2, get(|r| r.counts.as_ref().and_then(|c| c.ll_misses))),
            ),
            Spec::new(
                per("Est. cycles/op", "Est. cycles/run"),
                Cell::Fixed(1, get(|r| r.counts.as_ref().and_then(|c| c.estimated_cycles))),
            ),
        ]);
    }
    specs
}

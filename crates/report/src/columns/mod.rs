//! A table's [`View`] built from a column set (each kind's columns are in its file of
//! [`crate::kinds`]).

mod spec;

use jsoncost_engine::{Experiment, Row};

pub(crate) use spec::{Cell, Spec, get};

use crate::units::TimeUnit;
use crate::view::{Column, Line, View, heading, params};
use spec::Fitted;

/// `exp` in the columns `specs`: one line per row (a failed row's message instead of its
/// cells), the fidelity notes and the summary's sentences.
pub(crate) fn table_view(exp: &Experiment, specs: Vec<Spec<'_>>) -> View {
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

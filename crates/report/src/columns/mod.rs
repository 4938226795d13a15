//! Each experiment's column set, and the [`View`] of a table built from it (a safety table's
//! from [`crate::safety`]).

mod http;
mod micro;
mod spec;
mod store;
mod stream;

use jsoncost_engine::{Experiment, ExperimentKind, Row};

pub(crate) use crate::row_figures::{error_total, http_figure};
pub(crate) use spec::{Cell, Spec, get};
pub(crate) use store::floor_mean_ns;

use crate::units::TimeUnit;
use crate::view::{Column, Line, View, heading, params};
use spec::Fitted;

impl View {
    pub(crate) fn of(exp: &Experiment) -> View {
        if exp.experiment == ExperimentKind::Safety {
            // Findings, not timings: a matrix of cases × paths (crate::safety).
            return crate::safety::view(exp);
        }
        let specs = match exp.experiment {
            ExperimentKind::Micro => micro::columns(),
            ExperimentKind::Store => store::columns(exp),
            ExperimentKind::Stream => stream::columns(),
            ExperimentKind::Http | ExperimentKind::HttpAb => http::columns(exp),
            ExperimentKind::Safety => unreachable!("returned above"),
        };
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
            notes: crate::fidelity::notes(exp),
            summary: exp.summary.as_ref().map(crate::summary::sentences).unwrap_or_default(),
        }
    }
}

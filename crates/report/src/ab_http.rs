//! The verdicts of an http A/B (`jsoncost ab --http`), from its tables' own record
//! ([`jsoncost_engine::AbHttpTable`]): per request, the three figures of each server's slices
//! ([`AbHttpFigure`]) become rows whose rounds pair slice by slice, and [`crate::ab::ab`] decides
//! them as it decides two builds' rows. `ab --http` and `jsoncost report` both go through here,
//! so a saved file is judged exactly as the run was.

use jsoncost_engine::{AbHttpFigure, AbHttpSide, ExperimentKind, MeasuredTable, Results, Row, Schedule};

use crate::ab::{self, AbComparison, Run};

/// The paired figures of the http A/B tables among `experiments`, as one lockstep run of `ab`;
/// `None` when there is none.
pub fn run<'a>(experiments: impl IntoIterator<Item = &'a MeasuredTable>) -> Option<Run> {
    let empty = |e: &Results| Results {
        experiments: Vec::new(),
        allocators: Vec::new(),
        ..e.clone()
    };
    let template = Results {
        schema_version: jsoncost_engine::SCHEMA_VERSION,
        jsoncost_version: String::new(),
        machine: Default::default(),
        started_at: String::new(),
        quick: false,
        rates: Default::default(),
        interrupted: false,
        experiments: Vec::new(),
        allocators: Vec::new(),
    };
    let (mut base, mut new) = (empty(&template), empty(&template));
    for exp in experiments {
        let Some(t) = exp.ab_http.as_ref().filter(|_| exp.kind == ExperimentKind::AbHttp) else {
            continue;
        };
        for (side, out) in [(&t.base, &mut base), (&t.new, &mut new)] {
            out.experiments.push(figures(exp, side, t.rounds));
        }
    }
    (!base.experiments.is_empty()).then_some(Run {
        base,
        new,
        lockstep: true,
        other_cpu: None,
    })
}

/// One side's rows: each figure its slices all hold, over the paired rounds.
fn figures(exp: &MeasuredTable, side: &AbHttpSide, rounds: usize) -> MeasuredTable {
    let mut out = MeasuredTable::new(ExperimentKind::AbHttp, exp.table.clone());
    out.params = exp.params.clone();
    out.schedule = Schedule::Interleaved;
    for figure in AbHttpFigure::ALL {
        let Some(values) = side.rounds(figure, rounds).filter(|v| !v.is_empty() && v.len() == rounds) else {
            continue;
        };
        let mut row = Row::new(figure.label());
        row.mean_ns = Some(values.iter().sum::<f64>() / values.len() as f64);
        row.rounds_ns = values;
        out.rows.push(row);
    }
    out
}

/// The verdicts of the http A/B tables among `experiments`, at the threshold they were
/// recorded with (the first table's: one run records one); `None` when there is none.
pub fn comparison<'a>(experiments: impl IntoIterator<Item = &'a MeasuredTable> + Clone) -> Option<AbComparison> {
    let first = experiments.clone().into_iter().find_map(|e| e.ab_http.as_ref())?;
    let (threshold, rounds) = (first.threshold, first.rounds);
    let run = run(experiments)?;
    Some(ab::ab(std::slice::from_ref(&run), threshold).of_servers(rounds))
}

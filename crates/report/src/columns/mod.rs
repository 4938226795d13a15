//! One table's columns and cells as text, shared by every renderer (console, markdown, HTML),
//! so the formats cannot drift apart. Each experiment has its own column set.

mod http;
mod micro;
mod store;
mod stream;

use jsoncost_engine::{Experiment, ExperimentKind, HttpFigures, Row};
use serde_json::Value;

pub(crate) use store::{FLOOR, floor_mean_ns};

use crate::units::{self, ABSENT, TimeColumn, TimeUnit};

/// Shown for a failed row that carries no message.
pub(crate) const NO_MESSAGE: &str = "(no message)";

/// Longest failure message shown inside a table cell; longer ones are given in full below it.
const FAILED_CELL_CHARS: usize = 32;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Align {
    Left,
    Right,
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Column {
    pub name: &'static str,
    pub align: Align,
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Line {
    /// One cell per column, the method first.
    Ok(Vec<String>),
    Failed {
        method: String,
        message: String,
    },
}

/// A table ready to print.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct View {
    /// `micro: data/deserialize`
    pub heading: String,
    /// `shape=data, payload_bytes=71`, empty when there are no params.
    pub params: String,
    pub columns: Vec<Column>,
    pub lines: Vec<Line>,
    /// Rows whose output is not exact against the reference, one sentence each.
    pub notes: Vec<String>,
    pub summary: Vec<String>,
}

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
            ExperimentKind::Http => http::columns(exp),
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

    /// `micro: data/deserialize (shape=data, payload_bytes=71)`
    pub(crate) fn title(&self) -> String {
        if self.params.is_empty() {
            self.heading.clone()
        } else {
            format!("{} ({})", self.heading, self.params)
        }
    }

    /// Cells of every line for a text table: a failed row reads `failed: <first line>` after its
    /// method, and "-" in the other columns.
    pub(crate) fn text_cells(&self) -> Vec<Vec<String>> {
        self.lines
            .iter()
            .map(|line| match line {
                Line::Ok(cells) => cells.clone(),
                Line::Failed { method, message } => {
                    let mut cells = vec![method.clone(), format!("failed: {}", short_message(message).0)];
                    cells.resize(self.columns.len().max(2), ABSENT.to_string());
                    cells
                }
            })
            .collect()
    }

    /// Failures whose message did not fit in the table, as (method, full message).
    pub(crate) fn long_failures(&self) -> Vec<(&str, &str)> {
        self.lines
            .iter()
            .filter_map(|line| match line {
                Line::Failed { method, message } if short_message(message).1 => Some((method.as_str(), message.as_str())),
                _ => None,
            })
            .collect()
    }
}

/// The first line of a failure message, cut to fit a cell; true when something was left out.
fn short_message(message: &str) -> (String, bool) {
    let trimmed = message.trim();
    let first = trimmed.lines().next().unwrap_or("").trim_end();
    let shortened = first.chars().count() > FAILED_CELL_CHARS || first.len() < trimmed.len();
    let mut cell: String = first.chars().take(FAILED_CELL_CHARS).collect();
    if cell.is_empty() && !shortened {
        cell = NO_MESSAGE.to_string();
    }
    if shortened {
        cell.push('…');
    }
    (cell, shortened)
}

pub(crate) fn heading(exp: &Experiment) -> String {
    format!("{}: {}", exp.experiment, exp.table)
}

/// Params as `key=value` in the file's order; strings unquoted.
pub(crate) fn params(exp: &Experiment) -> String {
    exp.params
        .iter()
        .map(|(k, v)| match v {
            Value::String(s) => format!("{k}={s}"),
            other => format!("{k}={other}"),
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// One of an http row's load figures (`None` on other rows).
pub(crate) fn http_figure(row: &Row, figure: impl Fn(&HttpFigures) -> Option<f64>) -> Option<f64> {
    row.http.as_ref().and_then(figure)
}

/// How many samples a row's mean and standard deviation come from: the kept samples, else the
/// iterations, else (http) the requests.
pub(crate) fn sample_count(row: &Row) -> Option<usize> {
    if !row.samples_ns.is_empty() {
        return Some(row.samples_ns.len());
    }
    row.iterations
        .map(|n| n as usize)
        .or_else(|| row.http.as_ref().map(|h| h.requests as usize))
}

/// The 99.9% confidence interval of a row's mean: mean ± Error, or when Error is absent, from
/// the standard deviation and the sample count with Student's t.
pub(crate) fn mean_interval(row: &Row) -> Option<(f64, f64)> {
    let m = row.mean_ns?;
    let half = row.error_ns.or_else(|| {
        let sd = row.stddev_ns?;
        let n = sample_count(row)?;
        (n >= 2).then(|| {
            jsoncost_engine::stats::t_quantile_two_sided(jsoncost_engine::stats::CONFIDENCE, (n - 1) as f64) * sd / (n as f64).sqrt()
        })
    })?;
    Some((m - half, m + half))
}

/// The total of an http row's failed requests; `None` on other rows.
pub(crate) fn error_total(row: &Row) -> Option<f64> {
    row.http.as_ref().map(|h| h.errors.total() as f64)
}

type Get<'a> = Box<dyn Fn(&Row) -> Option<f64> + 'a>;

/// How a column turns a row into a cell.
pub(crate) enum Cell<'a> {
    Method,
    /// A time in ns; the column shares one unit.
    Time(Get<'a>),
    Bytes(Get<'a>),
    Count(Get<'a>),
    Ratio(Get<'a>),
    Rate(Get<'a>),
    Fixed(usize, Get<'a>),
    Text(Box<dyn Fn(&Row) -> String + 'a>),
    /// A number already worded (a value or "noise"), right-aligned.
    Label(Box<dyn Fn(&Row) -> String + 'a>),
}

pub(crate) struct Spec<'a> {
    pub name: &'static str,
    pub cell: Cell<'a>,
}

/// What a column learns from all its values before formatting one.
enum Fitted {
    Time(TimeColumn),
    None,
}

impl<'a> Spec<'a> {
    pub(crate) fn new(name: &'static str, cell: Cell<'a>) -> Self {
        Spec { name, cell }
    }

    fn align(&self) -> Align {
        match self.cell {
            Cell::Method | Cell::Text(_) => Align::Left,
            _ => Align::Right,
        }
    }

    /// `unit`: the table's time unit (from its smallest mean), when it has means.
    fn fit(&self, rows: &[&Row], unit: Option<TimeUnit>) -> Fitted {
        match &self.cell {
            Cell::Time(get) => {
                let values = rows.iter().filter_map(|r| get(r));
                Fitted::Time(match unit {
                    Some(unit) => TimeColumn::fit_in(unit, values),
                    None => TimeColumn::fit(values),
                })
            }
            _ => Fitted::None,
        }
    }

    fn cell(&self, row: &Row, fitted: &Fitted) -> String {
        match (&self.cell, fitted) {
            (Cell::Method, _) => row.method.clone(),
            (Cell::Time(get), Fitted::Time(col)) => units::opt(get(row), |v| col.format(v)),
            (Cell::Time(get), Fitted::None) => units::opt(get(row), units::time),
            (Cell::Bytes(get), _) => units::opt(get(row), units::bytes),
            (Cell::Count(get), _) => units::opt(get(row), units::count),
            (Cell::Ratio(get), _) => units::opt(get(row), units::ratio),
            (Cell::Rate(get), _) => units::opt(get(row), units::rate),
            (Cell::Fixed(d, get), _) => units::opt(get(row), |v| units::fixed(v, *d)),
            (Cell::Text(f), _) | (Cell::Label(f), _) => f(row),
        }
    }
}

/// Shorthand for a getter of a plain row field.
pub(crate) fn get<'a>(f: fn(&Row) -> Option<f64>) -> Get<'a> {
    Box::new(f)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failure_messages_are_cut_to_their_first_line() {
        assert_eq!(short_message("boom"), ("boom".to_string(), false));
        assert_eq!(short_message("first\nsecond"), ("first…".to_string(), true));
        let long = "x".repeat(40);
        assert_eq!(short_message(&long), (format!("{}…", "x".repeat(32)), true));
        assert_eq!(short_message(""), ("(no message)".to_string(), false));
    }
}

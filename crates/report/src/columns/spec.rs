//! A column as a spec: its name and how it turns a row into a cell, fitted to the table (one
//! time unit per column) before it formats one.

use jsoncost_engine::Row;

use crate::units::{self, TimeColumn, TimeUnit};
use crate::view::Align;

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
pub(super) enum Fitted {
    Time(TimeColumn),
    None,
}

impl<'a> Spec<'a> {
    pub(crate) fn new(name: &'static str, cell: Cell<'a>) -> Self {
        Spec { name, cell }
    }

    pub(super) fn align(&self) -> Align {
        match self.cell {
            Cell::Method | Cell::Text(_) => Align::Left,
            _ => Align::Right,
        }
    }

    /// `unit`: the table's time unit (from its smallest mean), when it has means.
    pub(super) fn fit(&self, rows: &[&Row], unit: Option<TimeUnit>) -> Fitted {
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

    pub(super) fn cell(&self, row: &Row, fitted: &Fitted) -> String {
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

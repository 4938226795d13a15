//! Where progress and results go. The Runner and the experiments report through a [`Sink`];
//! the CLI implements it with its session and progress bar, the bench harness with its
//! printer, tests with a Vec.

use jsoncost_engine::{MeasuredTable, Row};

use crate::error::Error;

/// Receives progress and finished tables.
pub trait Sink {
    /// `n` more strategies will be timed (for a progress bar's length).
    fn planned(&mut self, _n: u64) {}
    /// What is happening now, outside a strategy (connecting, loading, generating).
    fn status(&mut self, _what: &str) {}
    /// A strategy of `table` starts (its gate, then its timing).
    fn strategy_started(&mut self, _table: &str, _method: &str) {}
    /// A strategy's row is done (ok or failed).
    fn strategy_done(&mut self, _table: &str, _row: &Row) {}
    /// A table is finished: rows ordered, ratios and summary filled.
    fn table_done(&mut self, table: MeasuredTable);
    /// The table just done failed in every row: what the command ends with, once everything
    /// measured is written (see [`crate::AllFailed`]).
    fn all_failed(&mut self, _why: Error) {}
    /// A line for the reader (warnings, what was reused).
    fn note(&mut self, _line: &str) {}
    /// A strategy of `table` the filter lets through, named without being run
    /// ([`crate::runner::RunMode::List`]).
    fn listed(&mut self, _table: &str, _method: &str) {}
}

/// What a [`Recorder`] saw, in order.
#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    /// `planned(n)`.
    Planned(u64),
    /// `status(what)`.
    Status(String),
    /// `strategy_started(table, method)`.
    Started {
        /// The table.
        table: String,
        /// The strategy.
        method: String,
    },
    /// `strategy_done(table, row)`.
    Done {
        /// The table.
        table: String,
        /// The strategy.
        method: String,
    },
    /// `table_done(table)`, by name.
    Table(String),
    /// `all_failed(why)`.
    AllFailed(Error),
    /// `note(line)`.
    Note(String),
    /// `listed(table, method)`.
    Listed {
        /// The table.
        table: String,
        /// The strategy.
        method: String,
    },
}

/// A sink that keeps everything, for tests and for callers that render at the end.
#[derive(Debug, Default)]
pub struct Recorder {
    /// Every call, in order.
    pub events: Vec<Event>,
    /// The tables handed over.
    pub tables: Vec<MeasuredTable>,
}

impl Sink for Recorder {
    fn planned(&mut self, n: u64) {
        self.events.push(Event::Planned(n));
    }
    fn status(&mut self, what: &str) {
        self.events.push(Event::Status(what.into()));
    }
    fn strategy_started(&mut self, table: &str, method: &str) {
        self.events.push(Event::Started {
            table: table.into(),
            method: method.into(),
        });
    }
    fn strategy_done(&mut self, table: &str, row: &Row) {
        self.events.push(Event::Done {
            table: table.into(),
            method: row.method.clone(),
        });
    }
    fn table_done(&mut self, table: MeasuredTable) {
        self.events.push(Event::Table(table.table.clone()));
        self.tables.push(table);
    }
    fn all_failed(&mut self, why: Error) {
        self.events.push(Event::AllFailed(why));
    }
    fn note(&mut self, line: &str) {
        self.events.push(Event::Note(line.into()));
    }
    fn listed(&mut self, table: &str, method: &str) {
        self.events.push(Event::Listed {
            table: table.into(),
            method: method.into(),
        });
    }
}

//! The CLI's side of the library's Runner: the filter flag, the session and progress bar as its
//! sink, Ctrl-C as its cancel flag.

use jsoncost::{Cancel, Runner, Sink};
use jsoncost_engine::{Config, Experiment, ExperimentKind, Row};

use crate::interrupt;
use crate::progress::Progress;
use crate::session::Session;

/// Which strategies of a table to time (`--filter GLOB`).
#[derive(Clone, Default)]
pub struct Filter(pub jsoncost::Filter);

impl Filter {
    /// The filter given with `flag` (`--filter`, `--store-filter` ...), named in its errors.
    pub fn new(flag: &'static str, pattern: Option<&str>) -> anyhow::Result<Filter> {
        jsoncost::Filter::new(flag, pattern).map(Filter).map_err(crate::failure::library)
    }
}

/// The session and the progress bar as a sink: tables go to the session as they finish.
pub struct CliSink<'a> {
    kind: ExperimentKind,
    session: &'a mut Session,
    progress: &'a Progress,
}

impl<'a> CliSink<'a> {
    pub fn new(kind: ExperimentKind, session: &'a mut Session, progress: &'a Progress) -> Self {
        CliSink { kind, session, progress }
    }
}

impl Sink for CliSink<'_> {
    fn planned(&mut self, n: u64) {
        self.progress.add_total(n);
    }
    fn status(&mut self, what: &str) {
        self.progress.start(what);
    }
    fn strategy_started(&mut self, table: &str, method: &str) {
        self.progress.start(&format!("{} {table}: {method}", self.kind));
    }
    fn strategy_done(&mut self, _table: &str, _row: &Row) {
        self.progress.done_one();
    }
    fn table_done(&mut self, table: Experiment) {
        self.session.push(table);
    }
    fn all_failed(&mut self, why: jsoncost::Error) {
        jsoncost::Sink::all_failed(&mut self.session.output, why);
    }
    fn note(&mut self, line: &str) {
        self.progress.note(line);
    }
}

/// The library's Runner with the CLI's settings, Ctrl-C as its cancel flag.
pub fn runner<'s>(config: &Config, filter: &Filter, sink: &'s mut dyn Sink) -> Runner<'s> {
    Runner::new(config.clone(), filter.0.clone(), Cancel::when(interrupt::interrupted), sink)
}

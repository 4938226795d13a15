//! Measures one table through the library's Runner (gate, engine, ratios and order), with the
//! progress bar as its sink and Ctrl-C as its cancel flag.

use jsoncost::{Cancel, Runner, Sink, Stop, Table};
use jsoncost_codecs::BoxedStrategy;
use jsoncost_engine::{Config, Experiment, ExperimentKind, Row};
use serde_json::{Map, Value};

use crate::interrupt;
use crate::progress::Progress;
use crate::session::Session;

/// Which strategies of a table to time (`--filter GLOB`).
#[derive(Clone, Default)]
pub struct Filter(pub jsoncost::Filter);

impl Filter {
    pub fn new(pattern: Option<&str>) -> anyhow::Result<Filter> {
        jsoncost::Filter::new("--filter", pattern)
            .map(Filter)
            .map_err(crate::failure::library)
    }

    pub fn matches(&self, method: &str) -> bool {
        self.0.matches(method)
    }

    /// Usage error when the filter matches none of `methods`, listing them.
    pub fn check_matches_any<'a>(&self, methods: impl IntoIterator<Item = &'a str>) -> anyhow::Result<()> {
        self.0.check_matches_any(methods).map_err(crate::failure::library)
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
    fn note(&mut self, line: &str) {
        self.progress.note(line);
    }
}

/// The library's Runner with the CLI's settings, Ctrl-C as its cancel flag.
pub fn runner<'s>(config: &Config, filter: &Filter, sink: &'s mut dyn Sink) -> Runner<'s> {
    Runner::new(config.clone(), filter.0.clone(), Cancel::when(interrupt::interrupted), sink)
}

/// The progress bar as a sink; keeps the finished table for the caller.
struct Bar<'p> {
    kind: ExperimentKind,
    progress: &'p Progress,
    table: Option<Experiment>,
}

impl Sink for Bar<'_> {
    fn strategy_started(&mut self, table: &str, method: &str) {
        self.progress.start(&format!("{} {table}: {method}", self.kind));
    }
    fn strategy_done(&mut self, _table: &str, _row: &Row) {
        self.progress.done_one();
    }
    fn table_done(&mut self, table: Experiment) {
        self.table = Some(table);
    }
}

/// Gates, measures and orders one table. A fatal failure (e.g. the server went away) stops the
/// table; its message is returned beside the rows measured so far.
pub fn measure_table(
    experiment: ExperimentKind,
    table: &str,
    params: Map<String, Value>,
    strategies: Vec<BoxedStrategy<'_>>,
    filter: &Filter,
    config: &Config,
    progress: &Progress,
) -> (Experiment, Option<String>) {
    let mut bar = Bar {
        kind: experiment,
        progress,
        table: None,
    };
    let stop = Runner::new(config.clone(), filter.0.clone(), Cancel::when(interrupt::interrupted), &mut bar)
        .run(Table::new(experiment, table, params, strategies));
    let exp = bar.table.unwrap_or_else(|| Experiment::new(experiment, table));
    let fatal = match stop {
        Err(Stop::Fatal(message)) => Some(message),
        Err(Stop::Cancelled) | Ok(()) => None,
    };
    (exp, fatal)
}

//! The CLI's side of the library's Runner: the session and progress bar as its sink, Ctrl-C as
//! its cancel flag.

use jsoncost::flags::ExperimentArgs;
use jsoncost::{Cancel, Sink};
use jsoncost_engine::{Config, Experiment, ExperimentKind, Row};

use crate::failure::library;
use crate::interrupt;
use crate::progress::Progress;
use crate::session::Session;

/// The session and the progress bar as a sink: tables go to the session as they finish.
pub struct CliSink<'a> {
    kind: ExperimentKind,
    session: &'a mut Session,
    progress: &'a Progress,
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

/// Runs the experiment `args` describe into `session`, Ctrl-C as its cancel flag.
pub fn run_experiment(args: &dyn ExperimentArgs, config: &Config, session: &mut Session, progress: &Progress) -> anyhow::Result<()> {
    let mut sink = CliSink {
        kind: args.kind(),
        session,
        progress,
    };
    args.run(config, Cancel::when(interrupt::interrupted), &mut sink).map_err(library)
}

//! The CLI's side of the library's Runner: the session and progress bar as its sink, Ctrl-C as
//! its cancel flag.

use jsoncost::flags::ExperimentArgs;
use jsoncost::{Cancel, Sink};
use jsoncost_engine::{ExperimentKind, MeasureConfig, MeasuredTable, Row};

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
    fn table_done(&mut self, table: MeasuredTable) {
        // Tables held for the verdict print nothing yet: say on stderr that one is done (once it
        // is kept, so what the line announces is already in the results).
        let done = self
            .session
            .output
            .holds_tables()
            .then(|| format!("{}: {} measured", self.kind, table.table));
        let name = table.table.clone();
        self.session.push(table);
        if let Some(line) = done {
            self.progress.note(&line);
        }
        // jsoncost's own tests of what a panic keeps: a panic on the main thread once `name`
        // is kept, as a bug or a failed thread spawn would be.
        if std::env::var_os("JSONCOST_TEST_PANIC_AFTER").is_some_and(|after| after == name.as_str()) {
            panic!("jsoncost's own test: a panic after {name}");
        }
    }
    fn all_failed(&mut self, why: jsoncost::Error) {
        jsoncost::Sink::all_failed(&mut self.session.output, why);
    }
    fn note(&mut self, line: &str) {
        self.progress.note(line);
    }
}

/// Runs the experiment `args` describe into `session`, Ctrl-C as its cancel flag.
pub fn run_experiment(args: &dyn ExperimentArgs, config: &MeasureConfig, session: &mut Session, progress: &Progress) -> anyhow::Result<()> {
    let mut sink = CliSink {
        kind: args.kind(),
        session,
        progress,
    };
    args.run(config, Cancel::when(interrupt::interrupted), &mut sink).map_err(library)
}

//! Where results go: the output flags, and the session that hands tables to the library's
//! [`Output`] (stdout carries exactly the results; results.json is written atomically at the
//! end, and also when a run stops early, so nothing measured is lost).

use jsoncost::output::Output;
use jsoncost_engine::lockstep::Lockstep;
use jsoncost_engine::{ExperimentKind, MeasuredTable};
use jsoncost_report::Format;
use std::path::{Path, PathBuf};

use crate::failure;
use crate::interrupt;

/// Output options shared by every measuring command.
#[derive(Debug, Clone, clap::Args)]
pub struct OutputArgs {
    /// What stdout carries.
    #[arg(long, default_value = "table", value_parser = format_parser())]
    pub format: Format,
    /// Also write the results (results.json, schema version 1) to this file.
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// The rate the advice states per-second figures at (CPU share, allocation per second):
    /// operations/s for micro (default 10,000), reads/s for store (2,000), bodies/s for stream
    /// (1), requests/s for http (1,000). An assumption about your service, not a measurement.
    /// (Not `--rate`: http's `--rate` is the open model's load rate.)
    #[arg(long = "advice-rate", value_name = "PER_S", value_parser = parse_rate)]
    pub advice_rate: Option<f64>,
}

pub use jsoncost_engine::{parse_experiment_rate, parse_rate};

/// `--format`'s parser: the report's formats by name (`Format::ALL`), listed in `--help`.
pub fn format_parser() -> impl clap::builder::TypedValueParser<Value = Format> {
    use clap::builder::TypedValueParser;
    clap::builder::PossibleValuesParser::new(Format::ALL.map(Format::name))
        .map(|name| name.parse::<Format>().expect("a name from Format::ALL"))
}

/// Colour on stdout only for a terminal and when NO_COLOR is unset (no-color.org).
pub fn use_color() -> bool {
    jsoncost::output::use_color()
}

/// One command's results as they accumulate: the library's output (the bench harness prints
/// and writes through the same one).
pub struct Session {
    pub output: Output,
    /// Where the command's end writes besides `--out`, for a second signal's writes.
    reports: Option<PathBuf>,
    baseline: Option<PathBuf>,
    out: Option<PathBuf>,
}

impl Session {
    /// Starts a session; an `--out` whose directory cannot be written fails now (exit 3),
    /// before any experiment runs.
    pub fn new(output: &OutputArgs, quick: bool, lockstep: &Lockstep) -> anyhow::Result<Session> {
        Ok(Session {
            output: Output::new(output.format, quick, output.out.clone(), lockstep).map_err(failure::library)?,
            reports: None,
            baseline: None,
            out: output.out.clone(),
        })
    }

    /// Also where `run` writes at its end: report.md and report.html in `reports`, the
    /// baseline file.
    pub fn also_writing(&mut self, reports: PathBuf, baseline: Option<PathBuf>) {
        self.reports = Some(reports);
        self.baseline = baseline;
        self.keep();
    }

    /// Hands the finished tables to the signal handler (see `interrupt::keep`).
    fn keep(&self) {
        interrupt::keep(interrupt::Pending {
            results: self.output.results.clone(),
            out: self.out.clone(),
            reports: self.reports.clone(),
            baseline: self.baseline.clone(),
        });
    }

    /// States `kind`'s per-second advice at `per_s` (`--advice-rate`).
    pub fn set_rate(&mut self, kind: ExperimentKind, per_s: f64) {
        self.output.results.rates.set(kind, per_s);
    }

    /// Adds a finished table; table and markdown formats print it at once.
    pub fn push(&mut self, exp: MeasuredTable) {
        self.output.push(exp);
        self.keep();
    }

    /// Adds the allocator tables' comparisons; table and markdown formats print them at once.
    pub fn push_allocators(&mut self, comparisons: Vec<jsoncost_engine::AllocatorComparison>) {
        self.output.push_allocators(comparisons);
        self.keep();
    }

    /// Keeps an experiment's error in the results as a table of its own (see
    /// [`Output::record_error`]).
    pub fn record_error(&mut self, kind: ExperimentKind, what: &str, error: &anyhow::Error) {
        self.output.record_error(kind, what, format!("{error:#}"));
        self.keep();
    }

    /// The command's outcome once its experiments returned without error: a table whose every
    /// row failed fails it (exit 2 for bad input, 3 for the environment).
    pub fn outcome(&mut self) -> anyhow::Result<()> {
        self.output.outcome().map_err(failure::library)
    }

    /// Prints what is left (the advisor for tables; the whole output for json/csv) and writes
    /// results.json when asked, marked interrupted if it was. Called on success and on failure
    /// alike.
    pub fn finish(&mut self) -> anyhow::Result<()> {
        let _writing = interrupt::finishing();
        self.finish_writing()
    }

    /// [`Session::finish`] inside a caller's `interrupt::finishing()`.
    pub fn finish_writing(&mut self) -> anyhow::Result<()> {
        self.output.finish(interrupt::interrupted()).map_err(failure::library)
    }

    pub fn write_results(&self, path: &Path) -> anyhow::Result<()> {
        self.output.write_results(path).map_err(failure::library)
    }
}

/// Fails before anything is measured: exit 2 when `path` is a directory, exit 3 when its
/// directory does not exist or cannot be written.
pub fn check_writable(path: &Path) -> anyhow::Result<()> {
    jsoncost::output::check_writable(path).map_err(failure::library)
}

/// Prints a command's output on stdout (exit 3 when that fails; a closed pipe is quiet).
pub fn print_stdout(text: &str) -> anyhow::Result<()> {
    jsoncost::output::print_stdout(text).map(drop).map_err(failure::library)
}

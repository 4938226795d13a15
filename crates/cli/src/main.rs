//! `jsoncost`: measures what JSON costs on a service's hot path and shows the cheapest correct
//! way to pay it. The binary is thin: it parses the command line, installs the counting
//! allocator, and wires experiments → engine → report.

mod args;
mod commands;
mod experiments;
mod failure;
mod interrupt;
mod progress;
mod run;
mod session;

use clap::{Parser, Subcommand};
use jsoncost_engine::alloc::{self, CountingAllocator, SelectedAllocator};
use jsoncost_engine::{Config, ExperimentKind};

use crate::args::ScheduleArg;
use crate::progress::Progress;
use crate::session::{OutputArgs, Session};

/// Counts every allocation while a measurement is open (see jsoncost_engine::alloc for what it
/// costs when none is), over the allocator JSONCOST_ALLOCATOR names: the system's unless told.
/// The global allocator is fixed for a process's life, so the allocators are compared in one
/// process each; selecting at run time (at the first allocation, before `main`) makes those
/// processes this one binary, so they differ by nothing else (not their code's layout), and
/// the counting layer over each keeps Allocated exact. A second binary per allocator, or a
/// re-exec after choosing, would not.
#[global_allocator]
static ALLOCATOR: CountingAllocator<SelectedAllocator> = CountingAllocator::selected();

#[derive(Parser)]
#[command(
    name = "jsoncost",
    version,
    about = "Measures what JSON costs on a service's hot path and the cheapest correct way to pay it."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// The whole study in one command: every experiment, a report, and an optional baseline.
    Run(Box<run::RunArgs>),
    /// Serialize and deserialize small records and documents through every library and API style.
    Micro {
        #[command(flatten)]
        args: experiments::micro::MicroArgs,
        #[command(flatten)]
        precision: PrecisionArgs,
        #[command(flatten)]
        output: OutputArgs,
    },
    /// Compare two results files (or saved baselines); exit 1 on a regression.
    Compare(commands::compare::CompareArgs),
    /// Paired A/B of two builds: run both in alternating rounds (ABBA), decide per row from the
    /// per-round ratios; exit 1 on a regression.
    Ab(commands::ab::AbArgs),
    /// The allocator as a lever: an experiment under the system allocator, mimalloc and
    /// jemalloc, one process each, in lockstep; each row's time paired with the system's.
    Alloc(commands::alloc::AllocArgs),
    /// Re-render a saved results.json (tables, markdown, HTML).
    Report(commands::report::ReportArgs),
    /// Deserialize a large body (1,000,000 readings, ~72 MB) buffered, from a reader and incrementally.
    Stream {
        #[command(flatten)]
        args: experiments::stream::StreamArgs,
        #[command(flatten)]
        precision: PrecisionArgs,
        #[command(flatten)]
        output: OutputArgs,
    },
    /// Load-test the reference JSON API in-process (or any URL with --target): req/s, latency, server cost.
    Http {
        #[command(flatten)]
        args: experiments::http::HttpArgs,
        #[command(flatten)]
        precision: PrecisionArgs,
        #[command(flatten)]
        output: OutputArgs,
    },
    /// Hostile inputs (deep nesting, huge strings, odd numbers, bad UTF-8 ...) through each
    /// library and parse path, each in a child process with time and memory limits.
    Safety {
        #[command(flatten)]
        args: experiments::safety::SafetyArgs,
        /// Leave out the large cases (the 64 MiB string, the million numbers) unless
        /// --safety-case names them: seconds rather than minutes.
        #[arg(long)]
        quick: bool,
        #[command(flatten)]
        output: OutputArgs,
    },
    /// Serve the reference JSON API until Ctrl-C.
    Serve(commands::serve::ServeArgs),
    /// Read one document by id from a store in several ways, down to the floor (bytes discarded).
    Store {
        #[command(flatten)]
        args: experiments::store::StoreArgs,
        #[command(flatten)]
        precision: PrecisionArgs,
        #[command(flatten)]
        output: OutputArgs,
    },
}

/// How precisely to measure.
#[derive(Debug, Clone, clap::Args)]
pub struct PrecisionArgs {
    /// Trade precision for time: fewer, shorter iterations (the output says so).
    #[arg(long)]
    pub quick: bool,
    /// jsoncost's own tests (hyperfine's `--debug-mode`): `--quick` through the real pipeline
    /// (gate, warm-up, timed rounds, allocation pass) with the fewest, shortest iterations, for
    /// tests of wiring, exit codes and rows, not of figures.
    #[arg(long, hide = true, requires = "quick")]
    pub debug_mode: bool,
    /// How a table's strategies share the time: interleaved rounds (drift lands on every row
    /// alike; rows pair up) or one strategy after another. stream's rounds run each strategy
    /// once as a whole run; http always alternates its modes in slices of load, in rounds.
    #[arg(long, value_enum, default_value_t = ScheduleArg::Interleaved)]
    pub schedule: ScheduleArg,
}

impl PrecisionArgs {
    pub fn config(&self) -> Config {
        let config = match (self.debug_mode, self.quick) {
            (true, _) => debug_mode(),
            (false, true) => Config::quick(),
            (false, false) => Config::full(),
        };
        Config {
            schedule: self.schedule.schedule(),
            ..config
        }
    }
}

/// `--debug-mode`: a quick run's stages, each as short as the engine allows (one warm-up, three
/// timed iterations of ~1 ms, 10 counted operations).
fn debug_mode() -> Config {
    Config {
        iteration_time: std::time::Duration::from_millis(1),
        warmup_iterations: 1,
        min_iterations: 3,
        max_iterations: 3,
        budget: std::time::Duration::from_millis(30),
        alloc_ops: 10,
        ..Config::quick()
    }
}

fn run(cli: Cli) -> anyhow::Result<()> {
    match cli.command {
        Command::Run(args) => run::run(&args),
        Command::Compare(args) => commands::compare::run(&args),
        Command::Ab(args) => commands::ab::run(&args),
        Command::Alloc(args) => commands::alloc::run(&args),
        Command::Report(args) => commands::report::run(&args),
        Command::Micro { args, precision, output } => {
            one_experiment(&output, &precision, ExperimentKind::Micro, |config, session, progress| {
                experiments::micro::run(&args, config, session, progress)
            })
        }
        Command::Stream { args, precision, output } => {
            one_experiment(&output, &precision, ExperimentKind::Stream, |config, session, progress| {
                experiments::stream::run(&args, config, session, progress)
            })
        }
        Command::Http { args, precision, output } => one_experiment(&output, &precision, ExperimentKind::Http, |_, session, progress| {
            experiments::http::run(&args, precision.quick, session, progress)
        }),
        Command::Safety { args, quick, output } => {
            // Findings, not timings: no schedule to choose.
            let precision = PrecisionArgs {
                quick,
                debug_mode: false,
                schedule: ScheduleArg::Sequential,
            };
            one_experiment(&output, &precision, ExperimentKind::Safety, |_, session, progress| {
                experiments::safety::run(&args, quick, session, progress)
            })
        }
        Command::Serve(args) => commands::serve::run(&args),
        Command::Store { args, precision, output } => {
            one_experiment(&output, &precision, ExperimentKind::Store, |config, session, progress| {
                experiments::store::run(&args, config, session, progress)
            })
        }
    }
}

/// Runs one experiment command: session, progress, and results written whatever happens.
fn one_experiment(
    output: &OutputArgs,
    precision: &PrecisionArgs,
    kind: ExperimentKind,
    experiment: impl FnOnce(&Config, &mut Session, &Progress) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    let mut session = Session::new(output, precision.quick)?;
    if let Some(rate) = output.advice_rate {
        session.set_rate(kind, rate);
    }
    if precision.quick {
        eprintln!("quick run: fewer, shorter iterations; figures are rough");
    }
    let progress = Progress::new(0);
    let result = experiment(&precision.config(), &mut session, &progress);
    progress.finish();
    finish(session, result)
}

/// Writes what was measured whatever happened, then reports the first error: the experiment's,
/// else writing's, else a table whose every row failed.
fn finish(mut session: Session, result: anyhow::Result<()>) -> anyhow::Result<()> {
    let written = session.finish();
    result.and(written).and_then(|()| session.outcome())
}

fn main() {
    // The allocator was chosen before `main`; a name it could not follow is bad input.
    if let Some(e) = alloc::selection_error() {
        eprintln!("error: {e}");
        std::process::exit(failure::ExitCode::Usage as i32);
    }
    // A safety child (this binary re-executed by `jsoncost safety`) runs before clap and the
    // signal handlers: its arguments are the library's protocol, not the user's command line.
    let mut argv = std::env::args_os().skip(1);
    if argv.next().is_some_and(|a| a == experiments::safety::CHILD_SUBCOMMAND) {
        experiments::safety::child(argv.collect());
    }
    let cli = Cli::parse();
    interrupt::install(match cli.command {
        Command::Serve(_) => interrupt::OnInterrupt::StopServing,
        Command::Compare(_) | Command::Report(_) => interrupt::OnInterrupt::Stop,
        _ => interrupt::OnInterrupt::WriteMeasured,
    });
    if let Err(e) = run(cli) {
        // An error met after a signal (a read it cut short) is the interruption's: 130.
        let code = if interrupt::interrupted() {
            failure::ExitCode::Interrupted as i32
        } else {
            failure::exit_code_of(&e)
        };
        // A regression's sentence is on stdout with the comparison: exit 1 is all there is to add.
        if code != failure::ExitCode::Regression as i32 {
            eprintln!("error: {e:#}");
        }
        std::process::exit(code);
    }
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    #[test]
    fn command_line_definition_is_consistent() {
        super::Cli::command().debug_assert();
    }
}

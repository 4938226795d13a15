//! `jsoncost`: measures what JSON costs on a service's hot path and shows the cheapest correct
//! way to pay it. The binary is thin: it parses the command line, installs the counting
//! allocator, and wires experiments → engine → report.

mod abort;
mod address_space;
mod commands;
mod failure;
mod interrupt;
mod precision;
mod progress;
mod run;
#[cfg(target_os = "linux")]
mod seeds;
mod session;
mod sink;
mod source_tree;

use clap::{Parser, Subcommand};
use jsoncost::ExperimentCommand;
use jsoncost_engine::MeasureConfig;
use jsoncost_engine::alloc::{self, CountingAllocator, SelectedAllocator};
use jsoncost_engine::lockstep::Lockstep;

use crate::precision::SharedArgs;
use crate::progress::Progress;
use crate::session::Session;

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
    /// The experiments, one at a time: micro, store, stream, http, safety.
    #[command(flatten)]
    MeasuredTable(ExperimentCommand<SharedArgs>),
    /// Compare two results files (or saved baselines); exit 1 on a regression.
    Compare(commands::compare::CompareArgs),
    /// Paired A/B of two builds run at once in lockstep (turns before every timed iteration,
    /// ABBA); decide per row from the per-round ratios; exit 1 on a regression.
    Ab(commands::ab::AbArgs),
    /// The allocator as a lever: an experiment under the system allocator, mimalloc and
    /// jemalloc, one process each, in lockstep; each row's time paired with the system's.
    Alloc(commands::alloc::AllocArgs),
    /// Build choices as levers: this source tree built once as it is and once per lever (a
    /// crate's feature, a CPU level, LTO, panic=abort, a dependency's version), each paired
    /// with the default build in lockstep; one verdict per lever.
    Levers(commands::levers::LeversArgs),
    /// Re-render a saved results.json (tables, markdown, HTML).
    Report(commands::report::ReportArgs),
    /// Serve the reference JSON API until Ctrl-C.
    Serve(commands::serve::ServeArgs),
}

fn run(cli: Cli) -> anyhow::Result<()> {
    match cli.command {
        Command::Run(args) => run::run(&args),
        Command::Compare(args) => commands::compare::run(&args),
        Command::Ab(args) => commands::ab::run(&args),
        Command::Alloc(args) => commands::alloc::run(&args),
        Command::Levers(args) => commands::levers::run(&args),
        Command::Report(args) => commands::report::run(&args),
        Command::MeasuredTable(command) => one_experiment(&command),
        Command::Serve(args) => commands::serve::run(&args),
    }
}

/// Runs one experiment command: session, progress, and results written whatever happens.
fn one_experiment(command: &ExperimentCommand<SharedArgs>) -> anyhow::Result<()> {
    let SharedArgs {
        precision,
        output,
        measure,
    } = command.shared();
    let mut command = command.clone();
    if precision.debug_mode {
        command.args_mut().debug_mode();
    }
    let args = command.args();
    // A command that writes files of its own (a profile's flamegraphs) keeps them, its
    // results.json and its reports together in a directory of their own without --out.
    let own_dir;
    let reports_dir = match (&output.out, args.writes_files()) {
        (None, true) => {
            let dir = jsoncost::output::timestamp_dir();
            std::fs::create_dir_all(&dir).map_err(|e| failure::environment(anyhow::anyhow!("creating {}: {e}", dir.display())))?;
            own_dir = session::OutputArgs {
                out: Some(dir.join(jsoncost::output::RESULTS_FILE)),
                ..output.clone()
            };
            Some(dir)
        }
        _ => {
            own_dir = output.clone();
            None
        }
    };
    let output = &own_dir;
    if let Some(out) = &output.out {
        jsoncost::output::refuse_input_as_output(("--out", out), &args.inputs()).map_err(failure::library)?;
    }
    // The counts first: a missing Valgrind or an undecodable build is said before the timing.
    let counted = commands::counts::counted(args.kind(), precision.quick, measure)?;
    // The counted child (this command again, under Callgrind) writes no file: its parent does.
    let child_output;
    let output = if jsoncost_engine::counts::requested_ops().is_some() {
        child_output = session::OutputArgs {
            out: None,
            ..output.clone()
        };
        &child_output
    } else {
        output
    };
    // Under `ab` or `alloc` the conductor names its socket: read here, once, for the output's
    // first turn and the engine's.
    let lockstep = Lockstep::from_env();
    let mut session = Session::new(output, precision.quick, &lockstep)?;
    if let Some(counted) = counted {
        session.output.count_with(counted);
    }
    // A profiled run's answer is the server's JSON share: the verdict before the tables.
    if args.writes_files() {
        session.output.verdict_first();
    }
    if let Some(rate) = output.advice_rate {
        session.set_rate(args.kind(), rate);
    }
    if precision.quick {
        eprintln!("quick run: fewer, shorter iterations; figures are rough");
    }
    let progress = if jsoncost_engine::counts::requested_ops().is_some() {
        Progress::hidden()
    } else {
        Progress::new(0)
    };
    let config = MeasureConfig {
        lockstep,
        ..precision.config()
    };
    let result = sink::run_experiment(args, &config, &mut session, &progress);
    progress.finish();
    if let Some(dir) = &reports_dir {
        session.also_writing(dir.clone(), None);
    }
    let written = finish(session, result, reports_dir.as_deref());
    if let Some(dir) = &reports_dir {
        eprintln!("report: {}", dir.join("report.html").display());
    }
    written
}

/// Writes what was measured whatever happened, then reports the first error: the experiment's,
/// else writing's, else a table whose every row failed.
fn finish(mut session: Session, result: anyhow::Result<()>, reports: Option<&std::path::Path>) -> anyhow::Result<()> {
    let mut written = session.finish();
    if let (Some(dir), Ok(())) = (reports, &written) {
        written = jsoncost::output::write_reports_of(&session.output.results, dir).map_err(failure::library);
    }
    result.and(written).and_then(|()| session.outcome())
}

fn main() {
    // The allocator was chosen before `main`; a name it could not follow is bad input.
    if let Some(e) = alloc::selection_error() {
        eprintln!("error: {e}");
        std::process::exit(failure::ExitCode::Usage as i32);
    }
    // A file-size limit (`ulimit -f`) then ends a write with EFBIG, which is reported and
    // whose temporary file is removed, instead of killing the process mid-write (SIGXFSZ's
    // default). Children get the default back (`children::die_with_parent`).
    // SAFETY: setting a signal's disposition to ignored, before any other thread exists.
    unsafe {
        libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
    }
    // A safety child (this binary re-executed by `jsoncost safety`) runs before clap and the
    // signal handlers: its arguments are the library's protocol, not the user's command line.
    let mut argv = std::env::args_os().skip(1);
    if argv.next().is_some_and(|a| a == jsoncost::safety::CHILD_SUBCOMMAND) {
        std::process::exit(jsoncost::safety::child_main(argv));
    }
    address_space::fit_allocator();
    let cli = Cli::parse();
    abort::install();
    // The counted child of `--measure counts` runs no thread besides its own: the signal
    // thread's start races the main thread under Valgrind, and where its malloc arena lands
    // moved the main thread's later mappings, and with them address-dependent paths (a
    // buffer near a page's end), from process to process. Its parent handles Ctrl-C.
    if jsoncost_engine::counts::requested_ops().is_none() {
        interrupt::install(match cli.command {
            Command::Serve(_) => interrupt::OnInterrupt::StopServing,
            Command::Compare(_) | Command::Report(_) => interrupt::OnInterrupt::Stop,
            _ => interrupt::OnInterrupt::WriteMeasured,
        });
    }
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
            // EMFILE wherever it surfaced (a store, a connect, a file): which limit it was.
            if format!("{e:#}").contains("(os error 24)")
                && let Some(limit) = jsoncost_http::fds::limit()
            {
                eprintln!("note: this process may have {limit} files open at once (ulimit -n); raise the limit");
            }
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

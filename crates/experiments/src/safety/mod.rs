//! The safety experiment: each library, on each parse path it has, is handed a generated hostile
//! corpus ([`corpus`]) — or a JSONTestSuite-style directory (`--suite DIR`) — in a child process
//! with a time limit and a memory limit (RLIMIT_AS), so an abort, a stack overflow or an
//! allocation failure is a row ("crashed: SIGABRT (stack overflow)") and never ends the run.
//!
//! One child runs a batch (every case of one library and path) and prints a line per case; when
//! it dies or is killed, the case it was on is recorded as crashed or timed out and a new child
//! goes on from the next case, so the cost is a few processes, not one per case. Each row holds
//! the outcome, the parse time and peak heap measured in the child, and whether an accepted
//! value agrees with serde_json (through the exact reference, as the correctness gate judges).
//!
//! Tables: one per library (`serde_json`, …), rows per (path, case); the report draws each as a
//! matrix of cases × paths. A suite run gives `suite/<library>` tables with conformance counts.

mod child;
pub mod corpus;
mod parent;
pub mod subject;

use std::path::PathBuf;
use std::time::Duration;

use jsoncost_engine::safety::{ConformanceSummary, Expectation, SafetyCell, SafetyOutcome, SafetyPath};
use jsoncost_engine::{ExperimentKind, MeasuredTable, Row, StrategyId, Summary};
use serde_json::{Map, json};

pub use child::child_main;
pub use corpus::Case;
pub use parent::ChildCommand;
pub use subject::Parser;

use crate::error::Error;
use crate::runner::Runner;

/// The default time limit per case.
pub const DEFAULT_TIME_LIMIT: Duration = Duration::from_secs(10);
/// The default address-space limit per child, MiB (the 64 MiB string case needs a few copies).
pub const DEFAULT_MEMORY_MIB: u64 = 2048;
/// The default stack of the parsing thread, KiB: what Rust gives a spawned thread and tokio a
/// worker, where a service parses its requests.
pub const DEFAULT_STACK_KIB: u64 = 2048;
/// Largest number of suite files read from a directory.
pub const SUITE_MAX_FILES: usize = 10_000;

/// What to run and with which limits.
#[derive(Debug, Clone, PartialEq)]
pub struct SafetyOptions {
    /// How to start a child.
    pub child: ChildCommand,
    /// Libraries to run (default: [`Parser::all`]).
    pub libraries: Vec<Parser>,
    /// Corpus cases (default: [`Case::all`]); ignored with `suite`.
    pub cases: Vec<Case>,
    /// A JSONTestSuite-style directory (`y_`/`n_`/`i_` files) instead of the corpus.
    pub suite: Option<PathBuf>,
    /// Each child's wall-clock limit.
    pub time_limit: Duration,
    /// Each child's address-space limit, in MiB.
    pub memory_mib: u64,
    /// Each child's stack limit, in KiB.
    pub stack_kib: u64,
}

impl SafetyOptions {
    /// Every library and case, default limits.
    pub fn new(child: ChildCommand) -> SafetyOptions {
        SafetyOptions {
            child,
            libraries: Parser::all(),
            cases: Case::all(),
            suite: None,
            time_limit: DEFAULT_TIME_LIMIT,
            memory_mib: DEFAULT_MEMORY_MIB,
            stack_kib: DEFAULT_STACK_KIB,
        }
    }

    /// The parse thread's stack must leave room in the child's address space for the program
    /// and the parse: a stack that cannot be mapped fails every case in the harness, before
    /// the library sees the input, and those are no library's outcomes.
    fn check_limits(&self) -> Result<(), Error> {
        if self.stack_kib.saturating_mul(4) > self.memory_mib.saturating_mul(1024) {
            return Err(Error::usage(format!(
                "--case-stack-kib {} does not fit --case-memory-mib {}: the parse thread's stack may take at most a quarter of a child's address space ({} KiB)",
                self.stack_kib,
                self.memory_mib,
                self.memory_mib.saturating_mul(1024) / 4
            )));
        }
        Ok(())
    }
}

/// Runs the safety experiment: one table per library into `runner`'s sink. `--filter` globs
/// match `path/library` (`dom/sonic-rs`).
pub fn run(options: &SafetyOptions, runner: &mut Runner<'_>) -> Result<(), Error> {
    let options = &within_the_process_limit(options, runner);
    options.check_limits()?;
    let suite = match &options.suite {
        Some(dir) => {
            let (files, not_run) = suite_files(dir)?;
            for (name, why) in &not_run {
                runner.sink().note(&format!("safety: {name} not run: {why}"));
            }
            if !not_run.is_empty() {
                runner.sink().note(&format!(
                    "safety: {} of the suite's case files not run (named above), counted nowhere",
                    not_run.len()
                ));
            }
            Some(files)
        }
        None => None,
    };
    let inputs: Vec<String> = match &suite {
        Some(files) => files.clone(),
        None => options.cases.iter().map(|c| c.name()).collect(),
    };
    let mut any = false;
    for &library in &options.libraries {
        let paths: Vec<SafetyPath> = match suite {
            // Conformance is the parser's: its DOM path.
            Some(_) => vec![SafetyPath::Dom],
            None => library.paths(),
        };
        let mut rows = Vec::new();
        for path in paths {
            let method = format!("{path}/{library}");
            if !runner.filter().matches(&method) {
                continue;
            }
            any = true;
            let applicable: Vec<String> = match &suite {
                Some(_) => inputs.clone(),
                None => options
                    .cases
                    .iter()
                    .filter(|c| path != SafetyPath::Incremental || c.is_array())
                    .map(|c| c.name())
                    .collect(),
            };
            runner
                .sink()
                .status(&format!("safety: {method} ({} inputs, each in a child process)", applicable.len()));
            let request = child::Request {
                library,
                path,
                memory_mib: options.memory_mib,
                stack_kib: options.stack_kib,
                suite: options.suite.clone(),
                inputs: applicable,
            };
            let cancel = runner.cancel().clone();
            let reports = parent::run_batch(&options.child, &request, options.time_limit, &|| cancel.is_cancelled())?;
            for (name, report) in request.inputs.iter().zip(reports) {
                match report.not_run {
                    Some(why) => runner
                        .sink()
                        .note(&format!("safety: {name} not run on {method}: {why}; counted nowhere")),
                    None => rows.push(row(library, path, name, report)),
                }
            }
            if runner.is_cancelled() {
                break;
            }
        }
        if rows.is_empty() {
            continue;
        }
        let mut exp = MeasuredTable::new(
            ExperimentKind::Safety,
            match &options.suite {
                Some(_) => format!("suite/{library}"),
                None => library.as_str().to_string(),
            },
        );
        exp.params = params(options, suite.as_ref().map(Vec::len));
        if suite.is_some() {
            exp.summary = Some(Summary::Conformance(conformance(library.as_str(), &rows)));
        }
        exp.rows = rows;
        runner.sink().table_done(exp);
        if runner.is_cancelled() {
            return Err(Error::Interrupted);
        }
    }
    if !any {
        return Err(Error::usage(
            "the filter leaves no safety row to run (rows are named path/library, e.g. dom/sonic-rs)",
        ));
    }
    Ok(())
}

/// `options` with the children's address space no larger than this process's hard limit
/// (`ulimit -v`): a child can lower its limit, not raise it, so a larger one would refuse
/// every case. Said once; the table's params carry the limit the cases ran under.
fn within_the_process_limit(options: &SafetyOptions, runner: &mut Runner<'_>) -> SafetyOptions {
    let mut options = options.clone();
    if let Ok((_, hard)) = rlimit::getrlimit(rlimit::Resource::AS)
        && hard != rlimit::INFINITY
        && options.memory_mib.saturating_mul(1 << 20) > hard
    {
        runner.sink().note(&format!(
            "safety: this process's address space is limited to {} MiB (ulimit -v): each case runs within that, not {} MiB",
            hard >> 20,
            options.memory_mib
        ));
        options.memory_mib = hard >> 20;
    }
    options
}

fn params(options: &SafetyOptions, suite_files: Option<usize>) -> Map<String, serde_json::Value> {
    let mut p = Map::new();
    p.insert("time_limit_s".into(), json!(options.time_limit.as_secs_f64()));
    p.insert("memory_limit_mib".into(), json!(options.memory_mib));
    p.insert("stack_kib".into(), json!(options.stack_kib));
    if let (Some(dir), Some(n)) = (&options.suite, suite_files) {
        p.insert("suite".into(), json!(dir.display().to_string()));
        p.insert("files".into(), json!(n));
    }
    p
}

fn row(library: Parser, path: SafetyPath, case: &str, report: child::Report) -> Row {
    let mut row = Row::new(StrategyId::new(path.as_str(), library.as_str()));
    row.mean_ns = Some(report.time_ns as f64);
    row.peak_bytes = report.peak_bytes;
    row.error_message = report.message;
    row.safety = Some(SafetyCell {
        library: library.as_str().to_string(),
        path,
        case: case.to_string(),
        outcome: report.outcome,
        crash: report.crash,
        agreement: report.agreement,
        agreement_message: report.agreement_message,
    });
    row
}

/// The suite's case files (`y_`, `n_`, `i_` prefixes), sorted, and those that cannot be run
/// with why (not a regular file, unreadable, over the size limit): a file the child could not
/// read would otherwise be counted as the library rejecting it. A directory with none to run is
/// bad input (exit 2).
fn suite_files(dir: &std::path::Path) -> Result<(Vec<String>, NotRun), Error> {
    let shown = dir.display();
    let entries = std::fs::read_dir(dir).map_err(|e| Error::usage(format!("cannot read the suite directory {shown}: {e}")))?;
    let mut files = Vec::new();
    let mut not_run = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|e| Error::usage(format!("cannot read the suite directory {shown}: {e}")))?;
        let name = entry.file_name();
        let shown_name = name.to_string_lossy();
        if Expectation::of_file_name(&shown_name).is_none() {
            continue;
        }
        if files.len() + not_run.len() == SUITE_MAX_FILES {
            return Err(Error::usage(format!(
                "the suite directory {shown} has more than {SUITE_MAX_FILES} case files"
            )));
        }
        match (name.to_str(), runnable(&entry.path())) {
            (None, _) => not_run.push((shown_name.into_owned(), "its name is not UTF-8".to_string())),
            (Some(name), Ok(())) => files.push(name.to_string()),
            (Some(name), Err(why)) => not_run.push((name.to_string(), why)),
        }
    }
    not_run.sort();
    if files.is_empty() {
        return Err(Error::usage(format!(
            "the suite directory {shown} has no y_/n_/i_ files to run (JSONTestSuite's test_parsing layout){}",
            not_run.first().map_or(String::new(), |(name, why)| format!("; {name}: {why}"))
        )));
    }
    files.sort();
    Ok((files, not_run))
}

/// Case files not run: name and why.
type NotRun = Vec<(String, String)>;

/// Whether a case file can be handed to a child: a regular file (through a symlink too) that
/// opens for reading and is within the size limit the child reads it with.
fn runnable(path: &std::path::Path) -> Result<(), String> {
    let meta = std::fs::metadata(path).map_err(|e| format!("cannot read it: {e}"))?;
    if !meta.is_file() {
        return Err("not a regular file".to_string());
    }
    let limit = child::SUITE_FILE_MAX_BYTES;
    if meta.len() > limit {
        return Err(format!("{} bytes, over the {} MiB limit per case", meta.len(), limit >> 20));
    }
    std::fs::File::open(path).map(drop).map_err(|e| format!("cannot read it: {e}"))
}

/// One library's conformance counts from its suite rows (the one place they are counted).
pub fn conformance(library: &str, rows: &[Row]) -> ConformanceSummary {
    let mut s = ConformanceSummary {
        library: library.to_string(),
        ..ConformanceSummary::default()
    };
    for row in rows {
        let Some(cell) = &row.safety else { continue };
        let Some(expect) = Expectation::of_file_name(&cell.case) else {
            continue;
        };
        let outcome = cell.outcome;
        let mut disagree = false;
        match (expect, outcome) {
            (Expectation::Accept, o) => {
                s.y_total += 1;
                if o == SafetyOutcome::Accepted {
                    s.y_accepted += 1;
                } else {
                    disagree = true;
                }
            }
            (Expectation::Reject, o) => {
                s.n_total += 1;
                if o == SafetyOutcome::Rejected {
                    s.n_rejected += 1;
                } else {
                    disagree = true;
                }
            }
            (Expectation::Either, SafetyOutcome::Accepted) => s.i_accepted += 1,
            (Expectation::Either, SafetyOutcome::Rejected) => s.i_rejected += 1,
            (Expectation::Either, _) => disagree = true,
        }
        match outcome {
            SafetyOutcome::Crashed => s.crashed += 1,
            SafetyOutcome::TimedOut => s.timed_out += 1,
            _ => {}
        }
        if disagree {
            s.disagreements.push(match &row.error_message {
                Some(m) => format!("{}: {} ({m})", cell.case, outcome.as_str()),
                None => format!("{}: {}", cell.case, outcome.as_str()),
            });
        }
    }
    s
}

/// The hidden subcommand a safety child runs (the `jsoncost` binary, re-executed), whose
/// arguments go to [`child_main`].
pub const CHILD_SUBCOMMAND: &str = "__safety-child";

#[cfg(feature = "cli")]
/// `jsoncost safety`'s flags.
#[derive(Debug, Clone, clap::Args)]
pub struct SafetyArgs {
    /// Run a JSONTestSuite-style directory (y_ must be accepted, n_ rejected, i_ either) instead
    /// of the generated corpus; prints each library's conformance counts and disagreements.
    #[arg(long, value_name = "DIR")]
    pub suite: Option<PathBuf>,
    /// Libraries to run (comma-separated): serde_json, sonic-rs, simd-json, serde_json_borrow, jiter.
    #[arg(long = "safety-library", value_name = "NAME", value_delimiter = ',', value_parser = parse_library)]
    pub libraries: Vec<Parser>,
    /// Corpus cases to run (comma-separated; default all), e.g. deep-array-100000,nan.
    #[arg(long = "safety-case", value_name = "CASE", value_delimiter = ',', value_parser = |s: &str| s.parse::<crate::safety::Case>(), conflicts_with = "suite")]
    pub cases: Vec<crate::safety::Case>,
    /// Only run rows whose `path/library` matches this glob, e.g. 'dom/*' or '*/sonic-rs'.
    #[arg(long = "safety-filter", value_name = "GLOB")]
    pub safety_filter: Option<String>,
    /// Time limit of one case, in seconds (the child is killed past it: "timed out").
    #[arg(long, value_name = "S", default_value_t = crate::safety::DEFAULT_TIME_LIMIT.as_secs(), value_parser = clap::value_parser!(u64).range(1..=600))]
    pub case_time_limit: u64,
    /// Address-space limit of each child (RLIMIT_AS), in MiB.
    #[arg(long, value_name = "MIB", default_value_t = crate::safety::DEFAULT_MEMORY_MIB, value_parser = clap::value_parser!(u64).range(256..=1_048_576))]
    pub case_memory_mib: u64,
    /// Stack of the parsing thread, in KiB (2048: a spawned thread's and a tokio worker's).
    #[arg(long, value_name = "KIB", default_value_t = crate::safety::DEFAULT_STACK_KIB, value_parser = clap::value_parser!(u64).range(64..=1_048_576))]
    pub case_stack_kib: u64,
    /// jsoncost's own tests: add the fake libraries `test-abort` (calls abort) and `test-hang`.
    #[arg(long, hide = true)]
    pub safety_test_libraries: bool,
}

#[cfg(feature = "cli")]
fn parse_library(s: &str) -> Result<Parser, String> {
    match s.parse::<Parser>()? {
        l if Parser::TEST.contains(&l) => Err(format!("unknown library {s:?}")),
        l => Ok(l),
    }
}

#[cfg(feature = "cli")]
impl SafetyArgs {
    /// The library's options these flags give: children are this executable re-run with
    /// [`CHILD_SUBCOMMAND`].
    pub fn options(&self) -> Result<SafetyOptions, Error> {
        let program =
            std::env::current_exe().map_err(|e| Error::environment(format!("cannot find this executable to run safety children: {e}")))?;
        let mut o = SafetyOptions::new(ChildCommand {
            program,
            args: vec![std::ffi::OsString::from(CHILD_SUBCOMMAND)],
        });
        if !self.libraries.is_empty() {
            o.libraries = self.libraries.clone();
        }
        if self.safety_test_libraries {
            o.libraries.extend(Parser::TEST);
        }
        if !self.cases.is_empty() {
            o.cases = self.cases.clone();
        }
        o.suite = self.suite.clone();
        o.time_limit = Duration::from_secs(self.case_time_limit);
        o.memory_mib = self.case_memory_mib;
        o.stack_kib = self.case_stack_kib;
        Ok(o)
    }
}

#[cfg(feature = "cli")]
impl crate::flags::ExperimentArgs for SafetyArgs {
    fn kind(&self) -> jsoncost_engine::ExperimentKind {
        jsoncost_engine::ExperimentKind::Safety
    }

    fn run(
        &self,
        config: &jsoncost_engine::MeasureConfig,
        cancel: crate::cancel::Cancel,
        sink: &mut dyn crate::sink::Sink,
    ) -> Result<(), Error> {
        let mut options = self.options()?;
        if config.quick && self.cases.is_empty() {
            // The 64 MiB string and the million numbers are the slow cases (seconds each in a
            // debug build); a quick run keeps the nesting, number and text cases that find the
            // crashes.
            options.cases.retain(|c| !c.is_large());
        }
        // Findings, not timings: the engine's settings are not used.
        run(
            &options,
            &mut crate::flags::runner(
                &jsoncost_engine::MeasureConfig::quick(),
                "--safety-filter",
                self.safety_filter.as_deref(),
                cancel,
                sink,
            )?,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::ffi::OsStrExt;

    #[test]
    fn a_case_file_whose_name_is_not_utf8_is_listed_as_not_run() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("y_ok.json"), b"[]").unwrap();
        std::fs::write(dir.path().join(std::ffi::OsStr::from_bytes(b"n_\xff.json")), b"[").unwrap();
        let (files, not_run) = suite_files(dir.path()).unwrap();
        assert_eq!(files, ["y_ok.json"]);
        assert_eq!(not_run, [("n_\u{fffd}.json".to_string(), "its name is not UTF-8".to_string())]);
    }

    #[test]
    fn a_stack_over_a_quarter_of_the_memory_limit_is_refused_before_any_child_runs() {
        let mut options = SafetyOptions::new(ChildCommand {
            program: "/nonexistent".into(),
            args: Vec::new(),
        });
        (options.memory_mib, options.stack_kib) = (256, 524_288);
        assert_eq!(
            options.check_limits().unwrap_err().to_string(),
            "--case-stack-kib 524288 does not fit --case-memory-mib 256: the parse thread's stack may take at most a quarter of a child's address space (65536 KiB)"
        );
        options.stack_kib = 65_536;
        assert!(options.check_limits().is_ok());
    }

    #[test]
    fn a_suite_over_the_case_limit_is_refused_whatever_else_the_directory_holds() {
        let dir = tempfile::tempdir().unwrap();
        for i in 0..=SUITE_MAX_FILES {
            std::fs::File::create(dir.path().join(format!("i_{i:05}.json"))).unwrap();
        }
        assert_eq!(
            suite_files(dir.path()).unwrap_err().to_string(),
            format!("the suite directory {} has more than 10000 case files", dir.path().display())
        );
    }
}

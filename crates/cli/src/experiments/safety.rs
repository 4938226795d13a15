//! `jsoncost safety`: its flags, turned into the library's options (the experiment itself is
//! `jsoncost::safety`), and the hidden subcommand its child processes run.

use std::ffi::OsString;
use std::path::PathBuf;
use std::time::Duration;

use jsoncost::safety::{ChildCommand, Parser, SafetyOptions};
use jsoncost_engine::{Config, ExperimentKind};

use super::table::{CliSink, Filter, runner};
use crate::failure::{environment, library};
use crate::progress::Progress;
use crate::session::Session;

/// The hidden subcommand a safety child runs (this same binary, re-executed).
pub const CHILD_SUBCOMMAND: &str = "__safety-child";

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
    #[arg(long = "safety-case", value_name = "CASE", value_delimiter = ',', value_parser = |s: &str| s.parse::<jsoncost::safety::Case>(), conflicts_with = "suite")]
    pub cases: Vec<jsoncost::safety::Case>,
    /// Only run rows whose `path/library` matches this glob, e.g. 'dom/*' or '*/sonic-rs'.
    #[arg(long = "safety-filter", value_name = "GLOB")]
    pub safety_filter: Option<String>,
    /// Time limit of one case, in seconds (the child is killed past it: "timed out").
    #[arg(long, value_name = "S", default_value_t = jsoncost::safety::DEFAULT_TIME_LIMIT.as_secs(), value_parser = clap::value_parser!(u64).range(1..=600))]
    pub case_time_limit: u64,
    /// Address-space limit of each child (RLIMIT_AS), in MiB.
    #[arg(long, value_name = "MIB", default_value_t = jsoncost::safety::DEFAULT_MEMORY_MIB, value_parser = clap::value_parser!(u64).range(256..=1_048_576))]
    pub case_memory_mib: u64,
    /// Stack of the parsing thread, in KiB (2048: a spawned thread's and a tokio worker's).
    #[arg(long, value_name = "KIB", default_value_t = jsoncost::safety::DEFAULT_STACK_KIB, value_parser = clap::value_parser!(u64).range(64..=1_048_576))]
    pub case_stack_kib: u64,
    /// jsoncost's own tests: add the fake libraries `test-abort` (calls abort) and `test-hang`.
    #[arg(long, hide = true)]
    pub safety_test_libraries: bool,
}

fn parse_library(s: &str) -> Result<Parser, String> {
    match s.parse::<Parser>()? {
        l if Parser::TEST.contains(&l) => Err(format!("unknown library {s:?}")),
        l => Ok(l),
    }
}

impl SafetyArgs {
    pub fn options(&self) -> anyhow::Result<SafetyOptions> {
        let program =
            std::env::current_exe().map_err(|e| environment(anyhow::anyhow!("cannot find this executable to run safety children: {e}")))?;
        let mut o = SafetyOptions::new(ChildCommand {
            program,
            args: vec![OsString::from(CHILD_SUBCOMMAND)],
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

/// Runs the safety experiment into `session`.
pub fn run(args: &SafetyArgs, quick: bool, session: &mut Session, progress: &Progress) -> anyhow::Result<()> {
    let filter = Filter::new("--safety-filter", args.safety_filter.as_deref())?;
    let mut options = args.options()?;
    if quick && args.cases.is_empty() {
        // The 64 MiB string and the million numbers are the slow cases (seconds each in a debug
        // build); a quick run keeps the nesting, number and text cases that find the crashes.
        options.cases.retain(|c| !c.is_large());
    }
    let mut sink = CliSink::new(ExperimentKind::Safety, session, progress);
    jsoncost::safety::run(&options, &mut runner(&Config::quick(), &filter, &mut sink)).map_err(library)
}

/// The child: everything after the hidden subcommand goes to the library's child entry.
pub fn child(args: Vec<OsString>) -> ! {
    std::process::exit(jsoncost::safety::child_main(args))
}

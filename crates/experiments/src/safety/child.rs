//! The child process: builds each input (a corpus case from its name, or a suite file), parses it
//! on a thread with the configured stack under the memory limit, and prints one JSON line per
//! input. The parent reads the lines; an input after which no line comes crashed the process.

use std::ffi::OsString;
use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;

use jsoncost_codecs::StrategyId;
use jsoncost_codecs::gate::{self, Reference, Verdict};
use jsoncost_conductor::watched::shorten;
use jsoncost_engine::alloc;
use jsoncost_engine::safety::{Agreement, CrashCause, SafetyOutcome, SafetyPath};
use serde::{Deserialize, Serialize};

use super::corpus::{Case, Target};
use super::subject::{self, Parser};

/// Largest suite file a child reads.
pub(crate) const SUITE_FILE_MAX_BYTES: u64 = 64 << 20;
/// Stack of the thread that compares an accepted value with the reference (the reference's
/// nesting is at most 512, so this is ample).
const COMPARE_STACK: usize = 32 << 20;

/// One input's line.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Report {
    pub outcome: SafetyOutcome,
    pub time_ns: u64,
    pub peak_bytes: Option<u64>,
    pub message: Option<String>,
    /// Why the process died: set by the parent, which sees the death (never on a child's line).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub crash: Option<CrashCause>,
    pub agreement: Option<Agreement>,
    pub agreement_message: Option<String>,
    /// True on the line written as soon as a parse returns a value, before the comparison and
    /// the drop: if the process dies after it, the parent knows the parse itself returned.
    #[serde(default)]
    pub partial: bool,
    /// Why the harness could not hand the input to the library (a file that cannot be read, a
    /// parse thread that cannot start): no outcome of the library's, so the other fields say
    /// nothing and the input is counted nowhere.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub not_run: Option<String>,
}

/// What the parent asks for.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Request {
    pub library: Parser,
    pub path: SafetyPath,
    pub memory_mib: u64,
    pub stack_kib: u64,
    /// Inputs are files of this directory, not corpus cases.
    pub suite: Option<PathBuf>,
    pub inputs: Vec<String>,
}

impl Request {
    /// The child's arguments (after the program's own subcommand).
    pub(crate) fn to_args(&self, from: usize) -> Vec<OsString> {
        let mut a: Vec<OsString> = vec![
            "--library".into(),
            self.library.as_str().into(),
            "--path".into(),
            self.path.as_str().into(),
            "--memory-mib".into(),
            self.memory_mib.to_string().into(),
            "--stack-kib".into(),
            self.stack_kib.to_string().into(),
        ];
        if let Some(dir) = &self.suite {
            a.push("--suite".into());
            a.push(dir.clone().into_os_string());
        }
        a.push("--".into());
        a.extend(self.inputs[from..].iter().map(OsString::from));
        a
    }

    fn parse_args(args: impl IntoIterator<Item = OsString>) -> Result<Request, String> {
        use lexopt::prelude::*;
        let mut p = lexopt::Parser::from_args(args);
        let (mut library, mut path, mut memory_mib, mut stack_kib, mut suite, mut inputs) = (None, None, None, None, None, Vec::new());
        let text = |v: OsString| v.into_string().map_err(|v| format!("not UTF-8: {v:?}"));
        while let Some(arg) = p.next().map_err(|e| e.to_string())? {
            match arg {
                Long("library") => library = Some(text(p.value().map_err(|e| e.to_string())?)?.parse::<Parser>()?),
                Long("path") => {
                    let v = text(p.value().map_err(|e| e.to_string())?)?;
                    path = Some(
                        SafetyPath::ALL
                            .into_iter()
                            .find(|x| x.as_str() == v)
                            .ok_or_else(|| format!("unknown path {v:?}"))?,
                    );
                }
                Long("memory-mib") => memory_mib = Some(p.value().map_err(|e| e.to_string())?.parse::<u64>().map_err(|e| e.to_string())?),
                Long("stack-kib") => stack_kib = Some(p.value().map_err(|e| e.to_string())?.parse::<u64>().map_err(|e| e.to_string())?),
                Long("suite") => suite = Some(PathBuf::from(p.value().map_err(|e| e.to_string())?)),
                Value(v) => inputs.push(text(v)?),
                _ => return Err(arg.unexpected().to_string()),
            }
        }
        Ok(Request {
            library: library.ok_or("--library is required")?,
            path: path.ok_or("--path is required")?,
            memory_mib: memory_mib.ok_or("--memory-mib is required")?,
            stack_kib: stack_kib.ok_or("--stack-kib is required")?,
            suite,
            inputs,
        })
    }
}

/// The child's `main`: `args` are what follows its hidden subcommand. Returns the exit code (0
/// once every input has its line; 2 when the request itself is wrong; 3 when the memory limit
/// cannot be set).
pub fn child_main(args: impl IntoIterator<Item = OsString>) -> i32 {
    let request = match Request::parse_args(args) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: safety child: {e}");
            return 2;
        }
    };
    let limit = request.memory_mib.saturating_mul(1 << 20);
    // Address space, not resident memory: what an allocation can reach before it fails.
    if let Err(e) = rlimit::setrlimit(rlimit::Resource::AS, limit, limit) {
        eprintln!("error: safety child: cannot set RLIMIT_AS to {} MiB: {e}", request.memory_mib);
        return 3;
    }
    for name in &request.inputs {
        // The parent is gone when this fails: nothing left to report to.
        if write_report(&one(&request, name)).is_err() {
            return 3;
        }
    }
    0
}

fn write_report(report: &Report) -> std::io::Result<()> {
    let line = serde_json::to_string(report).expect("a report serializes");
    let mut out = std::io::stdout().lock();
    writeln!(out, "{line}")?;
    out.flush()
}

fn one(request: &Request, name: &str) -> Report {
    let (input, target, projection) = match &request.suite {
        Some(dir) => match jsoncost_report::files::read_limited(&dir.join(name), SUITE_FILE_MAX_BYTES) {
            Ok(bytes) => (bytes, Target::Data, "".to_string()),
            Err(e) => return not_run(format!("cannot read it: {e}")),
        },
        None => match name.parse::<Case>() {
            Ok(case) => (case.bytes(), case.target(), case.projection().to_string()),
            Err(e) => return not_run(e),
        },
    };
    let (library, path) = (request.library, request.path);
    let parse = subject::parser(library, path, target, projection);
    let started = Instant::now();
    let thread = std::thread::Builder::new()
        .name(format!("{path}/{library}"))
        .stack_size(request.stack_kib as usize * 1024)
        .spawn(move || {
            let ((parsed, elapsed), stats) = alloc::thread_measure(|| {
                let t0 = Instant::now();
                let parsed = parse(&input);
                (parsed, t0.elapsed())
            });
            let peak = alloc::is_installed().then_some(stats.peak_bytes);
            let time_ns = elapsed.as_nanos() as u64;
            match parsed {
                Err(message) => Report {
                    crash: None,
                    outcome: SafetyOutcome::Rejected,
                    time_ns,
                    peak_bytes: peak,
                    message: Some(shorten(&message)),
                    agreement: None,
                    agreement_message: None,
                    partial: false,
                    not_run: None,
                },
                Ok(value) => {
                    let _ = write_report(&Report {
                        crash: None,
                        outcome: SafetyOutcome::Accepted,
                        time_ns,
                        peak_bytes: peak,
                        message: None,
                        agreement: None,
                        agreement_message: None,
                        partial: true,
                        not_run: None,
                    });
                    // The harness's own failures here (no room for the thread under the memory
                    // limit) leave the value uncompared; they are never the library's crash.
                    let (agreement, agreement_message) = std::thread::scope(|s| {
                        match std::thread::Builder::new()
                            .stack_size(COMPARE_STACK)
                            .spawn_scoped(s, || agreement(&*value, &input, (path, library), target))
                        {
                            Ok(t) => t
                                .join()
                                .unwrap_or_else(|_| (Agreement::NotCompared, Some("the comparison panicked".into()))),
                            Err(e) => (
                                Agreement::NotCompared,
                                Some(format!("no thread for the comparison under the memory limit: {e}")),
                            ),
                        }
                    });
                    // Dropped here, on the parse's own stack: a destructor that recurses is the
                    // library's too.
                    drop(value);
                    Report {
                        crash: None,
                        outcome: SafetyOutcome::Accepted,
                        time_ns,
                        peak_bytes: peak,
                        message: None,
                        agreement: Some(agreement),
                        agreement_message,
                        partial: false,
                        not_run: None,
                    }
                }
            }
        });
    match thread.map(|t| t.join()) {
        Ok(Ok(report)) => report,
        Ok(Err(panic)) => {
            let what = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "a panic".into());
            Report {
                crash: None,
                outcome: SafetyOutcome::Crashed,
                time_ns: started.elapsed().as_nanos() as u64,
                peak_bytes: None,
                message: Some(shorten(&format!("panicked: {what}"))),
                agreement: None,
                agreement_message: None,
                partial: false,
                not_run: None,
            }
        }
        Err(e) => not_run(format!("cannot start the parse thread: {e}")),
    }
}

/// An input the harness could not hand to the library ([`Report::not_run`]).
fn not_run(why: String) -> Report {
    Report {
        crash: None,
        outcome: SafetyOutcome::Rejected,
        time_ns: 0,
        peak_bytes: None,
        message: None,
        agreement: None,
        agreement_message: None,
        partial: false,
        not_run: Some(why),
    }
}

fn agreement(
    value: &dyn jsoncost_codecs::libraries::Held,
    input: &[u8],
    (path, library): (SafetyPath, Parser),
    target: Target,
) -> (Agreement, Option<String>) {
    let reference = match Reference::from_json(input) {
        Ok(r) => r,
        Err(e) => return (Agreement::SerdeJsonRejects, Some(shorten(&e.to_string()))),
    };
    let viewed = match subject::view_reference(path, target, reference.value().clone()) {
        Ok(v) => v,
        Err(e) => return (Agreement::Differs, Some(shorten(&e))),
    };
    let reference = match Reference::of(&viewed) {
        Ok(r) => r,
        Err(e) => return (Agreement::Differs, Some(shorten(&e))),
    };
    let out = match value.canonical() {
        Ok(c) => c,
        Err(e) => return (Agreement::Differs, Some(shorten(&e))),
    };
    match gate::judge(&StrategyId::new(path.as_str(), library.as_str()), &out, &reference) {
        Verdict::Pass(f) if f.is_exact() => (Agreement::Same, None),
        Verdict::Pass(f) => {
            let mut changed = Vec::new();
            if f.zero_sign_lost > 0 {
                changed.push(format!("{} -0 read as 0", f.zero_sign_lost));
            }
            if f.floats_inexact > 0 {
                changed.push(format!("{} floats inexact (up to {} ulp)", f.floats_inexact, f.max_ulps.max(1)));
            }
            if f.integers_changed > 0 {
                changed.push(format!("{} integers read as floats or the reverse", f.integers_changed));
            }
            (Agreement::SameNumbersChanged, Some(changed.join(", ")))
        }
        Verdict::Fail(m) => (Agreement::Differs, Some(shorten(&m))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A case the harness cannot read is no outcome of the library's: not a "rejected" cell,
    /// which would count as the library rejecting a `y_` file.
    #[test]
    fn an_input_the_harness_cannot_read_is_not_run_rather_than_rejected() {
        let dir = tempfile::tempdir().unwrap();
        let request = Request {
            library: Parser::Library("serde_json"),
            path: SafetyPath::Dom,
            memory_mib: crate::safety::DEFAULT_MEMORY_MIB,
            stack_kib: crate::safety::DEFAULT_STACK_KIB,
            suite: Some(dir.path().to_path_buf()),
            inputs: vec!["y_gone.json".into()],
        };
        let report = one(&request, "y_gone.json");
        let why = report.not_run.expect("not run");
        assert!(why.starts_with("cannot read it: "), "{why}");
        // A corpus case name the child does not know: the same.
        assert!(one(&Request { suite: None, ..request }, "no-such-case").not_run.is_some());
    }
}

//! The parent's side: start a child on a batch, read a line per input, and turn a death or a
//! time limit into that input's row, then go on from the next input in a new child. Every loop
//! is bounded (each child started consumes at least one input) and every child is killed by
//! its own handle (its PID) when it overruns.

use std::ffi::OsString;
use std::io::{BufRead, BufReader, Read};
use std::os::unix::process::ExitStatusExt;
use std::path::PathBuf;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use jsoncost_engine::safety::{CrashCause, SafetyOutcome};

use super::child::{Report, Request, shorten};
use crate::Error;

/// How to start a child: the program (normally this executable) and the arguments that select
/// its hidden child subcommand; the child then calls [`super::child_main`] with the rest.
#[derive(Debug, Clone, PartialEq)]
pub struct ChildCommand {
    /// The program to run.
    pub program: PathBuf,
    /// Its arguments, before the case.
    pub args: Vec<OsString>,
}

/// Bytes of a child's stderr kept to tell why it died.
const STDERR_KEPT: u64 = 64 * 1024;
/// How long a child that closed its stdout may take to exit before it is killed.
const EXIT_GRACE: Duration = Duration::from_secs(5);

/// Runs every input of `request`, each given `time_limit`; returns one report per input, in
/// order (fewer when `cancelled` stops it).
pub(crate) fn run_batch(
    child: &ChildCommand,
    request: &Request,
    time_limit: Duration,
    cancelled: &dyn Fn() -> bool,
) -> Result<Vec<Report>, Error> {
    let mut reports: Vec<Report> = Vec::with_capacity(request.inputs.len());
    while reports.len() < request.inputs.len() {
        if cancelled() {
            break;
        }
        let from = reports.len();
        let mut command = Command::new(&child.program);
        // A child must not outlive a killed parent (it would run its case on, unwatched).
        jsoncost_conductor::children::die_with_parent(&mut command);
        let mut process = command
            .args(&child.args)
            .args(request.to_args(from))
            // Under `jsoncost ab` the lockstep is this process's, not its children's.
            .env_remove(jsoncost_engine::lockstep::ENV)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| Error::environment(format!("cannot start the safety child {}: {e}", child.program.display())))?;
        let lines = read_lines(&mut process);
        let stderr = read_stderr(&mut process);
        let mut started = Instant::now();
        // An accepted value's first line, until its comparison's line comes.
        let mut pending: Option<Report> = None;
        let ended = loop {
            let left = time_limit.saturating_sub(started.elapsed());
            match lines.recv_timeout(left.min(Duration::from_millis(200))) {
                Ok(line) => {
                    let report: Report = match serde_json::from_str(&line) {
                        Ok(r) => r,
                        Err(e) => {
                            kill(&mut process);
                            return Err(Error::environment(format!(
                                "the safety child wrote a line that is not a report ({e}): {}",
                                shorten(&line)
                            )));
                        }
                    };
                    started = Instant::now();
                    if report.partial {
                        pending = Some(report);
                    } else {
                        pending = None;
                        reports.push(report);
                    }
                }
                Err(mpsc::RecvTimeoutError::Timeout) if cancelled() => {
                    kill(&mut process);
                    return Ok(reports);
                }
                Err(mpsc::RecvTimeoutError::Timeout) if started.elapsed() >= time_limit => {
                    kill(&mut process);
                    break End::TimedOut(started.elapsed());
                }
                Err(mpsc::RecvTimeoutError::Timeout) => {}
                Err(mpsc::RecvTimeoutError::Disconnected) => break End::Closed(started.elapsed()),
            }
        };
        // The parse returned a value; what ended the process came after it (the comparison with
        // the reference, or the value's drop): the value is accepted, its agreement unknown.
        if let Some(mut accepted) = pending.take() {
            let why = match &ended {
                End::TimedOut(after) => format!("killed at the time limit ({:.1} s)", after.as_secs_f64()),
                End::Closed(_) => {
                    let status = wait_bounded(&mut process);
                    crash(status, &stderr.recv_timeout(EXIT_GRACE).unwrap_or_default()).0
                }
            };
            if cancelled() {
                break;
            }
            accepted.partial = false;
            accepted.agreement = Some(jsoncost_engine::safety::Agreement::NotCompared);
            accepted.agreement_message = Some(format!(
                "the process ended after the parse returned, while comparing with the reference or dropping the value: {why}"
            ));
            reports.push(accepted);
            continue;
        }
        match ended {
            End::TimedOut(after) => reports.push(Report {
                crash: None,
                outcome: SafetyOutcome::TimedOut,
                time_ns: after.as_nanos() as u64,
                peak_bytes: None,
                message: Some(format!("killed after {:.1} s (the time limit)", after.as_secs_f64())),
                agreement: None,
                agreement_message: None,
                partial: false,
                not_run: None,
            }),
            End::Closed(after) => {
                let status = wait_bounded(&mut process);
                let stderr = stderr.recv_timeout(EXIT_GRACE).unwrap_or_default();
                if reports.len() == request.inputs.len() && status.is_some_and(|s| s.success()) {
                    break;
                }
                if cancelled() {
                    // Ctrl-C reaches the child too: its death is the interruption, not a finding.
                    break;
                }
                if status.is_some_and(|s| s.code() == Some(2) || s.code() == Some(3)) && reports.len() == from {
                    return Err(Error::environment(format!(
                        "the safety child refused its request: {}",
                        shorten(stderr.trim())
                    )));
                }
                let (message, cause) = crash(status, &stderr);
                reports.push(Report {
                    crash: Some(cause),
                    outcome: SafetyOutcome::Crashed,
                    time_ns: after.as_nanos() as u64,
                    peak_bytes: None,
                    message: Some(message),
                    agreement: None,
                    agreement_message: None,
                    partial: false,
                    not_run: None,
                });
            }
        }
    }
    Ok(reports)
}

enum End {
    TimedOut(Duration),
    Closed(Duration),
}

/// The child's stdout, a line at a time, from a thread (ends when the child's stdout closes).
fn read_lines(process: &mut Child) -> mpsc::Receiver<String> {
    let (tx, rx) = mpsc::channel();
    let stdout = process.stdout.take().expect("stdout was piped");
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    rx
}

/// The child's stderr (its first 64 KiB), once it closes; what is past the bound is drained so
/// the child never blocks on a full pipe.
fn read_stderr(process: &mut Child) -> mpsc::Receiver<String> {
    let (tx, rx) = mpsc::channel();
    let stderr = process.stderr.take().expect("stderr was piped");
    std::thread::spawn(move || {
        let mut kept = Vec::new();
        let mut stderr = stderr;
        let _ = (&mut stderr).take(STDERR_KEPT).read_to_end(&mut kept);
        let _ = std::io::copy(&mut stderr, &mut std::io::sink());
        let _ = tx.send(String::from_utf8_lossy(&kept).into_owned());
    });
    rx
}

fn kill(process: &mut Child) {
    // Child::kill signals this child's own PID (SIGKILL); then it is reaped.
    let _ = process.kill();
    let _ = process.wait();
}

/// The exit status, waiting at most [`EXIT_GRACE`] (then the child is killed).
fn wait_bounded(process: &mut Child) -> Option<ExitStatus> {
    let deadline = Instant::now() + EXIT_GRACE;
    loop {
        match process.try_wait() {
            Ok(Some(status)) => return Some(status),
            Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(5)),
            _ => {
                kill(process);
                return process.try_wait().ok().flatten();
            }
        }
    }
}

/// Why the child died, from its status and what it printed: the message (`SIGABRT (stack
/// overflow)`, `SIGABRT (out of memory: …)`, `SIGSEGV`, a panic's line, or its exit code) and
/// the cause as data.
pub(crate) fn crash(status: Option<ExitStatus>, stderr: &str) -> (String, CrashCause) {
    let printed = if stderr.contains("has overflowed its stack") {
        Some(("stack overflow".to_string(), CrashCause::StackOverflow))
    } else if let Some(line) = stderr.lines().find(|l| l.contains("memory allocation of")) {
        Some((format!("out of memory under the limit: {}", line.trim()), CrashCause::OutOfMemory))
    } else {
        stderr
            .lines()
            .find(|l| l.contains("panicked"))
            .map(|l| (shorten(l.trim()), CrashCause::Panic))
    };
    let (how, status_cause) = match status.map(|s| (s.signal(), s.code())) {
        Some((Some(sig), _)) => (signal_name(sig), CrashCause::Signal(signal_name(sig))),
        Some((None, Some(code))) => (format!("exit code {code}"), CrashCause::Exit(code)),
        Some((None, None)) | None => ("no exit status".to_string(), CrashCause::Unknown),
    };
    match printed {
        Some((what, cause)) => (format!("{how} ({what})"), cause),
        None => (how, status_cause),
    }
}

fn signal_name(sig: i32) -> String {
    match sig {
        libc::SIGABRT => "SIGABRT".into(),
        libc::SIGSEGV => "SIGSEGV".into(),
        libc::SIGBUS => "SIGBUS".into(),
        libc::SIGILL => "SIGILL".into(),
        libc::SIGKILL => "SIGKILL".into(),
        libc::SIGTERM => "SIGTERM".into(),
        libc::SIGINT => "SIGINT".into(),
        libc::SIGFPE => "SIGFPE".into(),
        other => format!("signal {other}"),
    }
}

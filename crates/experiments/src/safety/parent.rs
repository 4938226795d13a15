//! The parent's side: start a child on a batch, read a line per input, and turn a death or a
//! time limit into that input's row, then go on from the next input in a new child. Every loop
//! is bounded (each child started consumes at least one input); the child itself is watched by
//! `jsoncost_conductor::watched` (dies with this process, killed by its PID when it overruns,
//! its death read from its status and stderr).

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::Command;
use std::time::{Duration, Instant};

use jsoncost_conductor::watched::{Next, Watched, shorten};
use jsoncost_engine::safety::SafetyOutcome;

use super::child::{Report, Request};
use crate::error::Error;

/// How to start a child: the program (normally this executable) and the arguments that select
/// its hidden child subcommand; the child then calls [`super::child_main`] with the rest.
#[derive(Debug, Clone, PartialEq)]
pub struct ChildCommand {
    /// The program to run.
    pub program: PathBuf,
    /// Its arguments, before the case.
    pub args: Vec<OsString>,
}

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
        command
            .args(&child.args)
            .args(request.to_args(from))
            // Under `jsoncost ab` the lockstep is this process's, not its children's.
            .env_remove(jsoncost_engine::lockstep::ENV);
        let mut process = Watched::spawn(command)
            .map_err(|e| Error::environment(format!("cannot start the safety child {}: {e}", child.program.display())))?;
        let mut started = Instant::now();
        // An accepted value's first line, until its comparison's line comes.
        let mut pending: Option<Report> = None;
        let ended = loop {
            let left = time_limit.saturating_sub(started.elapsed());
            match process.next(left.min(Duration::from_millis(200))) {
                Next::Line(line) => {
                    let report: Report = match serde_json::from_str(&line) {
                        Ok(r) => r,
                        Err(e) => {
                            process.kill();
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
                Next::Quiet if cancelled() => {
                    process.kill();
                    return Ok(reports);
                }
                Next::Quiet if started.elapsed() >= time_limit => {
                    process.kill();
                    break End::TimedOut(started.elapsed());
                }
                Next::Quiet => {}
                Next::Closed => break End::Closed(started.elapsed()),
            }
        };
        // The parse returned a value; what ended the process came after it (the comparison with
        // the reference, or the value's drop): the value is accepted, its agreement unknown.
        if let Some(mut accepted) = pending.take() {
            let why = match &ended {
                End::TimedOut(after) => format!("killed at the time limit ({:.1} s)", after.as_secs_f64()),
                End::Closed(_) => process.crash().2.0,
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
                let (status, stderr, (message, cause)) = process.crash();
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

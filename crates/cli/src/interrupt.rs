//! Ctrl-C, SIGTERM and SIGHUP (the `ctrlc` crate's `termination` feature): the first asks
//! experiments to stop after the current strategy, so what was measured is still printed and
//! written (or `serve` to stop); a second exits at once.

use std::sync::atomic::{AtomicBool, Ordering};

static INTERRUPTED: AtomicBool = AtomicBool::new(false);

/// What the command does when interrupted, for the line it prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OnInterrupt {
    /// Finish the current strategy, then print and write what was measured.
    WriteMeasured,
    /// Stop serving (nothing is measured, nothing is written).
    StopServing,
}

pub fn install(on: OnInterrupt) {
    let _ = ctrlc::set_handler(move || {
        if INTERRUPTED.swap(true, Ordering::SeqCst) {
            std::process::exit(crate::failure::ExitCode::Interrupted as i32);
        }
        match on {
            OnInterrupt::WriteMeasured => {
                eprintln!("\ninterrupted: finishing the current strategy, then writing what was measured (Ctrl-C again to exit now)")
            }
            OnInterrupt::StopServing => eprintln!("\ninterrupted: stopping the server (Ctrl-C again to exit now)"),
        }
    });
}

pub fn interrupted() -> bool {
    INTERRUPTED.load(Ordering::SeqCst)
}

/// The error of a run that stopped early.
pub fn error() -> anyhow::Error {
    crate::failure::Failure {
        code: crate::failure::ExitCode::Interrupted,
        error: anyhow::anyhow!("interrupted (Ctrl-C or a termination signal)"),
    }
    .into()
}

//! Exit codes: 0 success, 1 `compare` or `ab` found a regression, 2 usage or bad
//! input, 3 environment failure (store or server unreachable, I/O); 130 when Ctrl-C stopped a
//! run, or SIGTERM/SIGHUP did (after what was measured was printed and written).

use std::fmt;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExitCode {
    Regression = 1,
    Usage = 2,
    Environment = 3,
    /// Stopped by Ctrl-C (128 + SIGINT, as shells report it), SIGTERM or SIGHUP, after writing
    /// what was measured.
    Interrupted = crate::interrupt::EXIT_STATUS as isize,
}

/// An error that knows its exit code.
#[derive(Debug)]
pub struct Failure {
    pub code: ExitCode,
    pub error: anyhow::Error,
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:#}", self.error)
    }
}

impl std::error::Error for Failure {}

/// A usage or bad-input error (exit 2).
pub fn usage(error: impl Into<anyhow::Error>) -> anyhow::Error {
    Failure {
        code: ExitCode::Usage,
        error: error.into(),
    }
    .into()
}

/// An environment error (exit 3).
pub fn environment(error: impl Into<anyhow::Error>) -> anyhow::Error {
    Failure {
        code: ExitCode::Environment,
        error: error.into(),
    }
    .into()
}

/// A regression found by `compare` or `ab` (exit 1). Its sentence is already on stdout with the
/// comparison, so nothing more is printed.
pub fn regression() -> anyhow::Error {
    Failure {
        code: ExitCode::Regression,
        error: anyhow::anyhow!("regression"),
    }
    .into()
}

/// A library error, with its exit code.
pub fn library(error: impl Into<jsoncost::Error>) -> anyhow::Error {
    let error = error.into();
    let code = match error {
        jsoncost::Error::Usage(_) | jsoncost::Error::NoMatch(_) => ExitCode::Usage,
        jsoncost::Error::Environment(_) => ExitCode::Environment,
        // Named by the signal that stopped it.
        jsoncost::Error::Interrupted => return interrupted(),
    };
    Failure { code, error: error.into() }.into()
}

/// The exit code for an error: the innermost `Failure`'s, else 3 for I/O errors, else 2.
pub fn exit_code_of(error: &anyhow::Error) -> i32 {
    for cause in error.chain() {
        if let Some(f) = cause.downcast_ref::<Failure>() {
            return f.code as i32;
        }
    }
    if error.chain().any(|c| c.downcast_ref::<std::io::Error>().is_some()) {
        ExitCode::Environment as i32
    } else {
        ExitCode::Usage as i32
    }
}

/// The error of a run that stopped early on a signal, naming the signal (exit 130).
pub fn interrupted() -> anyhow::Error {
    Failure {
        code: ExitCode::Interrupted,
        error: anyhow::anyhow!("interrupted by {}", crate::interrupt::first_signal_name()),
    }
    .into()
}

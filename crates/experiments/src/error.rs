//! The library's errors, each with the exit code the CLI and the bench harness give it
//! (design.md: 2 usage or bad input, 3 environment, 130 interrupted).

/// Why an experiment could not run, or stopped.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// Bad input or usage: a filter matching nothing, a sample that is not the type (exit 2).
    #[error("{0}")]
    Usage(String),
    /// The environment: a store or server unreachable or gone, I/O (exit 3).
    #[error("{0}")]
    Environment(String),
    /// Cancelled (a signal, in the CLI) after writing what was measured (exit 130). The
    /// caller, who knows what stopped it, names the cause.
    #[error("interrupted")]
    Interrupted,
}

impl Error {
    pub fn usage(message: impl Into<String>) -> Self {
        Error::Usage(message.into())
    }

    pub fn environment(message: impl Into<String>) -> Self {
        Error::Environment(message.into())
    }

    /// The process exit code for this error.
    pub fn exit_code(&self) -> i32 {
        match self {
            Error::Usage(_) => 2,
            Error::Environment(_) => 3,
            Error::Interrupted => 130,
        }
    }
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Why a table stopped early, as the error its experiment returns.
impl From<crate::Stop> for Error {
    fn from(stop: crate::Stop) -> Error {
        match stop {
            crate::Stop::Cancelled => Error::Interrupted,
            crate::Stop::Fatal(m) => Error::Environment(m),
            crate::Stop::BadBaseline(m) => Error::Usage(m),
        }
    }
}

/// An error and its sources, as one line ("what: why: why").
pub(crate) fn chain(e: &dyn std::error::Error) -> String {
    let mut out = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        let text = s.to_string();
        // Some errors repeat their source in their own message.
        if !out.contains(&text) {
            out.push_str(": ");
            out.push_str(&text);
        }
        source = s.source();
    }
    out
}

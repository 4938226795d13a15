//! Why a conductor could not run its programs, or stopped; the exit codes are jsoncost's (2
//! usage, 3 environment, 130 interrupted), and `jsoncost::Error` takes each as its own.

/// Why a conductor could not run its programs, or stopped.
///
/// ```
/// let e = jsoncost_conductor::Error::usage("--runs must be at least 1");
/// assert_eq!(e.exit_code(), 2);
/// assert_eq!(e.to_string(), "--runs must be at least 1");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// Bad arguments or input (exit 2).
    #[error("{0}")]
    Usage(String),
    /// The environment: a program that would not start or died, I/O (exit 3).
    #[error("{0}")]
    Environment(String),
    /// Cancelled (exit 130); the caller names the cause.
    #[error("interrupted")]
    Interrupted,
}

impl Error {
    /// A usage or bad-input error (exit 2).
    pub fn usage(message: impl Into<String>) -> Self {
        Error::Usage(message.into())
    }

    /// An environment error (exit 3).
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

/// Results of this crate's fallible calls.
pub type Result<T, E = Error> = std::result::Result<T, E>;

//! jsoncost's errors, each with the exit code the CLI and the bench harness give it (2 usage
//! or bad input, 3 environment, 130 interrupted): the library's (`jsoncost::Error`) and the
//! conductor's alike.

/// Why an experiment could not run, or stopped.
///
/// ```
/// let e = jsoncost_engine::error::Error::usage("the sample is not an Order").context("order");
/// assert_eq!(e.to_string(), "order: the sample is not an Order");
/// assert_eq!(e.exit_code(), 2);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// Bad input or usage: a filter matching nothing, a sample that is not the type (exit 2).
    #[error("{0}")]
    Usage(String),
    /// A filter (`--filter GLOB`) matching none of a table's strategies (exit 2). Typed, so a
    /// study of several tables can skip such a table and name it, and fail only when nothing
    /// anywhere matches.
    #[error("{0}")]
    NoMatch(NoMatch),
    /// The environment: a store or server unreachable or gone, I/O (exit 3).
    #[error("{0}")]
    Environment(String),
    /// Cancelled (a signal, in the CLI) after writing what was measured (exit 130). The
    /// caller, who knows what stopped it, names the cause.
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

    /// The same error, its message prefixed with where it happened (`what: message`).
    pub fn context(self, what: &str) -> Error {
        match self {
            Error::Usage(m) => Error::Usage(format!("{what}: {m}")),
            Error::NoMatch(n) => Error::Usage(format!("{what}: {n}")),
            Error::Environment(m) => Error::Environment(format!("{what}: {m}")),
            Error::Interrupted => Error::Interrupted,
        }
    }

    /// The process exit code for this error.
    pub fn exit_code(&self) -> i32 {
        match self {
            Error::Usage(_) | Error::NoMatch(_) => 2,
            Error::Environment(_) => 3,
            Error::Interrupted => 130,
        }
    }
}

/// A filter that matches none of `strategies`.
///
/// ```
/// let none = jsoncost_engine::error::NoMatch {
///     flag: "--filter".into(),
///     pattern: "typed/jiter".into(),
///     strategies: vec!["typed/serde_json".into()],
/// };
/// assert!(none.to_string().starts_with(r#"--filter "typed/jiter" matches no strategy"#));
/// assert_eq!(jsoncost_engine::error::Error::NoMatch(none).exit_code(), 2);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NoMatch {
    /// The flag it was given with, e.g. `--filter`.
    pub flag: String,
    /// The glob.
    pub pattern: String,
    /// Every strategy the table has, sorted, without repeats.
    pub strategies: Vec<String>,
}

impl std::fmt::Display for NoMatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} {:?} matches no strategy; the strategies are: {}",
            self.flag,
            self.pattern,
            self.strategies.join(", ")
        )
    }
}

/// Results of jsoncost's fallible calls.
///
/// ```
/// fn check(n: u32) -> jsoncost_engine::error::Result<u32> {
///     if n == 0 { Err(jsoncost_engine::error::Error::usage("--runs must be at least 1")) } else { Ok(n) }
/// }
/// assert_eq!(check(0).unwrap_err().exit_code(), 2);
/// ```
pub type Result<T, E = Error> = std::result::Result<T, E>;

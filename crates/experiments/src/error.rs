//! The library's errors, each with the exit code the CLI and the bench harness give it
//! (2 usage or bad input, 3 environment, 130 interrupted).

/// Why an experiment could not run, or stopped.
///
/// ```
/// let e = jsoncost::Error::usage("the sample is not an Order").context("order");
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

/// A conductor's error as the library's, with its exit code.
impl From<jsoncost_conductor::Error> for Error {
    fn from(e: jsoncost_conductor::Error) -> Self {
        match e {
            jsoncost_conductor::Error::Usage(m) => Error::Usage(m),
            jsoncost_conductor::Error::Environment(m) => Error::Environment(m),
            jsoncost_conductor::Error::Interrupted => Error::Interrupted,
        }
    }
}

/// A filter that matches none of `strategies`.
///
/// ```
/// let none = jsoncost::NoMatch {
///     flag: "--filter".into(),
///     pattern: "typed/jiter".into(),
///     strategies: vec!["typed/serde_json".into()],
/// };
/// assert!(none.to_string().starts_with(r#"--filter "typed/jiter" matches no strategy"#));
/// assert_eq!(jsoncost::Error::NoMatch(none).exit_code(), 2);
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

/// Results of this crate's fallible calls.
///
/// ```
/// fn flags() -> jsoncost::Result<jsoncost::Args> {
///     jsoncost::Args::parse(["--quick"].map(Into::into))
/// }
/// assert!(flags().unwrap().quick);
/// ```
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// An error and its sources, as one line ("what: why: why").
#[cfg_attr(not(any(feature = "store", feature = "http")), allow(dead_code))]
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

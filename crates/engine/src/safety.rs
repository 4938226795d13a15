//! The safety experiment's findings, as data: what one library did with one hostile input on
//! one parse path, run in a child process (so an abort or a stack overflow is a finding, not the
//! end of the run), and the conformance counts of a JSONTestSuite-style directory.

use serde::{Deserialize, Serialize};

/// The parse path a cell was run on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SafetyPath {
    /// The library's own DOM.
    Dom,
    /// A serde type (a built-in shape, or `Vec<f64>`/`Vec<String>` for an array of numbers or
    /// strings).
    Typed,
    /// A projection of one field without building the rest (sonic-rs `get_many`).
    Lazy,
    /// jsoncost's incremental array deserializer with the library parsing each element.
    Incremental,
}

impl SafetyPath {
    /// Every path, in the matrix's order.
    pub const ALL: [SafetyPath; 4] = [SafetyPath::Dom, SafetyPath::Typed, SafetyPath::Lazy, SafetyPath::Incremental];

    /// The name rows use: `dom`, `typed`, `lazy`, `incremental`.
    pub fn as_str(self) -> &'static str {
        match self {
            SafetyPath::Dom => "dom",
            SafetyPath::Typed => "typed",
            SafetyPath::Lazy => "lazy",
            SafetyPath::Incremental => "incremental",
        }
    }
}

impl std::fmt::Display for SafetyPath {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What the child process did with the input.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SafetyOutcome {
    /// Parsed it (see [`Agreement`] for whether the value is serde_json's).
    Accepted,
    /// Returned an error (the row's message).
    Rejected,
    /// The process died: a signal (SIGABRT, SIGSEGV), a stack overflow, an allocation failure
    /// under the memory limit, or a panic (the row's message says which).
    Crashed,
    /// Still running at the time limit: killed.
    TimedOut,
}

impl SafetyOutcome {
    /// The outcome as the matrix shows it.
    pub fn as_str(self) -> &'static str {
        match self {
            SafetyOutcome::Accepted => "accepted",
            SafetyOutcome::Rejected => "rejected",
            SafetyOutcome::Crashed => "crashed",
            SafetyOutcome::TimedOut => "timed out",
        }
    }
}

/// Why a child process died ([`SafetyOutcome::Crashed`]), as the parent read it from the exit
/// status and what the child printed.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CrashCause {
    /// The runtime's "has overflowed its stack" (then SIGABRT).
    StackOverflow,
    /// An allocation failed under the memory limit (then SIGABRT).
    OutOfMemory,
    /// A panic the parse did not catch.
    Panic,
    /// Killed by this signal (`SIGSEGV`, `SIGBUS` ...), with nothing printed that says more.
    Signal(String),
    /// Exited with this code, with nothing printed that says more.
    Exit(i32),
    /// No exit status could be read.
    Unknown,
}

impl CrashCause {
    /// The cause in a word or two, as the matrix shows it.
    pub fn label(&self) -> String {
        match self {
            CrashCause::StackOverflow => "stack overflow".into(),
            CrashCause::OutOfMemory => "out of memory".into(),
            CrashCause::Panic => "panic".into(),
            CrashCause::Signal(name) => name.clone(),
            CrashCause::Exit(code) => format!("exit code {code}"),
            CrashCause::Unknown => "no exit status".into(),
        }
    }
}

/// Whether an accepted value is the one serde_json's semantics give (checked against the exact
/// reference, `codecs::exact`, as the correctness gate does).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Agreement {
    /// Every value as the reference has it.
    Same,
    /// The same values with a number changed the way the gate tolerates (the sign of `-0`
    /// lost, a float 1 ulp off, an integer read as a float): the message says which.
    SameNumbersChanged,
    /// A different value (the message names the first difference).
    Differs,
    /// The exact reference (serde_json::Value's rules; nesting up to 512) refuses this input —
    /// nesting, a number beyond f64, a lone surrogate ... — yet the library accepted it.
    SerdeJsonRejects,
    /// Not compared: the harness could not (the message says why; e.g. no room for the
    /// comparison under the memory limit). Says nothing about the library.
    NotCompared,
}

impl Agreement {
    /// The agreement as the matrix shows it.
    pub fn as_str(self) -> &'static str {
        match self {
            Agreement::Same => "yes",
            Agreement::SameNumbersChanged => "numbers changed",
            Agreement::Differs => "differs",
            Agreement::SerdeJsonRejects => "the reference (serde_json::Value's rules) rejects it",
            Agreement::NotCompared => "not compared",
        }
    }
}

/// One (library, path, case) finding; the row's `method` is `path/library`, `mean_ns` the time
/// the parse took in the child (the wall time until the kill or the crash otherwise),
/// `peak_bytes` the peak live heap of the parse, `error_message` the rejection or crash.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SafetyCell {
    /// The library that parsed.
    pub library: String,
    /// The API it parsed through.
    pub path: SafetyPath,
    /// The corpus case (`deep-array-100000`) or the suite file name (`n_array_extra_comma.json`).
    pub case: String,
    /// What the child did with the input.
    pub outcome: SafetyOutcome,
    /// Why the process died, when it crashed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub crash: Option<CrashCause>,
    /// Whether an accepted value is serde_json's; absent unless accepted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agreement: Option<Agreement>,
    /// How the value differs, or which numbers changed, when `agreement` says so.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agreement_message: Option<String>,
}

/// What a JSONTestSuite file name promises: `y_` must be accepted, `n_` rejected, `i_` either.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Expectation {
    /// `y_`: valid JSON, to be accepted.
    Accept,
    /// `n_`: invalid JSON, to be rejected.
    Reject,
    /// `i_`: either is conforming.
    Either,
}

impl Expectation {
    /// From a file name's prefix; `None` for a file that is not a suite case.
    pub fn of_file_name(name: &str) -> Option<Expectation> {
        match name.get(..2) {
            Some("y_") => Some(Expectation::Accept),
            Some("n_") => Some(Expectation::Reject),
            Some("i_") => Some(Expectation::Either),
            _ => None,
        }
    }
}

/// One library's conformance on a suite directory, counted once (by the experiments library)
/// from its rows.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConformanceSummary {
    /// The library.
    pub library: String,
    /// `y_` files accepted, of `y_total`.
    pub y_accepted: u64,
    /// `y_` files in the suite.
    pub y_total: u64,
    /// `n_` files rejected, of `n_total`.
    pub n_rejected: u64,
    /// `n_` files in the suite.
    pub n_total: u64,
    /// `i_` files accepted and rejected.
    pub i_accepted: u64,
    /// `i_` files rejected.
    pub i_rejected: u64,
    /// Files (of any prefix) on which the process crashed or was killed at the time limit.
    pub crashed: u64,
    /// Files on which the process was killed at the time limit.
    pub timed_out: u64,
    /// The files whose outcome breaks the promise of their prefix, or crashed or timed out:
    /// `file: outcome (message)`.
    pub disagreements: Vec<String>,
}

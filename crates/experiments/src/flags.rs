//! The experiments' command lines (feature `cli`): the [`ExperimentArgs`] seam each
//! experiment's flags implement (next to the experiment, in its own module), and the flag
//! values that become sizes and durations, parsed and checked by clap, so a value that does not
//! fit is a usage error naming the flag (exit 2), never an overflow or a panic later.

use std::fmt;
use std::str::FromStr;
use std::time::Duration;

use jsoncost_engine::{ExperimentKind, MeasureConfig};

use crate::cancel::Cancel;
use crate::error::Result;
use crate::filter::Filter;
use crate::runner::Runner;
use crate::sink::Sink;

/// One experiment's flags: what `jsoncost <experiment>` and `jsoncost run` parse for it, and
/// how they run it. Each experiment defines its own beside its code; [`crate::ExperimentCommand`]
/// lists them.
pub trait ExperimentArgs {
    /// The kind of the tables it makes.
    fn kind(&self) -> ExperimentKind;
    /// Runs the experiment these flags describe with the engine's `config` (`config.quick`
    /// also shrinks what it measures), asking `cancel` between strategies, its tables and
    /// progress going to `sink`.
    fn run(&self, config: &MeasureConfig, cancel: Cancel, sink: &mut dyn Sink) -> Result<()>;
    /// `--debug-mode` (jsoncost's own tests; the engine's side is the config's): shrinks what
    /// these flags load to the fewest whole runs, requests and rounds that still take every
    /// stage. Nothing to shrink by default.
    fn debug_mode(&mut self) {}
    /// The files these flags read, each with its flag (`--payload`): an output that is one of
    /// them is refused ([`crate::output::refuse_input_as_output`]). None by default.
    fn inputs(&self) -> Vec<(&'static str, &std::path::Path)> {
        Vec::new()
    }
    /// Writes files of its own besides results.json (a profile's flamegraphs): without
    /// `--out`, the command writes its results and reports into a directory of their own.
    fn writes_files(&self) -> bool {
        false
    }
    /// Fits these flags to `jsoncost run`, the whole study in minutes: with `quick` it shrinks
    /// what they load as well (an experiment's own command keeps its flags as given). Nothing to
    /// fit by default.
    fn fit_whole_study(&mut self, _quick: bool) {}
    /// The engine settings `jsoncost run` measures the experiment with, without `--quick`: 25 ms
    /// iterations and a 1.5 s budget per strategy by default (an experiment's own command keeps
    /// `MeasureConfig::full`'s 40 ms and 3 s).
    fn whole_study_config(&self) -> MeasureConfig {
        MeasureConfig {
            iteration_time: Duration::from_millis(25),
            budget: Duration::from_millis(1500),
            ..MeasureConfig::full()
        }
    }
}

/// The Runner of a table whose strategies `--<flag> GLOB` chooses.
pub(crate) fn runner<'s>(
    config: &MeasureConfig,
    flag: &'static str,
    pattern: Option<&str>,
    cancel: Cancel,
    sink: &'s mut dyn Sink,
) -> Result<Runner<'s>> {
    Ok(Runner::new(config.clone(), Filter::new(flag, pattern)?, cancel, sink))
}

/// A size given in MiB whose byte count fits in a `u64` and a `usize`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Mebibytes(u64);

impl Mebibytes {
    /// The most MiB whose bytes fit in 64 bits.
    pub const MAX: u64 = u64::MAX >> 20;

    /// `mib` MiB; panics (at compile time in a `const`) outside 1..=[`Self::MAX`].
    pub const fn new(mib: u64) -> Self {
        assert!(mib >= 1 && mib <= Self::MAX);
        Mebibytes(mib)
    }

    /// The size in MiB.
    pub fn mib(self) -> u64 {
        self.0
    }

    /// The size in bytes (fits: checked when parsed).
    pub fn bytes(self) -> u64 {
        self.0 << 20
    }
}

impl fmt::Display for Mebibytes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

impl FromStr for Mebibytes {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        let mib: u64 = s.trim().parse().map_err(|e| format!("{s:?} is not a whole number of MiB ({e})"))?;
        let fits = mib.checked_mul(1 << 20).is_some_and(|b| usize::try_from(b).is_ok());
        if !fits {
            return Err(format!(
                "{mib} MiB is more bytes than a 64-bit size holds; at most {} MiB",
                Self::MAX
            ));
        }
        if mib == 0 {
            return Err("must be at least 1 MiB".to_string());
        }
        Ok(Mebibytes(mib))
    }
}

/// A positive number of seconds, at most [`Seconds::MAX`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Seconds(Duration);

impl Seconds {
    /// The longest timeout or duration a flag takes: a day. Longer is a slip of the keyboard,
    /// and a deadline of "now" plus any `Duration` would overflow the clock (a panic later).
    pub const MAX: Duration = Duration::from_secs(86_400);

    /// The duration.
    pub fn duration(self) -> Duration {
        self.0
    }
}

impl fmt::Display for Seconds {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0.as_secs_f64())
    }
}

impl FromStr for Seconds {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        let secs: f64 = s.trim().parse().map_err(|_| format!("{s:?} is not a number of seconds"))?;
        if !(secs.is_finite() && secs > 0.0) {
            return Err(format!("{s:?} seconds must be a finite number above 0"));
        }
        if secs > Self::MAX.as_secs_f64() {
            return Err(format!(
                "{s} seconds is longer than a day ({} s), the most a flag takes",
                Self::MAX.as_secs()
            ));
        }
        // A timeout below a millisecond cannot be met on any machine; the floor keeps it usable.
        Ok(Seconds(Duration::from_secs_f64(secs.max(0.001))))
    }
}

/// `50%` or `0.5` as a fraction (unchecked): the one grammar of every share and threshold.
pub fn percent_or_fraction(s: &str) -> Option<f64> {
    let (number, scale) = match s.trim().strip_suffix('%') {
        Some(n) => (n, 100.0),
        None => (s.trim(), 1.0),
    };
    number.trim().parse::<f64>().ok().map(|v| v / scale)
}

/// A server's command line, split as a shell would (quotes, escapes) but never run by one:
/// the words of `--server-cmd`, `--base-cmd`, `--new-cmd`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommandLine(pub Vec<String>);

impl std::str::FromStr for CommandLine {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let words = shlex::split(s).ok_or_else(|| format!("{s:?}: unbalanced quotes"))?;
        if words.is_empty() {
            return Err("the command line is empty".to_string());
        }
        Ok(CommandLine(words))
    }
}

/// A share from 0 to 1, as `50%` or `0.5`.
pub fn share(s: &str) -> Result<f64, String> {
    percent_or_fraction(s)
        .filter(|v| (0.0..=1.0).contains(v))
        .ok_or_else(|| format!("{s:?} is not a share from 0% to 100% (or 0 to 1)"))
}

/// A share of a time that may exceed it (a wait of 150% of the time on a CPU), as `5%` or `0.05`.
pub fn time_share(s: &str) -> Result<f64, String> {
    percent_or_fraction(s)
        .filter(|v| v.is_finite() && *v >= 0.0)
        .ok_or_else(|| format!("{s:?} is not a share of the time like 5% or 0.05 (0 or more)"))
}

/// The lowest rate a flag takes, requests per second: one a minute. Below it a slice of a
/// few requests would outlast [`Seconds::MAX`].
pub const MIN_RATE: f64 = 1.0 / 60.0;

/// A finite rate of at least [`MIN_RATE`] (requests per second).
pub fn positive_rate(s: &str) -> Result<f64, String> {
    // The one grammar of a rate (`_` separators allowed), with the load's floor.
    match jsoncost_engine::parse_rate(s) {
        Ok(r) if r >= MIN_RATE => Ok(r),
        _ => Err(format!(
            "{s:?} is not a rate of at least one request a minute (requests per second, e.g. 250)"
        )),
    }
}

/// `--schedule`: how a table's strategies share the time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ScheduleArg {
    /// Interleaved rounds: drift lands on every row alike, and rows pair up.
    Interleaved,
    /// One strategy after another.
    Sequential,
}

impl ScheduleArg {
    /// The engine's schedule.
    pub fn schedule(self) -> jsoncost_engine::Schedule {
        match self {
            ScheduleArg::Interleaved => jsoncost_engine::Schedule::Interleaved,
            ScheduleArg::Sequential => jsoncost_engine::Schedule::Sequential,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shares_are_percentages_or_fractions() {
        assert_eq!(share("50%"), Ok(0.5));
        assert_eq!(share("0.25"), Ok(0.25));
        assert_eq!(share("100%"), Ok(1.0));
        for bad in ["101%", "-1%", "1.5", "NaN", "half"] {
            assert_eq!(share(bad), Err(format!("{bad:?} is not a share from 0% to 100% (or 0 to 1)")));
        }
    }

    #[test]
    fn time_shares_may_exceed_the_whole() {
        assert_eq!(time_share("5%"), Ok(0.05));
        assert_eq!(time_share("250%"), Ok(2.5));
        assert_eq!(time_share("0"), Ok(0.0));
        for bad in ["-1%", "inf", "NaN", "some"] {
            assert_eq!(
                time_share(bad),
                Err(format!("{bad:?} is not a share of the time like 5% or 0.05 (0 or more)"))
            );
        }
    }

    #[test]
    fn mebibytes_that_do_not_fit_are_refused() {
        assert_eq!("128".parse::<Mebibytes>().unwrap().bytes(), 128 << 20);
        assert_eq!(
            Mebibytes::MAX.to_string().parse::<Mebibytes>().unwrap().bytes(),
            Mebibytes::MAX << 20
        );
        // 2^44 MiB is 2^64 bytes: a wrapping multiplication would make it a 0-byte limit.
        let err = "17592186044416".parse::<Mebibytes>().unwrap_err();
        assert_eq!(
            err,
            "17592186044416 MiB is more bytes than a 64-bit size holds; at most 17592186044415 MiB"
        );
        assert_eq!("0".parse::<Mebibytes>().unwrap_err(), "must be at least 1 MiB");
        assert!("-1".parse::<Mebibytes>().unwrap_err().contains("not a whole number of MiB"));
    }

    #[test]
    fn seconds_must_be_finite_positive_and_fit() {
        assert_eq!("2.5".parse::<Seconds>().unwrap().duration(), Duration::from_millis(2500));
        for bad in ["inf", "NaN", "0", "-1", "x"] {
            assert!(bad.parse::<Seconds>().is_err(), "{bad}");
        }
        for long in ["1e30", "1e19", "86401"] {
            assert_eq!(
                long.parse::<Seconds>().unwrap_err(),
                format!("{long} seconds is longer than a day (86400 s), the most a flag takes")
            );
        }
        assert_eq!("86400".parse::<Seconds>().unwrap().duration(), Seconds::MAX);
        // The longest flag from now is a deadline the clock can hold.
        assert!(std::time::Instant::now().checked_add(Seconds::MAX).is_some());
        for bad in ["inf", "0", "1e-300", "0.01"] {
            assert_eq!(
                positive_rate(bad),
                Err(format!(
                    "{bad:?} is not a rate of at least one request a minute (requests per second, e.g. 250)"
                ))
            );
        }
        assert_eq!((positive_rate("250"), positive_rate("1_000")), (Ok(250.0), Ok(1000.0)));
    }
}

//! A server's profile under a load (`http --target … --profile`): what share of its CPU was
//! JSON work, split by direction, where it was called from, and the folded stacks its
//! flamegraph is drawn from. The record is filled by
//! `jsoncost_conductor::profile`; this module only holds it and the one statistic it needs.
//!
//! **The share's interval.** Samples taken close together are not independent (a burst of
//! requests, a long parse), so the share is not a binomial proportion over samples. The samples
//! are batched by time slices; the share is the ratio of sums `Σ json / Σ all` over the slices,
//! and its interval the ratio estimator's (linearized, slices as the units): residuals
//! `e_i = json_i − share·all_i`, standard error `sqrt(k/(k−1)·Σe²) / Σall`, Student's t with
//! `k − 1` degrees of freedom ([`batched_share`]).

use serde::{Deserialize, Serialize};

use crate::paired::Interval;
use crate::stats::t_quantile_two_sided;

/// How the profiler walked the stacks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Unwinding {
    /// perf copied each sample's user stack and unwound it with the binary's `.eh_frame`
    /// (`--call-graph dwarf`): works on a release build as cargo makes it.
    Dwarf,
    /// perf followed frame pointers (`--call-graph fp`): cheap, but complete only for code built
    /// with `-C force-frame-pointers=yes`.
    Fp,
}

impl Unwinding {
    /// `dwarf`, `fp`: perf's own word.
    pub fn as_str(self) -> &'static str {
        match self {
            Unwinding::Dwarf => "dwarf",
            Unwinding::Fp => "fp",
        }
    }
}

/// Which way JSON work went.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Direction {
    /// Reading JSON: a parser, a `Deserialize` impl or a visitor on the stack.
    Parse,
    /// Writing JSON: a serializer, a `Serialize` impl or a formatter on the stack.
    Write,
    /// Dropping what a JSON library made (a `Value` tree) outside a parse or a write.
    Free,
    /// A JSON library's frame that is none of those (a `Value` accessor, a clone).
    Other,
}

impl Direction {
    /// Every direction, in the order reports list them.
    pub const ALL: [Direction; 4] = [Direction::Parse, Direction::Write, Direction::Free, Direction::Other];

    /// `parse`, `write`, `free`, `other`.
    pub fn as_str(self) -> &'static str {
        match self {
            Direction::Parse => "parse",
            Direction::Write => "write",
            Direction::Free => "free",
            Direction::Other => "other",
        }
    }
}

/// A share of the server's samples with its interval.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Share {
    /// Samples counted in it.
    pub count: u64,
    /// `count` over all, with its 99% interval from the time slices; `None` with fewer than two
    /// slices holding samples.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interval: Option<Interval>,
}

/// JSON work reached from one place: the outermost JSON frame (`entry`, e.g.
/// `serde_json::ser::to_writer`) and the nearest frame above it outside JSON code and the
/// runtime (`caller`, the handler).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CallSite {
    /// The outermost JSON frame of the samples.
    pub entry: String,
    /// The nearest caller outside JSON code, std and the async runtime; `None` when the stack
    /// held none (an unwinding cut short).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub caller: Option<String>,
    /// The direction of the work.
    pub direction: Direction,
    /// Samples in it.
    pub count: u64,
}

/// One distinct stack and its samples, root first, frames joined by `;` (the folded format
/// flamegraph tools read).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FoldedStack {
    /// `main;tokio::…;handler;serde_json::…`.
    pub stack: String,
    /// Samples with exactly this stack.
    pub count: u64,
}

/// What the samples of a load say: how many, the JSON share and its split, where it was called
/// from, and the stacks the flamegraph is drawn from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Sampled {
    /// Slices holding at least one sample.
    pub slices: usize,
    /// The server's samples during the load.
    pub samples: u64,
    /// Of them, those whose leaf frame is in the kernel.
    pub kernel_samples: u64,
    /// Of them, those whose every frame is unresolved (no symbol): attributed to no one.
    pub unresolved_samples: u64,
    /// Samples with a JSON frame on the stack.
    pub json: Share,
    /// Of those, per direction (every direction present, in [`Direction::ALL`]'s order).
    pub directions: Vec<(Direction, Share)>,
    /// Where JSON work was called from, most samples first (at most [`CALL_SITES`]).
    pub call_sites: Vec<CallSite>,
    /// The stacks the flamegraph is drawn from, the most frequent first; those under
    /// [`FOLDED_MIN_SHARE`] of the samples are left out (too narrow to draw).
    #[serde(default)]
    pub folded: Vec<FoldedStack>,
    /// The frame names of `folded` that are JSON code, which the flamegraph colours.
    #[serde(default)]
    pub json_frames: Vec<String>,
}

impl Sampled {
    /// The share of `direction`, if any sample went that way.
    pub fn direction(&self, direction: Direction) -> Option<&Share> {
        self.directions.iter().find(|(d, _)| *d == direction).map(|(_, s)| s)
    }

    /// `count` as a share of the samples (0 without any).
    pub fn fraction(&self, count: u64) -> f64 {
        if self.samples == 0 {
            0.0
        } else {
            count as f64 / self.samples as f64
        }
    }
}

/// A server's CPU profile under one load: the record on its row (`Row::profile`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ServerProfile {
    /// The process sampled.
    pub pid: u32,
    /// Its command line, from `/proc`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
    /// The sampling event (`cpu-clock`: a software clock, on any machine).
    pub event: String,
    /// Samples per second per running thread.
    pub frequency_hz: u32,
    /// How stacks were walked.
    pub unwinding: Unwinding,
    /// Whether kernel frames were sampled (`perf_event_paranoid` and privileges allow it); the
    /// share's denominator is then the process's whole CPU time, otherwise user time only.
    pub kernel: bool,
    /// Length of the time slices the share's interval is computed over, ms.
    pub slice_ms: f64,
    /// The server's CPU time per request over the load, ns, from `/proc` (user and system).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu_ns_per_request: Option<f64>,
    /// Requests completed during the load.
    pub requests: u64,
    /// What the build or the machine limits in the stacks (frame pointers, kernel time).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub advice: Vec<String>,
    /// The file the flamegraph was written to, beside results.json.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flamegraph: Option<String>,
    /// What the samples say (its fields sit beside these in results files).
    #[serde(flatten)]
    pub sampled: Sampled,
}

/// Call sites kept per profile.
pub const CALL_SITES: usize = 10;

/// A folded stack under this share of the samples is left out of the record (a flamegraph
/// leaves out frames narrower than about 0.1% anyway).
pub const FOLDED_MIN_SHARE: f64 = 0.0005;

/// The share `Σ parts / Σ wholes` over time slices (slice `i` holds `wholes[i]` samples, of which
/// `parts[i]` count), with the ratio estimator's interval at `confidence`, clamped to [0, 1].
/// `None` unless at least two slices hold samples.
pub fn batched_share(parts: &[f64], wholes: &[f64], confidence: f64) -> Option<Interval> {
    let pairs: Vec<(f64, f64)> = parts.iter().zip(wholes).filter(|(_, w)| **w > 0.0).map(|(p, w)| (*p, *w)).collect();
    let k = pairs.len();
    if k < 2 || parts.len() != wholes.len() {
        return None;
    }
    let (sum_p, sum_w): (f64, f64) = pairs.iter().fold((0.0, 0.0), |(a, b), (p, w)| (a + p, b + w));
    let share = sum_p / sum_w;
    let squares: f64 = pairs.iter().map(|(p, w)| (p - share * w).powi(2)).sum();
    let se = (k as f64 / (k - 1) as f64 * squares).sqrt() / sum_w;
    let half = t_quantile_two_sided(confidence, (k - 1) as f64) * se;
    Some(Interval {
        estimate: share,
        low: (share - half).max(0.0),
        high: (share + half).min(1.0),
        n: k,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_share_of_slices_is_the_ratio_of_sums_with_the_ratio_estimators_interval() {
        // Four slices: 10/100, 20/100, 30/100, 40/100: share 100/400 = 0.25.
        let parts = [10.0, 20.0, 30.0, 40.0];
        let wholes = [100.0; 4];
        let i = batched_share(&parts, &wholes, 0.99).unwrap();
        assert_eq!(i.estimate, 0.25);
        assert_eq!(i.n, 4);
        // Residuals -15, -5, 5, 15: Σe² = 500; se = sqrt(4/3 · 500) / 400.
        let se = (4.0 / 3.0 * 500.0f64).sqrt() / 400.0;
        let half = t_quantile_two_sided(0.99, 3.0) * se;
        // t(0.995, 3) = 5.8409 and se = 0.06455: the half-width is 0.3770, so the low end is
        // clamped at 0.
        assert!((half - 0.377_0).abs() < 1e-3, "{half}");
        assert_eq!(i.low, 0.0);
        assert!((i.high - (0.25 + half)).abs() < 1e-12);
    }

    #[test]
    fn slices_without_samples_do_not_count_and_one_slice_gives_no_interval() {
        let i = batched_share(&[5.0, 0.0, 5.0], &[10.0, 0.0, 10.0], 0.99).unwrap();
        assert_eq!((i.estimate, i.low, i.high, i.n), (0.5, 0.5, 0.5, 2));
        assert_eq!(batched_share(&[5.0, 0.0], &[10.0, 0.0], 0.99), None);
        assert_eq!(batched_share(&[], &[], 0.99), None);
    }

    #[test]
    fn no_json_at_all_is_a_zero_share_not_an_error() {
        let i = batched_share(&[0.0, 0.0, 0.0], &[40.0, 50.0, 60.0], 0.99).unwrap();
        assert_eq!((i.estimate, i.low, i.high), (0.0, 0.0, 0.0));
    }
}

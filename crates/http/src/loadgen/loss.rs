//! When a run is given up as lost: its target (or what the target reads from) is failing, so
//! sending the rest of the planned load would only take time. Judged as each request finishes,
//! so a run against a target that never answers ends one request timeout after the bound at
//! most, however many requests were planned.

use std::fmt;
use std::time::Duration;

use serde::{Serialize, Serializer};
use tokio::time::Instant;

use super::outcome::Outcome;

/// The default [`LossRule::max_error_share`]: more than half of the finished requests failed.
pub const DEFAULT_MAX_ERROR_SHARE: f64 = 0.5;

/// The error share is judged from this many finished requests on: fewer say little (a first
/// request timing out on a cold server is not a lost target).
pub const MIN_JUDGED: u64 = 20;

/// The default stall bound in per-request timeouts (see [`LossRule::max_stall`]).
pub const STALL_TIMEOUTS: u32 = 2;

/// What makes a run lost.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LossRule {
    /// Lost once more than this share of the finished requests failed (any error kind, any
    /// status outside 2xx), judged from [`MIN_JUDGED`] finished requests on; 1.0 never.
    pub max_error_share: f64,
    /// Lost once no 2xx response has arrived for this long, from the start of the run or the
    /// last one. `None`: [`STALL_TIMEOUTS`] per-request timeouts, so a target that answers
    /// nothing is lost when its second round of requests times out, and every connection
    /// hanging on one slow request at once is not.
    pub max_stall: Option<Duration>,
    /// Lost at the first 5xx answer or failed connect: for a server that answers them only when
    /// what it reads from is gone (the in-process API).
    pub first_server_error: bool,
}

impl Default for LossRule {
    fn default() -> Self {
        LossRule {
            max_error_share: DEFAULT_MAX_ERROR_SHARE,
            max_stall: None,
            first_server_error: false,
        }
    }
}

/// Why a run was given up.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(tag = "rule", rename_all = "snake_case")]
pub enum Loss {
    /// `failed` of `finished` requests failed, more than `max_share` of them.
    ErrorShare {
        /// Requests that failed.
        failed: u64,
        /// Requests finished.
        finished: u64,
        /// The rule's largest share.
        max_share: f64,
    },
    /// No 2xx response for `without_success` (seconds in JSON), more than `max`.
    Stall {
        /// How long no request succeeded.
        #[serde(serialize_with = "seconds")]
        without_success: Duration,
        /// The rule's longest allowed stall.
        #[serde(serialize_with = "seconds")]
        max: Duration,
    },
    /// A 5xx answer or a failed connect from a server that gives them only when failing.
    ServerError,
    /// The server's process exited (whatever answers on its address now is not it).
    Exited {
        /// Its process ID.
        pid: u32,
    },
}

fn seconds<S: Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_f64(d.as_secs_f64())
}

impl fmt::Display for Loss {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Loss::ErrorShare {
                failed,
                finished,
                max_share,
            } => write!(f, "{failed} of {finished} requests failed, more than {}%", max_share * 100.0),
            Loss::Stall { without_success, max } => write!(
                f,
                "no successful response for {:.1} s, more than {} s",
                without_success.as_secs_f64(),
                max.as_secs_f64()
            ),
            Loss::ServerError => f.write_str("the server answered a 5xx or refused a connection"),
            Loss::Exited { pid } => write!(f, "its process (PID {pid}) exited"),
        }
    }
}

/// The rule with its stall bound resolved, and what it has seen.
#[derive(Debug, Clone)]
pub struct Judge {
    max_error_share: f64,
    max_stall: Duration,
    first_server_error: bool,
    last_success: Instant,
    lost: Option<Loss>,
}

impl Judge {
    /// Judges a run started at `started` whose requests time out after `timeout`.
    pub fn new(rule: LossRule, timeout: Duration, started: Instant) -> Self {
        Judge {
            max_error_share: rule.max_error_share,
            max_stall: rule.max_stall.unwrap_or(timeout.saturating_mul(STALL_TIMEOUTS)),
            first_server_error: rule.first_server_error,
            last_success: started,
            lost: None,
        }
    }

    /// Judges the run after `outcome` made `failed` of `finished` requests fail. Returns true
    /// when this outcome lost it.
    pub fn judge(&mut self, outcome: &Outcome, failed: u64, finished: u64, now: Instant) -> bool {
        if self.lost.is_some() {
            return false;
        }
        let (success, server_error) = match outcome {
            Outcome::Response { status, .. } => ((200..300).contains(status), (500..600).contains(status)),
            Outcome::Connect => (false, true),
            Outcome::Timeout | Outcome::Closed => (false, false),
        };
        if success {
            self.last_success = now;
        }
        let without_success = now.saturating_duration_since(self.last_success);
        self.lost = if self.first_server_error && server_error {
            Some(Loss::ServerError)
        } else if finished >= MIN_JUDGED && failed as f64 > self.max_error_share * finished as f64 {
            Some(Loss::ErrorShare {
                failed,
                finished,
                max_share: self.max_error_share,
            })
        } else if !success && without_success > self.max_stall {
            Some(Loss::Stall {
                without_success,
                max: self.max_stall,
            })
        } else {
            None
        };
        self.lost.is_some()
    }

    /// The run was paused for `idle` (another target's slices ran): that time is no stall.
    pub fn paused(&mut self, idle: Duration) {
        self.last_success += idle;
    }

    /// Why the run was lost, if it was.
    pub fn lost(&self) -> Option<Loss> {
        self.lost
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn response(status: u16) -> Outcome {
        Outcome::Response {
            status,
            bytes: 0,
            latency: Duration::ZERO,
            uncorrected: Duration::ZERO,
        }
    }

    #[test]
    fn the_error_share_is_judged_from_the_minimum_on() {
        let t0 = Instant::now();
        let mut j = Judge::new(LossRule::default(), Duration::from_secs(30), t0);
        for n in 1..MIN_JUDGED {
            assert!(!j.judge(&response(500), n, n, t0), "{n}");
        }
        assert!(j.judge(&response(500), MIN_JUDGED, MIN_JUDGED, t0));
        assert_eq!(
            j.lost(),
            Some(Loss::ErrorShare {
                failed: 20,
                finished: 20,
                max_share: 0.5
            })
        );
        assert_eq!(j.lost().unwrap().to_string(), "20 of 20 requests failed, more than 50%");
        // Half failed is not more than half.
        let mut j = Judge::new(LossRule::default(), Duration::from_secs(30), t0);
        assert!(!j.judge(&response(200), 10, 20, t0));
    }

    #[test]
    fn a_stall_is_counted_from_the_last_success_and_defaults_to_two_timeouts() {
        let t0 = Instant::now();
        let s = Duration::from_secs;
        let mut j = Judge::new(LossRule::default(), s(1), t0);
        assert!(!j.judge(&Outcome::Timeout, 1, 1, t0 + s(2)));
        assert!(!j.judge(&response(200), 1, 2, t0 + s(3)));
        assert!(!j.judge(&Outcome::Timeout, 2, 3, t0 + s(5)));
        assert!(j.judge(&Outcome::Timeout, 3, 4, t0 + s(6)));
        assert_eq!(
            j.lost(),
            Some(Loss::Stall {
                without_success: s(3),
                max: s(2)
            })
        );
        assert_eq!(j.lost().unwrap().to_string(), "no successful response for 3.0 s, more than 2 s");
        // Once lost, the verdict stays.
        assert!(!j.judge(&Outcome::Timeout, 4, 5, t0 + s(9)));
    }

    #[test]
    fn a_server_error_loses_the_run_only_when_asked() {
        let t0 = Instant::now();
        let rule = LossRule {
            first_server_error: true,
            ..LossRule::default()
        };
        let mut j = Judge::new(rule, Duration::from_secs(30), t0);
        assert!(!j.judge(&response(404), 1, 1, t0));
        assert!(j.judge(&response(503), 2, 2, t0));
        assert_eq!(j.lost(), Some(Loss::ServerError));
        let mut j = Judge::new(rule, Duration::from_secs(30), t0);
        assert!(j.judge(&Outcome::Connect, 1, 1, t0));
        let mut j = Judge::new(LossRule::default(), Duration::from_secs(30), t0);
        assert!(!j.judge(&response(503), 1, 1, t0));
    }
}

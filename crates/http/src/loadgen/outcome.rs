//! How one request ended ([`Outcome`]): what a connection reports, the tally counts and the
//! loss rule judges.

use std::time::Duration;

/// How one request ended.
pub enum Outcome {
    /// A response arrived (any status) with `bytes` of body.
    Response {
        status: u16,
        bytes: u64,
        latency: Duration,
        uncorrected: Duration,
    },
    Connect,
    Timeout,
    Closed,
}

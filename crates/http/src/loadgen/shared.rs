//! What the connections of one run share ([`Run`]): the request, the bounds, the cancellation
//! and the tally, read by every worker.

use std::sync::atomic::AtomicU64;
use std::time::Duration;

use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use super::conn::RequestTemplate;
use super::histogram::SharedTally;
use super::outcome::Outcome;
use super::report::StopReason;
use super::target::Target;

/// Everything the connections of one run share.
pub(super) struct Run {
    pub(super) target: Target,
    pub(super) template: RequestTemplate,
    pub(super) timeout: Duration,
    pub(super) connect_timeout: Duration,
    pub(super) deadline: Instant,
    /// The caller's cancellation (Ctrl-C).
    pub(super) cancel: CancellationToken,
    /// Stops every connection: cancelled with `cancel`, or when the run is lost.
    pub(super) stop: CancellationToken,
    pub(super) tally: SharedTally,
    /// Open model: slots not sent when the duration ended.
    pub(super) unsent: AtomicU64,
}

impl Run {
    /// Counts `outcome`; the run stops when it is lost.
    pub(super) fn record(&self, outcome: Outcome) {
        if self.tally.record(outcome) {
            self.stop.cancel();
        }
    }

    /// Why the connections were stopped.
    pub(super) fn stopped_by(&self) -> StopReason {
        if self.cancel.is_cancelled() {
            StopReason::Cancelled
        } else {
            StopReason::Lost
        }
    }
}

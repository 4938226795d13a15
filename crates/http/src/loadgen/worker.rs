//! One connection's loop machinery, shared by both models: waits for a send time, sends, and
//! stops on cancellation, a lost run or the wall-time cap. Its timers and the cancellation future are
//! created once per connection, not per request, and the request timeout is re-armed lazily:
//! only when it fires early (for an earlier request), so most requests never touch the timer
//! wheel.

use std::pin::{Pin, pin};

use tokio::time::{Instant, Sleep};
use tokio_util::sync::WaitForCancellationFutureOwned;

use super::conn::Connection;
use super::outcome::Outcome;
use super::report::StopReason;
use super::shared::Run;

pub struct Worker<'r, 'c> {
    run: &'r Run,
    conn: Connection<'c>,
    cancelled: Pin<Box<WaitForCancellationFutureOwned>>,
    deadline: Pin<Box<Sleep>>,
    /// Waits for a scheduled send time (open model).
    schedule: Pin<Box<Sleep>>,
    /// Bounds the request in flight. Armed at or before that request's expiry.
    timeout: Pin<Box<Sleep>>,
}

impl<'r, 'c> Worker<'r, 'c> {
    /// A worker for `run` on `conn` (a fresh [`Connection`] opens on its first request; a warm
    /// one from an earlier slice is reused as it is).
    pub fn new(run: &'r Run, conn: Connection<'c>) -> Self {
        Worker {
            run,
            conn,
            cancelled: Box::pin(run.stop.clone().cancelled_owned()),
            deadline: Box::pin(tokio::time::sleep_until(run.deadline)),
            schedule: Box::pin(tokio::time::sleep_until(run.deadline)),
            timeout: Box::pin(tokio::time::sleep_until(Instant::now())),
        }
    }

    /// The connection, to be reused by a later worker on the same target.
    pub fn into_connection(self) -> Connection<'c> {
        self.conn
    }

    /// Sends one request at `intended` (at once if that has passed) and records its outcome,
    /// timed from `intended`. `Err` means the run is over.
    pub async fn request_at(&mut self, intended: Instant) -> Result<(), StopReason> {
        let Worker {
            run,
            conn,
            cancelled,
            deadline,
            schedule,
            timeout,
        } = self;
        let mut now = Instant::now();
        if intended > now {
            schedule.as_mut().reset(intended);
            tokio::select! {
                biased;
                _ = cancelled.as_mut() => return Err(run.stopped_by()),
                _ = deadline.as_mut() => return Err(StopReason::TimeCap),
                _ = schedule.as_mut() => {}
            }
            now = intended;
        }
        // The request may run until `expires`. The timer still armed for an earlier request
        // fires before that; it is then re-armed for this one (at most once per request).
        let expires = now + run.timeout;
        if timeout.deadline() > expires {
            timeout.as_mut().reset(expires);
        }
        let outcome = {
            let mut exchange = pin!(conn.exchange(&run.template, intended));
            loop {
                tokio::select! {
                    biased;
                    _ = cancelled.as_mut() => return Err(run.stopped_by()),
                    _ = deadline.as_mut() => return Err(StopReason::TimeCap),
                    outcome = exchange.as_mut() => break outcome,
                    _ = timeout.as_mut() => {
                        if timeout.deadline() >= expires {
                            break Outcome::Timeout;
                        }
                        timeout.as_mut().reset(expires);
                    }
                }
            }
        };
        if matches!(outcome, Outcome::Timeout) {
            conn.abandon();
        }
        run.record(outcome);
        Ok(())
    }
}

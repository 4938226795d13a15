//! One connection's loop machinery, shared by both models: waits for a send time, sends, and
//! stops on cancellation or the wall-time cap. Its timers and the cancellation future are
//! created once per connection and re-armed per request, not rebuilt for each request.

use std::pin::Pin;

use tokio::time::{Instant, Sleep};
use tokio_util::sync::WaitForCancellationFutureOwned;

use super::Run;
use super::conn::Connection;
use super::histogram::Outcome;
use super::report::StopReason;

pub struct Worker<'r> {
    run: &'r Run,
    conn: Connection<'r>,
    cancelled: Pin<Box<WaitForCancellationFutureOwned>>,
    deadline: Pin<Box<Sleep>>,
    /// Waits for a scheduled send time, then bounds the request.
    timer: Pin<Box<Sleep>>,
}

impl<'r> Worker<'r> {
    pub fn new(run: &'r Run) -> Self {
        Worker {
            run,
            conn: Connection::new(&run.target, run.connect_timeout),
            cancelled: Box::pin(run.cancel.clone().cancelled_owned()),
            deadline: Box::pin(tokio::time::sleep_until(run.deadline)),
            timer: Box::pin(tokio::time::sleep_until(run.deadline)),
        }
    }

    /// Sends one request at `intended` (at once if that has passed) and records its outcome,
    /// timed from `intended`. `Err` means the run is over.
    pub async fn request_at(&mut self, intended: Instant) -> Result<(), StopReason> {
        if intended > Instant::now() {
            self.timer.as_mut().reset(intended);
            tokio::select! {
                biased;
                _ = &mut self.cancelled => return Err(StopReason::Cancelled),
                _ = &mut self.deadline => return Err(StopReason::TimeCap),
                _ = &mut self.timer => {}
            }
        }
        self.timer.as_mut().reset(Instant::now() + self.run.timeout);
        let outcome = tokio::select! {
            biased;
            _ = &mut self.cancelled => return Err(StopReason::Cancelled),
            _ = &mut self.deadline => return Err(StopReason::TimeCap),
            outcome = self.conn.exchange(&self.run.template, intended) => outcome,
            _ = &mut self.timer => Outcome::Timeout,
        };
        if matches!(outcome, Outcome::Timeout) {
            self.conn.abandon();
        }
        self.run.tally.record(outcome);
        Ok(())
    }
}

//! The counters the server's threads share: the routes count requests, the runtime's thread
//! hooks its CPU time, and [`super::RunningServer`] reads both.

use std::sync::atomic::AtomicU64;

use super::cpu;

/// Counters shared by the server's threads.
#[derive(Default)]
pub(crate) struct ServerStats {
    /// Requests answered since the server started.
    pub requests: AtomicU64,
    /// CPU time of the server's runtime threads.
    pub cpu: cpu::ThreadCpu,
}

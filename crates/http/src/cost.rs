//! The server's own cost while it handles a load: heap allocations of its threads (through the
//! counting allocator's enrolled-thread measurement) and CPU time of its threads, divided by
//! the requests it handled in the same window.
//!
//! Caveats: allocations are counted only when `jsoncost_engine::alloc::CountingAllocator` is the
//! global allocator; the enrolled-thread tally covers every server started in this process, so
//! measure one server at a time (a second measurement waits for the first).

use std::time::{Duration, Instant};

use jsoncost_engine::alloc::{self, ProcessMeasure};
use jsoncost_engine::rss::{PeakWindow, RssPeak};

use crate::server::RunningServer;

/// Totals over one measured window.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ServerCost {
    /// Requests the server handled in the window.
    pub requests: u64,
    /// Bytes allocated by server threads; `None` without the counting allocator.
    pub allocated_bytes: Option<u64>,
    /// Allocations made by server threads; `None` without the counting allocator.
    pub allocs: Option<u64>,
    /// Most live heap bytes held by server threads at any point of the window, above the
    /// start (with one connection, a request's peak); `None` without the counting allocator.
    pub peak_bytes: Option<u64>,
    /// CPU time of the server's threads; `None` without per-thread CPU clocks.
    pub cpu_ns: Option<u64>,
    /// The process's RSS over the window (server and load generator share the process; the
    /// generator's bodies are built before the window opens, so the growth is the server's
    /// buffers plus the client's socket buffers); `None` without /proc.
    pub rss: Option<RssPeak>,
    /// Wall time of the window.
    pub wall: Duration,
}

impl ServerCost {
    fn per_request(&self, total: Option<u64>) -> Option<f64> {
        (self.requests > 0).then_some(())?;
        total.map(|t| t as f64 / self.requests as f64)
    }

    pub fn bytes_per_request(&self) -> Option<f64> {
        self.per_request(self.allocated_bytes)
    }

    pub fn allocs_per_request(&self) -> Option<f64> {
        self.per_request(self.allocs)
    }

    pub fn cpu_ns_per_request(&self) -> Option<f64> {
        self.per_request(self.cpu_ns)
    }
}

/// An open measurement of a server's cost.
pub struct CostMeasure<'a> {
    server: &'a RunningServer,
    alloc: Option<ProcessMeasure>,
    requests0: u64,
    cpu0: Option<u64>,
    rss: Option<PeakWindow>,
    started: Instant,
}

impl<'a> CostMeasure<'a> {
    /// Starts counting. Blocks while another process-wide allocation measurement is open.
    pub fn start(server: &'a RunningServer) -> Self {
        let rss = PeakWindow::open();
        let alloc = alloc::is_installed().then(ProcessMeasure::start_enrolled);
        CostMeasure {
            server,
            alloc,
            requests0: server.requests_served(),
            cpu0: server.cpu_ns(),
            rss,
            started: Instant::now(),
        }
    }

    /// Stops counting and returns the totals.
    pub fn finish(self) -> ServerCost {
        let stats = self.alloc.map(ProcessMeasure::finish);
        let cpu_ns = match (self.cpu0, self.server.cpu_ns()) {
            (Some(a), Some(b)) => Some(b.saturating_sub(a)),
            _ => None,
        };
        ServerCost {
            requests: self.server.requests_served() - self.requests0,
            allocated_bytes: stats.map(|s| s.bytes),
            allocs: stats.map(|s| s.count),
            peak_bytes: stats.map(|s| s.peak_bytes),
            cpu_ns,
            rss: self.rss.and_then(PeakWindow::close),
            wall: self.started.elapsed(),
        }
    }
}

impl RunningServer {
    /// Runs `f` (typically a load run against this server) and returns what the server spent
    /// meanwhile.
    pub fn measure<R>(&self, f: impl FnOnce() -> R) -> (R, ServerCost) {
        let m = CostMeasure::start(self);
        let r = f();
        (r, m.finish())
    }
}

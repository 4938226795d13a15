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

    /// Bytes the server allocated per request; `None` without requests or counting.
    pub fn bytes_per_request(&self) -> Option<f64> {
        self.per_request(self.allocated_bytes)
    }

    /// Allocations per request; `None` without requests or counting.
    pub fn allocs_per_request(&self) -> Option<f64> {
        self.per_request(self.allocs)
    }

    /// Server CPU time per request, ns; `None` without requests or a CPU reading.
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

/// Samples in-process servers' cost around each slice of a sliced run: target `t` is served by
/// `servers[t]` (several targets may share one server: its modes).
pub struct CostProbe<'a> {
    servers: Vec<&'a RunningServer>,
    open: Option<CostMeasure<'a>>,
}

impl<'a> CostProbe<'a> {
    /// A probe of `servers`, one per target.
    pub fn new(servers: Vec<&'a RunningServer>) -> Self {
        CostProbe { servers, open: None }
    }
}

impl crate::loadgen::SliceProbe for CostProbe<'_> {
    /// `None` only for a target the probe has no server for.
    type Sample = Option<ServerCost>;

    fn begin(&mut self, target: usize) {
        self.open = self.servers.get(target).copied().map(CostMeasure::start);
    }

    fn end(&mut self, _target: usize, _report: &crate::loadgen::LoadReport) -> Option<ServerCost> {
        self.open.take().map(CostMeasure::finish)
    }
}

/// The cost of several slices against one server, added up (requests, bytes, allocations and
/// CPU summed, so per-request figures are over all of them; the peak heap and the RSS growth the highest).
pub fn total_cost<'c>(costs: impl IntoIterator<Item = &'c ServerCost>) -> Option<ServerCost> {
    let add = |a: Option<u64>, b: Option<u64>| Some(a? + b?);
    costs.into_iter().copied().reduce(|a, b| ServerCost {
        requests: a.requests + b.requests,
        allocated_bytes: add(a.allocated_bytes, b.allocated_bytes),
        allocs: add(a.allocs, b.allocs),
        peak_bytes: a.peak_bytes.max(b.peak_bytes),
        cpu_ns: add(a.cpu_ns, b.cpu_ns),
        rss: match (a.rss, b.rss) {
            (Some(x), Some(y)) => Some(if y.growth_bytes > x.growth_bytes { y } else { x }),
            (x, y) => x.or(y),
        },
        wall: a.wall + b.wall,
    })
}

//! An external server's cost: CPU time (the process's own from its CPU clock, to the
//! nanosecond; that of children it has waited for and of its live descendants) and resident
//! memory from `/proc`, read around each slice of a sliced load
//! ([`crate::loadgen::SliceProbe`]), and whether it has exited. Linux only; elsewhere, or for
//! a process that is gone, the figures are absent (`engine::cpu_time` reads them).

use std::time::Instant;

use jsoncost_engine::cpu_time::{ProcSample, has_exited, process_tree};
use jsoncost_engine::rss::RssPeak;

use crate::cost::ServerCost;
use crate::loadgen::{LoadReport, SliceProbe};

/// Samples the server process of each target around its slices: `pids[t]` serves target `t`
/// (`None`: a server whose process is not known, no figures).
pub struct ProcProbe {
    pids: Vec<Option<u32>>,
    at_begin: Option<(ProcSample, Instant)>,
}

impl ProcProbe {
    /// A probe of `pids[t]` for target `t` (`None`: a target whose server is not a process to read).
    pub fn new(pids: Vec<Option<u32>>) -> Self {
        ProcProbe { pids, at_begin: None }
    }
}

impl SliceProbe for ProcProbe {
    type Sample = Option<ServerCost>;

    fn begin(&mut self, target: usize) {
        self.at_begin = self
            .pids
            .get(target)
            .copied()
            .flatten()
            .and_then(process_tree)
            .map(|s| (s, Instant::now()));
    }

    /// The CPU the server used over the slice, per request the slice finished; its RSS at the
    /// end and the growth over the slice (never negative).
    fn end(&mut self, target: usize, report: &LoadReport) -> Option<ServerCost> {
        let (before, started) = self.at_begin.take()?;
        let after = process_tree(self.pids.get(target).copied().flatten()?)?;
        Some(ServerCost {
            requests: report.requests,
            allocated_bytes: None,
            allocs: None,
            peak_bytes: None,
            cpu_ns: Some(after.cpu_ns.saturating_sub(before.cpu_ns)),
            rss: Some(RssPeak {
                peak_bytes: after.rss_bytes.max(before.rss_bytes),
                growth_bytes: after.rss_bytes.saturating_sub(before.rss_bytes),
            }),
            wall: started.elapsed(),
        })
    }

    fn exited(&self, target: usize) -> Option<u32> {
        self.pids.get(target).copied().flatten().filter(|&pid| has_exited(pid))
    }
}

//! An external server's cost from `/proc`: CPU time (`utime + stime` of the process, of its
//! children it has waited for, and of its live descendants) and resident memory, read around
//! each slice of a sliced load ([`crate::loadgen::SliceProbe`]). Linux only; elsewhere, or for
//! a process that is gone, the figures are absent.

use std::time::Instant;

use jsoncost_engine::rss::RssPeak;

use crate::cost::ServerCost;
use crate::loadgen::{LoadReport, SliceProbe};

/// A process's CPU time (ns) and resident memory (bytes), with its live descendants'.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProcSample {
    /// CPU time, user and system, ns.
    pub cpu_ns: u64,
    /// Resident memory, bytes.
    pub rss_bytes: u64,
}

/// Most processes of a tree read (a server forking per request is not what this measures).
const MAX_PROCESSES: usize = 256;

fn sysconf(name: libc::c_int) -> Option<u64> {
    // SAFETY: sysconf reads a system constant; it has no preconditions.
    let v = unsafe { libc::sysconf(name) };
    u64::try_from(v).ok().filter(|v| *v > 0)
}

/// `(utime + stime + cutime + cstime)` in clock ticks of one process.
fn ticks(pid: u32) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name (field 2) may hold spaces and parentheses: the fields after it follow the
    // last ')'. Field 3 (state) is the first of them; utime..cstime are fields 14..17.
    let rest = &stat[stat.rfind(')')? + 1..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let field = |n: usize| fields.get(n - 3)?.parse::<u64>().ok();
    Some(field(14)? + field(15)? + field(16)? + field(17)?)
}

fn resident_pages(pid: u32) -> Option<u64> {
    let statm = std::fs::read_to_string(format!("/proc/{pid}/statm")).ok()?;
    statm.split_whitespace().nth(1)?.parse().ok()
}

/// `pid` and its live descendants (through `/proc/PID/task/TID/children`), at most
/// [`MAX_PROCESSES`].
fn tree(pid: u32) -> Vec<u32> {
    let mut out = vec![pid];
    let mut i = 0;
    while i < out.len() && out.len() < MAX_PROCESSES {
        let p = out[i];
        if let Ok(tasks) = std::fs::read_dir(format!("/proc/{p}/task")) {
            for task in tasks.flatten() {
                let children = std::fs::read_to_string(task.path().join("children")).unwrap_or_default();
                out.extend(children.split_whitespace().filter_map(|c| c.parse::<u32>().ok()));
            }
        }
        i += 1;
    }
    out.truncate(MAX_PROCESSES);
    out
}

/// What `pid` (and its live descendants) used so far; `None` when the process is gone or
/// `/proc` cannot say.
pub fn sample(pid: u32) -> Option<ProcSample> {
    let tick_ns = 1_000_000_000 / sysconf(libc::_SC_CLK_TCK)?;
    let page = sysconf(libc::_SC_PAGESIZE)?;
    let own = ticks(pid)?;
    let (mut cpu, mut pages) = (own, resident_pages(pid)?);
    for child in tree(pid).into_iter().skip(1) {
        cpu += ticks(child).unwrap_or(0);
        pages += resident_pages(child).unwrap_or(0);
    }
    Some(ProcSample {
        cpu_ns: cpu * tick_ns,
        rss_bytes: pages * page,
    })
}

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
            .and_then(sample)
            .map(|s| (s, Instant::now()));
    }

    /// The CPU the server used over the slice, per request the slice finished; its RSS at the
    /// end and the growth over the slice (never negative).
    fn end(&mut self, target: usize, report: &LoadReport) -> Option<ServerCost> {
        let (before, started) = self.at_begin.take()?;
        let after = sample(self.pids.get(target).copied().flatten()?)?;
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
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn this_process_has_cpu_time_and_resident_memory() {
        // Burn a little CPU so the tick counter moves past zero on a fresh process.
        let t0 = Instant::now();
        let mut x = 0u64;
        while t0.elapsed() < std::time::Duration::from_millis(30) {
            x = x.wrapping_mul(31).wrapping_add(7);
        }
        std::hint::black_box(x);
        let s = sample(std::process::id()).unwrap();
        assert!(s.cpu_ns > 0 && s.rss_bytes > 0, "{s:?}");
        assert_eq!(sample(u32::MAX), None);
    }
}

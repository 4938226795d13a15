//! CPU time and resident memory from `/proc` (read with the `procfs` crate): a process tree's
//! (`ab --http`'s servers, `ab`'s two programs) and one CPU's or the whole machine's busy time
//! (`ab`'s check for other programs' work on the CPU its programs share). Linux only;
//! elsewhere, or for a process that is gone, every figure is `None`.

/// A process's CPU time (ns) and resident memory (bytes), with its descendants'.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProcSample {
    /// CPU time, user and system, ns: the process's own (every thread, live or exited), its
    /// children's that it has waited for, and its live descendants'.
    pub cpu_ns: u64,
    /// Resident memory of the process and its live descendants, bytes.
    pub rss_bytes: u64,
}

/// Most processes of a tree read (a server forking per request is not what this measures).
#[cfg(target_os = "linux")]
const MAX_PROCESSES: usize = 256;

/// One clock tick of `/proc`'s CPU times, ns.
#[cfg(target_os = "linux")]
fn tick_ns() -> u64 {
    1_000_000_000 / procfs::ticks_per_second().max(1)
}

/// `(utime + stime + cutime + cstime)` in ticks and resident pages of one process.
#[cfg(target_os = "linux")]
fn ticks_and_pages(pid: u32) -> Option<(u64, u64)> {
    let stat = procfs::process::Process::new(i32::try_from(pid).ok()?).ok()?.stat().ok()?;
    let children = u64::try_from(stat.cutime).unwrap_or(0) + u64::try_from(stat.cstime).unwrap_or(0);
    Some((stat.utime + stat.stime + children, stat.rss))
}

/// `pid` and its live descendants (through each thread's `children`), at most
/// [`MAX_PROCESSES`].
#[cfg(target_os = "linux")]
fn tree(pid: u32) -> Vec<u32> {
    let mut out = vec![pid];
    let mut i = 0;
    while i < out.len() && out.len() < MAX_PROCESSES {
        let tasks = i32::try_from(out[i])
            .ok()
            .and_then(|p| procfs::process::Process::new(p).ok())
            .and_then(|p| p.tasks().ok());
        for task in tasks.into_iter().flatten().flatten() {
            out.extend(task.children().unwrap_or_default());
        }
        i += 1;
    }
    out.truncate(MAX_PROCESSES);
    out
}

/// The CPU time `pid` used so far, ns: its own (every thread) and its children's that it has
/// waited for; `None` once it is reaped or where `/proc` cannot say. A zombie still answers, with
/// its whole time.
#[cfg(target_os = "linux")]
pub fn process_cpu_ns(pid: u32) -> Option<u64> {
    Some(ticks_and_pages(pid)?.0 * tick_ns())
}

/// A process's CPU time (not on Linux: never known).
#[cfg(not(target_os = "linux"))]
pub fn process_cpu_ns(_pid: u32) -> Option<u64> {
    None
}

/// Whether `pid` has exited: reaped, or a zombie (dead, its parent not yet told).
#[cfg(target_os = "linux")]
pub fn has_exited(pid: u32) -> bool {
    let Some(process) = i32::try_from(pid).ok().and_then(|p| procfs::process::Process::new(p).ok()) else {
        return true;
    };
    // A process that exits between the two reads has no stat left: exited too.
    process.stat().map_or(true, |s| matches!(s.state, 'Z' | 'X' | 'x'))
}

/// Whether a process has exited (not on Linux: never known, so never).
#[cfg(not(target_os = "linux"))]
pub fn has_exited(_pid: u32) -> bool {
    false
}

/// What `pid` (and its descendants) used so far; `None` when the process is gone or `/proc`
/// cannot say.
#[cfg(target_os = "linux")]
pub fn process_tree(pid: u32) -> Option<ProcSample> {
    let (mut ticks, mut pages) = ticks_and_pages(pid)?;
    for child in tree(pid).into_iter().skip(1) {
        let (t, p) = ticks_and_pages(child).unwrap_or((0, 0));
        ticks += t;
        pages += p;
    }
    Some(ProcSample {
        cpu_ns: ticks * tick_ns(),
        rss_bytes: pages * procfs::page_size(),
    })
}

/// What `pid` used so far (not on Linux: never known).
#[cfg(not(target_os = "linux"))]
pub fn process_tree(_pid: u32) -> Option<ProcSample> {
    None
}

/// The time CPU `cpu` (every CPU, when `None`) has been busy since boot, ns: running any
/// process, user or system, serving interrupts, or taken by the hypervisor (steal); not idle or
/// waiting for I/O.
#[cfg(target_os = "linux")]
pub fn cpu_busy_ns(cpu: Option<usize>) -> Option<u64> {
    use procfs::CurrentSI;
    let stats = procfs::KernelStats::current().ok()?;
    // `cpu_time` lists the online CPUs in order, so its index is the CPU's number unless a
    // CPU below it is offline; the CPUs a process may be pinned to are online.
    let t = match cpu {
        Some(cpu) => stats.cpu_time.get(cpu)?.clone(),
        None => stats.total,
    };
    // Guest time is already inside user and nice.
    let ticks = t.user + t.nice + t.system + t.irq.unwrap_or(0) + t.softirq.unwrap_or(0) + t.steal.unwrap_or(0);
    Some(ticks * tick_ns())
}

/// CPU busy time (not on Linux: never known).
#[cfg(not(target_os = "linux"))]
pub fn cpu_busy_ns(_cpu: Option<usize>) -> Option<u64> {
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Burns a little CPU so tick counters move past zero.
    fn spin() {
        let t0 = std::time::Instant::now();
        let mut x = 0u64;
        while t0.elapsed() < std::time::Duration::from_millis(30) {
            x = x.wrapping_mul(31).wrapping_add(7);
        }
        std::hint::black_box(x);
    }

    #[test]
    fn this_process_has_cpu_time_and_resident_memory() {
        spin();
        let s = process_tree(std::process::id()).unwrap();
        assert!(s.cpu_ns > 0 && s.rss_bytes > 0, "{s:?}");
        assert!(process_cpu_ns(std::process::id()).is_some_and(|ns| ns > 0));
        assert_eq!(process_tree(u32::MAX), None);
        assert_eq!(process_cpu_ns(u32::MAX), None);
    }

    #[test]
    fn the_machine_and_cpu_0_have_been_busy_and_an_absent_cpu_is_unknown() {
        spin();
        let all = cpu_busy_ns(None).unwrap();
        let first = cpu_busy_ns(Some(0)).unwrap();
        assert!(all >= first && first > 0, "{all} {first}");
        assert_eq!(cpu_busy_ns(Some(100_000)), None);
    }

    #[test]
    #[cfg(target_os = "linux")]
    fn a_zombie_and_a_reaped_process_have_exited_a_live_one_has_not() {
        assert!(!has_exited(std::process::id()));
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let pid = child.id();
        // Not waited for: once it has run, it stays a zombie until `wait`.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        while !has_exited(pid) {
            assert!(std::time::Instant::now() < deadline, "`true` still running after 10 s");
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        let state = procfs::process::Process::new(pid as i32).unwrap().stat().unwrap().state;
        assert_eq!(state, 'Z');
        child.wait().unwrap();
        assert!(has_exited(pid));
    }
}

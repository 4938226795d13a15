//! CPU time and resident memory (from `/proc`, read with the `procfs` crate, and a process's
//! own CPU clock): a process tree's (`ab --http`'s servers, `ab`'s two programs) and one CPU's
//! or the whole machine's busy time (`ab`'s check for other programs' work on the CPU its
//! programs share). Linux only; elsewhere, or for a process that is gone, every figure is
//! `None`.

/// A process's CPU time (ns) and resident memory (bytes), with its descendants'.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProcSample {
    /// CPU time, user and system, ns: the process's own (every thread, live or exited; to the
    /// nanosecond), its children's that it has waited for (in ticks), and its live
    /// descendants'.
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

/// The CPU time (ns) and resident pages of one process: its own time (every thread, live or
/// exited) from its process CPU clock, and its waited-for children's (`cutime + cstime`, in
/// ticks). A zombie, or a kernel refusing the clock, gives its own time in ticks
/// (`utime + stime`).
#[cfg(target_os = "linux")]
fn cpu_ns_and_pages(pid: u32) -> Option<(u64, u64)> {
    let stat = procfs::process::Process::new(i32::try_from(pid).ok()?).ok()?.stat().ok()?;
    let children = u64::try_from(stat.cutime).unwrap_or(0) + u64::try_from(stat.cstime).unwrap_or(0);
    let alive = !matches!(stat.state, 'Z' | 'X' | 'x');
    let own = alive
        .then(|| own_cpu_ns(pid))
        .flatten()
        .unwrap_or((stat.utime + stat.stime) * tick_ns());
    Some((own + children * tick_ns(), stat.rss))
}

/// `pid`'s own CPU time, ns, from its process CPU clock (`clock_getcpuclockid`): the
/// scheduler's exact runtime of the whole thread group. `/proc/PID/stat` gives the same time
/// in clock ticks (10 ms), a tenth of one of `ab --http`'s 0.1 s slices: a server's ~100 ms
/// of CPU in a slice reads as 90, 100 or 110 ms. Linux lets any process read another's clock.
/// Two libc calls by hand: libc is already a dependency, and no crate wraps just these.
#[cfg(target_os = "linux")]
fn own_cpu_ns(pid: u32) -> Option<u64> {
    let mut clock: libc::clockid_t = 0;
    // SAFETY: `clock` is a valid place for the clock id the call writes.
    if unsafe { libc::clock_getcpuclockid(libc::pid_t::try_from(pid).ok()?, &mut clock) } != 0 {
        return None;
    }
    let mut now = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: `now` is a valid timespec for the call to fill.
    if unsafe { libc::clock_gettime(clock, &mut now) } != 0 {
        return None;
    }
    Some(u64::try_from(now.tv_sec).ok()? * 1_000_000_000 + u64::try_from(now.tv_nsec).ok()?)
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
    Some(cpu_ns_and_pages(pid)?.0)
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
    let (mut cpu_ns, mut pages) = cpu_ns_and_pages(pid)?;
    for child in tree(pid).into_iter().skip(1) {
        let (ns, p) = cpu_ns_and_pages(child).unwrap_or((0, 0));
        cpu_ns += ns;
        pages += p;
    }
    Some(ProcSample {
        cpu_ns,
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

    /// This process's CPU time from its own clock, ns.
    fn own_clock_ns() -> u64 {
        let mut now = libc::timespec { tv_sec: 0, tv_nsec: 0 };
        // SAFETY: `now` is a valid timespec for the call to fill.
        assert_eq!(unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut now) }, 0);
        now.tv_sec as u64 * 1_000_000_000 + now.tv_nsec as u64
    }

    /// Waited-for children's CPU time of this process, ns (ticks, as `/proc` gives it).
    fn children_ns() -> u64 {
        let stat = procfs::process::Process::myself().unwrap().stat().unwrap();
        (stat.cutime + stat.cstime) as u64 * tick_ns()
    }

    #[test]
    #[cfg(target_os = "linux")]
    fn a_process_s_own_cpu_time_is_read_to_the_nanosecond_not_in_ticks() {
        spin();
        // Between two reads of this process's own clock, with its waited-for children's ticks
        // (other tests may reap a child meanwhile): a reading in 10 ms ticks falls below.
        let (before, children_before) = (own_clock_ns(), children_ns());
        let read = process_cpu_ns(std::process::id()).unwrap();
        // With live descendants' time too (another test's child may be running): at least.
        let with_descendants = process_tree(std::process::id()).unwrap().cpu_ns;
        let (after, children_after) = (own_clock_ns(), children_ns());
        assert!(
            before + children_before <= read && read <= after + children_after,
            "{before} + {children_before} <= {read} <= {after} + {children_after}"
        );
        assert!(
            before + children_before <= with_descendants,
            "{before} + {children_before} <= {with_descendants}"
        );
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

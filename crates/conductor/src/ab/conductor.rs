//! The conductor of one run of two programs in lockstep (`jsoncost ab`, the allocator runs):
//! starts both programs at once, each told its own Unix socket in `engine::lockstep::ENV`, and
//! hands the turn back and forth so that only one of them works at any moment (the protocol is
//! `engine::lockstep`'s).
//!
//! The rule: the turn is given only when every program still running is waiting for it, so a
//! program that never joins (a build older than the lockstep, a script) runs alone to its end
//! while the other waits at its first ask. Between two that joined, the k-th grant of one is
//! paired with the k-th of the other, in ABBA order (pair 0 base first, pair 1 new first, ...)
//! so neither side always runs right after the other's iteration.
//!
//! Every wait is bounded ([`Limits`]): a side that owes the next step (to join or exit, to ask
//! again after a grant, to exit after leaving) must take it within `timeout`, and a side seen
//! stopped (SIGSTOP, SIGTSTP) for `stopped` fails at once; then both programs are killed and
//! reaped and the side is named. Only the time this process runs counts, so a Ctrl-Z of the
//! whole job does not use up the bound.

use std::io::{BufRead, BufReader, Write};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::process::{Child, ExitStatus};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use jsoncost_engine::cpu_time;
use jsoncost_engine::lockstep::{Ask, Grant};

/// Base is side 0, new side 1.
pub const SIDES: [&str; 2] = ["base", "new"];

/// Which side gets the next turn when both wait, given the grants so far: the side behind,
/// or on a tie, base for even pairs and new for odd ones (`first` swaps that, for the runs
/// that start with new).
pub fn abba_next(granted: [u64; 2], first: usize) -> usize {
    match granted[0].cmp(&granted[1]) {
        std::cmp::Ordering::Less => 0,
        std::cmp::Ordering::Greater => 1,
        std::cmp::Ordering::Equal => ((granted[0] % 2) as usize + first) % 2,
    }
}

enum Event {
    Joined(usize, UnixStream),
    Asked(usize, Ask),
    /// The program closed its socket (or wrote something that is not an ask).
    Left(usize),
}

#[derive(Default)]
struct Member {
    writer: Option<UnixStream>,
    joined: bool,
    left: bool,
    waiting: Option<Ask>,
    status: Option<ExitStatus>,
    granted: u64,
    /// Time this side has owed its next step, since its last one.
    owed: Duration,
    /// Time it has been seen stopped, in a row.
    stopped: Duration,
}

/// How long the conductor waits for a side.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// The longest a side may owe its next step.
    pub timeout: Duration,
    /// The longest a side may be seen stopped.
    pub stopped: Duration,
}

/// Why a run was given up: `side` did not take its step (both programs were killed and
/// reaped).
#[derive(Debug)]
pub enum ConductError {
    /// The conductor's own I/O failed.
    Io(std::io::Error),
    /// A side did not take its step in time.
    Stalled {
        /// 0 base, 1 new.
        side: usize,
        /// What it did not do.
        why: String,
    },
}

impl From<std::io::Error> for ConductError {
    fn from(e: std::io::Error) -> Self {
        ConductError::Io(e)
    }
}

impl ConductError {
    /// The error, the sides called `names` (base's, new's).
    pub fn naming(&self, names: [&str; 2]) -> String {
        match self {
            ConductError::Io(e) => e.to_string(),
            ConductError::Stalled { side, why } => format!("the {} program {why}; both programs were stopped", names[*side]),
        }
    }
}

impl std::fmt::Display for ConductError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.naming(SIDES))
    }
}

impl std::error::Error for ConductError {}

/// Whether the process `pid` is stopped (state T in /proc/PID/stat; t, traced, too).
fn is_stopped(pid: u32) -> bool {
    let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
        return false;
    };
    // "pid (comm) S ...": the state follows the last ')', as comm may hold any character.
    stat.rsplit_once(')')
        .and_then(|(_, rest)| rest.trim_start().chars().next())
        .is_some_and(|state| state == 'T' || state == 't')
}

/// Whether our child `pid` has exited, without reaping it (None where waitid(2) cannot say).
fn has_exited(pid: u32) -> Option<bool> {
    // SAFETY: waitid writes into a zeroed siginfo_t we own; WNOWAIT leaves the child waitable,
    // so the Child that owns it still reaps it.
    unsafe {
        let mut info: libc::siginfo_t = std::mem::zeroed();
        let id = libc::id_t::from(pid);
        if libc::waitid(libc::P_PID, id, &mut info, libc::WEXITED | libc::WNOHANG | libc::WNOWAIT) != 0 {
            return None;
        }
        Some(info.si_pid() != 0)
    }
}

impl Member {
    /// Out of the lockstep: exited, or joined and then left.
    fn out(&self) -> bool {
        self.status.is_some() || (self.joined && self.left)
    }
}

/// Pins the calling thread to every CPU it may use but `cpu`, until dropped (None when it may
/// use no other, or the kernel refuses).
fn keep_off(cpu: usize) -> Option<super::affinity::ThreadPin> {
    let others: Vec<usize> = super::affinity::allowed_cpus().ok()?.into_iter().filter(|&c| c != cpu).collect();
    if others.is_empty() {
        return None;
    }
    super::affinity::ThreadPin::new(&others).ok()
}

/// Other programs' CPU time on the CPU a pair ran on over one run, as a share of the pair's own
/// (`engine::OtherCpu`): the CPU's busy time and each program's CPU time are read when the
/// run starts, each program's again once it has exited and before it is reaped (a zombie gives
/// its whole time), and the CPU's when both have exited. Unpinned (or where the conductor
/// cannot keep off the pair's CPU), less the conductor's own time; unpinned, every CPU's busy
/// time counts.
struct CpuAccount {
    cpu: Option<usize>,
    busy_at_start: Option<u64>,
    conductor_at_start: Option<u64>,
    /// Each program's CPU time (ns) at the start, and at its exit once read.
    sides: [(u64, Option<u64>); 2],
}

impl CpuAccount {
    /// `count_conductor`: the conductor may run on the CPUs read, and its time is subtracted.
    fn start(cpu: Option<usize>, count_conductor: bool, pids: [u32; 2]) -> Self {
        CpuAccount {
            cpu,
            busy_at_start: cpu_time::cpu_busy_ns(cpu),
            conductor_at_start: count_conductor.then(|| cpu_time::process_cpu_ns(std::process::id())).flatten(),
            // A program not yet readable had only just been forked: it starts from zero.
            sides: pids.map(|pid| (cpu_time::process_cpu_ns(pid).unwrap_or(0), None)),
        }
    }

    /// Reads side `side`'s whole time, once it has exited and before it is reaped.
    fn read_exited(&mut self, side: usize, pid: u32) {
        self.sides[side].1 = cpu_time::process_cpu_ns(pid);
    }

    /// The share, once both programs have exited.
    fn finish(&self) -> Option<f64> {
        let busy = cpu_time::cpu_busy_ns(self.cpu)?.checked_sub(self.busy_at_start?)?;
        let conductor = match self.conductor_at_start {
            Some(start) => cpu_time::process_cpu_ns(std::process::id())?.saturating_sub(start),
            None => 0,
        };
        let own = self.sides.map(|(first, last)| last.map(|last| last.saturating_sub(first)));
        other_share(busy, own[0]? + own[1]?, conductor)
    }
}

/// Other programs' share: `busy` less the pair's `own` time and the `conductor`'s, over
/// `own` (`None` when the pair used no measurable time). Ticks are coarse (10 ms), so the
/// difference is clamped at zero.
pub fn other_share(busy_ns: u64, own_ns: u64, conductor_ns: u64) -> Option<f64> {
    (own_ns > 0).then(|| busy_ns.saturating_sub(own_ns).saturating_sub(conductor_ns) as f64 / own_ns as f64)
}

/// What one run of both programs gave.
pub struct Conducted {
    /// How each program exited.
    pub status: [ExitStatus; 2],
    /// Each program joined the lockstep.
    pub joined: [bool; 2],
    /// Every grant in order: side, what it asked, what it was told.
    pub log: Vec<(usize, Ask, Grant)>,
    /// Other programs' CPU time on the pair's CPU over the pair's own (`engine::OtherCpu`),
    /// where `/proc` tells.
    pub other_cpu: Option<f64>,
}

/// Listens for side `side` on `path` (the socket file is removed first, in case).
pub fn listen(path: &Path) -> std::io::Result<UnixListener> {
    let _ = std::fs::remove_file(path);
    UnixListener::bind(path)
}

fn serve(side: usize, listener: UnixListener, events: mpsc::Sender<Event>) {
    let Ok((stream, _)) = listener.accept() else {
        let _ = events.send(Event::Left(side));
        return;
    };
    // One member per side: a later connection (a child process that inherited the variable)
    // is refused at once rather than left waiting for a turn that never comes.
    drop(listener);
    let Ok(writer) = stream.try_clone() else {
        let _ = events.send(Event::Left(side));
        return;
    };
    if events.send(Event::Joined(side, writer)).is_err() {
        return;
    }
    for line in BufReader::new(stream).lines() {
        let Some(ask) = line.ok().as_deref().and_then(Ask::parse) else {
            break;
        };
        if events.send(Event::Asked(side, ask)).is_err() {
            return;
        }
    }
    let _ = events.send(Event::Left(side));
}

/// Conducts `children` (base, new) through their lockstep until both have exited. `rounds` is
/// every interleaved table's round count; `first` the side that leads the first pair; `cpu`
/// the CPU both are pinned to. When one
/// program fails (a non-zero exit), the other is killed: the run is lost anyway.
pub fn conduct(
    mut children: [Child; 2],
    listeners: [(UnixListener, PathBuf); 2],
    rounds: u64,
    first: usize,
    cpu: Option<usize>,
    limits: Limits,
    interrupted: impl Fn() -> bool,
) -> Result<Conducted, ConductError> {
    // The conductor's own threads (this one and the sockets' readers it spawns) keep off the
    // pair's CPU, so that CPU's busy time is the pair's and other programs'. Where no other CPU
    // is allowed, its time is subtracted instead. The pin ends with the run.
    let away = cpu.and_then(keep_off);
    let count_conductor = away.is_none();
    let conducted = conduct_within(&mut children, listeners, rounds, first, (cpu, count_conductor), limits, interrupted);
    drop(away);
    if conducted.is_err() {
        // Given up: neither program may go on alone, nor stay behind unreaped.
        for child in &mut children {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
    conducted
}

fn conduct_within(
    children: &mut [Child; 2],
    listeners: [(UnixListener, PathBuf); 2],
    rounds: u64,
    first: usize,
    (cpu, count_conductor): (Option<usize>, bool),
    limits: Limits,
    interrupted: impl Fn() -> bool,
) -> Result<Conducted, ConductError> {
    let mut account = CpuAccount::start(cpu, count_conductor, children.each_ref().map(Child::id));
    let (tx, rx) = mpsc::channel();
    let mut paths = Vec::new();
    for (side, (listener, path)) in listeners.into_iter().enumerate() {
        let tx = tx.clone();
        std::thread::spawn(move || serve(side, listener, tx));
        paths.push(path);
    }
    drop(tx);
    let mut members: [Member; 2] = Default::default();
    let mut holder: Option<usize> = None;
    let mut log = Vec::new();
    let mut released = false;
    let mut tick = Instant::now();
    loop {
        match rx.recv_timeout(Duration::from_millis(20)) {
            // After its exit a side's "join" is only our own wake-up call to its accept().
            Ok(Event::Joined(side, _)) if members[side].status.is_some() => {}
            Ok(Event::Joined(side, w)) => {
                members[side].writer = Some(w);
                members[side].joined = true;
                members[side].owed = Duration::ZERO;
            }
            Ok(Event::Asked(side, ask)) => {
                members[side].waiting = Some(ask);
                members[side].owed = Duration::ZERO;
                if holder == Some(side) {
                    holder = None;
                }
            }
            Ok(Event::Left(side)) => {
                let m = &mut members[side];
                (m.left, m.waiting, m.writer) = (true, None, None);
                m.owed = Duration::ZERO;
                if holder == Some(side) {
                    holder = None;
                }
            }
            Err(mpsc::RecvTimeoutError::Timeout | mpsc::RecvTimeoutError::Disconnected) => {}
        }
        // At most a second per pass counts, so time this process spent stopped does not.
        let passed = tick.elapsed().min(Duration::from_secs(1));
        tick = Instant::now();
        if !interrupted() {
            check_limits(&mut members, children, limits, passed)?;
        }
        for side in 0..2 {
            if members[side].status.is_some() {
                continue;
            }
            // Reaped only once its time is read: past try_wait() its /proc entry is gone.
            match has_exited(children[side].id()) {
                Some(false) => continue,
                Some(true) => account.read_exited(side, children[side].id()),
                None => {}
            }
            if let Some(status) = children[side].try_wait()? {
                members[side].status = Some(status);
                if holder == Some(side) {
                    holder = None;
                }
                if !members[side].joined {
                    // Wakes the thread still waiting in accept(), so it ends.
                    let _ = UnixStream::connect(&paths[side]);
                }
                if !status.success() && members[1 - side].status.is_none() {
                    let _ = children[1 - side].kill();
                }
            }
        }
        if members.iter().all(|m| m.status.is_some()) {
            break;
        }
        if interrupted() {
            if !released {
                // Passes the signal on (a terminal sends it to the group anyway) and lets go of
                // both programs: a closed socket ends their lockstep, so one waiting for its
                // turn goes on alone, sees the signal and stops. Their codes are then reported.
                released = true;
                for (child, m) in children.iter().zip(&mut members) {
                    if m.status.is_none() {
                        // SAFETY: kill(2) on our own child's pid, which it still is (not reaped).
                        unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGINT) };
                    }
                    if let Some(w) = m.writer.take() {
                        let _ = w.shutdown(std::net::Shutdown::Both);
                    }
                }
            }
            continue;
        }
        let waiting = |m: &Member| m.waiting.is_some() && m.status.is_none();
        if holder.is_none() && members.iter().all(|m| waiting(m) || m.out()) && members.iter().any(waiting) {
            let mut side = abba_next([members[0].granted, members[1].granted], first);
            if !waiting(&members[side]) {
                side = 1 - side;
            }
            let m = &mut members[side];
            let ask = m.waiting.take().expect("a waiting member");
            let grant = match ask {
                Ask::Round(k) if k >= rounds => Grant::End,
                _ => Grant::Go,
            };
            let sent = m.writer.as_mut().is_some_and(|w| w.write_all(grant.line().as_bytes()).is_ok());
            if sent {
                m.granted += 1;
                m.owed = Duration::ZERO;
                holder = Some(side);
                log.push((side, ask, grant));
            } else {
                (m.left, m.writer) = (true, None);
            }
        }
    }
    for p in &paths {
        let _ = std::fs::remove_file(p);
    }
    Ok(Conducted {
        status: members.each_ref().map(|m| m.status.expect("both exited")),
        joined: members.each_ref().map(|m| m.joined),
        log,
        other_cpu: account.finish(),
    })
}

/// Adds `passed` to what each running side owes (it is not waiting for a turn: it must join,
/// ask or exit) and fails the side that owes more than the limits allow.
fn check_limits(members: &mut [Member; 2], children: &[Child; 2], limits: Limits, passed: Duration) -> Result<(), ConductError> {
    for side in 0..2 {
        let m = &mut members[side];
        if m.status.is_some() || m.waiting.is_some() {
            m.owed = Duration::ZERO;
            m.stopped = Duration::ZERO;
            continue;
        }
        m.owed += passed;
        m.stopped = if is_stopped(children[side].id()) {
            m.stopped + passed
        } else {
            Duration::ZERO
        };
        let secs = |d: Duration| d.as_secs_f64();
        if m.stopped >= limits.stopped {
            return Err(ConductError::Stalled {
                side,
                why: format!("was stopped (SIGSTOP or SIGTSTP) for {} s", secs(limits.stopped)),
            });
        }
        if m.owed >= limits.timeout {
            let why = if !m.joined {
                format!(
                    "neither joined the lockstep nor exited within {} s (--timeout)",
                    secs(limits.timeout)
                )
            } else if m.left {
                format!("left the lockstep and did not exit within {} s (--timeout)", secs(limits.timeout))
            } else {
                format!(
                    "held its turn for {} s without asking for the next (--timeout)",
                    secs(limits.timeout)
                )
            };
            return Err(ConductError::Stalled { side, why });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn turns_alternate_abba_and_the_side_behind_goes_next() {
        let mut granted = [0u64; 2];
        let order: String = (0..8)
            .map(|_| {
                let s = abba_next(granted, 0);
                granted[s] += 1;
                ['A', 'B'][s]
            })
            .collect();
        assert_eq!(order, "ABBAABBA");
        assert_eq!(abba_next([0, 0], 1), 1);
        assert_eq!(abba_next([5, 3], 0), 1);
    }

    #[test]
    fn the_conductor_keeps_off_the_pairs_cpu_while_it_runs_and_gets_its_cpus_back() {
        // A thread of its own: affinity is per thread, and the other tests' stay as they are.
        std::thread::spawn(|| {
            let allowed = crate::ab::affinity::allowed_cpus().unwrap();
            let pair = *allowed.last().unwrap();
            let away = keep_off(pair);
            if allowed.len() == 1 {
                assert!(away.is_none(), "no other CPU to go to");
                return;
            }
            let during = crate::ab::affinity::allowed_cpus().unwrap();
            let expected: Vec<usize> = allowed.iter().copied().filter(|&c| c != pair).collect();
            assert_eq!(during, expected);
            drop(away);
            assert_eq!(crate::ab::affinity::allowed_cpus().unwrap(), allowed);
        })
        .join()
        .unwrap();
    }

    #[test]
    fn other_programs_share_is_the_cpus_busy_time_less_the_pairs_and_the_conductors() {
        assert_eq!(other_share(7_000, 6_930, 0), Some(70.0 / 6_930.0));
        assert_eq!(other_share(11_610, 7_730, 0), Some(3_880.0 / 7_730.0));
        assert_eq!(other_share(11_610, 7_730, 80), Some(3_800.0 / 7_730.0));
        // Coarse ticks may put the pair's own time above the CPU's: no other work, not less.
        assert_eq!(other_share(6_900, 6_930, 0), Some(0.0));
        assert_eq!(other_share(100, 0, 0), None);
    }

    /// Taken by the tests that spawn processes and the one that needs a dropped listener to
    /// refuse at once: a process forked meanwhile holds a copy of every open socket until it
    /// execs, so the refusal test, run beside a spawning one, saw its connection accepted.
    static NO_FORK_BESIDE: std::sync::Mutex<()> = std::sync::Mutex::new(());

    #[test]
    fn a_side_that_holds_its_turn_past_the_timeout_is_named_and_both_are_killed() {
        let _serial = NO_FORK_BESIDE.lock().unwrap_or_else(|e| e.into_inner());
        let dir = tempfile::tempdir().unwrap();
        let sleeper = || std::process::Command::new("sleep").arg("1000").spawn().unwrap();
        let children = [sleeper(), sleeper()];
        let pids = children.each_ref().map(|c| c.id() as libc::pid_t);
        let mut listeners = Vec::new();
        let mut members = Vec::new();
        for side in SIDES {
            let path = dir.path().join(format!("{side}.sock"));
            listeners.push((listen(&path).unwrap(), path.clone()));
            // Both join and ask; base, granted first, never asks again.
            let mut m = UnixStream::connect(&path).unwrap();
            m.write_all(Ask::Turn.line().as_bytes()).unwrap();
            members.push(m);
        }
        let limits = Limits {
            timeout: Duration::from_secs(1),
            stopped: Duration::from_secs(5),
        };
        let listeners: [(UnixListener, PathBuf); 2] = listeners.try_into().unwrap();
        let e = conduct(children, listeners, 10, 0, None, limits, || false).err().expect("given up");
        assert_eq!(
            e.to_string(),
            "the base program held its turn for 1 s without asking for the next (--timeout); both programs were stopped"
        );
        // Killed and reaped: the pids no longer exist.
        for pid in pids {
            // SAFETY: signal 0 only checks the pid.
            assert_ne!(unsafe { libc::kill(pid, 0) }, 0, "{pid} still exists");
        }
        drop(members);
    }

    #[test]
    fn a_side_takes_one_member_and_a_later_connection_is_refused() {
        let _serial = NO_FORK_BESIDE.lock().unwrap_or_else(|e| e.into_inner());
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("b.sock");
        let listener = listen(&path).unwrap();
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || serve(0, listener, tx));
        let mut first = UnixStream::connect(&path).unwrap();
        assert!(matches!(rx.recv_timeout(Duration::from_secs(10)), Ok(Event::Joined(0, _))));
        first.write_all(Ask::Round(2).line().as_bytes()).unwrap();
        assert!(matches!(
            rx.recv_timeout(Duration::from_secs(10)),
            Ok(Event::Asked(0, Ask::Round(2)))
        ));
        let e = UnixStream::connect(&path).unwrap_err();
        assert_eq!(e.kind(), std::io::ErrorKind::ConnectionRefused, "{e}");
        drop(first);
        assert!(matches!(rx.recv_timeout(Duration::from_secs(10)), Ok(Event::Left(0))));
    }
}

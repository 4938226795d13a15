//! Ctrl-C, SIGTERM and SIGHUP. The first asks experiments to stop after the current strategy,
//! so what was measured is still printed and written (or `serve` to stop), and makes every wait
//! for input give up (`files::stop_waiting_when`). A second one stops at once: the table being
//! measured is dropped, the finished ones are written first (the [`keep`] snapshot, to the
//! same files the normal end writes), then the process exits 130.
//!
//! The handler only writes the signal's number to a pipe (async-signal-safe); a thread reads it
//! and does the rest. Written here rather than with the `ctrlc` crate because that crate does
//! not say which signal came, and the messages name it.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

use jsoncost_engine::Results;

static INTERRUPTED: AtomicBool = AtomicBool::new(false);
/// The first signal that came (0: none).
static FIRST: AtomicI32 = AtomicI32::new(0);
/// The pipe's write end, for the handler.
static PIPE: AtomicI32 = AtomicI32::new(-1);
/// What a second signal writes before it exits: `None` when nothing is measured yet or the
/// command is writing its results itself (then holding the lock, see [`finishing`]).
static PENDING: Mutex<Option<Pending>> = Mutex::new(None);

/// The exit status of a process stopped by a signal: 128 + SIGINT, as shells report Ctrl-C
/// (`failure::ExitCode::Interrupted` is this number).
pub const EXIT_STATUS: i32 = 130;

/// The signals handled.
const SIGNALS: [libc::c_int; 3] = [libc::SIGINT, libc::SIGTERM, libc::SIGHUP];

/// What the command does when interrupted, for the line it prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OnInterrupt {
    /// Finish the current strategy, then print and write what was measured.
    WriteMeasured,
    /// Stop serving (nothing is measured, nothing is written).
    StopServing,
    /// Stop reading and rendering (`compare`, `report`: nothing is measured).
    Stop,
}

/// The finished tables and where the command's end would write them.
#[derive(Debug, Clone)]
pub struct Pending {
    pub results: Results,
    /// results.json (`--out`).
    pub out: Option<PathBuf>,
    /// `run`'s directory: report.md and report.html.
    pub reports: Option<PathBuf>,
    /// `run --save-baseline`'s file.
    pub baseline: Option<PathBuf>,
}

impl Pending {
    /// Writes the files the command's normal end would, marked interrupted; errors are said,
    /// not returned (the process is exiting). Not stdout: the command may hold it, blocked on
    /// a full pipe, and waiting for it would keep the process alive.
    fn write(mut self) {
        self.results.interrupted = true;
        let written = |what: &str, r: Result<(), jsoncost::Error>| match r {
            Ok(()) => eprintln!("{what}"),
            Err(e) => eprintln!("error: {e}"),
        };
        for path in [&self.out, &self.baseline].into_iter().flatten() {
            let r = jsoncost_report::files::write_results(path, &self.results)
                .map_err(|e| jsoncost::Error::environment(format!("writing {}: {e}", path.display())));
            written(&format!("results written to {}", path.display()), r);
        }
        if let Some(dir) = &self.reports {
            written(
                &format!("reports written to {}", dir.display()),
                jsoncost::output::write_reports_of(&self.results, dir),
            );
        }
    }
}

/// A signal's name as the user knows it.
pub fn signal_name(signal: libc::c_int) -> &'static str {
    match signal {
        libc::SIGINT => "Ctrl-C",
        libc::SIGTERM => "SIGTERM",
        libc::SIGHUP => "SIGHUP",
        _ => "a signal",
    }
}

extern "C" fn on_signal(signal: libc::c_int) {
    let byte = signal as u8;
    // SAFETY: write(2) is async-signal-safe; the descriptor is the pipe's, never closed.
    unsafe { libc::write(PIPE.load(Ordering::Relaxed), (&byte as *const u8).cast(), 1) };
}

pub fn install(on: OnInterrupt) {
    jsoncost_report::files::stop_waiting_when(interrupted);
    let mut fds = [0 as libc::c_int; 2];
    // SAFETY: pipe2 fills `fds`; both ends stay open for the life of the process.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        eprintln!("warning: no signal handling: {}", std::io::Error::last_os_error());
        return;
    }
    PIPE.store(fds[1], Ordering::Relaxed);
    let reader = fds[0];
    // A thread that cannot be spawned (an address-space or thread limit) leaves the default
    // dispositions, said once, rather than a panic before anything is measured.
    let spawned = std::thread::Builder::new().name("signals".into()).spawn(move || {
        loop {
            let mut byte = 0u8;
            // SAFETY: reads one byte into `byte` from the pipe's read end.
            let n = unsafe { libc::read(reader, (&mut byte as *mut u8).cast(), 1) };
            if n == 1 {
                on_received(on, byte as libc::c_int);
            } else if n < 0 && std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted {
                continue;
            } else {
                return;
            }
        }
    });
    if let Err(e) = spawned {
        eprintln!("warning: no signal handling: {e}");
        return;
    }
    for signal in SIGNALS {
        // SAFETY: a zeroed sigaction with an empty mask and our handler, which only writes to
        // the pipe; SA_RESTART so the rest of the program's system calls carry on.
        unsafe {
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = on_signal as extern "C" fn(libc::c_int) as libc::sighandler_t;
            action.sa_flags = libc::SA_RESTART;
            libc::sigemptyset(&mut action.sa_mask);
            libc::sigaction(signal, &action, std::ptr::null_mut());
        }
    }
}

fn on_received(on: OnInterrupt, signal: libc::c_int) {
    if FIRST.compare_exchange(0, signal, Ordering::SeqCst, Ordering::SeqCst).is_ok() {
        INTERRUPTED.store(true, Ordering::SeqCst);
        let name = signal_name(signal);
        let again = if signal == libc::SIGINT { "Ctrl-C again" } else { "another signal" };
        match on {
            OnInterrupt::WriteMeasured => eprintln!(
                "\ninterrupted: finishing the current strategy, then writing what was measured (got {name}; {again} stops now, keeping the finished tables)"
            ),
            OnInterrupt::StopServing => eprintln!("\ninterrupted: stopping the server (got {name}; {again} exits now)"),
            OnInterrupt::Stop => eprintln!("\ninterrupted: stopping (got {name}; {again} exits now)"),
        }
        return;
    }
    eprintln!("\n{}: stopping now", signal_name(signal));
    // The command may be writing its own results (it holds the lock): wait for that, bounded,
    // so a write stuck on a full pipe cannot keep the process alive.
    let deadline = Instant::now() + Duration::from_secs(10);
    let pending = loop {
        match PENDING.try_lock() {
            Ok(mut guard) => break guard.take(),
            Err(std::sync::TryLockError::Poisoned(p)) => break p.into_inner().take(),
            Err(std::sync::TryLockError::WouldBlock) if Instant::now() < deadline => {
                std::thread::sleep(Duration::from_millis(10));
            }
            Err(std::sync::TryLockError::WouldBlock) => break None,
        }
    };
    if let Some(pending) = pending {
        pending.write();
    }
    // `ab --http`'s servers live in process groups of their own: exiting leaves them running.
    jsoncost_conductor::ab_http::kill_started_servers();
    std::process::exit(EXIT_STATUS);
}

/// Keeps `pending` as what a second signal writes (after each finished table), and its
/// results.json as what an abort writes ([`crate::abort`]).
pub fn keep(pending: Pending) {
    let outs: Vec<&std::path::Path> = [&pending.out, &pending.baseline]
        .into_iter()
        .flatten()
        .map(|p| p.as_path())
        .collect();
    crate::abort::keep(&pending.results, &outs);
    *PENDING.lock().unwrap_or_else(|p| p.into_inner()) = Some(pending);
}

/// Held while the command writes its results itself: a second signal then waits for the
/// writes (they would otherwise be cut off, leaving no results.json) and writes nothing more.
pub fn finishing() -> MutexGuard<'static, Option<Pending>> {
    let mut guard = PENDING.lock().unwrap_or_else(|p| p.into_inner());
    *guard = None;
    crate::abort::clear();
    guard
}

pub fn interrupted() -> bool {
    INTERRUPTED.load(Ordering::SeqCst)
}

/// The name of the first signal that came ("a signal" when none has).
pub fn first_signal_name() -> &'static str {
    signal_name(FIRST.load(Ordering::SeqCst))
}

//! The finished tables written when the process aborts, crashes or panics: an allocation that
//! fails makes Rust print "memory allocation of N bytes failed" and abort (SIGABRT), a fault
//! ends it by SIGSEGV or SIGBUS, a panic on the main thread (a bug, a thread that could not be
//! spawned) unwinds out of `main`; each would lose every table measured so far. After each
//! finished table, [`keep`] serializes results.json (marked interrupted) ahead of time, with a
//! checksum; the handlers and the panic hook then write those bytes with system calls only
//! (nothing can be allocated by then): to a new file beside each destination, renamed over it,
//! as a normal write does, and only if the checksum still holds (a fault may follow a wild
//! write). Only files that are replaced (a regular file or a new path) are written so; a device
//! or a FIFO is not. The process then ends as it would have: SIGABRT and SIGSEGV go on to the
//! previous disposition (Rust's own handler tells a stack overflow apart), a panic unwinds.
//!
//! Not kept: SIGKILL (the kernel's OOM killer) cannot be caught; a fault on a thread without an
//! alternate signal stack that overflowed its stack dies before any handler runs; a panic on
//! another thread ends that thread only and is the main thread's to report.

use std::ffi::CString;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::ptr;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicPtr, Ordering};

use jsoncost_engine::Results;
use jsoncost_report::files::{self, Destination};

/// What the handler writes: the bytes, each (temporary file, destination) pair, the
/// destinations' names for the note, and the checksum of all three.
struct Snapshot {
    bytes: Vec<u8>,
    files: Vec<(CString, CString)>,
    names: Vec<u8>,
    sum: u64,
}

impl Snapshot {
    /// FNV-1a over the bytes, the file names and the note's names: pure arithmetic, so the
    /// handlers can check it.
    fn checksum(&self) -> u64 {
        let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
        let mut add = |bytes: &[u8]| {
            for &b in bytes {
                hash = (hash ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
            }
        };
        add(&self.bytes);
        for (tmp, target) in &self.files {
            add(tmp.as_bytes());
            add(target.as_bytes());
        }
        add(&self.names);
        hash
    }
}

/// What ended the process, for the note on stderr.
#[derive(Clone, Copy)]
enum Cause {
    Abort,
    Segv,
    Bus,
    Panic,
}

impl Cause {
    fn words(self) -> &'static [u8] {
        match self {
            Cause::Abort => b"jsoncost aborted (out of memory?)",
            Cause::Segv => b"jsoncost crashed (SIGSEGV)",
            Cause::Bus => b"jsoncost crashed (SIGBUS)",
            Cause::Panic => b"jsoncost panicked",
        }
    }
}

/// The current snapshot, owned by whoever swaps it out (the handler takes it with a swap, so a
/// snapshot is never freed while the handler reads it).
static SNAPSHOT: AtomicPtr<Snapshot> = AtomicPtr::new(ptr::null_mut());

/// The dispositions SIGSEGV and SIGBUS had before [`install`] (Rust's stack overflow handler).
static PREVIOUS_SEGV: OnceLock<libc::sigaction> = OnceLock::new();
static PREVIOUS_BUS: OnceLock<libc::sigaction> = OnceLock::new();

/// Installs the handlers of SIGABRT, SIGSEGV and SIGBUS, and the panic hook.
pub fn install() {
    // SAFETY: zeroed sigactions with an empty mask and our handlers, which only make system
    // calls on memory prepared beforehand. SIGABRT's: SA_RESETHAND, so the abort that follows
    // its return ends the process as it would have. The faults': on the alternate stack Rust
    // gives each thread (a stack overflow is a fault too), the previous action kept to chain.
    unsafe {
        let mut action: libc::sigaction = std::mem::zeroed();
        action.sa_sigaction = on_abort as extern "C" fn(libc::c_int) as libc::sighandler_t;
        action.sa_flags = libc::SA_RESETHAND;
        libc::sigemptyset(&mut action.sa_mask);
        libc::sigaction(libc::SIGABRT, &action, ptr::null_mut());
        for (signal, previous) in [(libc::SIGSEGV, &PREVIOUS_SEGV), (libc::SIGBUS, &PREVIOUS_BUS)] {
            let mut old: libc::sigaction = std::mem::zeroed();
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = on_fault as extern "C" fn(libc::c_int, *mut libc::siginfo_t, *mut libc::c_void) as libc::sighandler_t;
            action.sa_flags = libc::SA_SIGINFO | libc::SA_ONSTACK;
            libc::sigemptyset(&mut action.sa_mask);
            if libc::sigaction(signal, &action, &mut old) == 0 {
                let _ = previous.set(old);
            }
        }
    }
    // A panic that unwinds out of the main thread ends the process (101): write before the
    // unwinding, whose destructors may block. Another thread's panic is the main thread's to
    // handle (a join, a channel) and ends nothing by itself: the hook stays out of it.
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        previous(info);
        if std::thread::current().name() == Some("main") {
            write_kept(Cause::Panic);
        }
    }));
}

/// Prepares `results` (marked interrupted) as what an abort writes to `outs`.
pub fn keep(results: &Results, outs: &[&Path]) {
    let mut files = Vec::new();
    let mut names = Vec::new();
    for out in outs {
        let Ok(Destination::Replace(target)) = files::destination(out) else {
            continue;
        };
        let tmp = target.with_file_name(format!(
            ".{}.jsoncost-abort-{}.tmp",
            target.file_name().map(|n| n.to_string_lossy()).unwrap_or_default(),
            std::process::id()
        ));
        if let (Ok(tmp), Ok(target)) = (
            CString::new(tmp.as_os_str().as_bytes()),
            CString::new(target.as_os_str().as_bytes()),
        ) {
            files.push((tmp, target));
            names.push(out.display().to_string());
        }
    }
    if files.is_empty() {
        return clear();
    }
    let mut results = results.clone();
    results.interrupted = true;
    let mut snapshot = Box::new(Snapshot {
        bytes: files::results_json(&results).into_bytes(),
        files,
        names: names.join(", ").into_bytes(),
        sum: 0,
    });
    snapshot.sum = snapshot.checksum();
    replace(Box::into_raw(snapshot));
}

/// Nothing to write on an abort (the command writes its results itself from here).
pub fn clear() {
    replace(ptr::null_mut());
}

fn replace(new: *mut Snapshot) {
    let old = SNAPSHOT.swap(new, Ordering::SeqCst);
    if !old.is_null() {
        // SAFETY: `old` came from Box::into_raw and, swapped out, is no one else's.
        drop(unsafe { Box::from_raw(old) });
    }
}

/// Writes the kept snapshot, if any, once: it is swapped out, so a second cause (a panic, then
/// the abort of a panic while unwinding) finds nothing.
fn write_kept(cause: Cause) {
    let snapshot = SNAPSHOT.swap(ptr::null_mut(), Ordering::SeqCst);
    if !snapshot.is_null() {
        // SAFETY: see `write_snapshot`; the snapshot is leaked (the process is ending, and
        // freeing may not be possible from a handler).
        unsafe { write_snapshot(&*snapshot, cause) };
    }
}

extern "C" fn on_abort(_signal: libc::c_int) {
    write_kept(Cause::Abort);
    // The disposition is the default again (SA_RESETHAND) and SIGABRT is blocked until this
    // returns: raised now, it ends the process then, whether it came from abort(3) (which
    // would raise it again anyway) or from another process.
    // SAFETY: raise(3) is async-signal-safe.
    unsafe { libc::raise(libc::SIGABRT) };
}

extern "C" fn on_fault(signal: libc::c_int, info: *mut libc::siginfo_t, context: *mut libc::c_void) {
    write_kept(if signal == libc::SIGBUS { Cause::Bus } else { Cause::Segv });
    let previous = if signal == libc::SIGBUS {
        PREVIOUS_BUS.get()
    } else {
        PREVIOUS_SEGV.get()
    };
    // SAFETY: the previous action as sigaction(2) returned it, called as its flags say; then
    // sigaction(2) and raise(3), async-signal-safe.
    unsafe {
        if let Some(previous) = previous
            && previous.sa_sigaction != libc::SIG_DFL
            && previous.sa_sigaction != libc::SIG_IGN
        {
            // Rust's handler aborts on a stack overflow (with its message) and otherwise puts
            // the default back and returns.
            if previous.sa_flags & libc::SA_SIGINFO != 0 {
                let handler: extern "C" fn(libc::c_int, *mut libc::siginfo_t, *mut libc::c_void) =
                    std::mem::transmute(previous.sa_sigaction);
                handler(signal, info, context);
            } else {
                let handler: extern "C" fn(libc::c_int) = std::mem::transmute(previous.sa_sigaction);
                handler(signal);
            }
        }
        // The default ends the process: a fault recurs when this returns, and a signal another
        // process sent is raised again (blocked until then).
        let mut default: libc::sigaction = std::mem::zeroed();
        default.sa_sigaction = libc::SIG_DFL;
        libc::sigemptyset(&mut default.sa_mask);
        libc::sigaction(signal, &default, ptr::null_mut());
        libc::raise(signal);
    }
}

/// Writes `s`'s bytes to each of its files, if its checksum holds, and says so on stderr.
///
/// # Safety
/// Called from a signal handler or the panic hook with the snapshot it swapped out (no one
/// else's): only arithmetic and system calls follow (open, write, fsync, close, rename,
/// unlink: async-signal-safe), on its prepared bytes and names.
unsafe fn write_snapshot(s: &Snapshot, cause: Cause) {
    if s.checksum() != s.sum {
        return;
    }
    // SAFETY: as the function's contract says.
    unsafe {
        let mut any = false;
        for (tmp, target) in &s.files {
            let fd = libc::open(
                tmp.as_ptr(),
                libc::O_WRONLY | libc::O_CREAT | libc::O_EXCL | libc::O_NOFOLLOW | libc::O_CLOEXEC,
                0o644,
            );
            if fd < 0 {
                continue;
            }
            let mut done = 0;
            // Bounded: each round writes at least a byte or stops.
            while done < s.bytes.len() {
                let n = libc::write(fd, s.bytes[done..].as_ptr().cast(), s.bytes.len() - done);
                if n <= 0 {
                    break;
                }
                done += n as usize;
            }
            let complete = done == s.bytes.len() && libc::fsync(fd) == 0;
            libc::close(fd);
            if complete && libc::rename(tmp.as_ptr(), target.as_ptr()) == 0 {
                any = true;
            } else {
                libc::unlink(tmp.as_ptr());
            }
        }
        if any {
            for part in [cause.words(), b": the finished tables were written to ", &s.names, b"\n"] {
                libc::write(2, part.as_ptr().cast(), part.len());
            }
        }
    }
}

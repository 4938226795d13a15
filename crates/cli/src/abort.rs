//! The finished tables written when the process aborts: an allocation that fails makes Rust
//! print "memory allocation of N bytes failed" and abort (SIGABRT), which would lose every
//! table measured so far. After each finished table, [`keep`] serializes results.json (marked
//! interrupted) ahead of time; SIGABRT's handler then writes those bytes with system calls
//! only (nothing can be allocated by then): to a new file beside each destination, renamed
//! over it, as a normal write does. Only files that are replaced (a regular file or a new
//! path) are written so; a device or a FIFO is not. The handler returns and the abort goes on.

use std::ffi::CString;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::ptr;
use std::sync::atomic::{AtomicPtr, Ordering};

use jsoncost_engine::Results;
use jsoncost_report::files::{self, Destination};

/// What the handler writes: the bytes, and each (temporary file, destination) pair.
struct Snapshot {
    bytes: Vec<u8>,
    files: Vec<(CString, CString)>,
    note: Vec<u8>,
}

/// The current snapshot, owned by whoever swaps it out (the handler takes it with a swap, so a
/// snapshot is never freed while the handler reads it).
static SNAPSHOT: AtomicPtr<Snapshot> = AtomicPtr::new(ptr::null_mut());

/// Installs SIGABRT's handler.
pub fn install() {
    // SAFETY: a zeroed sigaction with an empty mask and our handler, which only makes system
    // calls on memory prepared beforehand; SA_RESETHAND, so the abort that follows its return
    // ends the process as it would have.
    unsafe {
        let mut action: libc::sigaction = std::mem::zeroed();
        action.sa_sigaction = on_abort as extern "C" fn(libc::c_int) as libc::sighandler_t;
        action.sa_flags = libc::SA_RESETHAND;
        libc::sigemptyset(&mut action.sa_mask);
        libc::sigaction(libc::SIGABRT, &action, ptr::null_mut());
    }
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
    let snapshot = Box::new(Snapshot {
        bytes: files::results_json(&results).into_bytes(),
        files,
        note: format!(
            "jsoncost aborted (out of memory?): the finished tables were written to {}\n",
            names.join(", ")
        )
        .into_bytes(),
    });
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

extern "C" fn on_abort(_signal: libc::c_int) {
    let snapshot = SNAPSHOT.swap(ptr::null_mut(), Ordering::SeqCst);
    if !snapshot.is_null() {
        // SAFETY: see `write_snapshot`.
        unsafe { write_snapshot(&*snapshot) };
    }
    // The disposition is the default again (SA_RESETHAND) and SIGABRT is blocked until this
    // returns: raised now, it ends the process then, whether it came from abort(3) (which
    // would raise it again anyway) or from another process.
    // SAFETY: raise(3) is async-signal-safe.
    unsafe { libc::raise(libc::SIGABRT) };
}

/// Writes `s`'s bytes to each of its files.
///
/// # Safety
/// Called from the signal handler with the snapshot it swapped out (no one else's): only
/// system calls follow (open, write, fsync, close, rename, unlink: async-signal-safe), on
/// its prepared bytes and names.
unsafe fn write_snapshot(s: &Snapshot) {
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
            libc::write(2, s.note.as_ptr().cast(), s.note.len());
        }
    }
}

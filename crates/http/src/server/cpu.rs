//! CPU time of the server runtime's threads. Each thread registers its CPU clock when it starts
//! and hands in its final reading when it stops, so the total covers threads that came and went
//! (tokio's blocking pool) and never includes the load generator's threads.

use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

#[derive(Default)]
pub struct ThreadCpu {
    /// (thread id, that thread's CPU-time clock). A clock is only read while its thread is
    /// registered, and a thread unregisters itself before it exits.
    live: Mutex<Vec<(u64, libc::clockid_t)>>,
    retired_ns: AtomicU64,
}

fn current_thread_key() -> u64 {
    // SAFETY: pthread_self has no preconditions.
    unsafe { libc::pthread_self() as u64 }
}

fn clock_ns(clock: libc::clockid_t) -> Option<u64> {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: `ts` is a valid out-pointer; an invalid clock id only yields an error code.
    let rc = unsafe { libc::clock_gettime(clock, &mut ts) };
    (rc == 0).then(|| ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64)
}

impl ThreadCpu {
    /// Called on each server thread as it starts.
    pub fn register_current(&self) {
        let mut clock: libc::clockid_t = 0;
        // SAFETY: pthread_self is the calling (live) thread; `clock` is a valid out-pointer.
        let rc = unsafe { libc::pthread_getcpuclockid(libc::pthread_self(), &mut clock) };
        if rc == 0 {
            self.live
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .push((current_thread_key(), clock));
        }
    }

    /// Called on each server thread as it stops: keeps its CPU time after it is gone.
    pub fn retire_current(&self) {
        let key = current_thread_key();
        let mut live = self.live.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(pos) = live.iter().position(|(k, _)| *k == key) {
            let (_, clock) = live.swap_remove(pos);
            if let Some(ns) = clock_ns(clock) {
                self.retired_ns.fetch_add(ns, Relaxed);
            }
        }
    }

    /// Total CPU nanoseconds used so far by every server thread, or `None` if no thread clock
    /// could be read (then the platform does not support per-thread CPU clocks).
    pub fn total_ns(&self) -> Option<u64> {
        let live = self.live.lock().unwrap_or_else(|e| e.into_inner());
        let retired = self.retired_ns.load(Relaxed);
        if live.is_empty() && retired == 0 {
            return None;
        }
        Some(retired + live.iter().filter_map(|(_, clock)| clock_ns(*clock)).sum::<u64>())
    }
}

//! Fitting the system allocator to an address-space limit (`ulimit -v`, `prlimit --as`): glibc
//! gives threads up to 8 arenas per core, each reserving 64 MiB of address space whatever it
//! holds, so the http experiment's server threads on 2 cores reserved a whole GiB with ~50 MB
//! resident and the next allocation failed. Under a limit, fewer arenas (threads share them)
//! leave the address space to what is used; without one, nothing changes.

/// What one glibc arena reserves on 64-bit (`HEAP_MAX_SIZE`: twice the mmap threshold's max).
const ARENA_BYTES: u64 = 64 << 20;

/// Caps glibc's arenas at a quarter of the address-space limit, if there is one that the
/// default would exceed, and says so. Call before any thread starts.
pub fn fit_allocator() {
    let mut rl = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
    // SAFETY: getrlimit writes the struct it is given.
    if unsafe { libc::getrlimit(libc::RLIMIT_AS, &mut rl) } != 0 || rl.rlim_cur == libc::RLIM_INFINITY {
        return;
    }
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get() as u64);
    let default = 8 * cores;
    let arenas = (rl.rlim_cur / 4 / ARENA_BYTES).clamp(1, default);
    if arenas == default {
        return;
    }
    // SAFETY: mallopt sets a tunable of the allocator; no thread but this one exists yet.
    if unsafe { libc::mallopt(libc::M_ARENA_MAX, arenas as libc::c_int) } == 1 {
        eprintln!(
            "note: address space limited to {} (ulimit -v): the system allocator keeps at most {arenas} arena{} (64 MiB of address space each)",
            size(rl.rlim_cur),
            if arenas == 1 { "" } else { "s" }
        );
    }
}

fn size(bytes: u64) -> String {
    if bytes >= 1 << 30 {
        format!("{:.1} GiB", bytes as f64 / (1u64 << 30) as f64)
    } else {
        format!("{} MiB", bytes >> 20)
    }
}

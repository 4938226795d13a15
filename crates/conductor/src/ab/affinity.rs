//! Pinning the calling thread: `ab`'s conductor keeps off the CPU its programs share, and
//! `ab --http`'s load generator off its servers' CPUs.

/// A CPU set of `cpus` (those beyond `CPU_SETSIZE` left out: the kernel has none).
pub fn set_of(cpus: &[usize]) -> libc::cpu_set_t {
    // SAFETY: a zeroed cpu_set_t is a valid empty set; CPU_SET writes inside it for a CPU
    // below CPU_SETSIZE.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    for &c in cpus.iter().filter(|&&c| c < libc::CPU_SETSIZE as usize) {
        unsafe { libc::CPU_SET(c, &mut set) };
    }
    set
}

/// Pins the calling thread (`0`: the caller) to `cpus`.
pub fn pin_current(set: &libc::cpu_set_t) -> std::io::Result<()> {
    // SAFETY: a valid set of its own size; pid 0 is the calling thread.
    if unsafe { libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), set) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

/// The calling thread pinned to some CPUs until dropped, then given back the CPUs it had.
pub struct ThreadPin {
    before: Option<libc::cpu_set_t>,
}

impl ThreadPin {
    /// Pins the calling thread to `cpus`; an error when the kernel refuses.
    pub fn new(cpus: &[usize]) -> std::io::Result<ThreadPin> {
        let before = current_set().ok();
        pin_current(&set_of(cpus))?;
        Ok(ThreadPin { before })
    }
}

impl Drop for ThreadPin {
    fn drop(&mut self) {
        if let Some(before) = &self.before {
            let _ = pin_current(before);
        }
    }
}

/// The calling thread's affinity mask.
fn current_set() -> std::io::Result<libc::cpu_set_t> {
    // SAFETY: a zeroed cpu_set_t is a valid empty set, filled by the call; pid 0 is the caller.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    if unsafe { libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(set)
}

/// The CPUs this process may run on (its affinity mask).
pub fn allowed_cpus() -> std::io::Result<Vec<usize>> {
    let set = current_set()?;
    Ok((0..libc::CPU_SETSIZE as usize)
        .filter(|&c| unsafe { libc::CPU_ISSET(c, &set) })
        .collect())
}

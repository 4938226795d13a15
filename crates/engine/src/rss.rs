//! Resident set size from /proc (Linux): the peak can be reset (`clear_refs` 5), so a peak can
//! be read for one untimed run. Elsewhere every function returns `None`/`false`.

fn status_kib(field: &str) -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with(field))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// Resets the process's peak RSS (VmHWM) to its current RSS; false when unsupported.
pub fn reset_peak() -> bool {
    std::fs::write("/proc/self/clear_refs", b"5").is_ok()
}

/// The process's peak RSS in bytes since start or the last [`reset_peak`].
pub fn peak_bytes() -> Option<u64> {
    status_kib("VmHWM:").map(|k| k * 1024)
}

/// The process's current RSS in bytes.
pub fn current_bytes() -> Option<u64> {
    status_kib("VmRSS:").map(|k| k * 1024)
}
